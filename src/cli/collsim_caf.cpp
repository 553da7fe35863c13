// collsim-caf: the caf-native engine's program. Times a Fortran coarray section assignment
// (`remote(...)[target] = local(...)` or its GET) run by OpenCoarrays, with the mpi engines'
// timing protocol; launched by mpirun, one image per process. Like collsim-mpi, every rank parses
// the same arguments and reaches the same verdict, so rank 0 alone prints input errors and every
// rank exits with status 2 after a clean finalisation.
//
// The same source builds collsim-caf-counted, which also links the PMPI counter (rma_count.hpp)
// and reports the MPI calls OpenCoarrays issued per segment.
#include <mpi.h>

#include <charconv>
#include <climits>
#include <cstdio>
#include <exception>
#include <iostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli/options.hpp"
#include "engines/caf/caf_call.hpp"
#include "engines/run.hpp"
#include "experiment/units.hpp"

namespace collsim::caf {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

std::vector<cli::OptionDef> option_defs() {
  return {
      {"local", "SECTION", "the local section, e.g. 1:1000:2,1:50 (see below)"},
      {"local-shape", "EXTENTS", "the local array's extents, e.g. 1000,100 (lower bounds 1)"},
      {"remote", "SECTION", "the remote coarray's section"},
      {"remote-shape", "EXTENTS", "the remote coarray's extents"},
      {"elem-bytes", "B",
       "element size: 1, 2, 4, 8 or 16 (integer(1), integer(2), integer(4), real(8), complex(8)); default 8"},
      {"put", "", "remote(...)[target] = local(...) (the default)"},
      {"get", "", "local(...) = remote(...)[target]"},
      {"copies", "N", "statements per segment, each on its own copy of both arrays (default 1)"},
      {"origin", "I", "the image that executes the statements (default 1)"},
      {"target", "J", "the image in the coindex (default 2)"},
      {"min-runs", "N", "timed runs at least (default 10)"},
      {"max-runs", "N", "timed runs at most (default 200)"},
      {"ci-target", "F", "stop once the 95% CI half-width is under F times the mean: 0.025 or 2.5% (default 2.5%)"},
      {"warmup", "N", "untimed calls before the timed ones (default 2)"},
      {"csv", "", "print a CSV header and row instead of the summary"},
      {"help", "", "print this help"},
  };
}

std::string usage() {
  return "usage: mpirun -np 2 collsim-caf --local SECTION --local-shape EXTENTS --remote SECTION\n"
         "                               --remote-shape EXTENTS [--get] [options]\n"
         "\n"
         "Engine caf-native: a real Fortran coarray assignment, compiled by gfortran -fcoarray=lib and\n"
         "run by OpenCoarrays' MPI library, timed with the protocol of the mpi engines (common start\n"
         "date on synchronised clocks, warm-up, repetition until the 95% CI is tight, median). The\n"
         "origin image runs, per segment, N statements then `sync memory`:\n"
         "  PUT  remote(SECTION, i)[target] = local(SECTION, i)    i = 1..N\n"
         "  GET  local(SECTION, i) = remote(SECTION, i)[target]\n"
         "and the call's time is its finish. Untimed around each call: both sides filled with known\n"
         "patterns, then `sync all` and a check of every element of the assigned side against the\n"
         "same assignment done by plain Fortran. Other images stay idle.\n"
         "\n"
         "SECTION: one subscript per dimension, separated by commas, each an integer k (a scalar\n"
         "subscript, which drops the dimension), lower:upper or lower:upper:stride; up to 7\n"
         "dimensions, as many as the shape has. Example: --local 1:1000:2,1:100 --local-shape 1000,100.\n"
         "\n"
         "collsim-caf-counted (same options) also counts, with a PMPI interposer, the MPI calls the\n"
         "origin issued per segment; the counting costs a little time per call.\n"
         "Exit status 0 when the data was right, 1 when wrong or the run failed, 2 on bad input.\n"
         "\n"
         "options:\n" +
         cli::format_options(option_defs());
}

// Stand-in until the Fortran section parser (src/algorithms/coarray/section.hpp) is merged: plain
// integers only, no omitted bounds, no expressions.
std::int64_t plain_integer(const std::string& option, std::string_view text) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size())
    throw cli::UsageError("--" + option + ": '" + std::string(text) + "' is not an integer");
  return value;
}

