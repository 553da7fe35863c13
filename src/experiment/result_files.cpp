#include "experiment/result_files.hpp"

#include <chrono>
#include <ctime>
#include <filesystem>
#include <stdexcept>

#include "experiment/units.hpp"

namespace collsim {

namespace fs = std::filesystem;

namespace {

std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return b;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);
          out += b;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

}  // namespace

ResultFiles::ResultFiles(const std::string& dir, const Scenario& scenario, std::size_t planned)
    : scenario_(scenario), started_(utc_now()), planned_(planned) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error(dir + ": cannot create the output folder: " + ec.message());
  csv_path_ = (fs::path(dir) / "results.csv").string();
  json_path_ = (fs::path(dir) / "run.json").string();
  csv_.open(csv_path_, std::ios::trunc);
  if (!csv_) throw std::runtime_error(csv_path_ + ": cannot write");
  csv_ << csv_header() << '\n' << std::flush;
  write_json("running");
}

void ResultFiles::add(const Measurement& m) {
  csv_ << csv_row(m) << '\n' << std::flush;
  ++written_;
}

void ResultFiles::finish(const std::string& status) { write_json(status); }

void ResultFiles::write_json(const std::string& status) {
  const Scenario& sc = scenario_;
  std::string j = "{\n";
  j += "  \"tool\": \"collsim\",\n";
  j += "  \"scenario\": " + json_string(sc.file) + ",\n";
  j += "  \"name\": " + json_string(sc.name) + ",\n";
  j += "  \"description\": " + json_string(sc.description) + ",\n";
  j += "  \"status\": " + json_string(status) + ",\n";
  j += "  \"started\": " + json_string(started_) + ",\n";
  j += "  \"updated\": " + json_string(utc_now()) + ",\n";
  j += "  \"measurements_planned\": " + std::to_string(planned_) + ",\n";
  j += "  \"measurements_written\": " + std::to_string(written_) + ",\n";
  j += "  \"results_csv\": " + json_string(fs::path(csv_path_).filename().string()) + ",\n";
  j += "  \"real_bytes\": " + std::string(sc.real_bytes ? "true" : "false") + ",\n";
  j += "  \"engines\": [";
  for (std::size_t i = 0; i < sc.engines.size(); ++i) j += (i ? ", " : "") + json_string(sc.engines[i]);
  j += "],\n";
  const ModelConfig& m = sc.model;
  // Two-level: alpha and beta are between nodes, as in the scenario file.
  const models::Hockney& h = m.kind == ModelConfig::Kind::two_level ? m.two_level.inter : m.hockney;
  j += "  \"model\": {\"kind\": " + json_string(to_string(m.kind)) + ", \"alpha\": " + format_real(h.alpha) +
       ", \"beta\": " + format_real(h.beta) + ", \"intra_alpha\": " + format_real(m.two_level.intra.alpha) +
       ", \"intra_beta\": " + format_real(m.two_level.intra.beta) + ", \"L\": " + format_real(m.loggp.L) +
       ", \"o\": " + format_real(m.loggp.o) + ", \"g\": " + format_real(m.loggp.g) +
       ", \"G\": " + format_real(m.loggp.G) + ", \"one_port\": " + (m.one_port ? "true" : "false") +
       ", \"copy_bandwidth\": " + format_real(m.copy_bandwidth) + "},\n";
  j += "  \"sim\": {\"platform\": " + json_string(sc.sim.platform_file) +
       ", \"protocol\": " + json_string(sc.sim.protocol) + ", \"protocol_options\": [";
  for (std::size_t i = 0; i < sc.sim.protocol_options.size(); ++i)
    j += (i ? ", " : "") + json_string(sc.sim.protocol_options[i]);
  j += "], \"map_by\": " + json_string(models::to_string(sc.sim.map_by)) +
       ", \"eager_limit\": " + std::to_string(sc.sim.eager_limit) + ", \"cfg\": [";
  for (std::size_t i = 0; i < sc.sim.cfg.size(); ++i) j += (i ? ", " : "") + json_string(sc.sim.cfg[i]);
  j += "]},\n";
  j += "  \"mpi\": {\"launcher\": [";
  const auto launcher = launcher_command(sc.mpi);
  for (std::size_t i = 0; i < launcher.size(); ++i) j += (i ? ", " : "") + json_string(launcher[i]);
  j += "], \"program\": " + json_string(mpi_program(sc.mpi)) + ", \"min_runs\": " + std::to_string(sc.mpi.min_runs) +
       ", \"max_runs\": " + std::to_string(sc.mpi.max_runs) + ", \"ci_target\": " + format_real(sc.mpi.ci_target) +
       ", \"timeout_s\": " + format_real(sc.mpi.timeout_s) + "},\n";
  j += "  \"operations\": [";
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
  j += "]\n}\n";
  // Write beside and rename, so a reader never sees half a file.
  const std::string tmp = json_path_ + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!out) throw std::runtime_error(tmp + ": cannot write");
    out << j;
  }
  fs::rename(tmp, json_path_);
}

}  // namespace collsim
