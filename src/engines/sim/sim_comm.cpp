#include "engines/sim/sim_comm.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <optional>

namespace collsim::sim {

namespace s4u = simgrid::s4u;

namespace {
const char* collective_name(OpKind kind) {
  switch (kind) {
    case OpKind::win_allocate: return "win_allocate";
    case OpKind::win_free: return "win_free";
    default: return "barrier";
  }
}

// A host-to-host flow of `bytes`, started now. (SimGrid 3.32's Comm::sendto_async leaves an empty
// flow unstarted until someone waits on it, so empty acknowledgements sent together would go
// one after another; an explicit start() starts it at once.)
s4u::CommPtr start_flow(s4u::Host* from, s4u::Host* to, std::size_t bytes) {
  s4u::CommPtr c = s4u::Comm::sendto_init(from, to);
  c->set_payload_size(static_cast<std::uint64_t>(bytes));
  c->start();
  return c;
}
}  // namespace

s4u::Mailbox* Mailboxes::get(const ChannelKey& key, bool eager, const Measurement& m) {
  Entry& e = (eager ? eager_ : rendezvous_)[key];
  if (!e.mailbox) {
    const std::string name = std::string(eager ? "e" : "r") + std::to_string(key.src) + ":" + std::to_string(key.dst) +
                             ":" + std::to_string(key.tag);
    e.mailbox = s4u::Mailbox::by_name(name);
  }
  // The permanent receiver is what makes the transfer start before the receive is posted, and
  // its host is where the data goes, so it must be this measurement's destination rank.
  if (eager && e.generation != m.generation) {
    e.generation = m.generation;
    e.mailbox->set_receiver(m.actors[static_cast<std::size_t>(key.dst)]);
    with_receiver_.push_back(e.mailbox);
  }
  return e.mailbox;
}

void Mailboxes::release_receivers() {
  for (s4u::Mailbox* mb : with_receiver_) mb->set_receiver(nullptr);
  with_receiver_.clear();
}

SimComm::SimComm(Measurement& m, Mailboxes& mailboxes, int rank, const ProtocolProfile& ideal, double memcpy_rate)
    : m_(m), mailboxes_(mailboxes), rank_(rank), ideal_(ideal), memcpy_rate_(memcpy_rate) {}

double SimComm::now() const { return s4u::Engine::get_clock() - m_.start; }

bool SimComm::start(Op& op) {
  switch (op.kind) {
    case OpKind::isend: post_send(op); break;
    case OpKind::irecv: post_recv(op); break;
    case OpKind::wait_all: wait_all(op.requests); break;
    case OpKind::wait_any: op.index = wait_any(op.requests); break;
    case OpKind::barrier: collective(OpKind::barrier); break;
    case OpKind::copy: copy(op.buffer, op.source); break;
    case OpKind::reduce_local: reduce_local(op); break;
    case OpKind::win_allocate: win_allocate(op); break;
    case OpKind::win_free: win_free(op.window.id); break;
    case OpKind::put: post_put(op); break;
    case OpKind::get: post_get(op); break;
    case OpKind::flush: flush(op.window.id, op.peer); break;
    case OpKind::win_sync: win_sync(); break;
    case OpKind::register_memory: register_memory(op.buffer.size()); break;
  }
  return true;
}

SimComm::Pending& SimComm::slot(std::int64_t id) {
  const auto i = static_cast<std::size_t>(id);
  if (requests_.size() <= i) requests_.resize(i + 1);
  if (!requests_[i]) requests_[i] = std::make_unique<Pending>();
  Pending& p = *requests_[i];
  p = Pending{};
  return p;
}

SimComm::Pending& SimComm::pending(const Request& r) { return *requests_[static_cast<std::size_t>(r.id)]; }

const std::shared_ptr<SimComm::Waker>& SimComm::shared_waker() {
  if (!waker_) waker_ = std::make_shared<Waker>();
  return waker_;
}

void SimComm::post_send(const Op& op) {
  const std::size_t size = op.buffer.size();
  const ChannelKey key{rank_, op.peer, op.tag};
  Channel& ch = m_.channels[key];
  const std::uint64_t seq = ch.sends++;
  if (!ch.unmatched_recvs.empty()) {
    const std::size_t want = ch.unmatched_recvs.front();
    ch.unmatched_recvs.pop_front();
    if (want != size)
      throw CommError("rank " + std::to_string(rank_) + " sends " + std::to_string(size) + " bytes to rank " +
                      std::to_string(op.peer) + " (tag " + std::to_string(op.tag) + "), but rank " +
                      std::to_string(op.peer) + " posted a receive of " + std::to_string(want) + " bytes for it");
  } else {
    ch.unmatched_sends.push_back(size);
  }

  // Snapshot of the bytes at send time, as MPI lets the sender reuse its buffer once the send
  // completes; the receiver frees it. Virtual buffers carry nothing.
  // (SimGrid refuses a null payload: messages without bytes carry a marker.)
  std::byte* payload = no_bytes();
  if (!op.buffer.is_virtual() && size > 0) {
    payload = new std::byte[size];
    std::memcpy(payload, op.buffer.data(), size);
  }

  const std::int64_t id = op.request.id;
  Pending& p = slot(id);
  p.channel = key;
  p.seq = seq;
  p.size = size;
  p.live = true;
  const std::int64_t message = m_.trace ? m_.trace->message(rank_, op.peer, op.tag, seq) : -1;
  if (m_.transport) {
    p.flagged = true;
    m_.transport->send(rank_, op.peer, op.tag, size, payload, id, message, op.blocking);
    return;
  }
  if (m_.trace) m_.trace->posted(rank_, id, {message, s4u::Engine::get_clock()});
  const bool eager = ideal_.is_eager(size);
  if (const double os = ideal_.send_overhead.at(size); os > 0) s4u::this_actor::sleep_for(os);
  // SimGrid 3.32 takes a zero-size message of a permanent-receiver mailbox for delivered as soon
  // as a receive is posted, even during its latency, and ends the sender's transfer with it: an
  // empty eager message without a header is therefore simulated as one byte (0.8 ns more on a
  // 10 GbE link).
  const std::size_t wire = size + ideal_.header;
  const std::uint64_t simulated = eager && wire == 0 ? 1 : static_cast<std::uint64_t>(wire);
  s4u::Mailbox* mb = mailboxes_.get(key, eager, m_);
  p.comm = mb->put_async(payload, simulated);
}

void SimComm::post_recv(const Op& op) {
  const std::size_t size = op.buffer.size();
  const ChannelKey key{op.peer, rank_, op.tag};
  Channel& ch = m_.channels[key];
  const std::uint64_t seq = ch.recvs++;
  if (!ch.unmatched_sends.empty()) {
    const std::size_t sent = ch.unmatched_sends.front();
    ch.unmatched_sends.pop_front();
    if (sent != size)
      throw CommError("rank " + std::to_string(rank_) + " posted a receive of " + std::to_string(size) +
                      " bytes from rank " + std::to_string(op.peer) + " (tag " + std::to_string(op.tag) +
                      "), but rank " + std::to_string(op.peer) + " sent " + std::to_string(sent) + " bytes");
  } else {
    ch.unmatched_recvs.push_back(size);
  }

  const std::int64_t id = op.request.id;
  Pending& p = slot(id);
  p.channel = key;
  p.seq = seq;
  p.kind = PendingKind::recv;
  p.size = size;
  p.dest = op.buffer;
  p.live = true;
  if (m_.transport) {
    p.flagged = true;
    m_.transport->recv(rank_, op.peer, op.tag, id);
    return;
  }
  if (m_.trace) m_.trace->posted(rank_, id, {m_.trace->message(op.peer, rank_, op.tag, seq), s4u::Engine::get_clock()});
  s4u::Mailbox* mb = mailboxes_.get(key, ideal_.is_eager(size), m_);
  p.comm = mb->get_async<std::byte>(&p.payload);
}

void SimComm::finish(const Request& r) {
  Pending& p = pending(r);
  if (m_.trace && !p.flagged) trace_comm(p, r.id);
  // The receiver's software overhead, in the call that completes the receive (protocol.hpp).
  if (p.kind == PendingKind::recv) {
    const ProtocolProfile& profile = m_.transport ? m_.transport->profile(p.channel.src, rank_) : ideal_;
    if (const double overhead = profile.recv_overhead.at(p.size); overhead > 0) s4u::this_actor::sleep_for(overhead);
  }
  if (p.payload && p.payload != no_bytes()) {
    if (!p.dest.is_virtual()) std::memcpy(p.dest.data(), p.payload, p.size);
    delete[] p.payload;
  }
  if (p.put) land(*p.put);
  p.payload = nullptr;
  p.comm = nullptr;
  p.dest = Buffer{};
  p.watch = nullptr;
  p.put = nullptr;
  p.live = false;
  p.done = false;
  p.flagged = false;
}

// The events of a request that completed through its own SimGrid comm (ideal-profile messages,
// puts), whose dates SimGrid keeps: the flow's start and end. A message's are recorded at its
// send's end, its receive's done at the later of the receive's post and the flow's end (an eager
// message may have arrived before). The ideal profile records eager or rendezvous by its own
// rule (ideal_.is_eager), which decided whether the flow waited for the receive.
void SimComm::trace_comm(const Pending& p, std::int64_t request) {
  SimTrace& trace = *m_.trace;
  const SimTrace::Posted posted = trace.take(rank_, request);
  const double end = p.comm->get_finish_time();
  const int peer = p.kind == PendingKind::recv ? p.channel.src : p.channel.dst;
  const int tag = p.kind == PendingKind::put ? 0 : p.channel.tag;
  const TraceProtocol protocol = p.kind == PendingKind::put ? TraceProtocol::one_sided
                                 : ideal_.is_eager(p.size)  ? TraceProtocol::eager
                                                            : TraceProtocol::rendezvous;
  const OpKind op = p.kind == PendingKind::put    ? OpKind::put
                    : p.kind == PendingKind::recv ? OpKind::irecv
                                                  : OpKind::isend;
  if (p.kind == PendingKind::recv) {
    trace.record(std::max(end, posted.date),
                 {TraceKind::request_done, rank_, peer, tag, op, p.size, posted.message, request, protocol});
    return;
  }
  s4u::Host* from = m_.hosts[static_cast<std::size_t>(rank_)];
  s4u::Host* to = m_.hosts[static_cast<std::size_t>(peer)];
  trace.record(p.comm->get_start_time(), {TraceKind::send_start, rank_, peer, tag, op, p.size, posted.message, -1,
                                          protocol, trace.latency(from, to)});
  trace.record(end, {TraceKind::arrive, peer, rank_, tag, op, p.size, posted.message, -1, protocol});
  trace.record(end, {TraceKind::request_done, rank_, peer, tag, op, p.size, posted.message, request, protocol});
}

void SimComm::complete(std::int64_t id) {
  Pending& p = *requests_[static_cast<std::size_t>(id)];
  Waker& w = waker();
  p.done = true;
  p.done_order = ++w.completions;
  w.cv->notify_all();
}

void SimComm::wait_flag(const Pending& p) {
  Waker& w = waker();
  std::unique_lock lock(*m_.mutex);
  while (!p.done) w.cv->wait(lock);
}

// Raises p.watch when p's comm ends. Another actor may wait on a comm, and a comm may be waited
// on twice (the rank still waits on it when it finishes the request).
void SimComm::watch(Pending& p) {
  auto w = std::make_shared<Watch>();
  p.watch = w;
  s4u::Actor::create("watch-" + std::to_string(rank_), m_.hosts[static_cast<std::size_t>(rank_)],
                     [comm = p.comm, w, waker = shared_waker()] {
                       comm->wait();
                       w->done = true;
                       w->order = ++waker->completions;
                       waker->cv->notify_all();
                     });
}

void SimComm::wait_all(std::span<Request> requests) {
  blocked_on_.clear();
  for (const Request& r : requests)
    if (!r.is_null()) blocked_on_.push_back(r.id);
  blocked_ = Blocked::requests;
  blocked_kind_ = OpKind::wait_all;
  // Waiting for each in turn ends when the last one ends, like waiting for all at once.
  for (const Request& r : requests) {
    if (r.is_null()) continue;
    const Pending& p = pending(r);
    if (p.flagged)
      wait_flag(p);
    else
      p.comm->wait();
  }
  blocked_ = Blocked::no;
  for (Request& r : requests)
    if (!r.is_null()) finish(r);
}

std::size_t SimComm::wait_any(std::span<Request> requests) {
  std::vector<std::size_t> index;
  blocked_on_.clear();
  bool mailboxes_only = true;  // ideal-profile messages only: SimGrid's wait_any does it
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (requests[i].is_null()) continue;
    const Pending& p = pending(requests[i]);
    if (p.flagged || p.kind == PendingKind::put || p.kind == PendingKind::get) mailboxes_only = false;
    index.push_back(i);
    blocked_on_.push_back(requests[i].id);
  }
  blocked_ = Blocked::requests;
  blocked_kind_ = OpKind::wait_any;
  std::size_t i = requests.size();
  if (mailboxes_only) {
    std::vector<s4u::CommPtr> comms;
    comms.reserve(index.size());
    for (std::size_t k : index) comms.push_back(pending(requests[k]).comm);
    const auto k = s4u::Comm::wait_any(comms);
    if (k < 0) throw CommError("rank " + std::to_string(rank_) + ": SimGrid's wait_any failed");
    i = index[static_cast<std::size_t>(k)];
  } else {
    for (std::size_t k : index) {
      Pending& p = pending(requests[k]);
      if (!p.flagged && !p.watch) watch(p);
    }
    // The request that completed first (of those already complete when the rank wakes).
    auto first_done = [&] {
      std::size_t best = requests.size();
      std::uint64_t best_order = 0;
      for (std::size_t k : index) {
        const Pending& p = pending(requests[k]);
        const bool done = p.flagged ? p.done : p.watch->done;
        const std::uint64_t order = p.flagged ? p.done_order : p.watch->order;
        if (done && (best == requests.size() || order < best_order)) {
          best = k;
          best_order = order;
        }
      }
      return best;
    };
    Waker& w = waker();
    std::unique_lock lock(*m_.mutex);
    while ((i = first_done()) == requests.size()) w.cv->wait(lock);
  }
  blocked_ = Blocked::no;
  finish(requests[i]);
  return i;
}

