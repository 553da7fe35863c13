// One traced call's events from every rank of a real MPI job, merged on rank 0.
//
// Each rank records its own events (CollectiveCall::trace_next_run) with times already on the
// common time axis (the call's start date on its own clock, the clock offsets applied), so
// merging is only moving them: one MPI_Gatherv of the events as fixed-size records.
//
// Merged, the events also tell which send met which receive: MPI delivers the messages from one
// rank to another with one tag in the order sent, and our algorithms name the source and tag of
// every receive, so the n-th isend from s to d with tag t met d's n-th irecv from s with tag t.
// pair_messages writes that message id into the request_done of both ends.
#pragma once

#include <mpi.h>

#include <vector>

#include "comm/trace.hpp"

namespace collsim {

// Collective over `comm`: on rank 0, every rank's events, rank 0's first, each rank's in the order
// recorded; empty on the other ranks. Throws EngineError on every rank when the total exceeds
// what one MPI_Gatherv moves (INT_MAX events).
// The ids are paired (pair_messages).
std::vector<TraceEvent> gather_trace(MPI_Comm comm, const std::vector<TraceEvent>& mine);

// Numbers the point-to-point messages of a merged trace (0, 1, ... in the order first seen) and
// sets `message` in the request_done of their isend and irecv; puts and gets keep -1 (their
// target has no request). `events` holds each rank's events in the order recorded.
void pair_messages(std::vector<TraceEvent>& events);

}  // namespace collsim
