// MpiComm: the messaging layer over a real MPI communicator.
//
// Every operation completes inside start() (the calling process blocks, as a real MPI code
// would), so algorithms run unchanged and unsuspended. Requests map to MPI requests through a
// per-rank table indexed by Request::id. MpiComm works on its own duplicate of the communicator,
// with errors returned instead of aborting, so a wrong receive size becomes a CommError that
// names the ranks and sizes instead of killing the job.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
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

  bool start(Op& op) override;

  // Requests issued and not yet completed by a wait (an algorithm should leave none).
  std::size_t active_requests() const { return slots_.size() - free_.size(); }
  // The duplicate communicator the messages travel on.
  MPI_Comm handle() const { return comm_; }

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

  Request post(const Op& op);
  void wait_all(std::span<Request> requests);
  std::size_t wait_any(std::span<Request> requests);
  std::int64_t find_active(Request request, const char* what) const;
  // Frees the slot and returns what went wrong with it ("" when the transfer was right).
  std::string finish(std::int64_t id, const MPI_Status& status, int error);
  std::string where() const;

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 0;
  int tag_ub_ = 32767;
  double epoch_ = 0;
  std::vector<Slot> slots_;
  std::vector<std::int64_t> free_;
  // Reused between waits so that a wait allocates nothing once the sizes have been seen.
  std::vector<MPI_Request> handles_;
  std::vector<std::size_t> positions_;
  std::vector<MPI_Status> statuses_;
};

}  // namespace collsim
