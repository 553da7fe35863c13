// The messaging layer every algorithm is written against.
//
// An algorithm is a Task<> that co_awaits the operations below. `Comm` is a non-virtual front:
// it checks every call against the layer's contract (peers, sizes, requests, windows), with one
// wording per error for every engine, keeps the table of outstanding requests, and only then
// hands the operation to the engine's start(). Engines implement the few primitives (start an
// isend/irecv/put/get, wait for all or any of a set of requests, barrier, local copy, window
// allocation, flush, clock); blocking send/recv/sendrecv and the Fortran image-control
// statements (sync memory, sync all, sync images) are built on them here, once, for every engine.
//
// How an await completes is the engine's business: the sim and mpi engines finish the operation
// inside start() (the rank's own thread of control blocks), the model engine returns "not
// ready" and resumes the coroutine later from its event queue. Algorithms cannot tell.
//
// Two-sided matching follows MPI: a receive names its source and tag, messages between one pair
// of ranks with one tag are received in the order sent, and the receive buffer's size must equal
// the message size (collectives always know it; engines report a mismatch as an error).
//
// One-sided operations follow MPI-3 RMA under a passive-target epoch held for the whole run
// (MPI_Win_lock_all), which is how coarray runtimes use it:
//  - win_allocate(bytes) is collective; every rank passes the same size (coarrays are symmetric)
//    and gets its own `bytes` of window memory, zero-filled, which local() exposes.
//  - put(w, target, offset, src) writes src into target's memory at offset; its request
//    completes locally: src may be reused. The data is visible at the target by the next
//    flush(w, target) / flush_all(w) of the origin (remote completion), not before.
//  - get(w, target, offset, dst) reads target's memory into dst; its request completes when dst
//    holds the data.
//  - put_strided / get_strided(w, target, local, t) are one put or get of MPI derived datatypes:
//    the blocks of t.local in `local` (offsets from its start) to or from the blocks of t.remote
//    in target's memory (comm/strided.hpp), the bytes paired in order; one request, completing
//    as a put's or get's does. `t` must outlive the co_await that submits it.
//  - win_sync(w) is MPI_Win_sync: the memory barrier between this rank's window accesses and
//    the RMA of others.
// Within one epoch an algorithm must not put to and read the same target bytes without a flush
// in between, nor have two puts in flight to overlapping bytes (MPI leaves both undefined).
#pragma once

#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "comm/buffer.hpp"
#include "comm/reduction.hpp"
#include "comm/request_table.hpp"
#include "comm/strided.hpp"
#include "comm/task.hpp"
#include "comm/trace.hpp"

namespace collsim {

// Handle of a window (memory exposed to one-sided operations); the same on every rank.
struct Window {
  int id = -1;
  bool is_null() const { return id < 0; }
};

enum class OpKind : std::uint8_t {
  isend,
  irecv,
  wait_all,
  wait_any,
  barrier,
  copy,
  reduce_local,  // buffer = buffer (+) source, element by element (reduction.hpp)
  win_allocate,
  win_free,
  put,
  get,
  flush,  // peer = target, or -1 for every target (flush_all)
  win_sync,
  register_memory,  // buffer = the memory registered with the network card (a local cost)
};

inline constexpr OpKind kAllOpKinds[] = {
    OpKind::isend, OpKind::irecv,        OpKind::wait_all,     OpKind::wait_any,       OpKind::barrier,
    OpKind::copy,  OpKind::reduce_local, OpKind::win_allocate, OpKind::win_free,       OpKind::put,
    OpKind::get,   OpKind::flush,        OpKind::win_sync,     OpKind::register_memory};

// One operation in flight: what the awaiting coroutine asked for, and where the engine leaves the
// result. It lives in the rank's Comm until the await completes (a rank is one thread of
// control, so it has one operation in flight at a time), so an engine that suspends may keep a
// pointer to it. A million-rank run holds a million of them, so fields no kind uses together
// share storage: read only those the kind names.
struct Op {
  Op() : source() {}  // GCC 12 wants the union's initial member named here, not by an initializer

