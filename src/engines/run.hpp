// What every engine is asked to do and what it answers: one collective call (or another program
// written against Comm, such as a segment of coarray PUT statements), timed with the common
// protocol.
//
// Timing protocol (the same in every engine): all ranks start the call at one common date; a
// rank's finish time is when its own call returns; the time of the collective is the last rank's
// finish minus the common start.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "algorithms/params.hpp"
#include "algorithms/rank_data.hpp"
#include "registry/registry.hpp"
#include "support/input_error.hpp"

namespace collsim {

// What the ranks run when a run is not a collective call: a program against Comm (the coarray
// statements of experiment/results/coarray_point.hpp) in three phases, of which only run() is timed:
// setup (allocate windows, fill inputs, synchronise), run, finish (synchronise, check results).
// A rank's time is its run phase; the run's time is the longest of them.
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
  // Where the engine records the run's events (comm/trace.hpp); none when null. Not owned.
  TraceSink* trace = nullptr;
};

struct RunResult {
  double time_s = 0;             // last finish minus the common start
  std::vector<double> finish_s;  // per rank, relative to the common start
  std::string data_error;        // first wrong byte found; empty when right or not checked
  std::string protocol;          // sim: the point-to-point protocol selection it ran under
  // Model engine: the wall time it spent building and starting the ranks (on a large run mostly
  // first touches of fresh memory), then in its event loop, and the events it processed; for the
  // scale benchmarks. Zero from the other engines.
  double setup_wall_s = 0;
  double loop_wall_s = 0;
  std::int64_t events = 0;
};

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
  static bool holds_state(const RunSpec& spec) { return spec.program || spec.real_bytes; }
  // The whole of it (the simulated engines): a program's phases one after the other, its run
  // phase timed on comm's clock.
  Task<> run(Comm& comm);
  // The phases, for an engine that times the call itself (mpi): untimed setup (nothing for a
  // collective), the timed call, untimed finish.
  Task<> setup(Comm& comm);
  Task<> call(Comm& comm);
  Task<> finish(Comm& comm);
  // After the run: "" when this rank's results are right (or bytes are virtual), else the first
  // wrong byte.
  std::string check() const;
  // A program's run phase as timed by run(); nullopt for a collective call (its time is the
  // rank's finish).
  std::optional<double> timed_s() const {
    return std::isnan(timed_s_) ? std::nullopt : std::optional<double>(timed_s_);
  }
  // The collective call's buffers (nullptr for a program, or with virtual bytes).
  RankData* data() { return data_.get(); }

 private:
  Task<> run_program(Comm& comm);
  RankBuffers buffers();

  // Kept small: a model run holds one per rank, millions of them. With virtual bytes there is
  // no RankData, only the buffers' sizes, computed when the call starts.
  const RunSpec* spec_;
  int rank_;
  std::unique_ptr<RankData> data_;
  std::unique_ptr<ProgramRank> program_;
  double timed_s_ = std::numeric_limits<double>::quiet_NaN();  // NaN: not a program (8 bytes, not 16)
};

// The call's time from the ranks' finish times: the last one, or the root's (spec.timed_on_root).
double call_time(const RunSpec& spec, const std::vector<double>& finish_s);

// The call as rank `rank` sees it.
CallShape call_shape(const RunSpec& spec, int rank);

// "bcast/binomial on 13 processes (root 0, 4096 bytes, segment 1024)" for error messages.
std::string describe(const RunSpec& spec);

}  // namespace collsim
