// Allreduce algorithms, named and numbered as Open MPI's coll/tuned (allreduce algorithm IDs 1-6;
// coll/base coll_base_allreduce.c).
//
// Every rank contributes `vector` (count = size / size_of(params.reduction.type) elements) and
// receives vector_0 (+) vector_1 (+) ... (+) vector_{p-1} in `result`; `vector` is never
// written. With no elements every function returns at once, as MPI_Allreduce does. Local
// reductions go through comm.reduce_local with Open MPI's operand order (`inout = in (+) inout`),
// copies through comm.copy. Messages carry tags::allreduce, except those of the collectives an
// algorithm calls (basic_linear, nonoverlapping: reduce and bcast), which carry theirs, as in Open
// MPI.
//
// Operand order: basic_linear, nonoverlapping and recursive_doubling keep rank order, so they are
// right for non-commutative operators; rabenseifner falls back to basic_linear for one. ring and
// segmented_ring combine block b from rank b onwards around the ring, which is not rank order;
// Open MPI runs them on any operator anyway, and so do we.
#pragma once

#include "algorithms/params.hpp"
#include "comm/comm.hpp"

namespace collsim {

// ID 1 (ompi_coll_base_allreduce_intra_basic_linear): reduce_linear to rank 0, then
// bcast_basic_linear of the result from rank 0.
Task<> allreduce_basic_linear(Comm& comm, Buffer vector, Buffer result, const AlgorithmParams& params);

// ID 2 (ompi_coll_base_allreduce_intra_nonoverlapping): the communicator's MPI_Reduce to rank 0,
// then its MPI_Bcast of the result from rank 0 (communicator_reduce and communicator_bcast: Open
// MPI 4.1's fixed decisions for this count and operator). Whether it keeps rank order is the
// reduce's business: the fixed decision for a non-commutative operator picks linear or
// in-order_binary, which do.
Task<> allreduce_nonoverlapping(Comm& comm, Buffer vector, Buffer result, const AlgorithmParams& params);

// ID 3 (ompi_coll_base_allreduce_intra_recursivedoubling). A = a copy of own data, B = result.
// With p' the largest power of two <= p and r = p - p': even ranks below 2r send A to rank+1
// and wait; odd ones receive it into B and compute A <- B (+) A. Then p' ranks (newrank u, real
// rank 2u+1 below r, u+r above) exchange whole vectors with newrank XOR 1, 2, 4, ... (Open MPI's
// sendrecv: irecv into B, blocking send of A, wait), always with the lower rank's data as the
// left operand: the lower rank computes B <- A (+) B and swaps A and B, the upper A <- B (+) A.
// Finally odd ranks below 2r send the result to rank-1, which receives it into `result`.
Task<> allreduce_recursive_doubling(Comm& comm, Buffer vector, Buffer result, const AlgorithmParams& params);

// ID 4 (ompi_coll_base_allreduce_intra_ring). The vector is cut into p blocks by Open MPI's
// block split (the first count mod p blocks one element longer). result <- own data; then a ring
// reduce-scatter (p-1 steps: receive a block from rank-1 into one of two alternating temporaries,
// reduce it into result's block, send that block on to rank+1 with a blocking send, the next
// receive posted before waiting for the current one), after which rank holds block rank+1
// complete; then a ring allgather (p-1 sendrecvs: block rank+1-k to the right, block rank-k from
// the left). Block b is reduced as (((x_b (+) x_{b+1}) (+) x_{b+2}) ...) (+) x_{b-1}. With fewer
// elements than processes it runs recursive_doubling, as Open MPI does.
// Deliberate difference: Open MPI posts every receive for the longest block and takes a shorter
// message in it; ours post the block's own length (the same messages).
Task<> allreduce_ring(Comm& comm, Buffer vector, Buffer result, const AlgorithmParams& params);

// ID 5 (ompi_coll_base_allreduce_intra_ring_segmented). segcount = params.segment in elements
// (element_segment); with fewer than p * segcount elements it runs ring. Otherwise the ring's
// reduce-scatter runs in P phases, P = floor(count / (p * segcount)), plus one when the remainder
// is at least p and more than p * segcount / 2: each block is cut into P pieces by the block split
// and phase q reduces piece q of every block around the ring; then one allgather of whole blocks.
// Receives are posted at their pieces' own lengths (as in ring).
Task<> allreduce_segmented_ring(Comm& comm, Buffer vector, Buffer result, const AlgorithmParams& params);

// ID 6 (ompi_coll_base_allreduce_intra_redscat_allgather). Rabenseifner's reduce-scatter on
// `result` (rabenseifner_reduce_scatter, reduce.hpp, shared with reduce/rabenseifner), then an
// allgather by recursive doubling: from the last halving back to the first, a sendrecv with the
// same partner sends the part kept and receives the part sent away then. Finally even ranks below
// 2(p - p') send the whole result to rank+1, which dropped out. Falls back to basic_linear, as
// Open MPI does, with fewer than p' elements or a non-commutative operator.
Task<> allreduce_rabenseifner(Comm& comm, Buffer vector, Buffer result, const AlgorithmParams& params);

}  // namespace collsim