  OpKind kind{};
  bool real = true;   // win_allocate: hold real bytes (else a virtual window, see buffer.hpp)
  bool made = false;  // the front's: made by a Comm call and not yet submitted by its co_await
  // isend: made by the blocking send (MPI_Send), which a protocol may treat otherwise than an
  // MPI_Isend (UCX under Open MPI: another rendezvous threshold).
  bool blocking = false;
  int peer = -1;  // isend: destination; irecv: source; put, get, flush: target
  int tag = 0;
  Window window;  // one-sided operations; win_allocate: set by the engine
  Buffer buffer;  // isend, put: data sent; irecv, get: data received; copy: destination;
                  // reduce_local: the inout operand;
                  // win_allocate: set by the engine to this rank's window memory
  union {
    Buffer source;                   // copy: source; reduce_local: the in (left) operand
    std::span<Request> requests;     // wait_all / wait_any
    const StridedTransfer* strided;  // put, get: the blocks of a strided one (buffer: the whole
                                     // local memory, offset 0); null for a contiguous one
  };
  union {
    std::size_t offset = 0;  // put, get: byte offset in the target's window memory
    std::size_t bytes;       // win_allocate: window size per rank
    std::size_t index;       // result of wait_any
    Reduction reduction;     // reduce_local
  };
  Request request;                 // result of isend / irecv / put / get (set by the front)
  std::coroutine_handle<> waiter;  // set when the engine left the op pending
};

// "isend", "wait_all", ...
const char* to_string(OpKind kind);

class Comm;

// The awaitable every Comm operation returns; R is what co_await yields. It holds only its
// Comm: the call that made it wrote the operation into the Comm, and co_awaiting it submits
// that. Awaitables live in coroutine frames, one per co_await of an algorithm, and a model run
// holds millions of frames, so this keeps them a pointer wide.
template <class R>
class [[nodiscard]] OpAwaitable {
 public:
  explicit OpAwaitable(Comm& comm) : comm_(&comm) {}
  bool await_ready();
  void await_suspend(std::coroutine_handle<> h) noexcept;
  R await_resume();

 private:
  Comm* comm_;
};

// Raised for misuse an algorithm can cause (bad rank, size mismatch, ...). The front raises the
// contract violations; engines raise what only they can see (a message size against its receive
// when they pair, an MPI error).
class CommError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Comm {
 public:
  Comm() = default;
  // Movable so that engines can keep their ranks' Comms in a vector; never moved once in use.
  Comm(Comm&&) = default;
  Comm& operator=(Comm&&) = default;
  virtual ~Comm() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Current time in seconds, in this engine's clock (simulated or wall clock).
  virtual double now() const = 0;
  // Whether a program's timed run must follow an untimed one: an engine whose costs depend on
  // what the run before left behind (the sim engine's node cache) asks for it, as the measured
  // engines time a run that follows others.
  virtual bool warms_up() const { return false; }

  OpAwaitable<Request> isend(Buffer data, int dest, int tag) {
    make(OpKind::isend, data, dest, tag);
    return OpAwaitable<Request>(*this);
  }
  OpAwaitable<Request> irecv(Buffer data, int source, int tag) {
    make(OpKind::irecv, data, source, tag);
    return OpAwaitable<Request>(*this);
  }
  // Completes every request in the span and resets each to null.
  OpAwaitable<void> wait_all(std::span<Request> requests) {
    make(OpKind::wait_all, {}, -1, 0).requests = requests;
    return OpAwaitable<void>(*this);
  }
  // Completes one non-null request of the span, resets it to null and yields its index. A span of
  // null requests only is an error (CommError), not MPI's MPI_UNDEFINED: no algorithm means it.
  OpAwaitable<std::size_t> wait_any(std::span<Request> requests) {
    make(OpKind::wait_any, {}, -1, 0).requests = requests;
    return OpAwaitable<std::size_t>(*this);
  }
  OpAwaitable<void> wait(Request& request) { return wait_all(std::span<Request>(&request, 1)); }
  OpAwaitable<void> barrier() {
    make(OpKind::barrier, {}, -1, 0);
    return OpAwaitable<void>(*this);
  }
  // Copies src into dst within this rank's memory, charged at the engine's memory-copy cost.
  OpAwaitable<void> copy(Buffer dst, Buffer src) {
    make(OpKind::copy, dst, -1, 0).source = src;
    return OpAwaitable<void>(*this);
  }

