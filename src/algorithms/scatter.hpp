// Scatter algorithms, named and numbered as Open MPI's coll/tuned (scatter algorithm IDs 1-3;
// coll/base coll_base_scatter.c).
//
// At params.root, `blocks` (size * m bytes) holds rank r's block at offset r * m; every rank
// receives its block into `block` (m bytes). `blocks` is ignored on other ranks and never written.
// With m = 0 every function returns at once, as MPI_Scatter does for an empty scatter; with one
// process the root still copies its own block. Local copies go through comm.copy so that the
// engines charge them. All messages carry tags::scatter, as Open MPI's carry
// MCA_COLL_BASE_TAG_SCATTER.
#pragma once

#include "algorithms/params.hpp"
#include "comm/comm.hpp"

namespace collsim {

// ID 1 (Open MPI: ompi_coll_base_scatter_intra_basic_linear). Non-roots blocking-receive their
// block; the root walks the ranks 0..p-1 in order, copying its own block when its turn comes and
// blocking-sending every other rank its block.
Task<> scatter_basic_linear(Comm& comm, Buffer blocks, Buffer block, const AlgorithmParams& params);

// ID 2 (Open MPI: ompi_coll_base_scatter_intra_binomial). On the in-order binomial tree
// (in_order_binomial_tree), blocks travel in vrank order, vrank = (rank - root) mod p:
//  - the root works on `blocks` when it is rank 0; any other root first rotates them into a
//    temporary buffer in vrank order with two local copies (ranks root..p-1, then 0..root-1);
//  - odd vranks are leaves and blocking-receive their block straight into `block`;
//  - even non-root vranks (leaf p-1 included, as in Open MPI) blocking-receive their whole
//    subtree, min(vrank - parent's vrank, p - vrank) blocks, into a temporary buffer;
//  - every rank but the odd ones copies its own (first) block into `block`, then blocking-sends
//    each child c its subtree's min(c - vrank, p - c) blocks, largest child first.
Task<> scatter_binomial(Comm& comm, Buffer blocks, Buffer block, const AlgorithmParams& params);

// ID 3 (Open MPI: ompi_coll_base_scatter_intra_linear_nb), with max_requests =
// params.max_requests (coll_tuned_scatter_algorithm_max_requests). Non-roots as basic_linear.
// The root walks the ranks 0..p-1 in order, copying its own block when its turn comes; every
// other rank r gets an isend, except that with max_requests > 1 the ranks r that are multiples
// of max_requests get a blocking send instead. It waits for all the isends at the end.
Task<> scatter_linear_nb(Comm& comm, Buffer blocks, Buffer block, const AlgorithmParams& params);

// coll/basic's linear MPI_Scatterv (mca_coll_basic_scatterv_intra; coll/tuned has no scatterv),
// of equal blocks from `root`: as basic_linear, with Open MPI's scatterv tag (tags::scatterv).
// Open MPI's skips the ranks whose count is 0; equal counts are all 0 or none.
Task<> scatterv_basic_linear(Comm& comm, Buffer blocks, Buffer block, int root);

}  // namespace collsim
