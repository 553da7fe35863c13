// collsim-mpi measure: one algorithm timed on the processes mpirun started, ours (engine mpi) or
// Open MPI's own forced to it (engine mpi-native), optionally with the trace of one call.
#include <mpi.h>

#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli/measure_options.hpp"
#include "cli/mpi_commands.hpp"
#include "cli/mpi_measure_options.hpp"
#include "engines/mpi/trace_gather.hpp"
#include "engines/run.hpp"
#include "experiment/results/measurement.hpp"
#include "experiment/trace/trace_files.hpp"
#include "support/units.hpp"

namespace collsim {
namespace {

const char* const kAbout =
    "Times one algorithm on the P processes and prints a summary (or a CSV row): ours\n"
    "(--engine mpi), or Open MPI's own MPI_Bcast/MPI_Gather forced to the algorithm of the\n"
    "same name and knobs (--engine mpi-native; it refuses, with status 2, anything that\n"
    "would leave Open MPI free to pick another). Exit status: 0 when the data was right,\n"
    "1 when a byte was wrong or the run failed, 2 on bad input.\n"
    "--trace records the first timed call (not the warm-up, not the later repetitions): on\n"
    "each rank the posts and completions of its operations and, for each request, the moment\n"
    "the wait that completed it returned (MPI shows nothing in between), on the common time\n"
    "axis of the timing protocol (clock offsets to rank 0 applied), merged on rank 0, which\n"
    "pairs each isend with the irecv it met (the message id of both request_done events).";

std::vector<cli::OptionDef> measure_options() {
  std::vector<cli::OptionDef> defs = cli::call_options(false);
  for (auto& d : cli::stop_rule_options()) defs.push_back(d);
  defs.push_back({"engine", "NAME",
                  "mpi: our algorithms over MPI point-to-point (default); mpi-native: Open MPI's "
                  "own MPI_Bcast/MPI_Gather forced to the algorithm of the same name and knobs"});
  defs.push_back({"trace", "FILE",
                  "write the events of one call, the first timed one after the warm-up, to FILE; its "
                  "extension picks the format (.csv; .json Perfetto; .paje ViTE); engine mpi only"});
  return defs;
}

void print_summary(const Measurement& m, const MpiMeasurement& result, const MeasureOptions& options) {
  std::string where = "root " + std::to_string(m.root) + ", ";
  where += m.segment ? "segment " + format_bytes(m.segment) : std::string("unsegmented");
  std::cout << m.op << " on " << m.procs << " processes, " << format_bytes(m.bytes) << " (" << where << "), engine "
            << m.engine << "\n";
  if (m.runs > 0) {
    char spread[32];
    std::snprintf(spread, sizeof spread, "%.1f%%", m.mean_s > 0 ? 100 * m.ci95_s / m.mean_s : 0.0);
    std::cout << "  median " << format_seconds(m.median_s) << "   mean " << format_seconds(m.mean_s) << " +- " << spread
              << " (95% CI)   min " << format_seconds(m.min_s) << "   max " << format_seconds(m.max_s) << "\n";
  }
  std::cout << "  " << m.runs << " timed runs after " << options.warmup << " warm-up"
            << (m.ci_met.value_or(false) ? ", 95% CI within --ci-target " + cli::percent(options.stop.ci_target) : "")
            << ", data " << m.data << "\n";
  if (const std::string missed = cli::ci_missed(m, options.stop); !missed.empty())
    std::cout << "  CI target not met: " << missed << "\n";
  std::cout << "  clocks synchronised to rank 0 within " << format_seconds(result.clock_rtt_s / 2)
            << ", start dates set " << format_seconds(result.lead_s) << " ahead\n";
}

// Rank 0 writes an empty trace to `path` before anything is measured, so that a format
// write_trace does not know or a file it cannot write stops every rank at once (status 2).
void check_trace_file(const std::string& path, int rank) {
  std::string problem;
  if (rank == 0) {
    try {
      write_trace(path, {});
    } catch (const std::exception& e) {
      problem = e.what();
    }
  }
  unsigned long length = problem.size();
  MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD);
  problem.resize(length);
  MPI_Bcast(problem.data(), static_cast<int>(length), MPI_CHAR, 0, MPI_COMM_WORLD);
  if (!problem.empty()) throw cli::UsageError("--trace: " + problem);
}

int measure_one(int rank, int size, const cli::ParsedOptions& options) {
  const Engine engine = read_engine(options);
  const RunSpec spec = cli::read_call(options, size);
  MeasureOptions measure_opts = cli::read_measure_options(options);
  const bool tracing = options.has("trace");
  if (tracing && engine == Engine::mpi_native)
    throw cli::UsageError(
        "--trace: engine mpi-native (Open MPI's own collective) cannot be traced, its messages "
        "are inside MPI; trace --engine mpi");
  if (tracing) check_trace_file(options.text("trace"), rank);
  TraceBuffer trace;
  if (tracing) measure_opts.trace = &trace;

  const MpiMeasurement result = measure_engine(MPI_COMM_WORLD, engine, spec, measure_opts);
  const Measurement row =
      measured_row(std::string(engine_name(engine)), spec, result.summary, result.ci_met, result.data);
  if (tracing) {
    TracedRun run{std::string(engine_name(Engine::mpi)), describe(spec), size,
                  gather_trace(MPI_COMM_WORLD, trace.events())};
    if (rank == 0) {
      write_trace(options.text("trace"), {run});
      const std::string when = result.samples_s.empty()
                                   ? std::string("no timed call")
                                   : "the first timed call, " + format_seconds(result.samples_s[0]);
      std::fprintf(stderr, "collsim-mpi: trace of %s: %zu events written to %s\n", when.c_str(), run.events.size(),
                   options.text("trace").c_str());
    }
  }
  if (rank == 0) {
    if (options.has("csv"))
      std::cout << csv_header() << "\n" << csv_row(row) << "\n";
    else
      print_summary(row, result, measure_opts);
    std::cout.flush();
    // The text says it above; beside a CSV row (ci_target_met 0), a line for whoever watches.
    print_measure_notes(result, row.runs, cli::ci_missed(row, measure_opts.stop), options.has("csv"));
  }
  return data_status(row.data == "ok");
}

}  // namespace

cli::Command mpi_measure_command(int rank, int size) {
  return mpi_command("measure", "mpirun -np P collsim-mpi measure --op NAME --bytes SIZE [options]",
                     "time one algorithm on the processes mpirun started", kAbout, measure_options(), measure_one, rank,
                     size);
}

}  // namespace collsim