  // Registers `memory` with the network card so that RDMA may read or write it (and deregisters
  // it when its user is done), charged at the engine's registration cost (models/registration.hpp):
  // a local cost of the rank; real MPI registers what it registers itself, so the mpi engine
  // charges nothing.
  OpAwaitable<void> register_memory(Buffer memory) {
    make(OpKind::register_memory, memory, -1, 0);
    return OpAwaitable<void>(*this);
  }

  // inout = in (+) inout element by element (MPI_Reduce_local's order), charged at the engine's
  // reduction cost; the arithmetic is done whenever both buffers hold bytes.
  OpAwaitable<void> reduce_local(Buffer inout, Buffer in, Reduction r) {
    Op& op = make(OpKind::reduce_local, inout, -1, 0);
    op.source = in;
    op.reduction = r;
    return OpAwaitable<void>(*this);
  }

  Task<> send(Buffer data, int dest, int tag);
  Task<> recv(Buffer data, int source, int tag);
  // Open MPI's internal sendrecv (coll/base), which its collectives use: post the receive, send
  // with a blocking send, then wait for the receive. Zero-byte sides are still sent.
  Task<> sendrecv(Buffer send_data, int dest, int send_tag, Buffer recv_data, int source, int recv_tag);

  // --- one-sided (see the header comment) ---
  OpAwaitable<Window> win_allocate(std::size_t bytes, bool real = true) {
    Op& op = make(OpKind::win_allocate, {}, -1, 0);
    op.bytes = bytes;
    op.real = real;
    return OpAwaitable<Window>(*this);
  }
  // Collective; outstanding operations on the window must have been completed.
  OpAwaitable<void> win_free(Window w) { return make_rma<void>(OpKind::win_free, w, -1, 0, {}); }
  // This rank's memory of window w, and its size (the same on every rank).
  Buffer local(Window w) const;
  std::size_t window_size(Window w) const { return local(w).size(); }

  OpAwaitable<Request> put(Window w, int target, std::size_t offset, Buffer src) {
    return make_rma<Request>(OpKind::put, w, target, offset, src);
  }
  OpAwaitable<Request> get(Window w, int target, std::size_t offset, Buffer dst) {
    return make_rma<Request>(OpKind::get, w, target, offset, dst);
  }
  // One put (get) of derived datatypes: t.local's blocks of `local` to (from) t.remote's blocks of
  // target's window memory (see the header comment).
  OpAwaitable<Request> put_strided(Window w, int target, Buffer local, const StridedTransfer& t) {
    return make_strided(OpKind::put, w, target, local, t);
  }
  OpAwaitable<Request> get_strided(Window w, int target, Buffer local, const StridedTransfer& t) {
    return make_strided(OpKind::get, w, target, local, t);
  }
  OpAwaitable<void> flush(Window w, int target) { return make_rma<void>(OpKind::flush, w, target, 0, {}); }
  OpAwaitable<void> flush_all(Window w) { return make_rma<void>(OpKind::flush, w, -1, 0, {}); }
  OpAwaitable<void> win_sync(Window w) { return make_rma<void>(OpKind::win_sync, w, -1, 0, {}); }

  // Fortran's image-control statements over window w, as Omni XcalableMP builds them on MPI-3:
  // sync memory = flush_all + win_sync; sync all = sync memory, barrier, sync memory;
  // sync images(list) = sync memory, a zero-byte message to and from each image of the list,
  // sync memory. Every PUT issued before completes at its target by the end of the statement.
  Task<> sync_memory(Window w);
  Task<> sync_all(Window w);
  Task<> sync_images(Window w, std::span<const int> images);
  // The tag of sync images' messages: algorithms leave it alone.
  static constexpr int sync_images_tag = 32766;

