// Alltoall algorithms, named and numbered as Open MPI's coll/tuned (alltoall algorithm IDs 1-5;
// coll/base coll_base_alltoall.c).
//
// `data` (p * m bytes) holds block j for rank j; `gathered` (p * m bytes) receives rank i's block
// for this rank at offset i * m. With m = 0 every function returns at once, as MPI_Alltoall does.
// Not MPI_IN_PLACE (Open MPI runs its own in-place algorithm then, whatever is forced). Local
// copies go through comm.copy so that the engines charge them. All messages carry tags::alltoall.
#pragma once

#include "algorithms/params.hpp"
#include "comm/comm.hpp"

namespace collsim {

// ID 1 (ompi_coll_base_alltoall_intra_basic_linear): copy the own block; post the receives from
// rank + 1, rank + 2, ..., rank - 1, then the sends to rank - 1, rank - 2, ..., rank + 1 (Open MPI
// starts persistent requests in that order); wait for all.
Task<> alltoall_linear(Comm& comm, Buffer data, Buffer gathered, const AlgorithmParams& params);

// ID 2 (ompi_coll_base_alltoall_intra_pairwise): steps 1..p-1 sendrecv the block for rank + step
// with the block from rank - step; step p is the own block, a local copy, done last.
Task<> alltoall_pairwise(Comm& comm, Buffer data, Buffer gathered, const AlgorithmParams& params);

// ID 3 (ompi_coll_base_alltoall_intra_bruck): a temporary T holds block (rank + j) mod p at j (two
// copies); for distance = 1, 2, 4, ... < p the blocks j with bit `distance` set go to
// rank + distance and the same positions come from rank - distance, into T; finally block j of T
// goes to (rank - j) mod p, one copy per block.
// Deliberate difference: Open MPI describes the blocks of a step with an indexed datatype and
// receives them into the result buffer, then copies them to T; we pack them into one contiguous
// message (one copy per run of consecutive blocks), and unpack the received message straight into
// T. The messages (one per step, of the same bytes) are Open MPI's; the copies stand for its
// datatype engine's packing and its copy back.
Task<> alltoall_modified_bruck(Comm& comm, Buffer data, Buffer gathered, const AlgorithmParams& params);

// ID 4 (ompi_coll_base_alltoall_intra_linear_sync): copy the own block; R = params.max_requests
// when 0 < R < p, else p - 1: post R receives (from rank + 1, rank + 2, ...) then R sends (to
// rank - 1, rank - 2, ...). All posted: wait for all (= linear). Otherwise wait for any, and
// replace a finished receive by the next receive and a finished send by the next send.
Task<> alltoall_linear_sync(Comm& comm, Buffer data, Buffer gathered, const AlgorithmParams& params);

// ID 5 (ompi_coll_base_alltoall_intra_two_procs): sendrecv of the other's block, then the own
// block copied. On more than 2 processes Open MPI's call fails (MPI_ERR_UNSUPPORTED_OPERATION):
// ours throws InputError there. On 1 process coll/self answers with a copy, and so does ours.
Task<> alltoall_two_proc(Comm& comm, Buffer data, Buffer gathered, const AlgorithmParams& params);

}  // namespace collsim
