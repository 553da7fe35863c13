#include "engines/mpi/mpi_comm.hpp"

#include <climits>
#include <cstring>
#include <limits>
#include <utility>

#include "engines/mpi/mpi_datatype.hpp"
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
  // MPI_Win_free is collective; every rank allocated and freed the same windows in the same
  // order, so every rank frees the same ones here, in the same order. Errors are ignored: a
  // destructor has nobody to tell.
  for (MPI_Win& w : windows_) {
    if (w == MPI_WIN_NULL) continue;
    MPI_Win_unlock_all(w);
    MPI_Win_free(&w);
  }
  if (spare_.win != MPI_WIN_NULL) {
    MPI_Win_unlock_all(spare_.win);
    MPI_Win_free(&spare_.win);
  }
  MPI_Comm_free(&comm_);
}

void MpiComm::cancel_all() {
  // A receive nobody will match must be cancelled before its request can go; a send is left to
  // complete on its own (cancelling sends is deprecated and unreliable).
  for (std::size_t id = 0; id < slots_.size(); ++id) {
    Slot& s = slots_[id];
    if (!s.active) continue;
    if (s.kind == RequestKind::recv) {
      MPI_Cancel(&s.handle);
      MPI_Wait(&s.handle, MPI_STATUS_IGNORE);
    } else if (s.kind == RequestKind::send) {
      MPI_Request_free(&s.handle);
    } else {
      // RMA requests cannot be cancelled, and a freed one would leave its buffer in MPI's hands
      // with nothing to say when it is done; they complete without the target's help.
      MPI_Wait(&s.handle, MPI_STATUS_IGNORE);
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
    case OpKind::reduce_local: apply(op.reduction, op.source, op.buffer); break;
    case OpKind::win_allocate: start_win_allocate(op); break;
    case OpKind::win_free: start_win_free(op); break;
    case OpKind::put:
    case OpKind::get: post_rma(op); break;
    case OpKind::flush: start_flush(op); break;
    case OpKind::win_sync: start_win_sync(op); break;
    // Real MPI registers what its transport needs itself (or nothing, over shared memory): no
    // cost is made up here.
    case OpKind::register_memory: break;
  }
  return true;
}

MPI_Win MpiComm::window_handle(Window w) const {
  if (w.id < 0 || static_cast<std::size_t>(w.id) >= windows_.size()) return MPI_WIN_NULL;
  return windows_[static_cast<std::size_t>(w.id)];
}

void MpiComm::check_rc(int rc, const std::string& what) const {
  if (rc != MPI_SUCCESS) throw CommError(where() + ": " + what + " failed: " + mpi_error_text(rc));
}

void MpiComm::start_win_allocate(Op& op) {
  // Windows are symmetric. One MIN reduction over {bytes, max - bytes} yields the smallest and the
  // largest size of all ranks, so every rank sees a mismatch and throws, before MPI allocates.
  static_assert(sizeof(std::size_t) <= sizeof(std::uint64_t));
  constexpr std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
  const std::uint64_t bytes = op.bytes;
  std::uint64_t mine[2] = {bytes, top - bytes}, all[2] = {0, 0};
  check_rc(MPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_MIN, comm_), "win_allocate's MPI_Allreduce");
  const std::uint64_t smallest = all[0], largest = top - all[1];
  if (smallest != largest)
    throw CommError(where() + ": win_allocate of " + std::to_string(bytes) + " bytes, but another rank allocated " +
                    std::to_string(bytes == smallest ? largest : smallest) + " (windows are symmetric)");
  if (bytes > static_cast<std::uint64_t>(std::numeric_limits<MPI_Aint>::max()))
    throw CommError(where() + ": win_allocate of " + std::to_string(bytes) + " bytes, more than MPI_Aint holds");

  // A kept window of this size (the same one on every rank: they keep and take in one order).
  Spare got{MPI_WIN_NULL, nullptr, op.bytes};
  if (spare_.win != MPI_WIN_NULL && spare_.bytes == op.bytes) {
    got = std::exchange(spare_, Spare{});
    windows_.push_back(got.win);
  } else {
    // Every rank's size is the same (checked above): MPI may then lay the windows out regularly.
    MPI_Info info = MPI_INFO_NULL;
    MPI_Info_create(&info);
    MPI_Info_set(info, "same_size", "true");
    void* base = nullptr;
    const int rc = MPI_Win_allocate(static_cast<MPI_Aint>(bytes), 1, info, comm_, &base, &got.win);
    MPI_Info_free(&info);
    check_rc(rc, "win_allocate of " + std::to_string(bytes) + " bytes: MPI_Win_allocate");
    got.base = static_cast<std::byte*>(base);
    // In the table at once, so that ids stay in step with the other ranks and the destructor frees
    // the window even if what follows fails.
    windows_.push_back(got.win);
    check_rc(MPI_Win_set_errhandler(got.win, MPI_ERRORS_RETURN), "win_allocate: MPI_Win_set_errhandler");
    check_rc(MPI_Win_lock_all(MPI_MODE_NOCHECK, got.win), "win_allocate: MPI_Win_lock_all");
  }
  const int id = static_cast<int>(windows_.size()) - 1;
  const MPI_Win win = got.win;
  if (bytes > 0) std::memset(got.base, 0, bytes);
  // The zero-fill is a local store: MPI_Win_sync orders it before RMA on the window, and the
  // barrier keeps every other rank from putting into this memory before it is zeroed.
  check_rc(MPI_Win_sync(win), "win_allocate: MPI_Win_sync");
  check_rc(MPI_Barrier(comm_), "win_allocate: MPI_Barrier");
  op.window = Window{id};
  op.buffer = Buffer(got.base, static_cast<std::size_t>(bytes));
}