  // Where the front records each operation's post and completion (trace.hpp); engines set it
  // when a trace is asked for and record their message events to the same sink.
  void set_trace(TraceSink* sink) { trace_ = sink; }
  TraceSink* trace() const { return trace_; }

  // Outstanding requests (issued, not yet completed by a wait): an algorithm should leave none.
  const RequestTable& requests() const { return requests_; }
  // For engines, once the rank's task has returned: throws CommError if it left requests
  // outstanding ("rank 1 returned with 1 requests never completed (send to 0 (tag 1))").
  void check_returned() const;
  // For engines: room for n requests now (see RequestTable::reserve).
  void reserve_requests(std::int32_t n) { requests_.reserve(n); }

  // Checks the operation made last, records its request, and starts it in the engine; true if it
  // completed already. Called by OpAwaitable; engines never call it.
  bool submit();
  // The operation in flight. Called by OpAwaitable, and by engines that left it pending.
  Op& op() { return op_; }
  const Op& op() const { return op_; }
  // Called by OpAwaitable when an operation the engine left pending has completed.
  void completed(Op& op);

 protected:
  // Engine entry point: start `op`, which the front has checked (and for isend/irecv/put/get
  // given its request id, op.request.id, an index the engine may key its own state by). Return
  // true if it completed already (results written into op), false if the engine will resume
  // op.waiter once it completes. For wait_all / wait_any the engine only says which requests
  // completed (all / op.index): the front releases them and resets them to null.
  // win_allocate must set op.window (the same id on every rank) and op.buffer (this rank's memory).
  virtual bool start(Op& op) = 0;

  // For an engine whose wait fails (throws) after it completed `r`: the request is gone, so the
  // front forgets it and resets it to null, as a successful wait would.
  void release_failed(Request& r) {
    requests_.release(r.id);
    r = Request{};
  }
  // For an engine that has cancelled every outstanding request.
  void forget_requests() { requests_.clear(); }
  // "rank 3": how errors name this rank.
  std::string where() const { return "rank " + std::to_string(rank()); }

 private:
  // Writes a new operation into op_, to be submitted by the co_await of the awaitable returned.
  Op& make(OpKind kind, Buffer buffer, int peer, int tag);
  template <class R>
  OpAwaitable<R> make_rma(OpKind kind, Window w, int target, std::size_t offset, Buffer data) {
    Op& op = make(kind, data, target, 0);
    op.window = w;
    op.offset = offset;
    if (kind == OpKind::put || kind == OpKind::get) op.strided = nullptr;
    return OpAwaitable<R>(*this);
  }
  OpAwaitable<Request> make_strided(OpKind kind, Window w, int target, Buffer local, const StridedTransfer& t) {
    Op& op = make(kind, local, target, 0);
    op.window = w;
    op.offset = 0;
    op.strided = &t;
    return OpAwaitable<Request>(*this);
  }
  void check_strided(const Op& op, std::size_t window_bytes) const;
  void check(const Op& op) const;
  void check_peer(int peer, const char* verb) const;
  void check_window(const Op& op) const;
  void check_requests(const Op& op) const;
  void record(TraceKind kind, const Op& op) const;

  Op op_;
  RequestTable requests_;
  TraceSink* trace_ = nullptr;
  // By window id; nullopt once freed. Behind a pointer: most runs have no window, and every
  // rank of a million-rank run has a Comm.
  std::unique_ptr<std::vector<std::optional<Buffer>>> windows_;
};

template <class R>
bool OpAwaitable<R>::await_ready() {
  return comm_->submit();
}

template <class R>
void OpAwaitable<R>::await_suspend(std::coroutine_handle<> h) noexcept {
  comm_->op().waiter = h;
}

template <class R>
R OpAwaitable<R>::await_resume() {
  Op& op = comm_->op();
  if (op.waiter) comm_->completed(op);
  if constexpr (std::is_same_v<R, Request>)
    return op.request;
  else if constexpr (std::is_same_v<R, std::size_t>)
    return op.index;
  else if constexpr (std::is_same_v<R, Window>)
    return op.window;
}

}  // namespace collsim
