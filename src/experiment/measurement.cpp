#include "experiment/measurement.hpp"

#include <cstdio>

namespace collsim {

Measurement simulated_measurement(std::string engine, std::string op, int procs, std::size_t bytes,
                                  std::size_t segment, int root, double time_s, std::string data) {
  Measurement m;
  m.engine = std::move(engine);
  m.op = std::move(op);
  m.procs = procs;
  m.bytes = bytes;
  m.segment = segment;
  m.root = root;
  m.time_s = m.mean_s = m.median_s = m.min_s = m.max_s = time_s;
  m.data = std::move(data);
  return m;
}

std::string csv_header() {
  return "engine,op,procs,bytes,segment,root,time_s,runs,mean_s,median_s,min_s,max_s,ci95_s,data";
}

namespace {
std::string quoted(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}
std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.9g", v);
  return b;
}
}  // namespace

std::string csv_row(const Measurement& m) {
  return quoted(m.engine) + "," + quoted(m.op) + "," + std::to_string(m.procs) + "," +
         std::to_string(m.bytes) + "," + std::to_string(m.segment) + "," + std::to_string(m.root) +
         "," + num(m.time_s) + "," + std::to_string(m.runs) + "," + num(m.mean_s) + "," +
         num(m.median_s) + "," + num(m.min_s) + "," + num(m.max_s) + "," + num(m.ci95_s) + "," +
         quoted(m.data);
}

}  // namespace collsim
