#include "experiment/result_files.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>

#include "engines/sim/protocol.hpp"
#include "experiment/mpi_launcher.hpp"
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
  const ModelConfig& m = sc.model;
  // Two-level: alpha and beta are between nodes, as in the scenario file.
  const models::Hockney& h = m.kind == ModelConfig::Kind::two_level ? m.two_level.inter : m.hockney;
  out.push_back("  \"model\": {\"kind\": " + json_string(to_string(m.kind)) + ", \"alpha\": " + format_real(h.alpha) +
                ", \"beta\": " + format_real(h.beta) + ", \"intra_alpha\": " + format_real(m.two_level.intra.alpha) +
                ", \"intra_beta\": " + format_real(m.two_level.intra.beta) + ", \"L\": " + format_real(m.loggp.L) +
                ", \"o\": " + format_real(m.loggp.o) + ", \"g\": " + format_real(m.loggp.g) +
                ", \"G\": " + format_real(m.loggp.G) + ", \"one_port\": " + (m.one_port ? "true" : "false") +
                ", \"copy_bandwidth\": " + format_real(m.copy_bandwidth) +
                ", \"reduce_gamma\": " + format_real(m.reduce_gamma) + "}");
  j = "  \"sim\": {\"platform\": " + json_string(sc.sim.platform_file) +
      ", \"protocol\": " + json_string(sc.sim.protocol) + ", \"protocol_options\": [";
  for (std::size_t i = 0; i < sc.sim.protocol_options.size(); ++i)
    j += (i ? ", " : "") + json_string(sc.sim.protocol_options[i]);
  j += "], \"map_by\": " + json_string(models::to_string(sc.sim.map_by)) +
       ", \"eager_limit\": " + std::to_string(sc.sim.eager_limit.value_or(kIdealEagerLimit)) + ", \"cfg\": [";
  for (std::size_t i = 0; i < sc.sim.cfg.size(); ++i) j += (i ? ", " : "") + json_string(sc.sim.cfg[i]);
  out.push_back(j + "]}");
  j = "  \"mpi\": {\"launcher\": [";
  const auto launcher = launcher_command(sc.mpi);
  for (std::size_t i = 0; i < launcher.size(); ++i) j += (i ? ", " : "") + json_string(launcher[i]);
  j += "], \"program\": " + json_string(mpi_program(sc.mpi)) + ", \"min_runs\": " + std::to_string(sc.mpi.min_runs) +
       ", \"max_runs\": " + std::to_string(sc.mpi.max_runs) + ", \"ci_target\": " + format_real(sc.mpi.ci_target) +
       ", \"timeout_s\": " + format_real(sc.mpi.timeout_s) + "}";
  out.push_back(j);
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
