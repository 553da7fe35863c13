// What every engine is asked to do and what it answers: one collective call (or another program
// written against Comm, such as a segment of coarray PUT statements), timed with the common
// protocol.
//
// Timing protocol (the same in every engine): all ranks start the call at one common date; a
// rank's finish time is when its own call returns; the time of the collective is the last rank's
// finish minus the common start. Under OSU timing (Timing::osu) the ranks go on to time the call
// as osu_bcast does, each from its own entry, iterations separated by a barrier; the first call
// still starts at the common date and gives the time above, so both are reported side by side.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/params.hpp"
#include "algorithms/rank_data.hpp"
#include "models/prediction_interval.hpp"
#include "registry/registry.hpp"
#include "support/input_error.hpp"

namespace collsim {

// What the ranks run when a run is not a collective call: a program against Comm (the coarray
// statements of experiment/results/coarray_point.hpp) in three phases, of which only run() is timed:
// setup (allocate windows, fill inputs, synchronise), run, finish (synchronise, check results).
// A rank's time is its run phase; the run's time is the longest of them. run must give the same
// results when run twice after one setup: an engine that warms up (Comm::warms_up) times the
// second, after a barrier.
class ProgramRank {
 public:
  virtual ~ProgramRank() = default;
  virtual Task<> setup(Comm& comm) = 0;
  virtual Task<> run(Comm& comm) = 0;
  virtual Task<> finish(Comm& comm) = 0;
  // After finish: "" when this rank's results are right (or bytes are virtual), else the first
  // wrong byte.
  virtual std::string check() const = 0;
};

class RankProgram {
 public:
  virtual ~RankProgram() = default;
  virtual std::unique_ptr<ProgramRank> rank(int rank, int procs) const = 0;
  // "coarray put a(1:10:2) -> b(1:5)[2] on 2 images", for error messages.
  virtual std::string describe(int procs) const = 0;
  // The bytes its ranks allocate on `procs` processes (arrays, windows, buffers), for the
  // memory estimate of run_memory.hpp.
  virtual double memory_bytes(int procs) const = 0;
};

// How the ranks time the call.
struct Timing {
  enum class Kind {
    collective,  // one call from a common start: time = last finish minus the start (the default)
    osu,         // also as osu_bcast (OSU micro-benchmarks 7.4) times it, per rank
  };
  Kind kind = Kind::collective;
  // OSU: every rank runs skip + iterations calls, each one `t0 = now; call; t1 = now; barrier`,
  // the barrier Open MPI 4.1's (its fixed decision for the process count), simulated like any
  // other messages and not timed. A rank's latency is its mean t1 - t0 over the timed
  // iterations; osu_bcast reports the mean, min and max of those over the ranks. OSU runs
  // hundreds of iterations to average out noise; a simulated engine has none, and once a barrier
  // has set the ranks' entries each call repeats the last (model_osu_timing_test checks it on
  // several trees and barriers), so a warm-up and two timed calls give its number.
  int skip = 1;
  int iterations = 2;
};

// "collective" or "osu", as options and scenario files name them; and back (nullopt for another
// text).
const char* to_string(Timing::Kind kind);
std::optional<Timing::Kind> parse_timing(std::string_view text);

struct RunSpec {
  // The program instead of `algorithm` when set (then algorithm, params, bytes, then_gather and
  // timed_on_root do not apply). Not owned.
  const RankProgram* program = nullptr;
  const AlgorithmInfo* algorithm = nullptr;
  AlgorithmParams params;
  int procs = 1;
  std::size_t bytes = 0;   // as the operation's descriptor says (OperationInfo::bytes_mean)
  bool real_bytes = true;  // false: size-only buffers, nothing allocated or checked
  // The seed's calibration experiments (experiment/analysis/calibration.hpp): after the algorithm every
  // rank sends the root `then_gather` bytes by a linear gather (0: nothing after), and the call's
  // time is the root's finish instead of the last rank's.
  std::size_t then_gather = 0;
  bool timed_on_root = false;
  // Collective calls only (a program times its own run phase).
  Timing timing;
  // Where the engine records the run's events (comm/trace.hpp); none when null. Not owned.
  TraceSink* trace = nullptr;
};

struct RunResult {
  double time_s = 0;             // last finish minus the common start
  std::vector<double> finish_s;  // per rank, relative to the common start
  std::string data_error;        // first wrong byte found; empty when right or not checked
  std::string protocol;          // sim: the point-to-point protocol selection it ran under
  // Timing::osu: per rank, the mean of its timed calls, each from its own entry (osu_times sums
  // them up); empty under the collective timing.
  std::vector<double> osu_s;
  // Formula engine: the prediction interval at models::kPredictionLevel from the fit of its
  // parameters; absent from the other engines, and where no fit's uncertainty is known.
  std::optional<models::TimeInterval> interval;
  // Model engine: the wall time it spent building and starting the ranks (on a large run mostly
  // first touches of fresh memory), then in its event loop, and the events it processed; for the
  // scale benchmarks. Zero from the other engines.
  double setup_wall_s = 0;
  double loop_wall_s = 0;
  std::int64_t events = 0;
};

// Whether `seconds` can be the time of a run: finite and not negative. The formula engine refuses
// a prediction that is not (naming its parameters), and every engine's result is checked on its
// way into a row (to_measurement).
inline bool is_time(double seconds) { return std::isfinite(seconds) && seconds >= 0; }

// A failure of the run itself (deadlock, engine misuse); the message names the algorithm, the
// process count and what went wrong.
class EngineError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The call as every engine runs it on one rank: the algorithm, then the experiment's gather if
// spec.then_gather says so (gather/basic_linear, its bytes real when spec.real_bytes).
Task<> run_call(Comm& comm, RankBuffers buffers, const RunSpec& spec);

// One rank's part of a run, as every engine runs it: the collective call on this rank's input
// and output (RankData), or the spec's program. `spec` must outlive it.
class RankWork {
 public:
  RankWork(const RunSpec& spec, int rank);
  // False for a collective call on virtual bytes: then the work holds nothing after run() has
  // handed back its task, which does not refer to it, and an engine need not keep it (a model
  // run of millions of ranks saves its size on each).
  static bool holds_state(const RunSpec& spec) {
    return spec.program || spec.real_bytes || spec.timing.kind == Timing::Kind::osu;
  }
  // The whole of it (the simulated engines): a program's phases one after the other, its run
  // phase timed on comm's clock; under OSU timing, the calls and barriers, each call timed.
  Task<> run(Comm& comm);
  // The phases, for an engine that times the call itself (mpi): untimed setup (nothing for a
  // collective), the timed call, untimed finish.
  Task<> setup(Comm& comm);
  Task<> call(Comm& comm);
  Task<> finish(Comm& comm);
  // After the run: "" when this rank's results are right (or bytes are virtual), else the first
  // wrong byte.
  std::string check() const;
  // The rank's time when it is not the end of run(): a program's run phase, or under OSU timing
  // the return of the first call (from the common start); nullopt otherwise.
  std::optional<double> timed_s() const {
    return std::isnan(timed_s_) ? std::nullopt : std::optional<double>(timed_s_);
  }
  // Under OSU timing, after run(): this rank's latency (Timing); nullopt otherwise.
  std::optional<double> osu_s() const { return std::isnan(osu_s_) ? std::nullopt : std::optional<double>(osu_s_); }
  // The collective call's buffers (nullptr for a program, or with virtual bytes).
  RankData* data() { return data_.get(); }

