#include "experiment/trace_files.hpp"

#include <charconv>
#include <fstream>
#include <sstream>

#include "algorithms/input_error.hpp"
#include "comm/comm.hpp"
#include "experiment/measurement.hpp"
#include "experiment/units.hpp"

namespace collsim {

namespace {

constexpr const char* kColumns = "run,engine,label,procs,kind,op,time,rank,peer,tag,bytes,message,request,protocol,latency";
constexpr int kColumnCount = 15;

std::string extension_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  const auto dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  return path.substr(dot);
}

template <class T>
T number(const std::string& text, const std::string& where, const char* column) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size())
    throw InputError(where + ": " + column + " '" + text + "' is not a number");
  return value;
}

}  // namespace

OpKind op_kind_named(const std::string& name) {
  for (auto k : {OpKind::isend, OpKind::irecv, OpKind::wait_all, OpKind::wait_any, OpKind::barrier, OpKind::copy,
                 OpKind::win_allocate, OpKind::win_free, OpKind::put, OpKind::get, OpKind::flush, OpKind::win_sync})
    if (name == to_string(k)) return k;
  throw InputError("unknown operation '" + name + "'");
}

TraceKind trace_kind_named(const std::string& name) {
  for (auto k : {TraceKind::post, TraceKind::complete, TraceKind::send_start, TraceKind::arrive, TraceKind::request_done})
    if (name == to_string(k)) return k;
  throw InputError("unknown trace event kind '" + name + "'");
}

TraceProtocol trace_protocol_named(const std::string& name) {
  for (auto p : {TraceProtocol::none, TraceProtocol::eager, TraceProtocol::rendezvous, TraceProtocol::one_sided})
    if (name == to_string(p)) return p;
  throw InputError("unknown protocol '" + name + "'");
}

std::string trace_csv(const std::vector<TracedRun>& runs) {
  std::ostringstream out;
  out << kColumns << "\n";
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const TracedRun& run = runs[i];
    const std::string head = std::to_string(i) + "," + csv_quoted(run.engine) + "," + csv_quoted(run.label) + "," +
                             std::to_string(run.procs) + ",";
    for (const TraceEvent& e : run.events)
      out << head << to_string(e.kind) << ',' << to_string(e.op) << ',' << format_real(e.time) << ',' << e.rank << ','
          << e.peer << ',' << e.tag << ',' << e.bytes << ',' << e.message << ',' << e.request << ','
          << to_string(e.protocol) << ',' << format_real(e.latency) << "\n";
  }
  return out.str();
}

std::vector<TracedRun> read_trace_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot read the file");
  std::string line;
  if (!std::getline(in, line) || line != kColumns)
    throw InputError(path + ":1: not a collsim trace (its header must be " + std::string(kColumns) + ")");
  std::vector<TracedRun> runs;
  for (int n = 2; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    const std::string where = path + ":" + std::to_string(n);
    const std::vector<std::string> f = split_csv(line);
    if (static_cast<int>(f.size()) != kColumnCount)
      throw InputError(where + ": " + std::to_string(f.size()) + " fields, expected " + std::to_string(kColumnCount));
    const auto run = number<std::size_t>(f[0], where, "run");
    if (run > runs.size()) throw InputError(where + ": run " + f[0] + " comes before run " + std::to_string(runs.size()));
    if (run == runs.size()) runs.push_back({f[1], f[2], number<int>(f[3], where, "procs"), {}});
    TraceEvent e;
    try {
      e.kind = trace_kind_named(f[4]);
      e.op = op_kind_named(f[5]);
      e.protocol = trace_protocol_named(f[13]);
    } catch (const InputError& bad) {
      throw InputError(where + ": " + bad.what());
    }
    e.time = number<double>(f[6], where, "time");
    e.rank = number<int>(f[7], where, "rank");
    e.peer = number<int>(f[8], where, "peer");
    e.tag = number<int>(f[9], where, "tag");
    e.bytes = number<std::uint64_t>(f[10], where, "bytes");
    e.message = number<std::int64_t>(f[11], where, "message");
    e.request = number<std::int64_t>(f[12], where, "request");
    e.latency = number<double>(f[14], where, "latency");
    if (e.rank < 0 || e.rank >= runs[run].procs)
      throw InputError(where + ": rank " + f[7] + " is not one of the run's " + f[3] + " processes");
    runs[run].events.push_back(e);
  }
  return runs;
}

void write_trace(const std::string& path, const std::vector<TracedRun>& runs) {
  const std::string ext = extension_of(path);
  std::string text;
  if (ext == ".csv")
    text = trace_csv(runs);
  else
    throw InputError(path + ": unknown trace format '" + ext + "' (.csv, .json for Perfetto, .paje for ViTE)");
  std::ofstream out(path, std::ios::binary);
  if (!out || !(out << text) || !out.flush()) throw InputError(path + ": cannot write the trace");
}

}  // namespace collsim
