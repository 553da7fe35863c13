// The conformance suite: what every engine's messaging layer must do, written once.
//
// Each case is a small program against Comm (src/comm/comm.hpp) that checks what it observes and
// throws when an engine strays from the layer's contract: MPI's ordering and matching, wait_all
// and wait_any, the one-sided calls and the Fortran image-control statements built on them, and
// the errors of the Comm front, whose wording is the same for every engine. The drivers run every
// case on every engine: conformance_test.cpp (model and sim) and conformance_mpi_test.cpp (real
// MPI, under mpirun).
#pragma once

#include <span>
#include <string_view>

#include "registry/registry.hpp"

namespace collsim::conformance {

struct Case {
  AlgorithmInfo algorithm;  // named "conformance/<case>"; runs with 0-byte virtual data
  int min_procs = 1;        // run on min_procs..max_procs processes
  int max_procs = 4;
  std::string_view error;  // "": must succeed; else the run fails with an error containing this
};

std::span<const Case> cases();

}  // namespace collsim::conformance
