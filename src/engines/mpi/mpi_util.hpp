// Small helpers around MPI calls shared by the mpi engine: error text, checked calls, and a
// wait that sleeps between polls.
//
// The engine's own bookkeeping (clock synchronisation, start dates, result exchange) runs on
// communicators whose errors abort, as any MPI failure there means the job itself is broken;
// mpi_check turns the rare return code into an EngineError with the call's name.
#pragma once

#include <mpi.h>

#include <string>

namespace collsim {

std::string mpi_error_text(int code);

// Throws EngineError("<what> failed: <MPI's text>") unless rc is MPI_SUCCESS.
void mpi_check(int rc, const char* what);

// Waits for `request` by polling with short sleeps in between. Used where a rank only waits for
// its turn: on an oversubscribed machine a busy-polling waiter takes the core from the ranks
// that are doing the work.
void wait_sleeping(MPI_Request& request);

}  // namespace collsim
