#include "engines/sim/transport.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "engines/sim/node_model.hpp"
#include "engines/sim/route.hpp"
#include "engines/sim/sim_comm.hpp"
#include "engines/sim/sim_trace.hpp"

namespace collsim::sim {

namespace s4u = simgrid::s4u;

namespace {
std::byte marker;

// The key of the socket between ranks a and b, whichever opened it.
std::uint64_t socket_key(int a, int b) {
  return static_cast<std::uint64_t>(std::min(a, b)) << 32 | static_cast<std::uint32_t>(std::max(a, b));
}
}  // namespace

std::byte* no_bytes() { return &marker; }

struct Transport::Message {
  int src = 0, dst = 0, tag = 0;
  std::size_t size = 0;
  const ProtocolProfile* profile = nullptr;
  bool eager = true;
  bool zcopy = false;            // rdma eager: sent zero-copy, done when acknowledged
  std::byte* payload = nullptr;  // the sender's snapshot, until it lands in the receive buffer
  std::int64_t send_request = -1;
  std::int64_t recv_request = -1;  // once matched
  std::int64_t id = -1;            // traced runs: the message's id
  bool arrived = false;            // eager: the data; rendezvous: the RNDV or RGET
  bool landed = false;             // the payload is in the receive buffer
  double fin_nic_at = -1;          // tcp rendezvous: the FIN's turn on the interface, behind the data
};

struct Transport::Fragment {
  enum class Kind : std::uint8_t { eager, rndv, answer, data, fin, get };
  Kind kind = Kind::eager;
  std::size_t wire = 0;  // bytes on the wire (for `get`: the message, moved the other way)
  Message* msg = nullptr;
  std::uint64_t end = 0;  // the connection's byte count once this fragment is written
  // Between hosts: when its turn on the sending interface comes, fixed when the kernel takes the
  // fragment (enqueue(), if the socket buffer has room for it), else when the writer reaches it;
  // negative until then.
  double nic_at = -1;
  bool accepted = false;  // rendezvous data the kernel took whole when it was queued

