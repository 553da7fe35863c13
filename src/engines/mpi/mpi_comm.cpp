#include "engines/mpi/mpi_comm.hpp"

#include <climits>

#include "engines/mpi/mpi_util.hpp"

namespace collsim {

MpiComm::MpiComm(MPI_Comm comm) {
  mpi_check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
  // A size mismatch must come back to us as an error code, not abort the whole job.
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  int* ub = nullptr;
  int found = 0;
  MPI_Comm_get_attr(comm_, MPI_TAG_UB, &ub, &found);
  if (found && ub) tag_ub_ = *ub;
}

MpiComm::~MpiComm() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  cancel_all();
  MPI_Comm_free(&comm_);
}

void MpiComm::cancel_all() {
  // A receive nobody will match must be cancelled before its request can go; a send is left to
  // complete on its own (cancelling sends is deprecated and unreliable).
  for (std::size_t id = 0; id < slots_.size(); ++id) {
    Slot& s = slots_[id];
    if (!s.active) continue;
    if (s.receive) {
      MPI_Cancel(&s.handle);
      MPI_Wait(&s.handle, MPI_STATUS_IGNORE);
    } else {
      MPI_Request_free(&s.handle);
    }
    s = Slot{};
  }
  forget_requests();
  self_sends_.clear();
  self_recvs_.clear();
}

double MpiComm::now() const { return MPI_Wtime() - epoch_; }

bool MpiComm::start(Op& op) {
  switch (op.kind) {
    case OpKind::isend:
    case OpKind::irecv: post(op); break;
    case OpKind::wait_all: wait_all(op.requests); break;
    case OpKind::wait_any: op.index = wait_any(op.requests); break;
    case OpKind::barrier: mpi_check(MPI_Barrier(comm_), "MPI_Barrier"); break;
    case OpKind::copy: copy_bytes(op.buffer, op.source); break;
    default: throw CommError(where() + ": one-sided operations are not supported by the mpi engine yet");
  }
  return true;
}

void MpiComm::post(const Op& op) {
  const bool receive = op.kind == OpKind::irecv;
  const char* verb = receive ? "irecv from" : "isend to";
  if (op.tag > tag_ub_)
    throw CommError(where() + ": tag " + std::to_string(op.tag) + " is outside [0, " + std::to_string(tag_ub_) + "]");
  const std::size_t bytes = op.buffer.size();
  if (bytes > static_cast<std::size_t>(INT_MAX))
    throw CommError(where() + ": " + std::to_string(bytes) +
                    "-byte message; the mpi engine sends at most INT_MAX bytes per message");

  if (op.peer == rank_) match_self(receive, op.tag, bytes);

  const std::int64_t id = op.request.id;
  if (slots_.size() <= static_cast<std::size_t>(id)) slots_.resize(static_cast<std::size_t>(id) + 1);
  Slot& s = slots_[static_cast<std::size_t>(id)];
  s = Slot{};
  s.active = true;
  s.receive = receive;
  s.peer = op.peer;
  s.tag = op.tag;
  s.bytes = bytes;
  void* data = op.buffer.data();
  if (op.buffer.is_virtual() && bytes > 0) {
    s.scratch.assign(bytes, std::byte{0});
    data = s.scratch.data();
  }
  const int count = static_cast<int>(bytes);
  const int rc = receive ? MPI_Irecv(data, count, MPI_BYTE, op.peer, op.tag, comm_, &s.handle)
                         : MPI_Isend(data, count, MPI_BYTE, op.peer, op.tag, comm_, &s.handle);
  if (rc != MPI_SUCCESS) {
    s = Slot{};
    throw CommError(where() + ": " + verb + " rank " + std::to_string(op.peer) + " failed: " + mpi_error_text(rc));
  }
}

void MpiComm::match_self(bool receive, int tag, std::size_t bytes) {
  auto& other_side = receive ? self_sends_ : self_recvs_;
  auto it = other_side.find(tag);
  if (it == other_side.end() || it->second.empty()) {
    (receive ? self_recvs_ : self_sends_)[tag].push_back(bytes);
    return;
  }
  const std::size_t other = it->second.front();
  it->second.pop_front();
  if (it->second.empty()) other_side.erase(it);
  const std::size_t message = receive ? other : bytes, buffer = receive ? bytes : other;
  if (message != buffer)
    throw CommError(where() + ": a message of " + std::to_string(message) + " bytes from " + where() + " (tag " +
                    std::to_string(tag) + ") meets a receive of " + std::to_string(buffer) +
                    " bytes (a receive must be the size of its message)");
}

