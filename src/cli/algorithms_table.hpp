// The table `collsim algorithms` and `collsim-mpi algorithms` print: each algorithm with Open MPI's
// ID, its knobs (by their option names) and its summary, then what --bytes means per operation, then
// `after` (collsim: how the derived formulas price messages per protocol regime of the sim engine's profiles).
#pragma once

#include <string>

namespace collsim::cli {

std::string algorithms_table(const std::string& after = "");

}  // namespace collsim::cli
