#include "comm/comm.hpp"

#include <algorithm>

namespace collsim {

namespace {

const char* verb_of(OpKind kind) {
  switch (kind) {
    case OpKind::isend: return "isend to";
    case OpKind::irecv: return "irecv from";
    case OpKind::put: return "put to";
    case OpKind::get: return "get from";
    case OpKind::flush: return "flush of";
    default: return "operation with";
  }
}

}  // namespace

const char* to_string(OpKind kind) {
  switch (kind) {
    case OpKind::isend: return "isend";
    case OpKind::irecv: return "irecv";
    case OpKind::wait_all: return "wait_all";
    case OpKind::wait_any: return "wait_any";
    case OpKind::barrier: return "barrier";
    case OpKind::copy: return "copy";
    case OpKind::reduce_local: return "reduce_local";
    case OpKind::win_allocate: return "win_allocate";
    case OpKind::win_free: return "win_free";
    case OpKind::put: return "put";
    case OpKind::get: return "get";
    case OpKind::flush: return "flush";
    case OpKind::win_sync: return "win_sync";
    case OpKind::register_memory: return "register_memory";
  }
  return "?";
}

std::string RequestTable::describe(std::int64_t id) const {
  const RequestInfo& r = slots_[static_cast<std::size_t>(id)];
  switch (r.kind) {
    case RequestKind::send: return "send to " + std::to_string(r.peer) + " (tag " + std::to_string(r.tag) + ")";
    case RequestKind::recv: return "recv from " + std::to_string(r.peer) + " (tag " + std::to_string(r.tag) + ")";
    case RequestKind::put: return "put to " + std::to_string(r.peer);
    case RequestKind::get: return "get from " + std::to_string(r.peer);
  }
  return "?";
}

std::string RequestTable::describe_live(std::size_t at_most) const {
  std::string s;
  std::size_t listed = 0;
  for (std::size_t id = 0; id < static_cast<std::size_t>(size_); ++id) {
    if (!slots_[id].live) continue;
    if (++listed > at_most) return s + ", ...";
    s += (s.empty() ? "" : ", ") + describe(static_cast<std::int64_t>(id));
  }
  return s;
}

Task<> Comm::send(Buffer data, int dest, int tag) {
  auto posted = isend(data, dest, tag);
  op_.blocking = true;
  Request r = co_await posted;
  co_await wait(r);
}

Task<> Comm::recv(Buffer data, int source, int tag) {
  Request r = co_await irecv(data, source, tag);
  co_await wait(r);
}

Task<> Comm::sendrecv(Buffer send_data, int dest, int send_tag, Buffer recv_data, int source, int recv_tag) {
  Request r = co_await irecv(recv_data, source, recv_tag);
  co_await send(send_data, dest, send_tag);
  co_await wait(r);
}

Task<> Comm::sync_memory(Window w) {
  co_await flush_all(w);
  co_await win_sync(w);
}

Task<> Comm::sync_all(Window w) {
  co_await sync_memory(w);
  co_await barrier();
  co_await sync_memory(w);
}

Task<> Comm::sync_images(Window w, std::span<const int> images) {
  co_await sync_memory(w);
  std::vector<Request> requests;
  requests.reserve(images.size());
  for (int image : images)
    if (image != rank()) requests.push_back(co_await irecv(Buffer{}, image, sync_images_tag));
  for (int image : images)
    if (image != rank()) co_await send(Buffer{}, image, sync_images_tag);
  co_await wait_all(requests);
  co_await sync_memory(w);
}

Buffer Comm::local(Window w) const {
  if (!windows_ || w.id < 0 || static_cast<std::size_t>(w.id) >= windows_->size() ||
      !(*windows_)[static_cast<std::size_t>(w.id)])
    throw CommError(where() + ": window " + std::to_string(w.id) + " is not allocated");
  return *(*windows_)[static_cast<std::size_t>(w.id)];
}

void Comm::check_returned() const {
  if (requests_.live() > 0)
    throw CommError(where() + " returned with " + std::to_string(requests_.live()) + " requests never completed (" +
                    requests_.describe_live() + ")");
}

void Comm::check_peer(int peer, const char* verb) const {
  if (peer < 0 || peer >= size())
    throw CommError(where() + ": " + verb + " rank " + std::to_string(peer) + ", which does not exist (" +
                    std::to_string(size()) + " ranks)");
}

void Comm::check_window(const Op& op) const {
  const Buffer memory = local(op.window);  // throws if not allocated
  if ((op.kind == OpKind::put || op.kind == OpKind::get) && op.strided) {
    check_peer(op.peer, verb_of(op.kind));
    check_strided(op, memory.size());
  } else if (op.kind == OpKind::put || op.kind == OpKind::get) {
    check_peer(op.peer, verb_of(op.kind));
    if (op.offset > memory.size() || op.buffer.size() > memory.size() - op.offset)
      throw CommError(where() + ": " + to_string(op.kind) + " of " + std::to_string(op.buffer.size()) +
                      " bytes at offset " + std::to_string(op.offset) + " of rank " + std::to_string(op.peer) +
                      "'s window " + std::to_string(op.window.id) + ", which has " + std::to_string(memory.size()) +
                      " bytes");
  } else if (op.kind == OpKind::flush && op.peer != -1) {
    check_peer(op.peer, verb_of(op.kind));
  }
}

void Comm::check_strided(const Op& op, std::size_t window_bytes) const {
  const StridedTransfer& t = *op.strided;
  const bool put = op.kind == OpKind::put;
  const std::string what = where() + ": strided " + to_string(op.kind) + (put ? " to" : " from") + " rank " +
                           std::to_string(op.peer) + " (window " + std::to_string(op.window.id) + "): ";
  if (t.local.bytes() != t.remote.bytes())
    throw CommError(what + std::to_string(t.local.bytes()) + " local bytes against " +
                    std::to_string(t.remote.bytes()) + " remote bytes");
  if (std::string why = strided_problem(t.local, op.buffer.size(), !put); !why.empty())
    throw CommError(what + "local " + why);
  if (std::string why = strided_problem(t.remote, window_bytes, put); !why.empty())
    throw CommError(what + "remote " + why + " (the window)");
}

void Comm::check_requests(const Op& op) const {
  bool any = false;
  for (const Request& r : op.requests) {
    if (r.is_null()) continue;
    if (!requests_.outstanding(r.id))
      throw CommError(where() + ": " + to_string(op.kind) + " on request " + std::to_string(r.id) +
                      ", which is not an outstanding request of this rank");
    any = true;
  }
  if (op.kind == OpKind::wait_any && !any)
    throw CommError(where() + ": wait_any on " + std::to_string(op.requests.size()) +
                    " requests, none of them outstanding");
}

void Comm::check(const Op& op) const {
  switch (op.kind) {
    case OpKind::isend:
    case OpKind::irecv:
      check_peer(op.peer, verb_of(op.kind));
      if (op.tag < 0)
        throw CommError(where() + ": " + to_string(op.kind) + " with tag " + std::to_string(op.tag) +
                        " (tags are 0 or more)");
      break;
    case OpKind::wait_all:
    case OpKind::wait_any: check_requests(op); break;
    case OpKind::copy:
      if (op.buffer.size() != op.source.size())
        throw CommError(where() + ": copy of " + std::to_string(op.source.size()) + " bytes into a buffer of " +
                        std::to_string(op.buffer.size()) + " bytes");
      break;
    case OpKind::reduce_local: {
      if (op.buffer.size() != op.source.size())
        throw CommError(where() + ": reduce_local of " + std::to_string(op.source.size()) + " bytes into a buffer of " +
                        std::to_string(op.buffer.size()) + " bytes");
      if (std::string why = reduction_error(op.reduction); !why.empty())
        throw CommError(where() + ": reduce_local: " + why);
      if (op.buffer.size() % size_of(op.reduction.type) != 0)
        throw CommError(where() + ": reduce_local of " + std::to_string(op.buffer.size()) +
                        " bytes, not a whole number of " + std::string(to_string(op.reduction.type)) + " elements");
      break;
    }
    case OpKind::win_free:
    case OpKind::put:
    case OpKind::get:
    case OpKind::flush:
    case OpKind::win_sync: check_window(op); break;
    case OpKind::barrier:
    case OpKind::win_allocate:
    case OpKind::register_memory: break;
  }
}

Op& Comm::make(OpKind kind, Buffer buffer, int peer, int tag) {
  if (op_.made) {
    op_.made = false;  // the rank may go on (an engine that reuses its Comm after a failed call)
    throw CommError(where() + ": " + to_string(op_.kind) + " was made and not co_awaited before the next operation " +
                    "(co_await each operation where it is made)");
  }
  op_ = Op{};
  op_.kind = kind;
  op_.buffer = buffer;
  op_.peer = peer;
  op_.tag = tag;
  op_.made = true;
  return op_;
}

bool Comm::submit() {
  op_.made = false;
  Op& op = op_;
  check(op);
  switch (op.kind) {
    case OpKind::isend: op.request.id = requests_.allocate(RequestKind::send, op.peer, op.tag); break;
    case OpKind::irecv: op.request.id = requests_.allocate(RequestKind::recv, op.peer, op.tag); break;
    case OpKind::put: op.request.id = requests_.allocate(RequestKind::put, op.peer, 0); break;
    case OpKind::get: op.request.id = requests_.allocate(RequestKind::get, op.peer, 0); break;
    default: break;
  }
  if (trace_) record(TraceKind::post, op);
  if (!start(op)) return false;
  completed(op);
  return true;
}

void Comm::record(TraceKind kind, const Op& op) const {
  TraceEvent e;
  e.time = now();
  e.kind = kind;
  e.op = op.kind;
  e.rank = rank();
  e.peer = op.peer;
  e.tag = op.tag;
  e.request = op.request.id;
  switch (op.kind) {
    case OpKind::isend:
    case OpKind::irecv:
    case OpKind::put:
    case OpKind::get: e.bytes = op.strided ? op.strided->local.bytes() : op.buffer.size(); break;
    case OpKind::copy:
    case OpKind::reduce_local:
    case OpKind::register_memory: e.bytes = op.buffer.size(); break;
    case OpKind::win_allocate: e.bytes = op.bytes; break;
    default: break;
  }
  trace_->record(e);
}

void Comm::completed(Op& op) {
  if (trace_) record(TraceKind::complete, op);
  switch (op.kind) {
    case OpKind::wait_all:
      for (Request& r : op.requests) {
        if (r.is_null()) continue;
        requests_.release(r.id);
        r = Request{};
      }
      break;
    case OpKind::wait_any: {
      Request& r = op.requests[op.index];
      requests_.release(r.id);
      r = Request{};
      break;
    }
    case OpKind::win_allocate: {
      const auto id = static_cast<std::size_t>(op.window.id);
      if (!windows_) windows_ = std::make_unique<std::vector<std::optional<Buffer>>>();
      if (windows_->size() <= id) windows_->resize(id + 1);
      (*windows_)[id] = op.buffer;
      break;
    }
    case OpKind::win_free: (*windows_)[static_cast<std::size_t>(op.window.id)].reset(); break;
    default: break;
  }
}

}  // namespace collsim