// c0 + n / rate, as the model engine's (models::copy_time); through the node's cache, the bytes
// whose lines it misses cost rate / uncached rate times more.
void SimComm::copy(Buffer dst, Buffer src) {
  copy_bytes(dst, src);
  const CopyPiece piece{src.data(), dst.data(), src.size()};
  const double bytes = static_cast<double>(src.size()) * cache_factor({&piece, 1});
  if (const double t = models::copy_time(bytes, memcpy_rate_, copy_overhead_); t > 0)
    local_work([&] { s4u::this_actor::sleep_for(t); });
}

double SimComm::cache_factor(std::span<const CopyPiece> pieces) {
  return cache_ ? sim::cache_factor(*cache_, memcpy_rate_, uncached_rate_, pieces) : 1;
}

// The pieces of a one-sided transfer between `local` (the origin's buffer) and the target's window
// memory at `offset` (or the strided transfer's pieces): put copies local -> window, get the other
// way. Empty when the target is on another node: a NIC moves those bytes, not this node's cores.
std::vector<CopyPiece> SimComm::one_sided_pieces(const Op& op, const Storage& window) const {
  std::vector<CopyPiece> pieces;
  const bool get = op.kind == OpKind::get;
  if (!cache_ || m_.hosts[static_cast<std::size_t>(rank_)] != m_.hosts[static_cast<std::size_t>(op.peer)])
    return pieces;
  const std::byte* local = op.buffer.data();
  const std::byte* remote = window.is_virtual() || window.bytes().empty() ? nullptr : window.bytes().data();
  auto add = [&](std::size_t at_local, std::size_t at_remote, std::size_t n) {
    const std::byte* l = local ? local + at_local : nullptr;
    const std::byte* r = remote && at_remote + n <= window.bytes().size() ? remote + at_remote : nullptr;
    pieces.push_back(get ? CopyPiece{r, l, n} : CopyPiece{l, r, n});
  };
  if (op.strided)
    for_each_piece(*op.strided, add);
  else
    add(0, op.offset, op.buffer.size());
  return pieces;
}