void MpiComm::complete_rma_on(int id) {
  for (Slot& s : slots_) {
    if (!s.active || s.window != id || s.handle == MPI_REQUEST_NULL) continue;
    const int rc = MPI_Wait(&s.handle, MPI_STATUS_IGNORE);
    s.handle = MPI_REQUEST_NULL;
    if (s.early_error == MPI_SUCCESS) s.early_error = rc;
  }
}

void MpiComm::start_win_free(const Op& op) {
  // The contract wants the window's requests completed first. If some are not, MPI must still
  // not see them outlive their window: they are completed here and stay outstanding for the
  // algorithm's wait, which then returns at once (with their error, if any).
  complete_rma_on(op.window.id);
  MPI_Win& win = windows_[static_cast<std::size_t>(op.window.id)];
  // Kept, not freed (the header says why): its RMA completed, it waits for the next allocation of
  // its size, which zero-fills it and synchronises as for a new window.
  const int flushed = MPI_Win_flush_all(win);
  // The window kept before goes now (collective: every rank frees the same one here).
  int unlocked = MPI_SUCCESS, freed = MPI_SUCCESS;
  if (spare_.win != MPI_WIN_NULL) {
    unlocked = MPI_Win_unlock_all(spare_.win);
    freed = MPI_Win_free(&spare_.win);
  }
  // The front still holds the window's memory: it forgets it when this free completes.
  const Buffer memory = local(op.window);
  spare_ = Spare{win, memory.data(), memory.size()};
  win = MPI_WIN_NULL;
  check_rc(flushed, "win_free of window " + std::to_string(op.window.id) + ": MPI_Win_flush_all");
  check_rc(unlocked, "win_free: MPI_Win_unlock_all of the window kept before");
  check_rc(freed, "win_free: MPI_Win_free of the window kept before");
}

MpiComm::Slot& MpiComm::new_slot(std::int64_t id, RequestKind kind, int peer, std::size_t bytes) {
  if (slots_.size() <= static_cast<std::size_t>(id)) slots_.resize(static_cast<std::size_t>(id) + 1);
  Slot& s = slots_[static_cast<std::size_t>(id)];
  s = Slot{};
  s.active = true;
  s.kind = kind;
  s.peer = peer;
  s.bytes = bytes;
  return s;
}

void MpiComm::post_rma(const Op& op) {
  if (op.strided) return post_strided_rma(op);
  const bool get = op.kind == OpKind::get;
  const std::size_t bytes = op.buffer.size();
  if (bytes > static_cast<std::size_t>(INT_MAX))
    throw CommError(where() + ": " + std::to_string(bytes) + "-byte " + (get ? "get" : "put") +
                    "; the mpi engine moves at most INT_MAX bytes per put or get");

  const std::int64_t id = op.request.id;
  Slot& s = new_slot(id, get ? RequestKind::get : RequestKind::put, op.peer, bytes);
  s.window = op.window.id;
  void* data = op.buffer.data();
  if (op.buffer.is_virtual() && bytes > 0) {
    s.scratch.assign(bytes, std::byte{0});
    data = s.scratch.data();
  }
  const MPI_Win win = windows_[static_cast<std::size_t>(op.window.id)];
  const int count = static_cast<int>(bytes);
  const auto disp = static_cast<MPI_Aint>(op.offset);
  const int rc = get ? MPI_Rget(data, count, MPI_BYTE, op.peer, disp, count, MPI_BYTE, win, &s.handle)
                     : MPI_Rput(data, count, MPI_BYTE, op.peer, disp, count, MPI_BYTE, win, &s.handle);
  if (rc != MPI_SUCCESS) {
    s = Slot{};
    throw CommError(where() + ": " + (get ? "get from" : "put to") + " rank " + std::to_string(op.peer) + " (window " +
                    std::to_string(op.window.id) + ") failed: " + mpi_error_text(rc));
  }
}