std::string MpiComm::finish(std::int64_t id, const MPI_Status& status, int error) {
  Slot& s = slots_[static_cast<std::size_t>(id)];
  std::string problem;
  // Built only for an error: a successful wait must not pay for formatting.
  auto route = [&s] { return " rank " + std::to_string(s.peer) + " (tag " + std::to_string(s.tag) + ")"; };
  if (error == MPI_ERR_TRUNCATE) {
    // Open MPI reports the full size of a truncated message; the standard does not promise it.
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    const std::string size = static_cast<std::size_t>(count) > s.bytes ? "of " + std::to_string(count) + " bytes " : "";
    problem = where() + ": a message " + size + "from" + route() + " does not fit the " + std::to_string(s.bytes) +
              "-byte receive buffer (a receive must be the size of its message)";
  } else if (error != MPI_SUCCESS) {
    problem = where() + ": " + (s.receive ? "receive from" : "send to") + route() + " failed: " + mpi_error_text(error);
  } else if (s.receive) {
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    if (static_cast<std::size_t>(count) != s.bytes)
      problem = where() + ": received " + std::to_string(count) + " bytes from" + route() + ", expected " +
                std::to_string(s.bytes) + " (a receive must be the size of its message)";
  }
  s = Slot{};
  return problem;
}

void MpiComm::wait_all(std::span<Request> requests) {
  handles_.clear();
  positions_.clear();
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (requests[i].is_null()) continue;
    handles_.push_back(slots_[static_cast<std::size_t>(requests[i].id)].handle);
    positions_.push_back(i);
  }
  if (handles_.empty()) return;
  finished_.clear();
  statuses_.resize(handles_.size());
  int rc = MPI_SUCCESS;
  if (handles_.size() == 1) {
    // Open MPI's single-request wait is cheaper than MPI_Waitall, and algorithms wait for one
    // segment at a time in their inner loops.
    rc = MPI_Wait(handles_.data(), statuses_.data());
    if (rc != MPI_SUCCESS) {
      statuses_[0].MPI_ERROR = rc;
      rc = MPI_ERR_IN_STATUS;
    }
  } else {
    rc = MPI_Waitall(static_cast<int>(handles_.size()), handles_.data(), statuses_.data());
  }
  if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS)
    throw CommError(where() + ": MPI_Waitall failed: " + mpi_error_text(rc));

  std::string first_problem;
  for (std::size_t k = 0; k < handles_.size(); ++k) {
    Request& r = requests[positions_[k]];
    // Per-request error codes are only filled in when the call reports MPI_ERR_IN_STATUS.
    const int error = rc == MPI_ERR_IN_STATUS ? statuses_[k].MPI_ERROR : MPI_SUCCESS;
    if (error == MPI_ERR_PENDING) continue;  // still in flight: the request stays valid
    std::string problem = finish(r.id, statuses_[k], error);
    if (first_problem.empty()) first_problem = std::move(problem);
    finished_.push_back(positions_[k]);
  }
  if (!first_problem.empty()) {
    for (std::size_t i : finished_) release_failed(requests[i]);
    throw CommError(first_problem);
  }
}

std::size_t MpiComm::wait_any(std::span<Request> requests) {
  handles_.clear();
  positions_.clear();
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (requests[i].is_null()) continue;
    handles_.push_back(slots_[static_cast<std::size_t>(requests[i].id)].handle);
    positions_.push_back(i);
  }
  int k = MPI_UNDEFINED;
  MPI_Status status;
  const int rc = MPI_Waitany(static_cast<int>(handles_.size()), handles_.data(), &k, &status);
  if (k == MPI_UNDEFINED || k < 0 || static_cast<std::size_t>(k) >= handles_.size())
    throw CommError(where() + ": MPI_Waitany failed: " + mpi_error_text(rc));
  const std::size_t i = positions_[static_cast<std::size_t>(k)];
  std::string problem = finish(requests[i].id, status, rc);
  if (!problem.empty()) {
    release_failed(requests[i]);
    throw CommError(problem);
  }
  return i;
}

}  // namespace collsim
