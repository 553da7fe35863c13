// Reduce algorithms, named and numbered as Open MPI's coll/tuned (reduce algorithm IDs 1-7;
// coll/base coll_base_reduce.c).
//
// Every rank contributes `vector` (count = size / size_of(params.reduction.type) elements); at
// params.root, `result` receives vector_0 (+) vector_1 (+) ... (+) vector_{p-1}. `result` is
// ignored on other ranks and `vector` is never written. With no elements every function returns
// at once, as MPI_Reduce does; with one process the root copies its vector, as coll/self does.
// Local reductions go through comm.reduce_local with Open MPI's operand order (`inout = in (+)
// inout`), copies through comm.copy, so that the engines charge them. All messages carry
// tags::reduce, as Open MPI's carry MCA_COLL_BASE_TAG_REDUCE.
//
// Segments are counted in elements, as Open MPI does (element_segment, segmentation.hpp).
// Operand order: linear and in-order_binary keep rank order, so they are right for
// non-commutative operators too; the other trees are right only for commutative ones, exactly as
// in Open MPI, which runs them anyway (no commutativity check in IDs 2-5); rabenseifner falls back
// to linear for a non-commutative operator.
#pragma once

#include <cstddef>
#include <vector>

#include "algorithms/params.hpp"
#include "algorithms/topology/tree.hpp"
#include "comm/comm.hpp"

namespace collsim {

// ID 1 (Open MPI: ompi_coll_base_reduce_intra_basic_linear). Non-roots blocking-send their
// vector to the root. The root starts from rank p-1's vector (received into `result`, or copied
// if it is p-1 itself), then for i = p-2 down to 0 takes rank i's vector (received into a
// temporary, or its own) and computes result <- vector_i (+) result.
Task<> reduce_linear(Comm& comm, Buffer vector, Buffer result, const AlgorithmParams& params);

// Open MPI's generic tree reduction (ompi_coll_base_reduce_generic) on `node`, whose root is the
// rank with no parent; the result lands in `result` there. IDs 2-6 run it on their trees.
//  - Leaf: sends its segments in order with blocking sends; with 0 < max_requests < segments,
//    keeps at most max_requests isends in flight instead, reusing the slots round robin, and
//    waits for all at the end. Deliberate difference: Open MPI's isends there are synchronous
//    mode; the messaging layer has standard mode only.
//  - Inner node: accumulates in `result` at the root, a temporary elsewhere. Per segment it
//    receives from the children in order, at most two receives in flight, through two alternating
//    temporaries; with a commutative operator child 0's segment goes straight into the
//    accumulator and own data joins at child 1 (own (+) c0), else own data is copied into the
//    accumulator first and each child is combined on its left (c0 (+) own). A segment is finished
//    with the last child's data, then blocking-sent to the parent, right after the next segment's
//    receive from child 0 is posted.
Task<> reduce_tree(Comm& comm, Buffer vector, Buffer result, const TreeNode& node, const AlgorithmParams& params);

// ID 2 (ompi_coll_base_reduce_intra_chain): params.fanout chains off the root (chain_tree).
// Open MPI's fixed decision passes fanout 0, built as 1, i.e. the pipeline.
Task<> reduce_chain(Comm& comm, Buffer vector, Buffer result, const AlgorithmParams& params);
// ID 3 (ompi_coll_base_reduce_intra_pipeline): one chain through all ranks (pipeline_tree).
Task<> reduce_pipeline(Comm& comm, Buffer vector, Buffer result, const AlgorithmParams& params);
// ID 4 (ompi_coll_base_reduce_intra_binary): the breadth-first binary tree (binary_tree).
Task<> reduce_binary(Comm& comm, Buffer vector, Buffer result, const AlgorithmParams& params);
// ID 5 (ompi_coll_base_reduce_intra_binomial): the in-order binomial tree
// (in_order_binomial_tree).
Task<> reduce_binomial(Comm& comm, Buffer vector, Buffer result, const AlgorithmParams& params);

// ID 6 (ompi_coll_base_reduce_intra_in_order_binary): the generic tree reduction on the in-order
// binary tree (in_order_binary_tree), which is rooted at rank p-1 whatever the root, so the
// reduction keeps rank order. Rank p-1 reduces into a temporary unless it is the root; then, if
// the root is another rank, p-1 blocking-sends the result to it.
Task<> reduce_in_order_binary(Comm& comm, Buffer vector, Buffer result, const AlgorithmParams& params);

// ID 7 (ompi_coll_base_reduce_intra_redscat_gather): Rabenseifner's reduce-scatter by recursive
// vector halving and distance doubling over p' = the largest power of two <= p ranks, then a
// binomial gather of the pieces to the root. Ranks below 2(p - p') first pair up (odd with
// even, exchanging halves); the odd ones then drop out. Falls back to reduce_linear, as Open
// MPI does, when p' < 2, the count is below p' or the operator is not commutative.
Task<> reduce_rabenseifner(Comm& comm, Buffer vector, Buffer result, const AlgorithmParams& params);

// --- Rabenseifner's reduce-scatter, shared with allreduce/rabenseifner (Open MPI's
// redscat_gather and redscat_allgather run the same steps 1 and 2, each with its own tag) ---

// One step of the vector halving, in elements: the part a rank keeps and the part it sends away.
struct Halving {
  std::size_t keep, keep_count, sent, sent_count;
};

// The halvings of virtual rank `vrank` among `pof2` over `count` elements, step k at distance
// 2^k: the lower of the two partners keeps the lower floor(w/2) elements of its window w, the
// upper one the rest. Real ranks grow with virtual ones, so comparing either gives the same side.
std::vector<Halving> rabenseifner_halvings(int vrank, int pof2, std::size_t count);

// The real rank of virtual rank u when the `extra` = p - p' odd ranks below 2 * extra have
// dropped out: 2u below extra, u + extra above.
inline int rabenseifner_real_rank(int u, int extra) { return u < extra ? 2 * u : u + extra; }

// Steps 1 and 2 on the working vector `w` (every rank's own data on entry; count = its size in
// elements, at least p'), with `t` (as large) to receive into, messages tagged `tag`:
//  1. ranks below 2(p - p') pair up: the odd one sends its lower half and gets the even one's
//     upper half (sendrecv), reduces that upper half and sends it back, then drops out; the even
//     one reduces the lower half and receives the upper one;
//  2. the p' remaining ranks (virtual rank u) halve the vector by distance doubling: at each step
//     a sendrecv with the partner of rabenseifner_halvings, then w[keep] <- t[keep] (+) w[keep].
// Returns the virtual rank, whose last halving's kept part of w is now fully reduced; -1 for a
// rank that dropped out.
Task<int> rabenseifner_reduce_scatter(Comm& comm, Buffer w, Buffer t, Reduction reduction, int tag);

}  // namespace collsim