std::size_t SimComm::flow_bytes(const Op& op, const Storage& window, std::size_t size) {
  return static_cast<std::size_t>(std::llround(static_cast<double>(size) * cache_factor(one_sided_pieces(op, window))));
}

// The kernel pins the pages and the NIC learns them: the rank's core is busy meanwhile.
void SimComm::register_memory(std::size_t bytes) {
  if (const double t = registration_.time(bytes); t > 0) local_work([&] { s4u::this_actor::sleep_for(t); });
}

// One flop per element on a core of the rank's host (this_actor::execute), so that ranks sharing
// a host with fewer cores than ranks share its cores as SimGrid shares any computation.
void SimComm::reduce_local(const Op& op) {
  apply(op.reduction, op.source, op.buffer);
  const std::size_t elements = op.buffer.size() / size_of(op.reduction.type);
  if (elements > 0) local_work([&] { s4u::this_actor::execute(static_cast<double>(elements)); });
}

// A local computation makes no MPI progress: what arrives meanwhile waits for its end.
template <class F>
void SimComm::local_work(F&& work) {
  in_copy_ = true;
  work();
  in_copy_ = false;
  auto actions = std::move(deferred_);
  deferred_.clear();
  for (auto& a : actions) a();
}

// Barrier, win_allocate and win_free: a barrier of all ranks, which takes no time.
void SimComm::collective(OpKind kind) {
  CollectiveCall& call = m_.collective;
  if (call.entered == 0)
    call.kind = kind;
  else if (call.kind != kind)
    throw CommError("rank " + std::to_string(rank_) + " entered " + collective_name(kind) +
                    " while the ranks before it are in " + collective_name(call.kind));
  // The last rank in resets the count before anyone leaves: the next call starts from zero.
  if (++call.entered == m_.procs) call.entered = 0;
  blocked_ = Blocked::collective;
  blocked_kind_ = kind;
  m_.barrier->wait();
  blocked_ = Blocked::no;
}

