// One row of results: what was measured, by which engine, and how long it took.
//
// Simulated engines give one exact time per point (runs = 1); the mpi engines repeat a point and
// fill the statistics. time_s is the number to compare across engines: the simulated time, or
// the median of the measured runs.
#pragma once

#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "engines/run.hpp"
#include "experiment/trace/critical_path.hpp"
#include "support/csv.hpp"

namespace collsim {

struct Measurement {
  std::string engine;  // "model", "sim", "mpi", "mpi-native"
  std::string op;      // "bcast/binomial"
  int procs = 0;
  std::size_t bytes = 0;
  std::size_t segment = 0;
  int root = 0;
  double time_s = 0;
  int runs = 1;
  double mean_s = 0, median_s = 0, min_s = 0, max_s = 0;
  double ci95_s = 0;  // half-width of the 95% confidence interval of the mean (0 for one run)
  // Measured engines: whether the runs met the stop rule's confidence target (ci95_s within
  // --ci-target of mean_s) rather than stopping at --max-runs with a wider interval. Unset for a
  // simulated time, which has no interval (column ci_target_met: 1, 0 or empty).
  std::optional<bool> ci_met;
  std::string data;                 // "ok", "unchecked" (virtual bytes) or the first wrong byte
  std::string protocol;             // sim: the point-to-point protocol selection (ideal, tcp, tcp+shm, ucx); else empty
  std::string datatype, reduce_op;  // reducing operations: "float", "sum"; else empty
  // The point's cluster, when a scenario sweeps it (cluster_sweep.hpp): (parameter, value), the
  // columns after `reduce_op` in results.csv.
  std::vector<std::pair<std::string, std::string>> axes;
  // The run's critical path, when a scenario asks for it (critical_path: true) and the engine
  // traces: the columns critical_path_header() names, after the axes.
  std::optional<PathShares> critical_path;
  // Under OSU timing (engines/run.hpp, Timing): the mean, min and max over the ranks of each
  // rank's mean time from its own entry, beside time_s (columns osu_avg_s, osu_min_s, osu_max_s;
  // empty under the default timing and from the formula engines).
  std::optional<OsuTimes> osu;
  // A formula's prediction interval at models::kPredictionLevel (RunResult::interval), columns
  // interval_low_s and interval_high_s; empty from the other engines and without a fit's uncertainty.
  std::optional<models::TimeInterval> interval;
};

// Fills the statistics of a simulated point from its single time.
Measurement simulated_measurement(std::string engine, std::string op, int procs, std::size_t bytes, std::size_t segment,
                                  int root, double time_s, std::string data);

struct RunSpec;
// Sets the columns that say which call was measured (op, procs, bytes, segment: 0 for algorithms
// without one, root, and the datatype and operator of a reducing operation) from its spec.
void set_call(Measurement& m, const RunSpec& spec);
// The same as the other simulated_measurement, the call's columns from its spec.
Measurement simulated_measurement(std::string engine, const RunSpec& spec, double time_s, std::string data);

struct Summary;
// Sets the statistics of a measured point (runs, mean, median, min, max, ci95; time_s is the
// median), whether the stop rule's target was met, and its data verdict.
void set_statistics(Measurement& m, const Summary& s, bool ci_met, std::string data);
// A measured point's row: `engine`, the call of `spec` (set_call) and set_statistics.
Measurement measured_row(std::string engine, const RunSpec& spec, const Summary& s, bool ci_met, std::string data);

// What is wrong with one row of a results file (collective or coarray; `cells` split under
// `header`), or "" when nothing is: one cell per column, and every measured time (time_s, mean_s,
// ..., ci95_s) empty or a non-negative finite number. The one check of every reader of results (compare,
// merge, --resume), so none accepts a row another refuses.
std::string results_row_problem(const std::vector<std::string>& header, const std::vector<std::string>& cells);

// The CSV header line and one row (RFC 4180 quoting where a field needs it), no newline.
std::string csv_header();
std::string csv_row(const Measurement& m);
// The ci_target_met cell of a row: "1", "0", or empty when unset; and back into `met` (false for
// any other text, `met` then unchanged).
std::string ci_met_cell(const std::optional<bool>& met);
bool read_ci_met_cell(const std::string& cell, std::optional<bool>& met);
// Under a table whose measured times that missed the target are marked " *".
inline constexpr const char* kCiMissedNote =
    "* stopped at max_runs with the 95% CI above ci_target: less certain than asked (ci_target_met 0)\n";
// A results file written before a column was added (ci_target_met, the osu_ and interval_ columns) still resumes
// and merges: its header with the added columns, and one of its rows with an empty cell in each.
// Both return their argument unchanged when the header has every column already.
std::string upgraded_results_header(const std::string& header);
std::string upgraded_results_row(const std::string& header, const std::string& row);
// The critical path's columns (cp_latency_s, cp_transfer_s, cp_wait_s, cp_copy_s, cp_other_s)
// and a row's cells under them, empty when it has none; no leading comma.
std::string critical_path_header();
std::string critical_path_cells(const Measurement& m);
// The first data row of CSV text that starts with csv_header()'s columns (in any order; extra
// columns are ignored); nullopt when there is no such header or row.
std::optional<Measurement> parse_csv_output(const std::string& text);
// Every row of a results file (collsim run's results.csv, or the CSV of `collsim measure --csv`
// saved to a file): its first non-blank line a header with at least engine, op, procs, bytes,
// segment, root and time_s, in any order; blank lines skipped. Throws InputError "PATH: problem"
// or "PATH:LINE: problem" when the file cannot be read, is not a results CSV or has a bad row.
std::vector<Measurement> read_results_csv(const std::string& path);

}  // namespace collsim