// One MPI_Rput (MPI_Rget) of two derived datatypes (mpi_datatype.hpp), anchored at the first
// block of each side; the types are freed at once (MPI completes the operation regardless). A
// virtual local buffer is replaced by zeroed scratch as big as the layout's reach.
void MpiComm::post_strided_rma(const Op& op) {
  const bool get = op.kind == OpKind::get;
  const StridedTransfer& t = *op.strided;
  const std::string what = where() + ": strided " + (get ? "get from" : "put to") + " rank " + std::to_string(op.peer);
  const std::int64_t id = op.request.id;
  Slot& s = new_slot(id, get ? RequestKind::get : RequestKind::put, op.peer, t.local.bytes());
  s.window = op.window.id;
  std::byte* base = op.buffer.data();
  if (op.buffer.is_virtual() && op.buffer.size() > 0) {
    s.scratch.assign(op.buffer.size(), std::byte{0});
    base = s.scratch.data();
  }
  const StridedType local(t.local, what), remote(t.remote, what);
  const int count = t.local.bytes() > 0 ? 1 : 0;
  void* origin = base + t.local.first;
  const auto disp = static_cast<MPI_Aint>(t.remote.first);
  const MPI_Win win = windows_[static_cast<std::size_t>(op.window.id)];
  const int rc = get ? MPI_Rget(origin, count, local.type(), op.peer, disp, count, remote.type(), win, &s.handle)
                     : MPI_Rput(origin, count, local.type(), op.peer, disp, count, remote.type(), win, &s.handle);
  if (rc != MPI_SUCCESS) {
    s = Slot{};
    throw CommError(what + " (window " + std::to_string(op.window.id) + ") failed: " + mpi_error_text(rc));
  }
}

void MpiComm::start_flush(const Op& op) {
  const MPI_Win win = windows_[static_cast<std::size_t>(op.window.id)];
  if (op.peer == -1)
    check_rc(MPI_Win_flush_all(win), "flush_all of window " + std::to_string(op.window.id));
  else
    check_rc(MPI_Win_flush(op.peer, win),
             "flush of window " + std::to_string(op.window.id) + " to rank " + std::to_string(op.peer));
}

void MpiComm::start_win_sync(const Op& op) {
  check_rc(MPI_Win_sync(windows_[static_cast<std::size_t>(op.window.id)]),
           "win_sync of window " + std::to_string(op.window.id));
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
  Slot& s = new_slot(id, receive ? RequestKind::recv : RequestKind::send, op.peer, bytes);
  s.tag = op.tag;
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

void MpiComm::trace_done(std::int64_t id) const {
  const Slot& s = slots_[static_cast<std::size_t>(id)];
  TraceEvent e;
  e.time = done_at_;
  e.kind = TraceKind::request_done;
  e.rank = rank_;
  e.peer = s.peer;
  e.tag = s.tag;
  e.bytes = s.bytes;
  e.request = id;
  switch (s.kind) {
    case RequestKind::send: e.op = OpKind::isend; break;
    case RequestKind::recv: e.op = OpKind::irecv; break;
    case RequestKind::put: e.op = OpKind::put; break;
    case RequestKind::get: e.op = OpKind::get; break;
  }
  if (s.kind == RequestKind::put || s.kind == RequestKind::get) e.protocol = TraceProtocol::one_sided;
  trace()->record(e);
}

std::string MpiComm::finish(std::int64_t id, const MPI_Status& status, int error) {
  Slot& s = slots_[static_cast<std::size_t>(id)];
  if (trace()) trace_done(id);
  std::string problem;
  if (s.kind == RequestKind::put || s.kind == RequestKind::get) {
    // No size to check: the front checked the access against the window, and MPI moves exactly
    // the count it was given. The status of an RMA request says nothing more.
    if (error == MPI_SUCCESS) error = s.early_error;
    if (error != MPI_SUCCESS)
      problem = where() + ": " + (s.kind == RequestKind::get ? "get from" : "put to") + " rank " +
                std::to_string(s.peer) + " (window " + std::to_string(s.window) + ") failed: " + mpi_error_text(error);
    s = Slot{};
    return problem;
  }
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
    problem = where() + ": " + (s.kind == RequestKind::recv ? "receive from" : "send to") + route() +
              " failed: " + mpi_error_text(error);
  } else if (s.kind == RequestKind::recv) {
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
  if (trace()) done_at_ = now();
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
    const MPI_Request h = slots_[static_cast<std::size_t>(requests[i].id)].handle;
    if (h == MPI_REQUEST_NULL) {
      // A put or get that win_free completed already: MPI_Waitany would skip it as inactive.
      if (trace()) done_at_ = now();
      std::string problem = finish(requests[i].id, MPI_Status{}, MPI_SUCCESS);
      if (!problem.empty()) {
        release_failed(requests[i]);
        throw CommError(problem);
      }
      return i;
    }
    handles_.push_back(h);
    positions_.push_back(i);
  }
  int k = MPI_UNDEFINED;
  MPI_Status status;
  const int rc = MPI_Waitany(static_cast<int>(handles_.size()), handles_.data(), &k, &status);
  if (trace()) done_at_ = now();
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