std::vector<CafDim> read_side(const cli::ParsedOptions& options, const std::string& name) {
  const std::string shape_name = name + "-shape";
  if (!options.has(name)) throw cli::UsageError("--" + name + " is missing (see --help)");
  if (!options.has(shape_name)) throw cli::UsageError("--" + shape_name + " is missing (see --help)");
  const auto subscripts = cli::split_commas(options.text(name));
  const auto extents = cli::split_commas(options.text(shape_name));
  if (subscripts.size() != extents.size())
    throw cli::UsageError("--" + name + " has " + std::to_string(subscripts.size()) + " subscripts for the " +
                          std::to_string(extents.size()) + " dimensions of --" + shape_name);
  std::vector<CafDim> dims(extents.size());
  for (std::size_t i = 0; i < dims.size(); ++i) {
    CafDim& d = dims[i];
    d.extent = plain_integer(shape_name, extents[i]);
    std::vector<std::string_view> parts;
    std::string_view rest = subscripts[i];
    for (std::size_t colon; (colon = rest.find(':')) != std::string_view::npos; rest.remove_prefix(colon + 1))
      parts.push_back(rest.substr(0, colon));
    parts.push_back(rest);
    if (parts.size() > 3)
      throw cli::UsageError("--" + name + ": '" + subscripts[i] + "' is not k, lower:upper or lower:upper:stride");
    d.lower = plain_integer(name, parts[0]);
    d.scalar = parts.size() == 1;
    d.upper = parts.size() > 1 ? plain_integer(name, parts[1]) : d.lower;
    d.stride = parts.size() > 2 ? plain_integer(name, parts[2]) : 1;
  }
  return dims;
}

// As collsim-mpi's --ci-target.
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

CafAssignment read_assignment(const cli::ParsedOptions& options, int images) {
  if (options.has("put") && options.has("get")) throw cli::UsageError("--put and --get exclude each other");
  CafAssignment a;
  a.local = read_side(options, "local");
  a.remote = read_side(options, "remote");
  a.element_bytes = static_cast<int>(options.integer("elem-bytes", 8, INT_MIN, INT_MAX));
  a.get = options.has("get");
  a.copies = static_cast<int>(options.integer("copies", 1, 1, 1'000'000));
  a.origin_image = static_cast<int>(options.integer("origin", 1, INT_MIN, INT_MAX));
  a.target_image = static_cast<int>(options.integer("target", 2, INT_MIN, INT_MAX));
  if (std::string p = assignment_problem(a, images); !p.empty()) throw cli::UsageError(p);
  return a;
}

void print_summary(const CafAssignment& a, const CafMeasurement& result, int warmup) {
  const Measurement& m = result.measured.row;
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
  if (const auto& c = result.counts) {
    std::cout << "  MPI calls on image " << a.origin_image << " per segment: " << c->puts << " MPI_Put ("
              << c->put_bytes << " B), " << c->gets << " MPI_Get (" << c->get_bytes << " B), " << c->locks
              << " MPI_Win_lock, " << c->unlocks << " MPI_Win_unlock, " << c->lock_alls << " MPI_Win_lock_all, "
              << c->flushes << " flushes, " << c->barriers << " MPI_Barrier\n";
  }
}

int run(int argc, char** argv, int rank, int size) {
  const auto defs = option_defs();
  const cli::ParsedOptions options = cli::parse_options(std::span<char* const>(argv + 1, argv + argc), defs);
  if (options.has("help")) {
    if (rank == 0) std::cout << usage();
    return kExitOk;
  }
  if (!options.positional.empty())
    throw cli::UsageError("unexpected argument '" + options.positional.front() + "' (see --help)");
  if (size < 2) throw cli::UsageError("needs at least 2 images (mpirun -np 2 collsim-caf ...)");
  const CafAssignment a = read_assignment(options, size);
  const MeasureOptions measure_options = read_measure_options(options);

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
    if (options.has("csv"))
      std::cout << caf_csv_header() << "\n" << caf_csv_row(a, result) << "\n";
    else
      print_summary(a, result, measure_options.warmup);
    std::cout.flush();
    if (result.measured.row.data != "ok") std::fprintf(stderr, "collsim-caf: %s\n", result.measured.row.data.c_str());
    if (result.measured.late_runs > 0)
      std::fprintf(stderr,
                   "collsim-caf: note: in %d of %d runs an image reached the start date late (by up to %s); "
                   "those times include the delay\n",
                   result.measured.late_runs, result.measured.row.runs,
                   format_seconds(result.measured.max_late_s).c_str());
  }
  return result.measured.row.data == "ok" ? kExitOk : kExitFailed;
}

}  // namespace
}  // namespace collsim::caf

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int status = 0;
  try {
    status = collsim::caf::run(argc, argv, rank, size);
  } catch (const collsim::cli::UsageError& e) {
    if (rank == 0) std::fprintf(stderr, "collsim-caf: %s\n", e.what());
    status = collsim::caf::kExitUsage;
  } catch (const collsim::InputError& e) {
    if (rank == 0) std::fprintf(stderr, "collsim-caf: %s\n", e.what());
    status = collsim::caf::kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "collsim-caf: rank %d: %s\n", rank, e.what());
    status = collsim::caf::kExitFailed;
  }
  MPI_Finalize();
  return status;
}