 private:
  Task<> run_program(Comm& comm);
  Task<> run_osu(Comm& comm);
  RankBuffers buffers();

  // Kept small: a model run holds one per rank, millions of them. With virtual bytes there is
  // no RankData, only the buffers' sizes, computed when the call starts.
  const RunSpec* spec_;
  int rank_;
  std::unique_ptr<RankData> data_;
  std::unique_ptr<ProgramRank> program_;
  double timed_s_ = std::numeric_limits<double>::quiet_NaN();  // NaN: none (8 bytes, not 16)
  double osu_s_ = std::numeric_limits<double>::quiet_NaN();    // NaN: not OSU timing
};

// What osu_bcast prints from the ranks' latencies: their mean, smallest and largest.
struct OsuTimes {
  double avg_s = 0, min_s = 0, max_s = 0;
};
// nullopt when there are none (the collective timing).
std::optional<OsuTimes> osu_times(const std::vector<double>& osu_s);

// The call's time from the ranks' finish times: the last one, or the root's (spec.timed_on_root).
double call_time(const RunSpec& spec, const std::vector<double>& finish_s);

// The call as rank `rank` sees it.
CallShape call_shape(const RunSpec& spec, int rank);

// "bcast/binomial on 13 processes (root 0, 4096 bytes, segment 1024)" for error messages.
std::string describe(const RunSpec& spec);

}  // namespace collsim
