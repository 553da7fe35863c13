// Runs one measurement of a scenario on real MPI: launches `collsim-mpi measure --csv` under
// mpirun for the point's process count and reads back the row it prints.
//
// Each point is its own mpirun, so one failing point (a deadlock, a crash) is reported with what
// the ranks printed and does not take the others down; the timeout turns a hang into an error.
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "engines/engine.hpp"
#include "engines/run.hpp"
#include "experiment/results/measurement.hpp"
#include "support/statistics.hpp"

namespace collsim {

struct MpiLaunch {
  // Launcher and its options, before "-np P". Empty: "mpirun --oversubscribe", plus
  // "--allow-run-as-root" when running as root.
  std::vector<std::string> launcher;
  std::string program;  // collsim-mpi; empty: the one beside the running collsim
  int min_runs = kDefaultMinRuns, max_runs = kDefaultMaxRuns;
  double ci_target = kDefaultCiTarget;  // stop once the 95% CI half-width is under this share of the mean
  double timeout_s = 300;               // per point
  // The row's time_s: the median of the runs (default), or their minimum. Delays from other
  // processes on a loaded machine only add time, so the fastest run is the least disturbed one.
  bool time_is_min = false;
  // mpirun launches per point. On a machine shared with others a whole launch can run slow (its
  // pages, its cores' neighbours), which no number of runs inside it undoes.
  int launches = 1;
};

// The row of a point measured in several launches: the fastest launch's with `time_is_min`, else
// the median launch's (the lower of the middle two of an even count). `time_of` gives a row's time.
template <class Row, class TimeOf>
Row pick_launch(std::vector<Row> rows, bool time_is_min, TimeOf time_of) {
  std::sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) { return time_of(a) < time_of(b); });
  return std::move(rows[time_is_min ? 0 : (rows.size() - 1) / 2]);
}

// What a child process printed and how it ended.
struct Captured {
  int status = -1;  // exit status, or -1 when killed or timed out
  bool timed_out = false;
  std::string out, err;
};
// Runs argv, capturing stdout and stderr, killing the whole process group after timeout_s.
// Throws EngineError when it cannot fork; status 127 when argv[0] cannot be started.
Captured run_captured(const std::vector<std::string>& argv, double timeout_s);
// The first thing `text` (a program's stderr) says, on one line, mpirun's framed notices joined.
std::string first_message(const std::string& text);

// The launcher actually used for `launch` (defaults filled in).
std::vector<std::string> launcher_command(const MpiLaunch& launch);
// The collsim-mpi actually run: launch.program, else the one beside the running program.
std::string mpi_program(const MpiLaunch& launch);

// engine: mpi (our algorithm over MPI point-to-point) or mpi-native (Open MPI's own
// collective forced to the same algorithm). Throws InputError when collsim-mpi rejects the
// point (exit 2) and EngineError when the run fails, times out or prints no row; a row whose
// bytes were wrong is returned with the error in its data field.
Measurement run_mpi_point(const MpiLaunch& launch, Engine engine, const RunSpec& spec);

}  // namespace collsim
