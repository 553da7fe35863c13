// A run of a registered algorithm by its name, for the suites that time hand-picked cases.
#pragma once

#include <cstddef>

#include "common/collsim_test.hpp"
#include "engines/run.hpp"
#include "registry/registry.hpp"

namespace collsim_test {

// `name` (e.g. "bcast/binomial") on `procs` processes, `bytes` bytes, segment and root as given.
inline RunSpec named_spec(const char* name, int procs, std::size_t bytes, std::size_t segment = 0, int root = 0) {
  RunSpec s;
  s.algorithm = find_algorithm(name);
  s.procs = procs;
  s.bytes = bytes;
  s.params.segment = segment;
  s.params.root = root;
  return s;
}

}  // namespace collsim_test
