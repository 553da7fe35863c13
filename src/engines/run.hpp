// What every engine is asked to do and what it answers: one collective call (or another program
// written against Comm, such as a segment of coarray PUT statements), timed with the common
// protocol.
//
// Timing protocol (the same in every engine): all ranks start the call at one common date; a
// rank's finish time is when its own call returns; the time of the collective is the last rank's
// finish minus the common start.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include <optional>

#include "algorithms/input_error.hpp"
#include "algorithms/params.hpp"
#include "algorithms/rank_data.hpp"
#include "algorithms/registry.hpp"

namespace collsim {

// What the ranks run when a run is not a collective call: each rank's part of a program against
// Comm, which checks its own results (the coarray statements of experiment/coarray_point.hpp).
class RankProgram {
 public:
  virtual ~RankProgram() = default;
  // Rank comm.rank()'s part; leaves in `data_error` the first wrong byte it finds ("" if none).
  virtual Task<> run(Comm& comm, std::string& data_error) const = 0;
  // "coarray put local(1:10:2) -> remote(1:5) [image 2] on 2 images", for error messages.
  virtual std::string describe(int procs) const = 0;
};

struct RunSpec {
  // The program instead of `algorithm` when set (then algorithm, params, bytes, then_gather and
  // timed_on_root do not apply). Not owned.
  const RankProgram* program = nullptr;
  const AlgorithmInfo* algorithm = nullptr;
  AlgorithmParams params;
  int procs = 1;
  std::size_t bytes = 0;   // bcast: the message; gather: each process's block
  bool real_bytes = true;  // false: size-only buffers, nothing allocated or checked
  // The seed's calibration experiments (experiment/calibration.hpp): after the algorithm every
  // rank sends the root `then_gather` bytes by a linear gather (0: nothing after), and the call's
  // time is the root's finish instead of the last rank's.
  std::size_t then_gather = 0;
  bool timed_on_root = false;
};

struct RunResult {
  double time_s = 0;             // last finish minus the common start
  std::vector<double> finish_s;  // per rank, relative to the common start
  std::string data_error;        // first wrong byte found; empty when right or not checked
  std::string protocol;          // sim: the point-to-point protocol selection it ran under
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
  Task<> run(Comm& comm);
  // After the run: "" when this rank's results are right (or bytes are virtual), else the first
  // wrong byte.
  std::string check() const;
  // The collective call's buffers (nullptr for a program).
  RankData* data() { return data_ ? &*data_ : nullptr; }

 private:
  const RunSpec* spec_;
  std::optional<RankData> data_;
  std::string program_error_;
};
// The call's time from the ranks' finish times: the last one, or the root's (spec.timed_on_root).
double call_time(const RunSpec& spec, const std::vector<double>& finish_s);

// "bcast/binomial on 13 processes (root 0, 4096 bytes, segment 1024)" for error messages.
std::string describe(const RunSpec& spec);

}  // namespace collsim
