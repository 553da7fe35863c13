// The collectives an algorithm calls on its communicator, as Open MPI runs them.
//
// Some of Open MPI's algorithms are built from other collectives (allgather/linear: MPI_Gather to
// rank 0, then MPI_Bcast from it; allreduce/nonoverlapping: MPI_Reduce, then MPI_Bcast). They call
// the communicator's own functions, i.e. coll/tuned's decision: Open MPI 4.1's fixed decision
// (ompi41_decision.hpp), since forcing one collective's algorithm leaves the others to it. They
// are defined with the registry (registry/nested_collective.cpp), whose entries they run.
#pragma once

#include "algorithms/operation.hpp"
#include "algorithms/params.hpp"
#include "comm/comm.hpp"
#include "comm/reduction.hpp"

namespace collsim {

// MPI_Gather of `block` to `root` (into `gathered` there) and MPI_Bcast of `data` from `root`,
// with the algorithm Open MPI 4.1's fixed decision picks for this call; tags::gather and
// tags::bcast, as Open MPI's.
Task<> communicator_gather(Comm& comm, Buffer block, Buffer gathered, int root);
Task<> communicator_bcast(Comm& comm, Buffer data, int root);
// MPI_Reduce of `data` to `root` (into `result` there) with `reduction`: the fixed decision for
// its size and for whether the operator commutes; tags::reduce.
Task<> communicator_reduce(Comm& comm, Buffer data, Buffer result, int root, Reduction reduction);

}  // namespace collsim
