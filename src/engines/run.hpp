// What every engine is asked to do and what it answers: one collective call, timed with the
// common protocol.
//
// Timing protocol (the same in every engine): all ranks start the call at one common date; a
// rank's finish time is when its own call returns; the time of the collective is the last rank's
// finish minus the common start.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "algorithms/params.hpp"
#include "algorithms/registry.hpp"

namespace collsim {

struct RunSpec {
  const AlgorithmInfo* algorithm = nullptr;
  AlgorithmParams params;
  int procs = 1;
  std::size_t bytes = 0;   // bcast: the message; gather: each process's block
  bool real_bytes = true;  // false: size-only buffers, nothing allocated or checked
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

// Bad user input (platform file, options) found while setting an engine up; reported as one line
// and exit status 2.
class InputError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "bcast/binomial on 13 processes (root 0, 4096 bytes, segment 1024)" for error messages.
std::string describe(const RunSpec& spec);

}  // namespace collsim
