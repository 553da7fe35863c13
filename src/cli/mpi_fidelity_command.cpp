// collsim-mpi fidelity: every algorithm (engine mpi) timed against Open MPI's own implementation of
// it (engine mpi-native), interleaved call by call; a table, a CSV file and the ratios per algorithm.
#include <chrono>
#include <climits>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/measure_options.hpp"
#include "cli/mpi_commands.hpp"
#include "cli/mpi_measure_options.hpp"
#include "cli/time_left.hpp"
#include "engines/mpi/fidelity.hpp"
#include "experiment/results/measurement.hpp"
#include "support/units.hpp"

namespace collsim {
namespace {

std::string fidelity_about() {
  return "Times each algorithm (engine mpi) against Open MPI's own implementation of it (engine\n"
         "mpi-native) at each size, interleaved: single timed calls of the two alternate\n"
         "(A B B A A B ...) so that noise on the machine hits both alike, until both series meet\n"
         "the stop rule (--min-runs, --max-runs and --ci-target count the calls of each). Segmented\n"
         "bcasts and reduces use --segment, gather/linear_sync --gather-segment; reductions\n"
         "--datatype and --reduce-op; a barrier has size 0 only.\n"
         "Prints per algorithm and size the median times and their ratio ours/native (and the\n"
         "median of the ratios of calls made in a row), marking the rows that stopped at --max-runs\n"
         "with a CI above --ci-target; then per algorithm the median of its ratios, flagged when\n"
         "outside " +
         fixed(kFidelityBandLow, 2) + ".." + fixed(kFidelityBandHigh, 2) +
         ". On stderr, the rows done, the time so far and an estimate of the time left.\n"
         "The defaults, every algorithm at 10 sizes (415 rows on 4 processes), take half an hour\n"
         "to hours on a small machine (tools/bench/README.md); a first look, in minutes:\n"
         "--ops bcast --sizes 8KiB,256KiB.\n"
         "Exit status 0 when every call's data was right, 1 when not, 2 on bad input.";
}

std::vector<cli::OptionDef> fidelity_options() {
  std::vector<cli::OptionDef> defs = {
      {"sizes", "LIST",
       "sizes, doubling from A to B (8KiB..4MiB, the default) or listed (8KiB,1MiB), each the call's "
       "size as `collsim algorithms` says per operation (gather: bytes per process); reductions: "
       "whole elements (rounded down); barrier: 0 only"},
      {"ops", "LIST",
       "all (default: those that run on P processes), operations (bcast, reduce, ...), or algorithm names, "
       "separated by commas"},
      {"segment", "SIZE", "segment of the bcasts and reduces that take one (default 8KiB)"},
      {"gather-segment", "SIZE", "first segment of gather/linear_sync (default 1KiB)"},
      {"root", "R", "root rank of the rooted operations (default 0)"},
  };
  for (auto& d : cli::reduction_options(FidelityOptions{}.reduction)) defs.push_back(d);
  for (auto& d : cli::stop_rule_options()) defs.push_back(d);
  defs.push_back({"output", "FILE", "also write one CSV row per algorithm and size to FILE (also -o FILE)"});
  defs.push_back({"quiet", "", "no progress lines on stderr"});
  return defs;
}

// "all" and operation names stand for their algorithms that run on `procs` processes; an
// algorithm named on its own that cannot is refused.
std::vector<const AlgorithmInfo*> read_ops(const cli::ParsedOptions& options, int procs) {
  const std::string text = options.text("ops", "all");
  std::vector<const AlgorithmInfo*> out;
  std::string item;
  for (std::istringstream in(text); std::getline(in, item, ',');) {
    bool group = item == "all";
    for (const auto& a : all_algorithms()) group = group || to_string(a.op) == item;
    if (group) {
      for (const auto& a : all_algorithms())
        if ((item == "all" || to_string(a.op) == item) && runs_on(a, procs)) out.push_back(&a);
      continue;
    }
    const AlgorithmInfo* a = find_algorithm(item);
    if (!a)
      throw cli::UsageError("--ops: unknown algorithm '" + item +
                            "' (all, an operation such as bcast, or: " + algorithm_names() + ")");
    if (!runs_on(*a, procs))
      throw cli::UsageError("--ops: " + item + " does not run on " + std::to_string(procs) + " processes");
    out.push_back(a);
  }
  if (out.empty()) throw cli::UsageError("--ops: no algorithms in '" + text + "'");
  return out;
}

FidelityOptions read_fidelity(const cli::ParsedOptions& options, int size) {
  FidelityOptions f;
  f.sizes = read_sizes(options);
  f.algorithms = read_ops(options, size);
  f.segment = options.bytes("segment", 8192);
  f.gather_segment = options.bytes("gather-segment", 1024);
  f.root = static_cast<int>(options.integer("root", 0, 0, INT_MAX));
  if (f.root >= size)
    throw cli::UsageError("--root " + std::to_string(f.root) + " is not a rank of " + std::to_string(size) +
                          " processes");
  f.reduction = cli::read_reduction(options, f.reduction);
  f.measure = cli::read_measure_options(options);
  return f;
}

// The mark of a row whose calls stopped at --max-runs with a CI above --ci-target (the data column
// says why a row with wrong bytes stopped).
const char* const kCiMissedMark = "CI above target";

std::string point_line(const FidelityPoint& p) {
  const RunSpec& s = p.spec;
  return padded(std::string(s.algorithm->name), 28) + padded(format_bytes(s.bytes), 8, true) +
         padded(s.params.segment ? format_bytes(s.params.segment) : "-", 8, true) +
         padded(std::to_string(p.ours.runs), 5, true) + padded(format_seconds(p.ours.median), 12, true) +
         padded(format_seconds(p.native.median), 12, true) + padded(fixed(p.ratio, 3), 7, true) +
         padded(fixed(p.paired_ratio, 3), 7, true) + (p.data == "ok" ? "" : "  data: " + p.data) +
         (p.data == "ok" && !p.ci_met ? std::string("  ") + kCiMissedMark : "");
}

const char* const kFidelityCsvHeader =
    "op,procs,bytes,segment,root,runs,ours_median_s,native_median_s,ours_mean_s,native_mean_s,"
    "ours_ci95_s,native_ci95_s,ci_target_met,ratio,paired_ratio,late_runs,data,datatype,reduce_op";

// "double,sum" for a reducing operation, "," (both empty) for the others.
std::string reduction_columns(const RunSpec& s) {
  if (!operation_info(s.algorithm->op).reduces) return ",";
  return std::string(to_string(s.params.reduction.type)) + "," + std::string(to_string(s.params.reduction.op));
}

std::string fidelity_csv_row(const FidelityPoint& p) {
  const RunSpec& s = p.spec;
  std::string data = p.data;
  for (char& c : data)
    if (c == ',' || c == '"' || c == '\n') c = ' ';
  return std::string(s.algorithm->name) + "," + std::to_string(s.procs) + "," + std::to_string(s.bytes) + "," +
         std::to_string(s.params.segment) + "," + std::to_string(s.params.root) + "," + std::to_string(p.ours.runs) +
         "," + format_real(p.ours.median) + "," + format_real(p.native.median) + "," + format_real(p.ours.mean) + "," +
         format_real(p.native.mean) + "," + format_real(p.ours.ci95) + "," + format_real(p.native.ci95) + "," +
         ci_met_cell(p.ci_met) + "," + format_real(p.ratio) + "," + format_real(p.paired_ratio) + "," +
         std::to_string(p.late_runs) + "," + data + "," + reduction_columns(s);
}

// Progress of a fidelity run on rank 0's stderr: a line after the first row, then after a row
// that ends at least 30 s after the last line (one per row would double the table on a terminal).
class FidelityProgress {
 public:
  FidelityProgress(bool on, std::vector<std::size_t> sizes) : on_(on), left_(std::move(sizes)) {}