  // Whether it moves the message's bytes (a trace's send_start and arrive are its flow's).
  bool carries_data() const { return kind == Kind::eager || kind == Kind::data || kind == Kind::get; }
  // Bytes its flow moves (an empty single copy still moves one, for its latency).
  std::size_t moved() const { return kind == Kind::get ? std::max<std::size_t>(msg->size, 1) : wire; }
};

struct Transport::InFlight {
  s4u::CommPtr comm;
  Fragment fragment;
  double bytes = 0;    // its flow's size
  bool ended = false;  // its flow has ended; delivered once the ones before it have
};

struct Transport::Connection {
  int from = 0, to = 0;  // ranks
  s4u::Host* from_host = nullptr;
  s4u::Host* to_host = nullptr;
  // Where its flows go from and to: the hosts, or under the node model the ranks' sockets.
  s4u::Host* from_end = nullptr;
  s4u::Host* to_end = nullptr;
  bool modelled = false;  // shm inside a modelled node: copies take a core, then a hand-over
  double handover = 0;    // modelled: the node's loopback latency, after each copy
  const ProtocolProfile* profile = nullptr;
  double bandwidth = 0;  // bytes/s of the route's narrowest link (socket buffer drain rate)
  double latency = 0;    // seconds before a flow's bytes move (route latency x the model's factor)
  std::deque<Fragment> queue;
  std::uint64_t enqueued = 0, written = 0;
  // Eager sends queued but not yet accepted (the socket buffer was full), with the connection's
  // byte count at the end of their fragment.
  std::deque<std::pair<Message*, std::uint64_t>> waiting_for_room;
  bool connected = true;  // false while the pair's socket is being set up (tcp/connect:first_use)
  // Flows started, in order, not yet delivered; in_flight[0] is flow number `delivered`.
  std::deque<InFlight> in_flight;
  std::uint64_t delivered = 0;
  double in_flight_bytes = 0;  // bytes of the flows started and not yet delivered
  Nic* nic = nullptr;          // tcp/interface:fifo: the sending host's, for a pair of two hosts
  // The writer: busy from a fragment's start until its bytes have left; `pumping` while pump()
  // is on the stack, so that a fragment finished inside it lets its loop go on.
  bool busy = false, pumping = false;
  double last = 0;   // bytes of the fragment started last
  double began = 0;  // when it started
};

// Under tcp/interface:fifo, the interface through which fragments leave a host for others: one
// FIFO, fragments leave in the order they were handed to the kernel, whatever their destination,
// one after another at the rate of the host's link. Each fragment's flow starts when the
// interface is free of the ones before it, so it does not share the host's link with them, while
// flows to different hosts still share the links beyond. (By default there is none: the
// connections' flows share the host's link, as Linux's TCP small queues make them.)
struct Transport::Nic {
  double bandwidth = 0;  // bytes/s of the host's own link
  double free_at = 0;    // when the fragments already handed over have left
};

double Transport::reserve(Nic& nic, std::size_t bytes) {
  const double start = std::max(s4u::Engine::get_clock(), nic.free_at);
  nic.free_at = start + static_cast<double>(bytes) / nic.bandwidth;
  return start;
}

// ob1 writes the FIN as soon as the kernel has taken the data, and a FIN is a few bytes: it
// follows its data on the wire, before the data of other sockets written meanwhile (whatever the
// socket buffer's size: a FIN that had to wait for room would queue behind the next peer's whole
// message).
void Transport::reserve_data(Nic& nic, Fragment& f) {
  f.nic_at = reserve(nic, f.moved());
  f.msg->fin_nic_at = reserve(nic, f.msg->profile->fin_bytes);
}

Transport::Transport(Measurement& m, const Protocols& protocols, std::vector<s4u::Host*> hosts, const NodeModel* nodes)
    : m_(m),
      protocols_(protocols),
      hosts_(std::move(hosts)),
      nodes_(nodes),
      cores_(nodes ? static_cast<std::size_t>(m.procs) : 0),
      unexpected_(static_cast<std::size_t>(m.procs)),
      posted_(static_cast<std::size_t>(m.procs)) {
  if (nodes) received_.assign(static_cast<std::size_t>(m.procs), 0);
}

Transport::~Transport() { let_go_of_events(); }

const ProtocolProfile& Transport::profile(int a, int b) const {
  return hosts_[static_cast<std::size_t>(a)] == hosts_[static_cast<std::size_t>(b)] ? protocols_.intra
                                                                                    : protocols_.inter;
}

Transport::Connection& Transport::connection(int from, int to) {
  const std::uint64_t key = static_cast<std::uint64_t>(from) << 32 | static_cast<std::uint32_t>(to);
  Connection*& slot = by_pair_[key];
  if (slot) return *slot;
  auto c = std::make_unique<Connection>();
  c->from = from;
  c->to = to;
  c->from_host = hosts_[static_cast<std::size_t>(from)];
  c->to_host = hosts_[static_cast<std::size_t>(to)];
  c->profile = &profile(from, to);
  c->from_end = c->from_host;
  c->to_end = c->to_host;
  c->modelled = nodes_ && c->profile->kind == ProtocolKind::shm && c->from_host == c->to_host && nodes_->models(from) &&
                nodes_->models(to);
  if (c->modelled) {
    c->from_end = nodes_->endpoint(from);
    c->to_end = nodes_->endpoint(to);
    c->handover = route_between(c->from_host, c->to_host).latency;
  }
  const Route route = route_between(c->from_end, c->to_end);
  c->bandwidth = route.bandwidth > 0 ? route.bandwidth : std::numeric_limits<double>::infinity();
  c->latency = route.latency;
  Connection* raw = c.get();
  connections_.push_back(std::move(c));
  slot = raw;
  if (raw->profile->fifo_interface && raw->from_host != raw->to_host && route.first > 0) {
    std::unique_ptr<Nic>& nic = nics_[raw->from_host];
    if (!nic) {
      nic = std::make_unique<Nic>();
      nic->bandwidth = route.first;
    }
    raw->nic = nic.get();
  }
  if (raw->profile->connect_on_first_use) {
    const auto [it, fresh] = sockets_.try_emplace(socket_key(from, to));
    Socket& socket = it->second;
    if (fresh) socket.initiator = from;
    raw->connected = from == socket.initiator ? socket.initiator_ready : socket.acceptor_ready;
    if (fresh) open_socket(from, to);
  }
  return *raw;
}

// Open MPI's lazy connect (protocol.hpp): SYN, SYN-ACK, the initiator's handshake, the acceptor's
// answer. Each side may write once its own part is done: the acceptor right behind its answer,
// the initiator when the answer has arrived.
void Transport::open_socket(int initiator, int acceptor) {
  s4u::Host* a = hosts_[static_cast<std::size_t>(initiator)];
  s4u::Host* b = hosts_[static_cast<std::size_t>(acceptor)];
  constexpr std::uint64_t kHandshake = 24;  // process name and magic string
  const auto answered = [this, a, b, initiator, acceptor] {
    Connection& back = connection(acceptor, initiator);
    Socket& socket = sockets_.at(socket_key(initiator, acceptor));
    events_->flow(b, a, kHandshake, [this, &socket, initiator, acceptor] {
      socket.initiator_ready = true;
      connected(connection(initiator, acceptor));
    });
    events_->at(s4u::Engine::get_clock() + static_cast<double>(kHandshake) / back.bandwidth, [this, &socket, &back] {
      socket.acceptor_ready = true;
      connected(back);
    });
  };
  events_->flow(a, b, 0, [this, a, b, answered] {
    events_->flow(b, a, 0, [this, a, b, answered] { events_->flow(a, b, kHandshake, answered); });
  });
}

void Transport::connected(Connection& c) {
  c.connected = true;
  accept_waiting(c);
  pump(c);
}

void Transport::enqueue(Connection& c, Fragment f) {
  c.enqueued += f.wire;
  f.end = c.enqueued;
  // ob1 writes a fragment to the socket as soon as it has one, so one the buffer has room for is
  // in the kernel now; under tcp/interface:fifo it takes its place in the interface's FIFO now,
  // ahead of fragments other sockets write later (only behind fragments placed likewise, so that
  // the connection's own keep their order).
  const bool fits = c.connected && c.enqueued - c.written <= c.profile->buffer;
  const bool in_order = c.queue.empty() || c.queue.back().nic_at >= 0;
  const bool behind_its_data = c.queue.empty() || c.queue.back().msg == f.msg;
  if (f.kind == Fragment::Kind::fin && f.msg->fin_nic_at >= 0 && behind_its_data) {
    f.nic_at = f.msg->fin_nic_at;
  } else if (c.nic && fits && in_order) {
    if (f.kind == Fragment::Kind::data)
      reserve_data(*c.nic, f);
    else
      f.nic_at = reserve(*c.nic, f.moved());
  }
  // Rendezvous data the buffer has room for is then all in the kernel: the send completes and the
  // FIN follows now, not when the writer or the interface gets to the data.
  f.accepted = f.kind == Fragment::Kind::data && (c.nic ? f.nic_at >= 0 : fits);
  c.queue.push_back(f);
  pump(c);
  if (f.accepted) data_accepted(*f.msg);
}

// The connection's writer: fragments go out one after another, as bytes into one TCP stream.
// A SimGrid flow pays its latency before its bytes move, so the next fragment's flow starts as
// soon as the previous one's bytes would have left at the route's bandwidth: its bytes then follow
// right behind them (exactly so on an idle route). On a route that drains more slowly than that,
// at most a bandwidth-delay product (plus the last fragment) is in flight: the next one waits for
// deliveries, which keeps a stream a stream instead of a pile of flows sharing the link. Under
// tcp/interface:fifo a fragment between hosts also waits for the host's interface (Nic).
void Transport::pump(Connection& c) {
  if (c.pumping) return;
  c.pumping = true;
  const double window = c.latency * c.bandwidth;
  while (!c.busy && c.connected && !c.queue.empty() && !(c.in_flight_bytes > window + c.last + 1)) start_next(c);
  c.pumping = false;
}

void Transport::start_next(Connection& c) {
  c.busy = true;
  Fragment f = c.queue.front();
  c.queue.pop_front();
  if (c.nic && f.nic_at < 0) {
    if (f.kind == Fragment::Kind::data)
      reserve_data(*c.nic, f);
    else
      f.nic_at = reserve(*c.nic, f.moved());
  }
  if (c.nic && f.nic_at > s4u::Engine::get_clock()) {
    events_->at(f.nic_at, [this, &c, f] { begin_write(c, f); });
    return;
  }
  // An RDMA read: its request crosses to the sender's interface before the data comes back.
  if (f.kind == Fragment::Kind::get && c.profile->kind == ProtocolKind::rdma) {
    events_->at(s4u::Engine::get_clock() + c.latency, [this, &c, f] { begin_write(c, f); });
    return;
  }
  Core* core = copier(c, f);
  if (core && core->busy)
    core->waiting.push_back([this, &c, f] { begin_write(c, f); });
  else
    begin_write(c, f);
}

// The rank whose core copies: the sender's for an eager fragment (its copy into shared memory),
// the receiver's for a single copy (the connection runs from it back to the sender).
Transport::Core* Transport::copier(const Connection& c, const Fragment& f) {
  if (!c.modelled || !f.carries_data()) return nullptr;
  return &cores_[static_cast<std::size_t>(c.from)];
}

void Transport::release(Core& core) {
  core.busy = false;
  if (core.waiting.empty()) return;
  auto next = std::move(core.waiting.front());
  core.waiting.pop_front();
  next();
}

void Transport::begin_write(Connection& c, const Fragment& f) {
  // vader's single copy moves the message from the sender's memory to the receiver's; under the
  // node model its flow starts at the copier, the receiver (node_model.hpp).
  const bool reversed = f.kind == Fragment::Kind::get && !c.modelled;
  s4u::Host* from = reversed ? c.to_end : c.from_end;
  s4u::Host* to = reversed ? c.from_end : c.to_end;
  // It reads the sender's pages, which its other readers share (node_model.hpp).
  if (c.modelled && f.kind == Fragment::Kind::get) to = nodes_->pages(c.to);
  std::size_t bytes = f.moved();
  if (c.modelled && f.kind == Fragment::Kind::get) {
    // The copier (c.from) reads the sender's (c.to) buffer: the bytes still in the sender's cache
    // move that many times more slowly (node_model.hpp, fresh data).
    const double fresh =
        nodes_->fresh_bytes(c.to, static_cast<double>(bytes), received_[static_cast<std::size_t>(c.to)]);
    bytes += static_cast<std::size_t>(std::llround(fresh * (nodes_->fresh_slowdown(c.from, c.to) - 1)));
  }
  c.began = s4u::Engine::get_clock();
  if (m_.trace && f.carries_data()) trace(TraceKind::send_start, *f.msg, false);
  const std::uint64_t number = c.delivered + c.in_flight.size();
  KernelEvents::Callback ended = [this, &c, number] { flow_ended(c, number); };
  if (c.modelled) {
    // The core is free once its copy is done; the peer sees it a hand-over later (the receiver's
    // own single copy is done when it ends). A copy of no more than the fast box takes the place
    // of vader's immediate send: it completes then.
    Core* core = copier(c, f);
    if (core) core->busy = true;
    const bool completes = f.kind == Fragment::Kind::eager && f.msg->size <= c.profile->inline_limit;
    const bool own = f.kind == Fragment::Kind::get;
    ended = [this, &c, number, core, completes, own, msg = f.msg] {
      if (core) release(*core);
      if (completes) complete_send(*msg);
      if (own)
        flow_ended(c, number);
      else
        events_->at(s4u::Engine::get_clock() + c.handover, [this, &c, number] { flow_ended(c, number); });
    };
  }
  s4u::CommPtr comm = events_->flow(from, to, bytes, std::move(ended));
  c.last = static_cast<double>(bytes);
  c.in_flight.push_back({std::move(comm), f, c.last});
  c.in_flight_bytes += c.last;
  if (f.kind == Fragment::Kind::data && !f.accepted)
    await_acceptance(c, f);
  else
    finish_write(c, f);
}

// The kernel has taken the whole message once only `buffer` bytes of the connection are left to
// send. Bytes move at most at the route's bandwidth, so each wait falls short of that moment or
// on it.
void Transport::await_acceptance(Connection& c, const Fragment& f) {
  const double buffer = static_cast<double>(c.profile->buffer);
  double left = 0;
  for (const InFlight& flow : c.in_flight)
    if (!flow.ended) left += flow.comm->get_remaining();
  const double wait = (left - buffer) / c.bandwidth;  // 0 on a route without links: nothing limits it
  if (left <= buffer + 1 || !(wait > 0)) {
    data_accepted(*f.msg);
    finish_write(c, f);
    return;
  }
  events_->at(s4u::Engine::get_clock() + wait, [this, &c, f] { await_acceptance(c, f); });
}

// Once the fragment's bytes would have left at the route's rate, the next one may follow.
void Transport::finish_write(Connection& c, const Fragment& f) {
  const double sent = c.began + c.last / c.bandwidth;
  if (sent > s4u::Engine::get_clock()) {
    events_->at(sent, [this, &c, f] { finish_write(c, f); });
    return;
  }
  c.written = f.end;
  accept_waiting(c);
  c.busy = false;
  pump(c);
}

// The connection's reader: TCP delivers a stream in order, so a fragment whose flow ended before
// an earlier one's waits for it.
void Transport::flow_ended(Connection& c, std::uint64_t number) {
  c.in_flight[static_cast<std::size_t>(number - c.delivered)].ended = true;
  while (!c.in_flight.empty() && c.in_flight.front().ended) {
    Fragment f = c.in_flight.front().fragment;
    c.in_flight_bytes -= c.in_flight.front().bytes;
    c.in_flight.pop_front();
    ++c.delivered;
    arrived(c, f);
  }
  pump(c);
}

// tcp eager sends whose bytes now fit in the socket buffer behind what is still unwritten.
void Transport::accept_waiting(Connection& c) {
  if (!c.connected) return;
  while (!c.waiting_for_room.empty() && c.waiting_for_room.front().second - c.written <= c.profile->buffer) {
    complete_send(*c.waiting_for_room.front().first);
    c.waiting_for_room.pop_front();
  }
}

void Transport::send(int src, int dst, int tag, std::size_t size, std::byte* payload, std::int64_t request,
                     std::int64_t message, bool blocking) {
  Message& msg = messages_.emplace_back();
  msg.src = src;
  msg.dst = dst;
  msg.tag = tag;
  msg.size = size;
  msg.payload = payload;
  msg.send_request = request;
  msg.id = message;
  msg.profile = &profile(src, dst);
  msg.eager = msg.profile->is_eager(size, blocking);
  const bool rdma = msg.profile->kind == ProtocolKind::rdma;
  const bool copied = rdma && msg.eager && size > msg.profile->inline_limit;  // short or not
  msg.zcopy = copied && msg.profile->is_zcopy(size, blocking);
  if (const double os = msg.profile->send_overhead.at(size); os > 0) s4u::this_actor::sleep_for(os);
  // rdma bcopy: the sender copies the payload into the transport's registered buffers first.
  if (const double rate = m_.ranks[static_cast<std::size_t>(src)]->memcpy_rate(); copied && !msg.zcopy && rate > 0)
    s4u::this_actor::sleep_for(static_cast<double>(size) / rate);
  KernelEvents::in_kernel([this, &msg] {
    Connection& c = connection(msg.src, msg.dst);
    const ProtocolProfile& p = *msg.profile;
    if (!msg.eager) {
      enqueue(c, {Fragment::Kind::rndv, p.rndv_bytes, &msg});
      return;
    }
    enqueue(c, {Fragment::Kind::eager, p.eager_header + msg.size, &msg});
    if (p.kind == ProtocolKind::tcp) {
      if (c.connected && c.enqueued - c.written <= p.buffer)
        complete_send(msg);
      else
        c.waiting_for_room.emplace_back(&msg, c.enqueued);
    } else if (p.kind == ProtocolKind::rdma ? !msg.zcopy : msg.size <= p.inline_limit && !c.modelled) {
      complete_send(msg);  // vader's sendi into the peer's fast box, UCX's short or bcopy: done
    }
    // shm, larger: completes when the receiver takes the fragment; rdma zero-copy when the
    // acknowledgement is back (arrived()).
  });
}

void Transport::recv(int dst, int src, int tag, std::int64_t request) {
  KernelEvents::in_kernel([this, dst, src, tag, request] {
    auto& unexpected = unexpected_[static_cast<std::size_t>(dst)];
    const auto it = std::find_if(unexpected.begin(), unexpected.end(),
                                 [&](const Message* m) { return m->src == src && m->tag == tag; });
    if (it == unexpected.end()) {
      posted_[static_cast<std::size_t>(dst)].push_back({src, tag, request});
      return;
    }
    Message& msg = **it;
    unexpected.erase(it);
    msg.recv_request = request;
    matched(msg);
  });
}

void Transport::arrived(Connection& c, Fragment& f) {
  Message& msg = *f.msg;
  if (m_.trace && f.carries_data()) trace(TraceKind::arrive, msg, true);
  switch (f.kind) {
    case Fragment::Kind::eager:
      msg.arrived = true;
      if (msg.profile->kind == ProtocolKind::shm && msg.size > msg.profile->inline_limit)
        when_in_mpi(msg.dst, [this, &msg] { complete_send(msg); });
      if (msg.zcopy)  // the RC acknowledgement crosses back
        events_->at(s4u::Engine::get_clock() + c.latency, [this, &msg] { complete_send(msg); });
      match_arrival(msg);
      break;
    case Fragment::Kind::rndv:
      msg.arrived = true;
      match_arrival(msg);
      break;
    case Fragment::Kind::answer:
      // At the sender: the receiver has matched; write the data.
      when_in_mpi(msg.src, [this, &msg] { put_data(msg); });
      break;
    case Fragment::Kind::data: deliver_payload(msg); break;
    case Fragment::Kind::fin:
      if (msg.profile->kind != ProtocolKind::tcp)
        complete_send(msg);  // back at the sender (shm's FIN, UCX's ATS): the receiver has everything
      else
        complete_recv(msg);  // the FIN follows the data: the receive is complete
      break;
    case Fragment::Kind::get:
      deliver_payload(msg);
      complete_recv(msg);
      enqueue(c, {Fragment::Kind::fin, msg.profile->fin_bytes, &msg});
      break;
  }
}

void Transport::match_arrival(Message& msg) {
  auto& posted = posted_[static_cast<std::size_t>(msg.dst)];
  const auto it =
      std::find_if(posted.begin(), posted.end(), [&](const Posted& p) { return p.src == msg.src && p.tag == msg.tag; });
  if (it == posted.end()) {
    unexpected_[static_cast<std::size_t>(msg.dst)].push_back(&msg);
    return;
  }
  msg.recv_request = it->request;
  posted.erase(it);
  matched(msg);
}

// The message has met its receive (and, eager, its data has arrived, or, rendezvous, its RNDV).
void Transport::matched(Message& msg) {
  if (msg.eager) {
    deliver_payload(msg);
    complete_recv(msg);
    return;
  }
  when_in_mpi(msg.dst, [this, &msg] { answer(msg); });
}

// The receiver's answer to a rendezvous: tcp sends a PUT control back, shm copies the message,
// rdma reads it.
void Transport::answer(Message& msg) {
  Connection& back = connection(msg.dst, msg.src);
  if (msg.profile->kind != ProtocolKind::tcp)
    enqueue(back, {Fragment::Kind::get, msg.size, &msg});
  else
    enqueue(back, {Fragment::Kind::answer, msg.profile->answer_bytes, &msg});
}

void Transport::put_data(Message& msg) {
  enqueue(connection(msg.src, msg.dst), {Fragment::Kind::data, msg.profile->data_header + msg.size, &msg});
}

// The kernel holds the rendezvous data: the send completes and the FIN goes out behind it.
void Transport::data_accepted(Message& msg) {
  complete_send(msg);
  enqueue(connection(msg.src, msg.dst), {Fragment::Kind::fin, msg.profile->fin_bytes, &msg});
}

void Transport::deliver_payload(Message& msg) {
  if (msg.landed) return;
  msg.landed = true;
  SimComm& receiver = *m_.ranks[static_cast<std::size_t>(msg.dst)];
  if (msg.payload && msg.payload != no_bytes()) {
    const Buffer dest = receiver.receive_buffer(msg.recv_request);
    if (!dest.is_virtual() && msg.size > 0) std::memcpy(dest.data(), msg.payload, msg.size);
    delete[] msg.payload;
  }
  msg.payload = nullptr;
}

void Transport::complete_send(Message& msg) {
  if (m_.trace) trace(TraceKind::request_done, msg, false);
  m_.ranks[static_cast<std::size_t>(msg.src)]->complete(msg.send_request);
}

void Transport::complete_recv(Message& msg) {
  if (!received_.empty()) received_[static_cast<std::size_t>(msg.dst)] += static_cast<double>(msg.size);
  if (m_.trace) trace(TraceKind::request_done, msg, true);
  m_.ranks[static_cast<std::size_t>(msg.dst)]->complete(msg.recv_request);
}

// send_start, arrive: of the fragment that carries the message's bytes (sim_trace.hpp says what
// each marks per profile); the protocol as the profile chose it for the message's size.
void Transport::trace(TraceKind kind, const Message& msg, bool at_receiver) {
  SimTrace& t = *m_.trace;
  const int rank = at_receiver ? msg.dst : msg.src;
  const int peer = at_receiver ? msg.src : msg.dst;
  const bool done = kind == TraceKind::request_done;
  const double latency = kind == TraceKind::send_start ? t.latency(hosts_[static_cast<std::size_t>(msg.src)],
                                                                   hosts_[static_cast<std::size_t>(msg.dst)])
                                                       : -1;
  t.record(s4u::Engine::get_clock(), {kind, rank, peer, msg.tag, done && at_receiver ? OpKind::irecv : OpKind::isend,
                                      msg.size, msg.id, done ? (at_receiver ? msg.recv_request : msg.send_request) : -1,
                                      msg.eager ? TraceProtocol::eager : TraceProtocol::rendezvous, latency});
}

void Transport::when_in_mpi(int rank, std::function<void()> action) {
  SimComm& r = *m_.ranks[static_cast<std::size_t>(rank)];
  if (r.in_mpi())
    action();
  else  // run by the rank's actor when its copy ends: back into the kernel
    r.defer([action = std::move(action)] { KernelEvents::in_kernel(action); });
}

// A run whose ranks all completed leaves nothing due; one cut short by a failing rank may leave
// fragments moving, whose callbacks must then find nothing to do.
void Transport::let_go_of_events() {
  if (!events_ || events_->idle()) return;
  events_->disarm();
  static std::vector<std::unique_ptr<KernelEvents>> disarmed;  // the kernel's timers refer to them
  disarmed.push_back(std::move(events_));
}

void Transport::shutdown() {
  let_go_of_events();
  connections_.clear();
  by_pair_.clear();
  nics_.clear();
  sockets_.clear();
}

}  // namespace collsim::sim
