// Reduce_scatter algorithms, named and numbered as Open MPI's coll/tuned (reduce_scatter algorithm
// IDs 1-4; coll/base coll_base_reduce_scatter.c).
//
// Every rank contributes `vector`, p blocks of `block.size()` bytes; rank r receives block r of
// vector_0 (+) vector_1 (+) ... (+) vector_{p-1} into `block` (MPI_Reduce_scatter with every
// count the same). `vector` is never written. With no elements every function returns at once,
// as MPI_Reduce_scatter does; with one process it copies its block, as coll/self does. The
// algorithms are written over per-rank block counts, as Open MPI's, fed equal counts. Local
// reductions go through comm.reduce_local with Open MPI's operand order (`inout = in (+) inout`),
// copies through comm.copy, so that the engines charge them. Messages carry
// tags::reduce_scatter, as Open MPI's carry MCA_COLL_BASE_TAG_REDUCE_SCATTER, except those of the
// collectives non-overlapping calls.
//
// Operand order: butterfly keeps rank order, so it is right for a non-commutative operator too,
// and so is non-overlapping, whose reduce Open MPI 4.1 picks among linear and in-order_binary for
// one; recursive_halving and ring do not keep it, and run anyway, as in Open MPI (no
// commutativity check).
#pragma once

#include "algorithms/params.hpp"
#include "comm/comm.hpp"

namespace collsim {

// ID 1 (Open MPI: ompi_coll_base_reduce_scatter_intra_nonoverlapping). The communicator's
// MPI_Reduce of the whole vector to rank 0, into a temporary there (communicator_reduce: Open MPI
// 4.1's fixed decision, tags::reduce), then coll/basic's linear MPI_Scatterv of its blocks from
// rank 0 (scatterv_basic_linear, tags::scatterv).
Task<> reduce_scatter_non_overlapping(Comm& comm, Buffer vector, Buffer block, const AlgorithmParams& params);

// ID 2 (ompi_coll_base_reduce_scatter_intra_basic_recursivehalving). Works on a copy R
// of the vector. With p' the largest power of two <= p and r = p - p', the even ranks below 2r
// blocking-send all of R to the next rank, which reduces it into its own, and drop out. The p'
// others halve a window of p' merged blocks (an odd rank below 2r stands for its block and the
// even rank's before it) by distance halving: at distance mask the lower partner keeps the lower
// mask blocks, the upper one the upper; each sends the other half (irecv, blocking send, wait;
// either side skipped when empty) and reduces R <- received (+) R. Each ends with its merged
// block, copies its own block out, and the odd ranks below 2r blocking-send the even rank's block
// back to it.
Task<> reduce_scatter_recursive_halving(Comm& comm, Buffer vector, Buffer block, const AlgorithmParams& params);

// ID 3 (ompi_coll_base_reduce_scatter_intra_ring). Works on a copy A of the vector. Each rank
// blocking-sends block rank-1 to its right neighbour; then p-2 times it receives a block from its
// left one (block rank-k at step k), reduces A[block] <- received (+) A[block] and blocking-sends
// that block on; at the end it receives its own block, reduces and copies it out. Receives are
// posted one step ahead into two alternating temporaries. Deliberate difference: Open MPI posts
// each receive for the largest block; ours post the size of the block that comes (the messaging
// layer pairs messages with receives of their size).
Task<> reduce_scatter_ring(Comm& comm, Buffer vector, Buffer block, const AlgorithmParams& params);

// ID 4 (ompi_coll_base_reduce_scatter_intra_butterfly, Traff's butterfly). The even ranks below
// 2r fold into the next rank as in recursive_halving. The p' others exchange halves of a window of
// p' merged blocks by distance doubling (sendrecv), the lower partner's data always on the left:
// the lower one keeps the lower half. Afterwards virtual rank v holds merged block mirror(v) (its
// bits reversed), which it sends to that block's owner (the even rank's part first, by blocking
// send, when the block is merged) while receiving its own block from the same rank.
Task<> reduce_scatter_butterfly(Comm& comm, Buffer vector, Buffer block, const AlgorithmParams& params);

}  // namespace collsim
