// The messaging layer every algorithm is written against.
//
// An algorithm is a Task<> that co_awaits the operations below. Engines implement the few
// primitives (start an isend/irecv, wait for all or any of a set of requests, barrier, local
// copy, clock); blocking send/recv/sendrecv are built on them here, once, for every engine.
//
// How an await completes is the engine's business: the sim and mpi engines finish the operation
// inside await_ready() (the rank's own thread of control blocks), the model engine returns "not
// ready" and resumes the coroutine later from its event queue. Algorithms cannot tell.
//
// Matching follows MPI: a receive names its source and tag, messages between one pair of ranks
// with one tag are received in the order sent, and the receive buffer's size must equal the
// message size (collectives always know it; engines report a mismatch as an error).
#pragma once

#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "comm/buffer.hpp"
#include "comm/task.hpp"

namespace collsim {

// Handle of an outstanding non-blocking operation. The number means something only to the
// engine that issued it; a default-constructed request is "null" and is always complete.
struct Request {
  std::int64_t id = -1;
  bool is_null() const { return id < 0; }
};

enum class OpKind : std::uint8_t { isend, irecv, wait_all, wait_any, barrier, copy };

// One operation in flight: what the awaiting coroutine asked for, and where the engine leaves the
// result. It lives in the awaiting coroutine's frame until the await completes, so an engine that
// suspends may keep a pointer to it.
struct Op {
  OpKind kind{};
  Buffer buffer;  // isend: data sent; irecv: data received; copy: destination
  Buffer source;  // copy: source
  int peer = -1;  // isend: destination; irecv: source
  int tag = 0;
  std::span<Request> requests;     // wait_all / wait_any
  Request request;                 // result of isend / irecv
  std::size_t index = 0;           // result of wait_any
  std::coroutine_handle<> waiter;  // set when the engine left the op pending
};

class Comm;

// The awaitable every Comm operation returns. R is what co_await yields.
template <class R>
class [[nodiscard]] OpAwaitable {
 public:
  OpAwaitable(Comm& comm, const Op& op) : comm_(&comm), op_(op) {}
  bool await_ready();
  void await_suspend(std::coroutine_handle<> h) noexcept { op_.waiter = h; }
  R await_resume() {
    if constexpr (std::is_same_v<R, Request>)
      return op_.request;
    else if constexpr (std::is_same_v<R, std::size_t>)
      return op_.index;
  }

 private:
  Comm* comm_;
  Op op_;
};

// Raised by engines for misuse an algorithm can cause (bad rank, size mismatch, ...).
class CommError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Comm {
 public:
  virtual ~Comm() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Current time in seconds, in this engine's clock (simulated or wall clock).
  virtual double now() const = 0;

  OpAwaitable<Request> isend(Buffer data, int dest, int tag) { return {*this, make(OpKind::isend, data, dest, tag)}; }
  OpAwaitable<Request> irecv(Buffer data, int source, int tag) {
    return {*this, make(OpKind::irecv, data, source, tag)};
  }
  // Completes every request in the span and resets each to null.
  OpAwaitable<void> wait_all(std::span<Request> requests) {
    Op op = make(OpKind::wait_all, {}, -1, 0);
    op.requests = requests;
    return {*this, op};
  }
  // Completes one non-null request of the span, resets it to null and yields its index. A span of
  // null requests only is an error (CommError), not MPI's MPI_UNDEFINED: no algorithm means it.
  OpAwaitable<std::size_t> wait_any(std::span<Request> requests) {
    Op op = make(OpKind::wait_any, {}, -1, 0);
    op.requests = requests;
    return {*this, op};
  }
  OpAwaitable<void> wait(Request& request) { return wait_all(std::span<Request>(&request, 1)); }
  OpAwaitable<void> barrier() { return {*this, make(OpKind::barrier, {}, -1, 0)}; }
  // Copies src into dst within this rank's memory, charged at the engine's memory-copy cost.
  OpAwaitable<void> copy(Buffer dst, Buffer src) {
    Op op = make(OpKind::copy, dst, -1, 0);
    op.source = src;
    return {*this, op};
  }

  Task<> send(Buffer data, int dest, int tag);
  Task<> recv(Buffer data, int source, int tag);
  // Open MPI's internal sendrecv (coll/base), which its collectives use: post the receive, send
  // with a blocking send, then wait for the receive. Zero-byte sides are still sent.
  Task<> sendrecv(Buffer send_data, int dest, int send_tag, Buffer recv_data, int source, int recv_tag);

  // Engine entry point: start `op`. Return true if it completed already (results written into
  // op), false if the engine will resume op.waiter once it completes.
  virtual bool start(Op& op) = 0;

 private:
  static Op make(OpKind kind, Buffer buffer, int peer, int tag) {
    Op op;
    op.kind = kind;
    op.buffer = buffer;
    op.peer = peer;
    op.tag = tag;
    return op;
  }
};

template <class R>
bool OpAwaitable<R>::await_ready() {
  return comm_->start(op_);
}

}  // namespace collsim
