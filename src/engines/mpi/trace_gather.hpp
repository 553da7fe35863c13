// One traced call's events from every rank of a real MPI job, merged on rank 0.
//
// Each rank records its own events (CollectiveCall::trace_next_run) with times already on the
// common time axis (the call's start date on its own clock, the clock offsets applied), so
// merging is only moving them: one MPI_Gatherv of the events as fixed-size records.
#pragma once

#include <mpi.h>

#include <vector>

#include "comm/trace.hpp"

namespace collsim {

// Collective over `comm`: on rank 0, every rank's events, rank 0's first, each rank's in the order
// recorded; empty on the other ranks. Throws EngineError on every rank when the total exceeds
// what one MPI_Gatherv moves (INT_MAX events).
std::vector<TraceEvent> gather_trace(MPI_Comm comm, const std::vector<TraceEvent>& mine);

}  // namespace collsim
