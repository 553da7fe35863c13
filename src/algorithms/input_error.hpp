// InputError: bad user input (options, scenario and platform files, array sections), found
// anywhere from the algorithms up; the command line reports it as one line and exit status 2.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace collsim {

class InputError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Open MPI's two_proc algorithms fail on more than 2 processes (MPI_ERR_UNSUPPORTED_OPERATION,
// no fallback); ours refuse the same way. The registry's runs_on says which algorithms these are.
inline void require_two_processes(std::string_view algorithm, int procs) {
  if (procs > 2)
    throw InputError(std::string(algorithm) + " runs on 2 processes only, not " + std::to_string(procs) +
                     " (Open MPI's call fails with MPI_ERR_UNSUPPORTED_OPERATION)");
}

}  // namespace collsim
