// What several collsim-mpi commands share: their option readers, the output file of rank 0, the
// notes after a measurement and the number formats of their tables.
#include "cli/mpi_commands.hpp"

#include <mpi.h>

#include <cstdio>
#include <sstream>
#include <utility>

#include "support/units.hpp"

namespace collsim {
namespace {

std::size_t read_size(const std::string& option, const std::string& text) {
  const auto value = parse_bytes(text);
  if (!value) throw cli::UsageError(option + ": '" + text + "' is not a size in bytes");
  return *value;
}

}  // namespace

cli::Command mpi_command(std::string name, std::string synopsis, std::string summary, std::string about,
                         std::vector<cli::OptionDef> options, MpiWork work, int rank, int size) {
  return {std::move(name),    std::move(synopsis),
          std::move(summary), std::move(about),
          std::move(options), [work, rank, size](const cli::ParsedOptions& o) { return work(rank, size, o); }};
}

Engine read_engine(const cli::ParsedOptions& options) {
  const std::string name = options.text("engine", std::string(engine_name(Engine::mpi)));
  const auto engine = parse_engine(name, {Engine::mpi, Engine::mpi_native});
  if (!engine)
    throw cli::UsageError("--engine: " + not_an_engine(name, {Engine::mpi, Engine::mpi_native}, "available"));
  return *engine;
}

std::vector<std::size_t> read_sizes(const cli::ParsedOptions& options, const std::string& fallback) {
  const std::string text = options.text("sizes", fallback);
  std::vector<std::size_t> sizes;
  if (const auto dots = text.find(".."); dots != std::string::npos) {
    const std::size_t from = read_size("--sizes", text.substr(0, dots));
    const std::size_t to = read_size("--sizes", text.substr(dots + 2));
    if (from == 0 || to < from) throw cli::UsageError("--sizes: '" + text + "' is not a range A..B with 0 < A <= B");
    // Stops before doubling past `to` (or past the largest size_t, for a `to` near it).
    for (std::size_t s = from;; s *= 2) {
      sizes.push_back(s);
      if (s > to / 2) break;
    }
    return sizes;
  }
  std::string item;
  for (std::istringstream in(text); std::getline(in, item, ',');) sizes.push_back(read_size("--sizes", item));
  if (sizes.empty()) throw cli::UsageError("--sizes: no sizes in '" + text + "'");
  return sizes;
}

std::ofstream open_csv(const cli::ParsedOptions& options, int rank) {
  std::ofstream csv;
  int opened = 1;
  if (options.has("output") && rank == 0) {
    csv.open(options.text("output"));
    opened = csv ? 1 : 0;
  }
  MPI_Bcast(&opened, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!opened) throw cli::UsageError("--output: cannot write '" + options.text("output") + "'");
  return csv;
}

void print_measure_notes(const MpiMeasurement& result, int runs, const std::string& missed, bool csv) {
  if (!missed.empty() && csv) std::fprintf(stderr, "collsim-mpi: note: %s\n", missed.c_str());
  if (result.late_runs > 0)
    std::fprintf(stderr,
                 "collsim-mpi: note: in %d of %d runs a rank reached the start date late (by up "
                 "to %s); those times include the delay\n",
                 result.late_runs, runs, format_seconds(result.max_late_s).c_str());
}

std::string padded(std::string text, std::size_t width, bool right) {
  if (text.size() >= width) return text + " ";
  const std::string pad(width - text.size(), ' ');
  return (right ? pad + text : text + pad) + " ";
}

}  // namespace collsim
