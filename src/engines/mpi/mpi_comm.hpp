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
  // Drops every outstanding request (receives are cancelled first), so that the comm can serve
  // again after an algorithm failed half-way, or be freed.
  void cancel_all();
  // The duplicate communicator the messages travel on.
  MPI_Comm handle() const { return comm_; }

 protected:
  // After a CommError the operations already started are left as they were: the comm is fit
  // only for destruction, which cancels what is still pending.
  bool start(Op& op) override;

 private:
  struct Slot {
    MPI_Request handle = MPI_REQUEST_NULL;
    bool active = false;
    bool receive = false;
    int peer = -1;
    int tag = 0;
    std::size_t bytes = 0;
    // Stands in for a virtual buffer: MPI always moves real bytes.
    std::vector<std::byte> scratch;
  };

  void post(const Op& op);
  void match_self(bool receive, int tag, std::size_t bytes);
  void wait_all(std::span<Request> requests);
  std::size_t wait_any(std::span<Request> requests);
  // Frees the slot and returns what went wrong with it ("" when the transfer was right).
  std::string finish(std::int64_t id, const MPI_Status& status, int error);

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 0;
  int tag_ub_ = 32767;
  double epoch_ = 0;
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
};

}  // namespace collsim
