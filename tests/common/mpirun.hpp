// mpirun around a program, as the suites that run collsim-mpi and collsim-caf on several ranks
// call it. The including test target defines MPIEXEC (mpirun).
#pragma once

#include <string>

#include "common/run_command.hpp"

#ifndef MPIEXEC
#error "mpirun.hpp needs MPIEXEC defined by the test target"
#endif

namespace collsim_test {

// `program_and_args` on `procs` ranks; -q keeps mpirun's own notice about non-zero exit codes out
// of stderr, leaving the program's.
inline Outcome mpirun(int procs, const std::string& program_and_args) {
  return run_command(std::string(MPIEXEC) + " -q --allow-run-as-root --oversubscribe -np " + std::to_string(procs) +
                     " " + program_and_args);
}

}  // namespace collsim_test