// Windows are numbered in allocation order, the same on every rank: this rank's k-th allocation
// is window k. Its memory exists before the barrier, so every rank's does once any rank leaves.
void SimComm::win_allocate(Op& op) {
  const std::size_t k = windows_allocated_++;
  if (m_.windows.size() <= k) {
    SimWindow& w = m_.windows.emplace_back();
    w.bytes = op.bytes;
    w.first = rank_;
    w.memory.resize(static_cast<std::size_t>(m_.procs));
  }
  SimWindow& w = m_.windows[k];
  if (op.bytes != w.bytes)
    throw CommError("rank " + std::to_string(rank_) + ": win_allocate of " + std::to_string(op.bytes) +
                    " bytes, but rank " + std::to_string(w.first) + " allocated " + std::to_string(w.bytes) +
                    " bytes for window " + std::to_string(k) + " (windows are symmetric)");
  Storage& mine = w.memory[static_cast<std::size_t>(rank_)];
  mine = Storage(op.bytes, op.real);  // zero-filled
  op.window = Window{static_cast<int>(k)};
  op.buffer = mine.view();
  collective(OpKind::win_allocate);
}

void SimComm::win_free(int window) {
  // The window's puts were completed (the layer's contract): their bytes land now, if they have
  // not yet, and nothing is left for a flush.
  auto mine = std::stable_partition(unflushed_.begin(), unflushed_.end(),
                                    [&](const std::shared_ptr<PutFlow>& f) { return f->window != window; });
  for (auto it = mine; it != unflushed_.end(); ++it) {
    (*it)->comm->wait();
    land(**it);
  }
  unflushed_.erase(mine, unflushed_.end());
  collective(OpKind::win_free);
  // Past the barrier every rank has stopped using the window.
  m_.windows[static_cast<std::size_t>(window)].memory[static_cast<std::size_t>(rank_)] = Storage{};
}

