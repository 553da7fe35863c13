// A selection's choice by algorithm name, for the suites of decision tables and rules files.
#pragma once

#include <cstddef>

#include "common/collsim_test.hpp"
#include "registry/registry.hpp"
#include "selection/decision.hpp"

namespace collsim_test {

inline selection::Choice pick(const char* name, std::size_t segment = 0) {
  selection::Choice c{find_algorithm(name), {}};
  c.params.segment = segment;
  return c;
}

}  // namespace collsim_test
