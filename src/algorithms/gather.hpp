// Gather algorithms, named and numbered as Open MPI's coll/tuned (gather algorithm IDs 1-3;
// coll/base coll_base_gather.c).
//
// Every rank contributes `block` (m bytes); at params.root, `gathered` (size * m bytes) receives
// rank r's block at offset r * m. `gathered` is ignored on other ranks. With m = 0 every function
// returns at once, as MPI_Gather does; with one process the root still copies its own block.
// Local copies go through comm.copy so that the engines charge them. All messages carry
// tags::gather, as Open MPI's carry MCA_COLL_BASE_TAG_GATHER.
#pragma once

#include "algorithms/params.hpp"
#include "comm/comm.hpp"

namespace collsim {

// ID 1 (Open MPI: ompi_coll_base_gather_intra_basic_linear). Non-roots blocking-send their
// block; the root blocking-receives the blocks in rank order 0..p-1, copying its own block when
// its turn comes.
Task<> gather_basic_linear(Comm& comm, Buffer block, Buffer gathered, const AlgorithmParams& params);

// ID 2 (Open MPI: ompi_coll_base_gather_intra_binomial). On the in-order binomial tree
// (in_order_binomial_tree), blocks travel in vrank order, vrank = (rank - root) mod p:
//  - odd vranks are leaves and blocking-send their block straight from the send buffer;
//  - even vranks (leaf p-1 included, as in Open MPI) copy their block into a temporary buffer,
//    blocking-receive each child's subtree after it (children in increasing mask order; the
//    child vrank c sends min(c - vrank, p - c) blocks) and blocking-send the lot to the parent;
//  - the root does the same into `gathered` when it is rank 0; any other root gathers in vrank
//    order into a temporary buffer and then rotates it into place with two local copies (vranks
//    0..p-root-1 to offset root*m, the rest to offset 0).
// Deliberate difference: Open MPI's non-root temporary buffers hold p blocks; ours hold the
// subtree's blocks (no message or copy changes).
Task<> gather_binomial(Comm& comm, Buffer block, Buffer gathered, const AlgorithmParams& params);

// ID 3 (Open MPI: ompi_coll_base_gather_intra_linear_sync). The first segment is
// params.segment bytes when 1 <= segment < m, else the whole block (Open MPI's segment-count
// rule; the second segment is then empty and still sent as a zero-byte message).
//  - Non-root: blocking-receive a zero-byte sync from the root, blocking-send the first segment,
//    blocking-send the rest.
//  - Root, for every other rank in rank order: post the first-segment receive, blocking-send the
//    zero-byte sync, post the second-segment receive, wait for the first segment. Then copy its
//    own block, and wait for all second segments.
Task<> gather_linear_sync(Comm& comm, Buffer block, Buffer gathered, const AlgorithmParams& params);

}  // namespace collsim