// A put is one flow of its bytes from the origin's host to the target's; the request completes
// when it ends (local completion taken as arrival). The bytes are written into the target's
// window when the origin observes the end (finish(), flush(), win_free()), not when the flow
// ends: SimGrid gives no cheap hook at a flow's end, and a correct program cannot tell, since
// MPI only makes them visible at the target by the origin's next flush.
// The origin first pays its software overhead for the operation, the profile's send_overhead of
// its bytes (protocol.hpp), as the model engine does (models/coarray_cost.hpp). Puts from one
// origin share its link as any flows do, so k puts of m bytes take k times one's wire time.
//
// A strided put (op.strided) costs as the model engine's does (models/coarray_cost.hpp): the
// overhead of each piece contiguous on both sides, then one flow of all their bytes; the bytes are
// gathered at post time and scattered into the target's window when the origin observes the end.
void SimComm::post_put(const Op& op) {
  const std::size_t size = op.strided ? op.strided->local.bytes() : op.buffer.size();
  rma_overhead(op);
  auto flow = std::make_shared<PutFlow>();
  flow->window = op.window.id;
  flow->target = op.peer;
  flow->offset = op.offset;
  const Storage& target = m_.windows[static_cast<std::size_t>(op.window.id)].memory[static_cast<std::size_t>(op.peer)];
  if (!op.buffer.is_virtual() && !target.is_virtual() && size > 0) {
    if (op.strided) {
      for_each_piece(*op.strided, [&](std::size_t local, std::size_t remote, std::size_t n) {
        flow->bytes.insert(flow->bytes.end(), op.buffer.data() + local, op.buffer.data() + local + n);
        flow->pieces.emplace_back(remote, n);
      });
    } else {
      flow->bytes.assign(op.buffer.data(), op.buffer.data() + size);  // the origin may reuse src once complete
    }
  }
  flow->comm = start_flow(m_.hosts[static_cast<std::size_t>(rank_)], m_.hosts[static_cast<std::size_t>(op.peer)],
                          flow_bytes(op, target, size));
  Pending& p = slot(op.request.id);
  p.kind = PendingKind::put;
  p.channel = {rank_, op.peer, 0};
  p.size = size;
  p.live = true;
  p.comm = flow->comm;
  p.put = flow;
  if (m_.trace) m_.trace->posted(rank_, op.request.id, {m_.trace->fresh(), s4u::Engine::get_clock()});
  unflushed_.push_back(std::move(flow));
}

