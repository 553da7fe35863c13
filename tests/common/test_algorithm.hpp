// A registry-like entry for a test's own rank program: what the engines need to run it (its name,
// its function and the operation whose buffers each rank gets; bcast: one buffer per rank), and
// nothing the registry's entries state for Open MPI's algorithms.
#pragma once

#include <string_view>

#include "common/collsim_test.hpp"
#include "registry/registry.hpp"

namespace collsim_test {

inline AlgorithmInfo test_algorithm(std::string_view name, AlgorithmFn fn, Operation op = Operation::bcast) {
  return AlgorithmInfo{.name = name, .op = op, .summary = "test", .run = fn};
}

}  // namespace collsim_test
