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
#pragma once

#include "algorithms/params.hpp"
#include "comm/comm.hpp"

namespace collsim {

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

}  // namespace collsim
