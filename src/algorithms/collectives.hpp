// The entry points of every algorithm, by operation, each with the Open MPI function it follows
// and how (the registry, src/registry/<operation>.cpp, runs them; some algorithms call others').
// Every function runs on a communicator (comm/comm.hpp) with its rank's buffers and knobs
// (params.hpp), and is written once for every engine.
#pragma once

#include "algorithms/params.hpp"
#include "algorithms/topology/tree.hpp"
#include "comm/comm.hpp"

namespace collsim {

// ==== bcast ======================================================================================
//
// Broadcast algorithms, named and numbered as Open MPI's coll/tuned (bcast algorithm IDs 1-9 of
// Open MPI 4.1; coll/base coll_base_bcast.c).
//
// Every function broadcasts `data` (data.size() bytes, i.e. MPI_BYTE elements) from
// params.root; on non-root ranks the buffer receives the root's bytes. With zero bytes or one
// process every function returns at once, as MPI_Bcast does before any algorithm runs. All
// messages carry tags::bcast, as Open MPI's carry MCA_COLL_BASE_TAG_BCAST.

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

// ==== gather =====================================================================================
//
// Gather algorithms, named and numbered as Open MPI's coll/tuned (gather algorithm IDs 1-3;
// coll/base coll_base_gather.c).
//
// Every rank contributes `block` (m bytes); at params.root, `gathered` (size * m bytes) receives
// rank r's block at offset r * m. `gathered` is ignored on other ranks. With m = 0 every function
// returns at once, as MPI_Gather does; with one process the root still copies its own block.
// Local copies go through comm.copy so that the engines charge them. All messages carry
// tags::gather, as Open MPI's carry MCA_COLL_BASE_TAG_GATHER.

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

// ==== scatter ====================================================================================
//
// Scatter algorithms, named and numbered as Open MPI's coll/tuned (scatter algorithm IDs 1-3;
// coll/base coll_base_scatter.c).
//
// At params.root, `blocks` (size * m bytes) holds rank r's block at offset r * m; every rank
// receives its block into `block` (m bytes). `blocks` is ignored on other ranks and never written.
// With m = 0 every function returns at once, as MPI_Scatter does for an empty scatter; with one
// process the root still copies its own block. Local copies go through comm.copy so that the
// engines charge them. All messages carry tags::scatter, as Open MPI's carry
// MCA_COLL_BASE_TAG_SCATTER.

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

// ==== barrier ====================================================================================
//
// Barrier algorithms, named and numbered as Open MPI's coll/tuned (barrier algorithm IDs 1-6;
// coll/base coll_base_barrier.c).
//
// Every message is zero bytes and carries tags::barrier, as Open MPI's are empty MPI_BYTE
// messages with MCA_COLL_BASE_TAG_BARRIER. "zsr" below is Comm::sendrecv of zero bytes (Open
// MPI's ompi_coll_base_sendrecv_zero: post the receive, blocking send, wait for the receive).
// With one process every function returns at once (Open MPI's coll/self serves that case).
//
// Deliberate difference, for all of them: Open MPI sends some messages in synchronous mode
// (MPI_Ssend: the send completes only once the receive is matched); the messaging layer has no
// such mode, so they are standard blocking sends here. Same messages, same order; only a sender
// may go on before its receiver has posted the receive.

// ID 1 (Open MPI: ompi_coll_base_barrier_intra_basic_linear). Ranks other than 0 blocking-send
// to 0, then blocking-receive from 0. Rank 0 posts p-1 receives, waits for all, then
// blocking-sends to 1, 2, ..., p-1 in order. Deliberate difference: Open MPI's receives take
// MPI_ANY_SOURCE; ours name the ranks 1..p-1 (one zero-byte message from each, all awaited by
// one wait, so the same messages complete the same wait).
Task<> barrier_linear(Comm& comm, const AlgorithmParams& params);

// ID 2 (Open MPI: ompi_coll_base_barrier_intra_doublering). Two rounds around the ring: rank r > 0
// blocking-receives from r-1, then every rank blocking-sends to r+1 mod p, then rank 0
// blocking-receives from p-1. Open MPI's second round sends in synchronous mode.
Task<> barrier_double_ring(Comm& comm, const AlgorithmParams& params);

// ID 3 (Open MPI: ompi_coll_base_barrier_intra_recursivedoubling). With p' the largest power of
// two <= p and r = p - p': ranks >= p' zsr with rank - p' (its receive is released last); ranks
// < r first blocking-receive from rank + p'. Then ranks < p' zsr with rank XOR mask for mask = 1,
// 2, ... < p', and ranks < r finally send to rank + p' (synchronous mode in Open MPI).
Task<> barrier_recursive_doubling(Comm& comm, const AlgorithmParams& params);

// ID 4 (Open MPI: ompi_coll_base_barrier_intra_bruck). For distance = 1, 2, 4, ... < p: zsr
// sending to rank + distance and receiving from rank - distance (mod p).
Task<> barrier_bruck(Comm& comm, const AlgorithmParams& params);

// ID 5 (Open MPI: ompi_coll_base_barrier_intra_two_procs). One zsr with the other rank. Only for
// 2 processes: on more, Open MPI's call fails with MPI_ERR_UNSUPPORTED_OPERATION, and this one
// throws InputError saying so before sending anything.
Task<> barrier_two_proc(Comm& comm, const AlgorithmParams& params);

// ID 6 (Open MPI: ompi_coll_base_barrier_intra_tree). With P the smallest power of two >= p, the
// pairs (rank, rank XOR jump) whose partner has no bit below jump set and is < p: going up, for
// jump = 1, 2, ..., P/2, the higher rank of a pair blocking-sends to the lower, which
// blocking-receives; coming down, for jump = P/2, ..., 1, the lower sends to the higher.
Task<> barrier_tree(Comm& comm, const AlgorithmParams& params);

// ==== allgather ==================================================================================
//
// Allgather algorithms, named and numbered as Open MPI's coll/tuned (allgather algorithm IDs
// 1-6; coll/base coll_base_allgather.c). None takes a knob: Open MPI's allgather segment size and
// fanouts exist but no algorithm reads them.
//
// Every rank contributes `block` (m bytes); `gathered` (p * m bytes) receives rank r's block at
// offset r * m on every rank. With m = 0 every function returns at once, as MPI_Allgather does.
// Not MPI_IN_PLACE: each algorithm first copies `block` into its place in `gathered` (bruck:
// block 0), through comm.copy so that the engines charge it. Exchanges are Open MPI's sendrecv
// (comm.sendrecv) with tags::allgather, except linear's, which are the gather's and bcast's.

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

// ==== alltoall ===================================================================================
//
// Alltoall algorithms, named and numbered as Open MPI's coll/tuned (alltoall algorithm IDs 1-5;
// coll/base coll_base_alltoall.c).
//
// `data` (p * m bytes) holds block j for rank j; `gathered` (p * m bytes) receives rank i's block
// for this rank at offset i * m. With m = 0 every function returns at once, as MPI_Alltoall does.
// Not MPI_IN_PLACE (Open MPI runs its own in-place algorithm then, whatever is forced). Local
// copies go through comm.copy so that the engines charge them. All messages carry tags::alltoall.

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

// ==== reduce =====================================================================================
//
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
Task<> reduce_tree(Comm& comm, Buffer vector, Buffer result, TreeNode node, const AlgorithmParams& params);

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

// ==== allreduce ==================================================================================
//
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

// ==== reduce_scatter =============================================================================
//
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
