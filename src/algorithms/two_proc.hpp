// Open MPI's two_proc algorithms fail on more than 2 processes (MPI_ERR_UNSUPPORTED_OPERATION, no
// fallback); ours, and their formulas, refuse the same way. The registry's runs_on says which
// algorithms these are.
#pragma once

#include <string>
#include <string_view>

#include "support/input_error.hpp"

namespace collsim {

inline void require_two_processes(std::string_view algorithm, int procs) {
  if (procs > 2)
    throw InputError(std::string(algorithm) + " runs on 2 processes only, not " + std::to_string(procs) +
                     " (Open MPI's call fails with MPI_ERR_UNSUPPORTED_OPERATION)");
}

}  // namespace collsim
