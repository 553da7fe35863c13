// MpiComm: the messaging layer over a real MPI communicator.
//
// Every operation completes inside start() (the calling process blocks, as a real MPI code
// would), so algorithms run unchanged and unsuspended. Requests map to MPI requests through a
// per-rank table indexed by Request::id. MpiComm works on its own duplicate of the communicator,
// with errors returned instead of aborting, so a wrong receive size becomes a CommError that
// names the ranks and sizes instead of killing the job.
//
// Caveat: a message longer than its receive buffer is only safe when MPI truncates it. Open MPI
// 4.1's loopback does not (it is caught here before MPI sees it), nor does its shared-memory
// single-copy path above the eager limit (the buffer is overrun, then the error reported);
// `--mca btl_vader_single_copy_mechanism none` makes the latter safe for debugging.
//
// One-sided operations are MPI-3 RMA under one passive-target epoch per window, held from
// allocation to free, as Omni XcalableMP runs coarrays on MPI-3. The MPI calls each op makes
// (every error, returned by MPI, becomes a CommError):
//  - isend / irecv: MPI_Isend / MPI_Irecv (MPI_BYTE) on the duplicate communicator.
//  - wait_all: MPI_Wait for one request, MPI_Waitall for more; wait_any: MPI_Waitany. The same for
//    every kind of request (put and get requests are MPI_Rput / MPI_Rget requests).
//  - barrier: MPI_Barrier. copy: memmove, no MPI call.
//  - win_allocate(bytes): MPI_Allreduce (MPI_MIN over {bytes, UINT64_MAX - bytes}: the smallest
//    and largest size of all ranks; a mismatch is a CommError on every rank, before any window
//    exists); MPI_Win_allocate(bytes, disp_unit 1, info same_size=true) on the duplicate
//    communicator; MPI_Win_set_errhandler(MPI_ERRORS_RETURN); zero-fill (memset);
//    MPI_Win_lock_all(MPI_MODE_NOCHECK); MPI_Win_sync; MPI_Barrier. The barrier is what makes
//    the zero-fill safe: without it a faster rank could put into memory not yet zeroed. A virtual
//    window gets real memory all the same (MPI always moves bytes).
//  - win_free: MPI_Wait for any put/get request on the window still outstanding (the request
//    stays outstanding for the algorithm's wait, which then returns at once), MPI_Win_flush_all;
//    the MPI window itself is kept, still locked, for the next win_allocate of the same size,
//    which zero-fills it, MPI_Win_sync, MPI_Barrier, as for a new one (one window is kept: the
//    one kept before is then unlocked and freed, so memory stays bounded). A coarray runtime
//    allocates its window once (Omni at initialisation, OpenCoarrays at program start), while the
//    measurement loop here allocates one per timed call; and the first RMA into a new window pays
//    its mapping or registration (a 1.6 MB put on this 2-core machine, Open MPI 4.1: 10-14 ms
//    into a new window with osc sm or rdma, 30 us into one used before), which no PUT statement
//    of those runtimes pays. The windows still kept are unlocked and freed by the destructor.
//  - put(w, target, offset, src): MPI_Rput(src, n, MPI_BYTE, target, offset, n, MPI_BYTE, win);
//    its request is the MPI request, complete when MPI_Wait says so (local completion). get:
//    MPI_Rget likewise; complete when the data is in dst. No flush is made for either: remote
//    completion of a put is the next flush. A virtual src / dst is replaced by zeroed scratch
//    memory. More than INT_MAX bytes in one put or get is a CommError.
//  - flush(w, target): MPI_Win_flush(target, win); flush_all(w): MPI_Win_flush_all(win).
//  - win_sync(w): MPI_Win_sync(win).
// So the front's sync_memory is MPI_Win_flush_all + MPI_Win_sync, sync_all adds an MPI_Barrier
// between two of those, and sync_images exchanges zero-byte MPI_Isend/MPI_Irecv with each partner.
//
// Tracing (Comm::set_trace): MPI shows nothing between a post and the wait that completes it, so
// besides the front's post and complete this engine records one `request_done` per request, at
// the moment the wait that completed it returned, with message id -1 (no send_start, no arrive;
// gather_trace pairs the two ends of each message once the ranks' events are merged).
//
// Window ids index a table of MPI windows here; they are not reused, and every rank allocates and
// frees windows in the same order, so ids agree on all ranks and every rank keeps and takes back
// the same MPI windows. The destructor frees the windows still allocated or kept (collectively,
// every rank holding the same ones), after cancel_all.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "comm/comm.hpp"

