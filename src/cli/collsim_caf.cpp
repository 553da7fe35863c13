// collsim-caf: the caf-native engine's program. Times a Fortran coarray section assignment
// (`remote(...)[target] = local(...)` or its GET) run by OpenCoarrays, with the mpi engines'
// timing protocol; launched by mpirun, one image per process. Like collsim-mpi, every rank parses
// the same arguments and reaches the same verdict, so rank 0 alone prints input errors and every
// rank exits with status 2 after a clean finalisation.
//
// The same source builds collsim-caf-counted, which also links the PMPI counter (rma_count.hpp)
// and reports the MPI calls OpenCoarrays issued per segment.
#include <mpi.h>

#include <cstdio>
#include <exception>
#include <iostream>
#include <span>
#include <string>
#include <vector>

#include "cli/coarray_options.hpp"
#include "cli/command.hpp"
#include "cli/mpi_measure_options.hpp"
#include "cli/options.hpp"
#include "engines/caf/caf_call.hpp"
#include "engines/engine.hpp"
#include "engines/run.hpp"
#include "experiment/results/coarray_point.hpp"
#include "experiment/results/measurement.hpp"
#include "support/units.hpp"

namespace collsim::caf {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;

// The options collsim-caf offers: those of `collsim coarray` but Omni's runtime options, and the
// stop rule.
std::vector<cli::OptionDef> option_defs() {
  std::vector<cli::OptionDef> defs;
  for (auto& d : cli::coarray_point_options()) {
    bool applies = true;
    for (const std::string& name : cli::kOmniRuntimeOptions) applies = applies && d.name != name;
    if (d.name == "statements") d.help = "statements per segment, each on its own copy of both arrays (default 1)";
    if (d.name == "elem")
      d.help = "element size: 1, 2, 4, 8 or 16 (integer(1), integer(2), integer(4), real(8), complex(8)); default 8";
    if (applies) defs.push_back(d);
  }
  for (auto& d : cli::stop_rule_options()) defs.push_back(d);
  defs.push_back({"csv", "", "print a CSV header and row (collsim coarray's columns) instead of the summary"});
  return defs;
}

// Followed by kCoarraySectionsHelp.
const char* const kAbout =
    "Engine caf-native: a real Fortran coarray assignment, compiled by gfortran -fcoarray=lib and\n"
    "run by OpenCoarrays' MPI library, timed with the protocol of the mpi engines (common start\n"
    "date on synchronised clocks, warm-up, repetition until the 95% CI is tight, median). The\n"
    "statement is given as to `collsim coarray` and `collsim-mpi coarray`, and the origin image\n"
    "runs, per segment, N statements then `sync memory`:\n"
    "  PUT  remote(REMOTE, i)[target] = local(LOCAL, i)    i = 1..N (--statements N)\n"
    "  GET  local(LOCAL, i) = remote(REMOTE, i)[target]\n"
    "and the call's time is its finish. --sync all ends the segment with `sync all` on every\n"
    "image, --sync images with `sync images(target)` on the origin and `sync images(origin)` on\n"
    "the target; the call's time is then the last image's finish. Untimed around each call: both\n"
    "sides filled with known patterns, then `sync all` and a check of every element of the\n"
    "assigned side against the same assignment done by plain Fortran. Other images stay idle.\n"
    "--pattern all-to-one|ring|halo (on mpirun's images) makes every image run the statements to\n"
    "its target(s), into a copy of its own at each (remote(REMOTE, (s-1)*N + i)[t], s its slot),\n"
    "and every image checks its side; the time is the last image's finish.\n"
    "\n"
    "--buffer, --registered, --nonblocking and --get-behaviour describe Omni's runtime, not\n"
    "OpenCoarrays: they do not apply to caf-native (exit status 2).\n"
    "\n"
    "--csv prints collsim coarray's header and row. Its Table 1 columns (case, nl_bytes,\n"
    "nr_bytes, buffer, unit_bytes, transfers, copies) are what Table 1 would do for this\n"
    "statement with Omni's default buffer, for comparison, not what OpenCoarrays did; time_s\n"
    "(the median), runs, min_s, ci95_s and data are this engine's measurement.\n"
    "\n"
    "collsim-caf-counted (same options) also counts, with a PMPI interposer, the MPI calls the\n"
    "origin issued per segment and prints them in the summary (not in the CSV row); the\n"
    "counting costs a little time per call.\n"
    "Under mpirun write a lone ':' section as --local=: (mpirun takes a lone ':' for its MPMD\n"
    "separator); ':,5' and the like need nothing.\n"
    "Exit status 0 when the data was right, 1 when wrong or the run failed, 2 on bad input.\n";

// One side of the point in the engine's terms: declared bounds 1..extent, the subscripts as written.
std::vector<CafDim> caf_dims(const coarray::Section& section) {
  std::vector<CafDim> dims;
  for (std::size_t i = 0; i < section.dims().size(); ++i) {
    const coarray::Triplet& t = section.dims()[i];
    CafDim d;
    d.lbound = 1;
    d.extent = static_cast<std::int64_t>(section.shape().extents[i]);
    d.lower = t.lower;
    d.upper = t.upper;
    d.stride = t.stride;
    d.scalar = t.scalar;
    dims.push_back(d);
  }
  return dims;
}

CafAssignment caf_assignment(const CoarrayPoint& p, int images) {
  CafAssignment a;
  a.local = caf_dims(p.local);
  a.remote = caf_dims(p.remote);
  a.element_bytes = static_cast<int>(p.local.shape().element_bytes);
  a.get = p.get;
  a.copies = static_cast<int>(p.statements);
  a.origin_image = p.origin + 1;
  a.target_image = p.target + 1;
  a.sync = p.sync;
  a.pattern = p.pattern;
  if (std::string problem = assignment_problem(a, images); !problem.empty()) throw cli::UsageError(problem);
  return a;
}

// The point's row: what moved (op, images, bytes of a segment, origin rank) and its statistics.
Measurement caf_row(const CafAssignment& a, const CafMeasurement& result) {
  Measurement m;
  m.engine = engine_name(Engine::caf_native);
  m.op = a.get ? "get" : "put";
  MPI_Comm_size(MPI_COMM_WORLD, &m.procs);
  m.bytes = static_cast<std::size_t>(section_elements(a.local) * a.element_bytes * a.copies);
  m.root = a.origin_image - 1;
  set_statistics(m, result.measured.summary, result.measured.ci_met, result.measured.data);
  return m;
}

void print_summary(const CafAssignment& a, const CoarrayPoint& point, const CafMeasurement& result, int warmup) {
  const Measurement m = caf_row(a, result);
  std::cout << m.engine << " " << m.op << " on " << m.procs << " images: image " << a.origin_image << " "
            << (a.get ? "gets from" : "puts to") << " image " << a.target_image << ", " << a.copies
            << (a.copies == 1 ? " statement" : " statements") << " per segment\n";
  const std::int64_t elements = section_elements(a.local);
  std::cout << "  " << elements * a.element_bytes << " B per statement (" << elements << " elements of "
            << a.element_bytes << " B), contiguous lengths NL " << contiguous_bytes(a.local, a.element_bytes)
            << " B, NR " << contiguous_bytes(a.remote, a.element_bytes) << " B\n";
  if (m.runs > 0) {
    char spread[32];
    std::snprintf(spread, sizeof spread, "%.1f%%", m.mean_s > 0 ? 100 * m.ci95_s / m.mean_s : 0.0);
    std::cout << "  median " << format_seconds(m.median_s) << "   mean " << format_seconds(m.mean_s) << " +- " << spread
              << " (95% CI)   min " << format_seconds(m.min_s) << "   max " << format_seconds(m.max_s) << "\n";
  }
  std::cout << "  " << m.runs << " timed runs after " << warmup << " warm-up, data " << m.data << "\n";
  const coarray::Plan plan = point.plan();
  std::cout << "  Table 1 would pick case " << plan.scheme.table_case << " (B = " << plan.scheme.buffer
            << "): " << plan.transfers << (a.get ? " gets" : " puts") << " of " << plan.scheme.unit << " B, "
            << plan.copies << " copies per segment\n";
  if (const auto& c = result.counts) {
    std::cout << "  MPI calls on image " << a.origin_image << " per segment: " << c->puts << " MPI_Put ("
              << c->put_bytes << " B), " << c->gets << " MPI_Get (" << c->get_bytes << " B), " << c->locks
              << " MPI_Win_lock, " << c->unlocks << " MPI_Win_unlock, " << c->lock_alls << " MPI_Win_lock_all, "
              << c->flushes << " flushes, " << c->barriers << " MPI_Barrier\n";
  }
}

int run(const cli::ParsedOptions& options, int argc, char** argv, int rank, int size) {
  if (size < 2) throw cli::UsageError("needs at least 2 images (mpirun -np 2 collsim-caf ...)");
  CoarrayPoint point = cli::read_coarray_point(options);
  point.images = size;
  const CafAssignment a = caf_assignment(point, size);
  const MeasureOptions measure_options = cli::read_measure_options(options);

  start_runtime(&argc, &argv);
  CafMeasurement result;
  try {
    result = measure_caf(a, measure_options);
  } catch (...) {
    stop_runtime();
    throw;
  }
  stop_runtime();
  if (rank == 0) {
    const Measurement m = caf_row(a, result);
    const CoarrayRow row = measured_coarray_row(std::string(engine_name(Engine::caf_native)), point, m);
    const std::string missed = cli::ci_missed(m, measure_options.stop);
    if (options.has("csv"))
      std::cout << coarray_csv_header() << "\n" << coarray_csv_row(row) << "\n";
    else
      print_summary(a, point, result, measure_options.warmup);
    if (!missed.empty() && !options.has("csv")) std::cout << "  CI target not met: " << missed << "\n";
    std::cout.flush();
    if (!missed.empty() && options.has("csv")) std::fprintf(stderr, "collsim-caf: note: %s\n", missed.c_str());
    if (m.data != "ok") std::fprintf(stderr, "collsim-caf: %s\n", m.data.c_str());
    if (result.measured.late_runs > 0)
      std::fprintf(stderr,
                   "collsim-caf: note: in %d of %d runs an image reached the start date late (by up to %s); "
                   "those times include the delay\n",
                   result.measured.late_runs, m.runs, format_seconds(result.measured.max_late_s).c_str());
  }
  return result.measured.data == "ok" ? kExitOk : kExitFailed;
}

cli::Command caf_command(int argc, char** argv, int rank, int size) {
  return {"collsim-caf",
          "mpirun -np 2 collsim-caf [--put|--get] --local SECTION --local-shape DIMS --remote SECTION\n"
          "                               --remote-shape DIMS [--elem BYTES] [--statements N] [--csv] [options]",
          "a Fortran coarray section assignment run by OpenCoarrays, timed",
          std::string(kAbout) + "\n" + cli::kCoarraySectionsHelp,
          option_defs(),
          [=](const cli::ParsedOptions& options) { return run(options, argc, argv, rank, size); }};
}

// Runs the command on main's arguments. Omni's runtime options are not among its options, so
// parsing stops at one as unknown: the error says why instead.
int run_caf(int argc, char** argv, int rank, int size, std::ostream& out) {
  const std::span<char* const> args(argv + 1, static_cast<std::size_t>(argc > 1 ? argc - 1 : 0));
  try {
    return cli::run_single(caf_command(argc, argv, rank, size), args, out);
  } catch (const cli::UsageError&) {
    for (const std::string arg : args)
      for (const std::string& name : cli::kOmniRuntimeOptions)
        if (arg == "--" + name || arg.starts_with("--" + name + "=")) throw cli::UsageError(cli::not_for_caf(name));
    throw;
  }
}

}  // namespace
}  // namespace collsim::caf

int main(int argc, char** argv) {
  using namespace collsim;
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int status = caf::kExitOk;
  std::ostream discard(nullptr);  // --help from rank 0 only
  try {
    status = caf::run_caf(argc, argv, rank, size, rank == 0 ? std::cout : discard);
  } catch (const std::exception& e) {
    // Bad input is seen alike by every rank, and rank 0 says it; anything else, the rank it hit.
    if (!cli::is_input_error(e))
      std::fprintf(stderr, "collsim-caf: rank %d: %s\n", rank, e.what());
    else if (rank == 0)
      std::fprintf(stderr, "collsim-caf: %s\n", e.what());
    status = cli::exit_status(e);
  }
  MPI_Finalize();
  return status;
}