// The origin's software overhead for a flush to `peer`, an operation of 0 bytes (-1, flush_all:
// the overhead of the profile between nodes, where one-sided traffic of a collective goes).
void SimComm::flush_overhead(int peer) {
  const ProtocolProfile& profile = !m_.transport ? ideal_
                                   : peer >= 0   ? m_.transport->profile(rank_, peer)
                                                 : m_.transport->protocols().inter;
  if (const double o = profile.send_overhead.at(0); o > 0) s4u::this_actor::sleep_for(o);
}

// What a flush adds on an oversubscribed node (protocol.hpp): the profile inside the rank's node,
// whose cores the yield is about.
double SimComm::yield_overhead() const {
  if (!oversubscribed_) return 0;
  return (!m_.transport ? ideal_ : m_.transport->protocols().intra).yield_overhead;
}

// The simulated memory is coherent, so a win_sync orders nothing; what the MPI library spends in it
// (osc's bookkeeping at a segment's end) is the profile's sync_overhead, taken from the profile
// inside the rank's node: MPI_Win_sync has no target, and the window it orders is the rank's own.
void SimComm::win_sync() {
  const ProtocolProfile& profile = !m_.transport ? ideal_ : m_.transport->protocols().intra;
  if (profile.sync_overhead > 0) s4u::this_actor::sleep_for(profile.sync_overhead);
}

// A get's table may differ from a put's: on shared memory a get and its wait cost the origin more,
// and more the longer a short get is (protocol.hpp, get_overhead).
void SimComm::rma_overhead(const Op& op) {
  const ProtocolProfile& profile = !m_.transport ? ideal_ : m_.transport->profile(rank_, op.peer);
  const Overhead& overhead = profile.origin_overhead(op.kind == OpKind::get);
  double sum = 0;
  if (op.strided)
    for_each_piece(*op.strided, [&](std::size_t, std::size_t, std::size_t n) { sum += overhead.at(n); });
  else
    sum = overhead.at(op.buffer.size());
  if (sum > 0) s4u::this_actor::sleep_for(sum);
}

