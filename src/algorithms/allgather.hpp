// Allgather algorithms, named and numbered as Open MPI's coll/tuned (allgather algorithm IDs
// 1-6; coll/base coll_base_allgather.c). None takes a knob: Open MPI's allgather segment size and
// fanouts exist but no algorithm reads them.
//
// Every rank contributes `block` (m bytes); `gathered` (p * m bytes) receives rank r's block at
// offset r * m on every rank. With m = 0 every function returns at once, as MPI_Allgather does.
// Not MPI_IN_PLACE: each algorithm first copies `block` into its place in `gathered` (bruck:
// block 0), through comm.copy so that the engines charge it. Exchanges are Open MPI's sendrecv
// (comm.sendrecv) with tags::allgather, except linear's, which are the gather's and bcast's.
#pragma once

#include "algorithms/params.hpp"
#include "comm/comm.hpp"

namespace collsim {

// ID 1 (ompi_coll_base_allgather_intra_basic_linear): the communicator's MPI_Gather to rank 0,
// then its MPI_Bcast of all p * m bytes from rank 0, each with the algorithm Open MPI 4.1's fixed
// decision picks (nested_collective.hpp), as Open MPI calls them even when allgather is forced.
Task<> allgather_linear(Comm& comm, Buffer block, Buffer gathered, const AlgorithmParams& params);

// ID 2 (ompi_coll_base_allgather_intra_bruck): own block at block 0; for distance = 1, 2, 4, ...
// < p, send the first c blocks to rank - distance and receive c blocks from rank + distance at
// block `distance`, c = distance while distance <= p/2, else p - distance. Ranks other than 0
// then rotate block j to (rank + j) mod p with Open MPI's three copies (through a temporary).
Task<> allgather_bruck(Comm& comm, Buffer block, Buffer gathered, const AlgorithmParams& params);

// ID 3 (ompi_coll_base_allgather_intra_recursivedoubling): power-of-two p only; on other p Open
// MPI runs bruck, and so do we. Exchanges with rank XOR distance the `distance` blocks it holds.
Task<> allgather_recursive_doubling(Comm& comm, Buffer block, Buffer gathered, const AlgorithmParams& params);

// ID 4 (ompi_coll_base_allgather_intra_ring): p - 1 steps; step i sends block (rank - i) to
// rank + 1 and receives block (rank - i - 1) from rank - 1 (mod p).
Task<> allgather_ring(Comm& comm, Buffer block, Buffer gathered, const AlgorithmParams& params);

// ID 5 (ompi_coll_base_allgather_intra_neighborexchange): even p only; on odd p Open MPI runs
// ring, and so do we. Step 0 swaps the own block with neighbour 0 (rank + 1 for even ranks,
// rank - 1 for odd ones); steps 1 .. p/2 - 1 alternate between the two neighbours, forwarding the
// pair of blocks received in the step before.
Task<> allgather_neighbor(Comm& comm, Buffer block, Buffer gathered, const AlgorithmParams& params);

// ID 6 (ompi_coll_base_allgather_intra_two_procs): one sendrecv with the other rank, then the
// own block copied into place. On more than 2 processes Open MPI's call fails
// (MPI_ERR_UNSUPPORTED_OPERATION, no fallback): ours throws InputError there. On 1 process Open
// MPI's coll/self answers instead of coll/tuned, with a copy; so does ours.
Task<> allgather_two_proc(Comm& comm, Buffer block, Buffer gathered, const AlgorithmParams& params);

}  // namespace collsim
