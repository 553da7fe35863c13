// collsim-mpi: measures collective algorithms on real MPI; launched by mpirun, one process per
// rank. Every rank parses the same arguments and reaches the same verdict on them, so input
// errors need no communication: rank 0 alone prints them and every rank exits with status 2
// after a clean MPI_Finalize.
#include <mpi.h>

#include <cstdio>
#include <exception>
#include <iostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli/measure_options.hpp"
#include "cli/options.hpp"
#include "engines/mpi/measure.hpp"
#include "engines/run.hpp"
#include "experiment/measurement.hpp"
#include "experiment/units.hpp"

namespace collsim {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;  // wrong bytes, or the run itself failed
constexpr int kExitUsage = 2;

const char* const kUsage =
    "usage: mpirun -np P collsim-mpi measure --op NAME --bytes SIZE [options]\n"
    "       collsim-mpi algorithms\n"
    "       collsim-mpi [measure] --help\n"
    "\n"
    "Runs collective algorithms on real MPI, the same algorithm source as the simulated engines.\n"
    "Every rank starts a call at one common date (clocks synchronised to rank 0); a call's time\n"
    "is the last rank's finish minus that date. Calls are repeated until the 95% confidence\n"
    "interval of the mean is within --ci-target of it; the reported time is the median.\n"
    "\n"
    "commands:\n"
    "  measure      time one algorithm on the processes mpirun started\n"
    "  algorithms   list the algorithms\n";

std::vector<cli::OptionDef> measure_options() {
  std::vector<cli::OptionDef> defs = cli::call_options(false);
  defs.push_back({"min-runs", "N", "timed runs at least (default 10)"});
  defs.push_back({"max-runs", "N", "timed runs at most (default 200)"});
  defs.push_back({"ci-target", "F",
                  "stop once the 95% CI half-width is under F times the mean: 0.025 or 2.5% "
                  "(default 2.5%)"});
  defs.push_back({"warmup", "N", "untimed calls before the timed ones (default 2)"});
  defs.push_back({"engine", "NAME", "mpi: our algorithms over MPI point-to-point (default)"});
  defs.push_back({"help", "", "print this help"});
  return defs;
}

std::string measure_usage() {
  return "usage: mpirun -np P collsim-mpi measure --op NAME --bytes SIZE [options]\n"
         "\n"
         "Times one algorithm on the P processes and prints a summary (or a CSV row). Exit status:\n"
         "0 when the data was right, 1 when a byte was wrong or the run failed, 2 on bad input.\n"
         "\n"
         "options:\n" +
         cli::format_options(measure_options());
}

double read_ci_target(const cli::ParsedOptions& options) {
  std::string text = options.text("ci-target");
  if (text.empty()) return 0.025;
  double scale = 1;
  if (text.back() == '%') {
    text.pop_back();
    scale = 0.01;
  }
  const auto value = parse_real(text);
  if (!value || *value <= 0)
    throw cli::UsageError("--ci-target: '" + options.text("ci-target") +
                          "' is not a positive fraction (e.g. 0.025 or 2.5%)");
  return *value * scale;
}

MeasureOptions read_measure_options(const cli::ParsedOptions& options) {
  MeasureOptions m;
  m.stop.min_runs = static_cast<int>(options.integer("min-runs", 10, 1, 1'000'000));
  m.stop.max_runs = static_cast<int>(options.integer("max-runs", 200, 1, 1'000'000));
  if (m.stop.max_runs < m.stop.min_runs)
    throw cli::UsageError("--max-runs " + std::to_string(m.stop.max_runs) + " is below --min-runs " +
                          std::to_string(m.stop.min_runs));
  m.stop.ci_target = read_ci_target(options);
  m.warmup = static_cast<int>(options.integer("warmup", 2, 0, 1'000'000));
  return m;
}

void print_summary(const MpiMeasurement& result, int warmup) {
  const Measurement& m = result.row;
  std::string where = "root " + std::to_string(m.root) + ", ";
  where += m.segment ? "segment " + format_bytes(m.segment) : std::string("unsegmented");
  std::cout << m.op << " on " << m.procs << " processes, " << format_bytes(m.bytes) << " (" << where
            << "), engine " << m.engine << "\n";
  if (m.runs > 0) {
    char spread[32];
    std::snprintf(spread, sizeof spread, "%.1f%%", m.mean_s > 0 ? 100 * m.ci95_s / m.mean_s : 0.0);
    std::cout << "  median " << format_seconds(m.median_s) << "   mean " << format_seconds(m.mean_s)
              << " +- " << spread << " (95% CI)   min " << format_seconds(m.min_s) << "   max "
              << format_seconds(m.max_s) << "\n";
  }
  std::cout << "  " << m.runs << " timed runs after " << warmup << " warm-up, data " << m.data
            << "\n";
  std::cout << "  clocks synchronised to rank 0 within " << format_seconds(result.clock_rtt_s / 2)
            << ", start dates set " << format_seconds(result.lead_s) << " ahead\n";
}

int measure_command(std::span<char* const> args, int rank, int size) {
  const auto defs = measure_options();
  const cli::ParsedOptions options = cli::parse_options(args, defs);
  if (!options.positional.empty())
    throw cli::UsageError("unexpected argument '" + options.positional.front() + "' (see --help)");
  const std::string engine = options.text("engine", "mpi");
  if (engine != "mpi")
    throw cli::UsageError("--engine: '" + engine + "' is not available (one of: mpi)");
  const RunSpec spec = cli::read_call(options, size);
  const MeasureOptions measure_opts = read_measure_options(options);

  const MpiMeasurement result = measure_algorithm(MPI_COMM_WORLD, spec, measure_opts);
  if (rank == 0) {
    if (options.has("csv"))
      std::cout << csv_header() << "\n" << csv_row(result.row) << "\n";
    else
      print_summary(result, measure_opts.warmup);
    std::cout.flush();
    if (result.late_runs > 0)
      std::fprintf(stderr,
                   "collsim-mpi: note: in %d of %d runs a rank reached the start date late (by up "
                   "to %s); those times include the delay\n",
                   result.late_runs, result.row.runs, format_seconds(result.max_late_s).c_str());
  }
  return result.row.data == "ok" ? kExitOk : kExitFailed;
}

bool asks_for_help(std::span<char* const> args) {
  for (std::string_view a : args)
    if (a == "--help" || a == "-h") return true;
  return false;
}

int run(std::span<char* const> args, int rank, int size) {
  auto say = [rank](const std::string& text) {
    if (rank == 0) std::cout << text << std::flush;
  };
  if (args.empty()) throw cli::UsageError("missing command (see collsim-mpi --help)");
  const std::string_view command = args.front();
  const auto rest = args.subspan(1);
  if (command == "--help" || command == "-h" || command == "help") {
    say(kUsage);
    return kExitOk;
  }
  if (command == "measure") {
    if (asks_for_help(rest)) {
      say(measure_usage());
      return kExitOk;
    }
    return measure_command(rest, rank, size);
  }
  if (command == "algorithms") {
    std::string list;
    for (const auto& a : all_algorithms())
      list += std::string(a.name) + "  (Open MPI id " + std::to_string(a.ompi_id) + ")  " +
              std::string(a.summary) + "\n";
    say(list);
    return kExitOk;
  }
  throw cli::UsageError("unknown command '" + std::string(command) +
                        "' (one of: measure, algorithms; see --help)");
}

}  // namespace
}  // namespace collsim

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::span<char* const> args(argv + 1, static_cast<std::size_t>(argc > 1 ? argc - 1 : 0));

  int status = collsim::kExitOk;
  auto report = [rank](const std::string& text) {
    if (rank == 0) std::fprintf(stderr, "collsim-mpi: %s\n", text.c_str());
  };
  try {
    status = collsim::run(args, rank, size);
  } catch (const collsim::cli::UsageError& e) {
    report(e.what());
    status = collsim::kExitUsage;
  } catch (const collsim::InputError& e) {
    report(e.what());
    status = collsim::kExitUsage;
  } catch (const collsim::EngineError& e) {
    // Raised on every rank with the same text (the engine agrees on failures before throwing).
    report(e.what());
    status = collsim::kExitFailed;
  } catch (const std::exception& e) {
    // Anything else may have hit one rank only while the others wait for it: no clean exit.
    std::fprintf(stderr, "collsim-mpi: rank %d: %s\n", rank, e.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, collsim::kExitFailed);
  }
  std::fflush(stdout);
  MPI_Finalize();
  return status;
}