void SimComm::land(PutFlow& flow) {
  if (flow.observed) return;
  flow.observed = true;
  if (flow.bytes.empty()) return;
  Storage& memory = m_.windows[static_cast<std::size_t>(flow.window)].memory[static_cast<std::size_t>(flow.target)];
  if (!flow.pieces.empty()) {
    std::size_t at = 0;
    for (const auto& [offset, n] : flow.pieces) {
      if (!memory.is_virtual() && offset + n <= memory.bytes().size())
        std::memcpy(memory.bytes().data() + offset, flow.bytes.data() + at, n);
      at += n;
    }
    flow.bytes = {};
    return;
  }
  // A freed window takes nothing (a program that frees it under an unfinished put is wrong anyway).
  if (!memory.is_virtual() && flow.offset + flow.bytes.size() <= memory.bytes().size())
    std::memcpy(memory.bytes().data() + flow.offset, flow.bytes.data(), flow.bytes.size());
  flow.bytes = {};
}

// A get is a request (an empty flow origin -> target) and, when it arrives, the data (a flow of
// its bytes target -> origin), as the target's NIC answers an RDMA read without its CPU. An actor
// of the origin's host drives the two and completes the request when the data flow ends; the
// bytes are read from the target's window then (a program that writes them meanwhile races, in
// MPI too) and written into the origin's buffer.
// The origin first pays the profile's get_overhead of its bytes where the profile states one,
// else send_overhead (protocol.hpp). A strided get (op.strided) pays the overhead of each piece,
// moves their bytes as one flow and copies them piece by piece.
void SimComm::post_get(const Op& op) {
  const std::size_t size = op.strided ? op.strided->local.bytes() : op.buffer.size();
  rma_overhead(op);
  const std::int64_t id = op.request.id;
  Pending& p = slot(id);
  p.kind = PendingKind::get;
  p.channel = {rank_, op.peer, 0};
  p.size = size;
  p.live = true;
  p.flagged = true;
  s4u::Host* here = m_.hosts[static_cast<std::size_t>(rank_)];
  s4u::Host* there = m_.hosts[static_cast<std::size_t>(op.peer)];
  const std::uint64_t data_bytes = flow_bytes(
      op, m_.windows[static_cast<std::size_t>(op.window.id)].memory[static_cast<std::size_t>(op.peer)], size);
  s4u::Actor::create(
      "get-" + std::to_string(rank_), here,
      [this, id, here, there, dst = op.buffer, window = op.window.id, target = op.peer, offset = op.offset, size,
       data_bytes, strided = op.strided ? std::optional<StridedTransfer>(*op.strided) : std::nullopt,
       keep = shared_waker()] {
        s4u::Comm::sendto(here, there, 0);
        // The data moves from the target back to this rank once the request is there.
        SimTrace* trace = m_.trace;
        const std::int64_t message = trace ? trace->fresh() : -1;
        const auto event = [&](TraceKind kind, int at, int peer, std::int64_t request) {
          trace->record(s4u::Engine::get_clock(), {kind, at, peer, 0, OpKind::get, size, message, request,
                                                   TraceProtocol::one_sided, trace->latency(there, here)});
        };
        if (trace) event(TraceKind::send_start, target, rank_, -1);
        s4u::Comm::sendto(there, here, data_bytes);
        Storage& memory = m_.windows[static_cast<std::size_t>(window)].memory[static_cast<std::size_t>(target)];
        if (strided) {
          if (memory.size() > 0)
            for_each_piece(*strided, [&](std::size_t local, std::size_t remote, std::size_t n) {
              copy_bytes(dst.slice(local, n), memory.view().slice(remote, n));
            });
        } else if (offset + dst.size() <= memory.size()) {
          copy_bytes(dst, memory.view().slice(offset, dst.size()));
        }
        if (trace) {
          event(TraceKind::arrive, rank_, target, -1);
          event(TraceKind::request_done, rank_, target, id);
        }
        // Last: once complete, the rank may finish and its measurement end (`keep` holds the
        // condition variable being notified).
        complete(id);
      });
}

