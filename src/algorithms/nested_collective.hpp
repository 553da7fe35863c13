// The collectives an algorithm calls on its communicator, as Open MPI runs them.
//
// Some of Open MPI's algorithms are built from other collectives (allgather/linear: MPI_Gather to
// rank 0, then MPI_Bcast from it). They call the communicator's own functions, i.e. coll/tuned's
// decision: Open MPI 4.1's fixed decision, since forcing one collective's algorithm leaves the
// others to it. The 4.1 tables for bcast and gather live here, below the algorithms that call
// them; selection/decision.cpp answers from the same tables.
#pragma once

#include <cstddef>

#include "algorithms/operation.hpp"
#include "algorithms/params.hpp"
#include "comm/comm.hpp"

namespace collsim {

// Open MPI 4.1's fixed decision (coll_tuned_decision_fixed.c) for a bcast of `bytes` or a gather
// of `bytes` per process on `procs` processes: the algorithm's Open MPI ID and the knobs it runs
// with (unsegmented; fanout 0, which its chain raises to 1; the k-nomial radix MCA default 4).
struct FixedChoice {
  int ompi_id;
  AlgorithmParams params;
};
FixedChoice ompi41_fixed_choice(Operation op, int procs, std::size_t bytes);

// MPI_Gather of `block` to `root` (into `gathered` there) and MPI_Bcast of `data` from `root`,
// with the algorithm Open MPI 4.1's fixed decision picks for this call; tags::gather and
// tags::bcast, as Open MPI's.
Task<> communicator_gather(Comm& comm, Buffer block, Buffer gathered, int root);
Task<> communicator_bcast(Comm& comm, Buffer data, int root);

}  // namespace collsim
