#include "experiment/results/result_files.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>

#include "experiment/scenario/engine_settings.hpp"
#include "support/units.hpp"

namespace collsim {

std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return b;
}

std::vector<std::string> run_json_head(const std::string& kind, const std::string& file, const std::string& name,
                                       const std::string& description) {
  return {"  \"tool\": \"collsim\"", "  \"kind\": " + json_string(kind), "  \"scenario\": " + json_string(file),
          "  \"name\": " + json_string(name), "  \"description\": " + json_string(description)};
}

std::vector<std::string> run_json_settings(const Scenario& sc) {
  std::vector<std::string> out;
  out.push_back("  \"real_bytes\": " + std::string(sc.real_bytes ? "true" : "false"));
  std::string j = "  \"engines\": [";
  for (std::size_t i = 0; i < sc.engines.size(); ++i) j += (i ? ", " : "") + json_string(sc.engines[i]);
  out.push_back(j + "]");
  for (auto& line : settings_json({.model = sc.model, .sim = sc.sim, .mpi = sc.mpi, .timing = sc.timing}))
    out.push_back(std::move(line));
  j = "  \"operations\": [";
  for (std::size_t i = 0; i < sc.operations.size(); ++i) {
    const auto& op = sc.operations[i];
    j += std::string(i ? ", " : "") + "{\"op\": " + json_string(std::string(op.algorithm->name)) +
         ", \"ompi_id\": " + std::to_string(op.algorithm->ompi_id) + ", \"procs\": [";
    for (std::size_t k = 0; k < op.procs.size(); ++k) j += (k ? ", " : "") + std::to_string(op.procs[k]);
    j += "], \"bytes\": [";
    for (std::size_t k = 0; k < op.bytes.size(); ++k) j += (k ? ", " : "") + std::to_string(op.bytes[k]);
    j += "], \"segment\": [";
    for (std::size_t k = 0; k < op.segments.size(); ++k) j += (k ? ", " : "") + std::to_string(op.segments[k]);
    j += "]}";
  }
  out.push_back(j + "]");
  return out;
}

}  // namespace collsim
