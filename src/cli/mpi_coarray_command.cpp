// collsim-mpi coarray: a segment of coarray PUT/GET statements (Table 1's schemes, the runtime of
// `collsim coarray`) over real MPI one-sided communication, timed like collsim-mpi measure.
#include <iostream>
#include <string>
#include <vector>

#include "cli/coarray_options.hpp"
#include "cli/mpi_commands.hpp"
#include "cli/mpi_measure_options.hpp"
#include "engines/engine.hpp"
#include "engines/mpi/algorithm_call.hpp"
#include "experiment/results/coarray_point.hpp"
#include "experiment/results/measurement.hpp"

namespace collsim {
namespace {

// Followed by kCoarraySectionsHelp.
const char* const kAbout =
    "Engine mpi: the coarray runtime of `collsim coarray` (Omni XcalableMP's schemes, Table 1)\n"
    "over real MPI one-sided communication, one image per process (P >= 2; images other than\n"
    "--origin and --target only join the synchronisations). Per call, the origin image runs\n"
    "one segment: N statements, then sync memory (--sync all: sync all on every image, --sync\n"
    "images: sync images between origin and target). Untimed around each call: windows and\n"
    "arrays filled with known patterns, and a check of every byte against the Fortran\n"
    "assignment. The call's time is the last image's finish, under the timing protocol of\n"
    "`collsim-mpi measure` (common start date, warm-up, repetition until the 95% CI is\n"
    "tight); the text shows the median, the minimum and the CI half-width. The output is\n"
    "that of `collsim coarray`; --csv gives its header and row, with runs, min_s and ci95_s.\n"
    "Under mpirun write a lone ':' section as --local=: (mpirun takes a lone ':' for its MPMD\n"
    "separator); ':,5' and the like need nothing.\n"
    "Exit status 0 when the data was right, 1 when not or the run failed, 2 on bad input.\n";

std::vector<cli::OptionDef> coarray_options() {
  std::vector<cli::OptionDef> defs = cli::coarray_point_options();
  for (auto& d : cli::stop_rule_options()) defs.push_back(d);
  defs.push_back({"csv", "", "print a CSV header and row (collsim coarray's columns) instead of the text"});
  return defs;
}

int measure_coarray(int rank, int size, const cli::ParsedOptions& options) {
  if (size < 2)
    throw cli::UsageError("coarray needs at least 2 images, one per process (mpirun -np 2 collsim-mpi coarray ...)");
  CoarrayPoint point = cli::read_coarray_point(options);
  point.real_bytes = true;  // MPI moves real memory, so it is checked too
  point.images = size;
  const MeasureOptions measure_opts = cli::read_measure_options(options);
  const CoarrayProgram program(point);
  const RunSpec spec = coarray_spec(program, size);

  AlgorithmCall call(MPI_COMM_WORLD, spec);
  const MpiMeasurement result = measure(MPI_COMM_WORLD, call, measure_opts);
  Measurement m;
  set_statistics(m, result.summary, result.ci_met, result.data);
  const CoarrayRow row = measured_coarray_row(std::string(engine_name(Engine::mpi)), point, m);
  if (rank == 0) {
    const std::string missed = cli::ci_missed(m, measure_opts.stop);
    if (options.has("csv"))
      std::cout << coarray_csv_header() << "\n" << coarray_csv_row(row) << "\n";
    else
      std::cout << cli::coarray_summary(row, "engine mpi, " + std::to_string(size) + " images", true)
                << (missed.empty() ? "" : "CI target not met: " + missed + "\n");
    std::cout.flush();
    print_measure_notes(result, m.runs, missed, options.has("csv"));
  }
  return data_status(row.data == "ok");
}

}  // namespace

cli::Command mpi_coarray_command(int rank, int size) {
  return mpi_command(
      "coarray",
      "mpirun -np P collsim-mpi coarray [--put|--get] --local SECTION --local-shape DIMS\n"
      "                    --remote SECTION --remote-shape DIMS [--elem BYTES] [--buffer B] [--registered]\n"
      "                    [--nonblocking safe|nowait|double] [--statements N] [--get-behaviour table1|omni]\n"
      "                    [--sync memory|all|images] [--csv] [options]",
      "time a segment of coarray PUT/GET statements (Table 1's schemes) over MPI RMA",
      std::string(kAbout) + "\n" + cli::kCoarraySectionsHelp, coarray_options(), measure_coarray, rank, size);
}

}  // namespace collsim