namespace collsim {

class MpiComm final : public Comm {
 public:
  // Collective over `comm` (it is duplicated).
  explicit MpiComm(MPI_Comm comm);
  ~MpiComm() override;
  MpiComm(const MpiComm&) = delete;
  MpiComm& operator=(const MpiComm&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  // MPI_Wtime() minus the epoch: the timed engines set the epoch to the common start date of a
  // call, so times read by an algorithm are relative to that call's start.
  double now() const override;
  void set_epoch(double wtime) { epoch_ = wtime; }

  // Requests issued and not yet completed by a wait (an algorithm should leave none).
  std::size_t active_requests() const { return requests().live(); }
  // Drops every outstanding request (receives are cancelled first; puts and gets cannot be
  // cancelled, so they are waited for), so that the comm can serve again after an algorithm
  // failed half-way, or be freed. Windows stay allocated.
  void cancel_all();
  // The duplicate communicator the messages travel on.
  MPI_Comm handle() const { return comm_; }
  // The MPI window behind `w` (MPI_WIN_NULL once freed): for tests and tools that look at MPI.
  MPI_Win window_handle(Window w) const;

 protected:
  // After a CommError the operations already started are left as they were: the comm is fit
  // only for destruction, which cancels what is still pending.
  bool start(Op& op) override;

 private:
  struct Slot {
    MPI_Request handle = MPI_REQUEST_NULL;
    bool active = false;
    RequestKind kind = RequestKind::send;
    int peer = -1;
    int tag = 0;
    int window = -1;  // put, get
    std::size_t bytes = 0;
    // The error of a put or get that win_free completed before the algorithm waited for it.
    int early_error = MPI_SUCCESS;
    // Stands in for a virtual buffer: MPI always moves real bytes.
    std::vector<std::byte> scratch;
  };

  // The slot of request `id`, fresh and active, for a transfer of `bytes` with `peer`.
  Slot& new_slot(std::int64_t id, RequestKind kind, int peer, std::size_t bytes);
  void post(const Op& op);
  void post_rma(const Op& op);
  void post_strided_rma(const Op& op);
  void start_win_allocate(Op& op);
  void start_win_free(const Op& op);
  void start_flush(const Op& op);
  void start_win_sync(const Op& op);
  // Waits for the put and get requests on window `id` that are still outstanding.
  void complete_rma_on(int id);
  // Throws CommError("<where>: <what> failed: <MPI's text>") unless rc is MPI_SUCCESS.
  void check_rc(int rc, const std::string& what) const;
  void match_self(bool receive, int tag, std::size_t bytes);
  void wait_all(std::span<Request> requests);
  std::size_t wait_any(std::span<Request> requests);
  // Records the request_done of the request in slot `id`, at done_at_ (callers check trace()).
  void trace_done(std::int64_t id) const;
  // Frees the slot and returns what went wrong with it ("" when the transfer was right).
  std::string finish(std::int64_t id, const MPI_Status& status, int error);

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 0;
  int tag_ub_ = 32767;
  double epoch_ = 0;
  double done_at_ = 0;  // when the last wait returned, while tracing
  // Sizes of messages to self posted on one side and not yet on the other, per tag. Open MPI's
  // loopback truncates a too-long message to self silently (or overruns the buffer), so sizes of
  // messages to self are compared here, before MPI sees the second half of the pair; MPI's
  // ordering makes the n-th send and the n-th receive of one tag the pair.
  std::map<int, std::deque<std::size_t>> self_sends_, self_recvs_;
  std::vector<Slot> slots_;  // by request id
  // Reused between waits so that a wait allocates nothing once the sizes have been seen.
  std::vector<MPI_Request> handles_;
  std::vector<std::size_t> positions_;
  std::vector<MPI_Status> statuses_;
  std::vector<std::size_t> finished_;  // positions a failing wait_all completed
  std::vector<MPI_Win> windows_;       // by window id; MPI_WIN_NULL once freed
  // The last freed window, kept for the next win_allocate of its size (see the header comment).
  struct Spare {
    MPI_Win win = MPI_WIN_NULL;
    std::byte* base = nullptr;
    std::size_t bytes = 0;
  };
  Spare spare_;
};

}  // namespace collsim