// flush(target): every unflushed put of this window to target must have arrived, then target's
// acknowledgement comes back (an empty flow target -> origin); flush_all does it for every
// target at once, each target's acknowledgement leaving when that target's puts have arrived.
// With nothing unflushed, it returns at once.
void SimComm::flush(int window, int target) {
  flush_overhead(target);
  if (const double y = yield_overhead(); y > 0) s4u::this_actor::sleep_for(y);
  auto first = std::stable_partition(unflushed_.begin(), unflushed_.end(), [&](const std::shared_ptr<PutFlow>& f) {
    return f->window != window || (target != -1 && f->target != target);
  });
  if (first == unflushed_.end()) return;
  std::vector<std::shared_ptr<PutFlow>> flushed(std::make_move_iterator(first),
                                                std::make_move_iterator(unflushed_.end()));
  unflushed_.erase(first, unflushed_.end());
  std::stable_sort(flushed.begin(), flushed.end(), [](const auto& a, const auto& b) { return a->target < b->target; });

  blocked_ = Blocked::flush;
  blocked_target_ = target;
  s4u::Host* here = m_.hosts[static_cast<std::size_t>(rank_)];
  std::vector<s4u::CommPtr> acks;
  std::vector<std::shared_ptr<Watch>> helpers;
  // Targets whose puts the rank has seen end are acknowledged now; the others, all but the last,
  // by a helper actor that waits for their puts and then for the acknowledgement; the last one
  // here, so that flush(target) needs no helper.
  std::vector<std::pair<int, std::vector<s4u::CommPtr>>> running;
  for (std::size_t i = 0; i < flushed.size();) {
    const int t = flushed[i]->target;
    std::vector<s4u::CommPtr> comms;
    for (; i < flushed.size() && flushed[i]->target == t; ++i)
      if (!flushed[i]->observed) comms.push_back(flushed[i]->comm);
    if (comms.empty())
      acks.push_back(start_flow(m_.hosts[static_cast<std::size_t>(t)], here, 0));
    else
      running.emplace_back(t, std::move(comms));
  }
  for (std::size_t k = 0; k + 1 < running.size(); ++k) {
    auto w = helpers.emplace_back(std::make_shared<Watch>());
    s4u::Actor::create("flush-" + std::to_string(rank_), here,
                       [comms = std::move(running[k].second),
                        from = m_.hosts[static_cast<std::size_t>(running[k].first)], here, w, waker = shared_waker()] {
                         for (const auto& c : comms) c->wait();
                         s4u::Comm::sendto(from, here, 0);
                         w->done = true;
                         waker->cv->notify_all();
                       });
  }
  if (!running.empty()) {
    for (const auto& c : running.back().second) c->wait();
    acks.push_back(start_flow(m_.hosts[static_cast<std::size_t>(running.back().first)], here, 0));
  }
  {
    Waker& wake = waker();
    std::unique_lock lock(*m_.mutex);
    for (const auto& w : helpers)
      while (!w->done) wake.cv->wait(lock);
  }
  for (const auto& a : acks) a->wait();
  for (const auto& f : flushed) land(*f);
  blocked_ = Blocked::no;
}

bool SimComm::matched(const Pending& p) const {
  // One-sided requests always complete: they are flows that need nobody.
  if (p.kind == PendingKind::put || p.kind == PendingKind::get) return true;
  auto it = m_.channels.find(p.channel);
  if (it == m_.channels.end()) return false;
  return p.kind == PendingKind::recv ? p.seq < it->second.sends : p.seq < it->second.recvs;
}

std::string SimComm::describe(const Pending& p) const {
  return p.kind == PendingKind::recv
             ? "recv from " + std::to_string(p.channel.src) + " tag " + std::to_string(p.channel.tag)
             : "send to " + std::to_string(p.channel.dst) + " tag " + std::to_string(p.channel.tag);
}

std::string SimComm::waiting_on() const {
  switch (blocked_) {
    case Blocked::no: return "running";
    case Blocked::collective: return collective_name(blocked_kind_);
    case Blocked::flush: return blocked_target_ < 0 ? "flush_all" : "flush of " + std::to_string(blocked_target_);
    case Blocked::requests: break;
  }
  // In a deadlock, a paired transfer always finishes, so what blocks is the unpaired requests.
  std::vector<std::string> parts;
  for (std::int64_t id : blocked_on_) {
    const Pending& p = *requests_[static_cast<std::size_t>(id)];
    if (p.live && !matched(p)) parts.push_back(describe(p));
  }
  const char* what = blocked_kind_ == OpKind::wait_any ? "wait_any" : "wait_all";
  if (parts.empty()) return std::string(what) + " on paired requests";
  if (parts.size() == 1) return parts.front();
  std::string s = std::string(what) + " on ";
  for (std::size_t i = 0; i < parts.size(); ++i) s += (i ? ", " : "") + parts[i];
  return s;
}

}  // namespace collsim::sim
