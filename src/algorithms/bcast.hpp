// Broadcast algorithms, named and numbered as Open MPI's coll/tuned (bcast algorithm IDs 1-9 of
// Open MPI 4.1; coll/base coll_base_bcast.c).
//
// Every function broadcasts `data` (data.size() bytes, i.e. MPI_BYTE elements) from
// params.root; on non-root ranks the buffer receives the root's bytes. With zero bytes or one
// process every function returns at once, as MPI_Bcast does before any algorithm runs. All
// messages carry tags::bcast, as Open MPI's carry MCA_COLL_BASE_TAG_BCAST.
#pragma once

#include "algorithms/params.hpp"
#include "comm/comm.hpp"

namespace collsim {

// ID 1. The root posts one unsegmented isend per other rank, in rank order 0..p-1 (not shifted
// by the root), and waits for all of them; every other rank does one blocking receive.
// (Open MPI: ompi_coll_base_bcast_intra_basic_linear.) Ignores the segment size.
Task<> bcast_basic_linear(Comm& comm, Buffer data, const AlgorithmParams& params);

// IDs 2, 3, 5, 6, 7: Open MPI's generic segmented tree broadcast (tree_bcast.hpp) on
//  2 chain:       params.fanout chains hanging off the root (chain_tree; Open MPI's
//                 coll_tuned_bcast_algorithm_chain_fanout, default 4);
//  3 pipeline:    one chain (chain_tree with fanout 1, as Open MPI builds it);
//  5 binary_tree: Open MPI's breadth-first binary tree (binary_tree);
//  6 binomial:    Open MPI's binomial tree (binomial_tree);
//  7 knomial:     Open MPI's k-nomial tree with params.radix (knomial_tree;
//                 coll_tuned_bcast_algorithm_knomial_radix, default 4; radix < 2 throws
//                 std::invalid_argument, Open MPI requires radix > 1).
// The segment size follows Open MPI's rule (segmentation.hpp); 0 = unsegmented.
Task<> bcast_chain(Comm& comm, Buffer data, const AlgorithmParams& params);
Task<> bcast_pipeline(Comm& comm, Buffer data, const AlgorithmParams& params);
Task<> bcast_binary_tree(Comm& comm, Buffer data, const AlgorithmParams& params);
Task<> bcast_binomial(Comm& comm, Buffer data, const AlgorithmParams& params);
Task<> bcast_knomial(Comm& comm, Buffer data, const AlgorithmParams& params);

// ID 4 (Open MPI: ompi_coll_base_bcast_intra_split_bintree). On the binary tree, the message is
// split into halves, ceil(m/2) bytes then floor(m/2); odd vranks (the root's left subtree) carry
// the first half, even ones the second. Each half is cut into segments of params.segment bytes
// (0: one segment per half).
//  Phase 1: the root, for segment i = 0, 1, ..., blocking-sends segment i of the first half to
//  its left child, then segment i of the second half to its right child (while that half still
//  has segments). An inner node posts the receive of segment i+1 before waiting for segment i,
//  then blocking-sends segment i to each child in turn. A leaf blocking-receives its segments.
//  Phase 2: every non-root rank swaps halves with its pair (left vrank v with v+1) by Open MPI's
//  sendrecv (Comm::sendrecv). With an even process count the last vrank has no pair: the root
//  blocking-sends it the second half instead.
// Fallback, as Open MPI 4.1: when a half is empty (m < 2) or a segment is larger than a half,
// the message is broadcast by the chain algorithm with fanout 1, i.e. the pipeline, with the
// same segment size.
Task<> bcast_split_binary_tree(Comm& comm, Buffer data, const AlgorithmParams& params);

// ID 8 (Open MPI: ompi_coll_base_bcast_intra_scatter_allgather). The message is cut into p
// blocks of ceil(m/p) bytes (vrank v owns bytes [v*b, min((v+1)*b, m)), possibly empty).
//  Scatter: on scatter_binomial_tree, a rank blocking-receives its whole subtree's blocks from
//  its parent, then blocking-sends each child its subtree's blocks, largest subtree first;
//  nothing is sent or received when those blocks are empty.
//  Allgather by recursive doubling: for mask = 1, 2, 4, ... each rank swaps everything it holds
//  with vrank ^ mask (Comm::sendrecv). When p is not a power of two and the partner's group is
//  incomplete, the ranks that got nothing receive the missing blocks from a rank of their own
//  group that did, found by recursive halving; these messages may carry zero bytes, and are
//  still sent, as in Open MPI.
// With m < p bytes Open MPI switches to basic_linear, and so does this. Ignores the segment
// size (Open MPI accepts one and does not use it).
Task<> bcast_scatter_allgather(Comm& comm, Buffer data, const AlgorithmParams& params);

// ID 9 (Open MPI: ompi_coll_base_bcast_intra_scatter_allgather_ring). The same binomial scatter
// of blocks, then a ring allgather: p-1 steps in which every rank swaps blocks with its
// neighbours (sends block v-i+1 to rank+1, receives block v-i from rank-1, Comm::sendrecv); empty
// blocks travel as zero-byte messages. m < p falls back to basic_linear; ignores the segment.
Task<> bcast_scatter_allgather_ring(Comm& comm, Buffer data, const AlgorithmParams& params);

}  // namespace collsim