  void row_done() {
    const auto now = Clock::now();
    left_.row_done(seconds(row_start_, now));
    row_start_ = now;
    if (!on_ || left_.done() == left_.total() || (left_.done() > 1 && seconds(shown_, now) < 30)) return;
    shown_ = now;
    std::fprintf(stderr, "collsim-mpi fidelity: %zu/%zu rows in %s, about %s left\n", left_.done(), left_.total(),
                 cli::rough_duration(seconds(start_, now)).c_str(), cli::rough_duration(left_.seconds_left()).c_str());
    std::fflush(stderr);
  }

 private:
  using Clock = std::chrono::steady_clock;
  static double seconds(Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration<double>(to - from).count();
  }
  bool on_;
  cli::TimeLeft left_;
  Clock::time_point start_ = Clock::now(), row_start_ = start_, shown_ = start_;
};

// Rank 0's summary after the rows: the rows that missed the CI target, then the median ratio of
// each algorithm against the band.
void print_summary(const std::vector<FidelityPoint>& points, int missed_rows, const FidelityOptions& f) {
  if (missed_rows > 0)
    std::cout << missed_rows << " of " << points.size() << " rows stopped at --max-runs " << f.measure.stop.max_runs
              << " with the 95% CI of ours or Open MPI's above " << cli::percent(f.measure.stop.ci_target)
              << " of the mean (marked '" << kCiMissedMark << "', ci_target_met 0 in the CSV)\n";
  std::cout << "\nmedian ratio ours/native per algorithm (band " << fixed(kFidelityBandLow, 2) << ".."
            << fixed(kFidelityBandHigh, 2) << ")\n";
  int outside = 0;
  for (const auto& s : summarize_fidelity(points)) {
    const bool out = s.median_ratio < kFidelityBandLow || s.median_ratio > kFidelityBandHigh;
    outside += out ? 1 : 0;
    std::cout << padded(std::string(s.algorithm->name), 28) << padded(fixed(s.median_ratio, 3), 7, true) << " ("
              << fixed(s.min_ratio, 3) << " to " << fixed(s.max_ratio, 3) << " over " << s.points << " sizes; paired "
              << fixed(s.median_paired_ratio, 3) << ")" << (out ? "  OUTSIDE THE BAND" : "") << "\n";
  }
  std::cout << outside << " algorithm(s) outside the band\n" << std::flush;
}

int run_fidelity(int rank, int size, const cli::ParsedOptions& options) {
  const FidelityOptions f = read_fidelity(options, size);

  // Refused before anything is written; then the rows in the order measure_fidelity measures
  // them, by size, for the estimate of the time left.
  std::vector<std::size_t> row_sizes;
  for (const AlgorithmInfo* a : fidelity_algorithms(MPI_COMM_WORLD, f))
    for (std::size_t bytes : fidelity_sizes(*a, f)) row_sizes.push_back(bytes);
  std::ofstream csv = open_csv(options, rank);
  if (csv.is_open()) csv << kFidelityCsvHeader << "\n" << std::flush;
  const std::size_t rows = row_sizes.size();
  FidelityProgress progress(rank == 0 && !options.has("quiet"), std::move(row_sizes));
  if (rank == 0) {
    std::cout << "fidelity on " << size << " processes, root " << f.root << ", reductions "
              << to_string(f.reduction.type) << " " << to_string(f.reduction.op)
              << ": ours (engine mpi) against Open MPI's own (engine mpi-native), interleaved\n"
              << padded("algorithm", 28) << padded("size", 8, true) << padded("segment", 8, true)
              << padded("runs", 5, true) << padded("ours", 12, true) << padded("native", 12, true)
              << padded("ratio", 7, true) << padded("paired", 7, true) << "\n"
              << std::flush;
    if (!options.has("quiet"))
      std::fprintf(stderr, "collsim-mpi fidelity: %zu rows, each %d to %d timed calls of ours and of Open MPI's\n",
                   rows, f.measure.stop.min_runs, f.measure.stop.max_runs);
  }
  bool all_ok = true;
  int missed_rows = 0;
  const auto points = measure_fidelity(MPI_COMM_WORLD, f, [&](const FidelityPoint& p) {
    all_ok = all_ok && p.data == "ok";
    missed_rows += p.data == "ok" && !p.ci_met ? 1 : 0;
    if (rank != 0) return;
    std::cout << point_line(p) << "\n" << std::flush;
    if (csv.is_open()) csv << fidelity_csv_row(p) << "\n" << std::flush;
    progress.row_done();
  });
  if (rank == 0) print_summary(points, missed_rows, f);
  return data_status(all_ok);
}

}  // namespace

cli::Command mpi_fidelity_command(int rank, int size) {
  return mpi_command("fidelity", "mpirun -np P collsim-mpi fidelity [options]",
                     "time every algorithm against Open MPI's own, interleaved call by call", fidelity_about(),
                     fidelity_options(), run_fidelity, rank, size);
}

}  // namespace collsim
