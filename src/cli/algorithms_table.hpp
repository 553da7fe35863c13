// The table `collsim algorithms` and `collsim-mpi algorithms` print: each algorithm with Open MPI's
// ID, its knobs (by their option names) and its summary, then what --bytes means per operation.
#pragma once

#include <string>

namespace collsim::cli {

std::string algorithms_table();

}  // namespace collsim::cli
