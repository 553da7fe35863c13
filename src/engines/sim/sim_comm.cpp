#include "engines/sim/sim_comm.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>

namespace collsim::sim {

namespace s4u = simgrid::s4u;

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

SimComm::SimComm(Measurement& m, Mailboxes& mailboxes, int rank, std::size_t eager_limit, double memcpy_rate)
    : m_(m), mailboxes_(mailboxes), rank_(rank), eager_limit_(eager_limit), memcpy_rate_(memcpy_rate) {}

double SimComm::now() const { return s4u::Engine::get_clock() - m_.start; }

bool SimComm::start(Op& op) {
  switch (op.kind) {
    case OpKind::isend: post_send(op); break;
    case OpKind::irecv: post_recv(op); break;
    case OpKind::wait_all: wait_all(op.requests); break;
    case OpKind::wait_any: op.index = wait_any(op.requests); break;
    case OpKind::barrier:
      blocked_ = Blocked::barrier;
      m_.barrier->wait();
      blocked_ = Blocked::no;
      break;
    case OpKind::copy: copy(op.buffer, op.source); break;
    default: throw CommError(where() + ": one-sided operations are not supported by the sim engine yet");
  }
  return true;
}

SimComm::Pending& SimComm::slot(std::int64_t id) {
  if (requests_.size() <= static_cast<std::size_t>(id)) requests_.resize(static_cast<std::size_t>(id) + 1);
  Pending& p = requests_[static_cast<std::size_t>(id)];
  p = Pending{};
  return p;
}

SimComm::Pending& SimComm::pending(const Request& r) { return requests_[static_cast<std::size_t>(r.id)]; }

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
  if (m_.transport) {
    m_.transport->send(rank_, op.peer, op.tag, size, payload, id);
    return;
  }
  const bool eager = size < eager_limit_;
  // SimGrid 3.32 takes a zero-size message of a permanent-receiver mailbox for delivered as soon
  // as a receive is posted, even during its latency, and ends the sender's transfer with it: an
  // empty eager message is therefore simulated as one byte (0.8 ns more on a 10 GbE link).
  const std::uint64_t simulated = eager && size == 0 ? 1 : static_cast<std::uint64_t>(size);
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
  p.is_recv = true;
  p.size = size;
  p.dest = op.buffer;
  p.live = true;
  if (m_.transport) {
    m_.transport->recv(rank_, op.peer, op.tag, id);
    return;
  }
  s4u::Mailbox* mb = mailboxes_.get(key, size < eager_limit_, m_);
  p.comm = mb->get_async<std::byte>(&p.payload);
}

void SimComm::finish(const Request& r) {
  Pending& p = requests_[static_cast<std::size_t>(r.id)];
  if (p.payload && p.payload != no_bytes()) {
    if (!p.dest.is_virtual()) std::memcpy(p.dest.data(), p.payload, p.size);
    delete[] p.payload;
  }
  p.payload = nullptr;
  p.comm = nullptr;
  p.dest = Buffer{};
  p.live = false;
  p.done = false;
}

void SimComm::complete(std::int64_t id) {
  Pending& p = requests_[static_cast<std::size_t>(id)];
  p.done = true;
  p.done_order = ++completions_;
  wake_->notify_all();
}

void SimComm::wait_all(std::span<Request> requests) {
  if (m_.transport) {
    blocked_on_.clear();
    for (const Request& r : requests) {
      if (r.is_null()) continue;
      (void)pending(r);  // checks that it is an outstanding request of this rank
      blocked_on_.push_back(r.id);
    }
    auto all_done = [&] {
      return std::all_of(requests.begin(), requests.end(), [&](const Request& r) {
        return r.is_null() || requests_[static_cast<std::size_t>(r.id)].done;
      });
    };
    blocked_ = Blocked::requests;
    blocked_kind_ = OpKind::wait_all;
    {
      std::unique_lock lock(*mutex_);
      while (!all_done()) wake_->wait(lock);
    }
    blocked_ = Blocked::no;
    for (Request& r : requests)
      if (!r.is_null()) finish(r);
    return;
  }
  std::vector<s4u::CommPtr> comms;
  blocked_on_.clear();
  for (const Request& r : requests) {
    if (r.is_null()) continue;
    comms.push_back(pending(r).comm);
    blocked_on_.push_back(r.id);
  }
  if (!comms.empty()) {
    blocked_ = Blocked::requests;
    blocked_kind_ = OpKind::wait_all;
    // Waiting for each in turn ends when the last one ends, like waiting for all at once.
    for (const auto& c : comms) c->wait();
    blocked_ = Blocked::no;
  }
  for (Request& r : requests)
    if (!r.is_null()) finish(r);
}

std::size_t SimComm::wait_any(std::span<Request> requests) {
  std::vector<s4u::CommPtr> comms;
  std::vector<std::size_t> index;
  blocked_on_.clear();
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (requests[i].is_null()) continue;
    comms.push_back(pending(requests[i]).comm);
    index.push_back(i);
    blocked_on_.push_back(requests[i].id);
  }
  if (m_.transport) {
    // The request that completed first (of those already complete when the rank wakes).
    auto first_done = [&] {
      std::size_t best = requests.size();
      for (std::size_t i : index) {
        const Pending& p = requests_[static_cast<std::size_t>(requests[i].id)];
        if (p.done && (best == requests.size() ||
                       p.done_order < requests_[static_cast<std::size_t>(requests[best].id)].done_order))
          best = i;
      }
      return best;
    };
    blocked_ = Blocked::requests;
    blocked_kind_ = OpKind::wait_any;
    std::size_t i = first_done();
    {
      std::unique_lock lock(*mutex_);
      while ((i = first_done()) == requests.size()) wake_->wait(lock);
    }
    blocked_ = Blocked::no;
    finish(requests[i]);
    return i;
  }
  blocked_ = Blocked::requests;
  blocked_kind_ = OpKind::wait_any;
  const auto k = s4u::Comm::wait_any(comms);
  blocked_ = Blocked::no;
  if (k < 0) throw CommError("rank " + std::to_string(rank_) + ": SimGrid's wait_any failed");
  const std::size_t i = index[static_cast<std::size_t>(k)];
  finish(requests[i]);
  return i;
}

void SimComm::copy(Buffer dst, Buffer src) {
  copy_bytes(dst, src);
  if (memcpy_rate_ > 0 && src.size() > 0) {
    // A local copy makes no MPI progress: what arrives meanwhile waits for its end.
    in_copy_ = true;
    s4u::this_actor::sleep_for(static_cast<double>(src.size()) / memcpy_rate_);
    in_copy_ = false;
    auto actions = std::move(deferred_);
    deferred_.clear();
    for (auto& a : actions) a();
  }
}

bool SimComm::matched(const Pending& p) const {
  auto it = m_.channels.find(p.channel);
  if (it == m_.channels.end()) return false;
  return p.is_recv ? p.seq < it->second.sends : p.seq < it->second.recvs;
}

std::string SimComm::describe(const Pending& p) const {
  return p.is_recv ? "recv from " + std::to_string(p.channel.src) + " tag " + std::to_string(p.channel.tag)
                   : "send to " + std::to_string(p.channel.dst) + " tag " + std::to_string(p.channel.tag);
}

std::string SimComm::waiting_on() const {
  switch (blocked_) {
    case Blocked::no: return "running";
    case Blocked::barrier: return "barrier";
    case Blocked::requests: break;
  }
  // In a deadlock, a paired transfer always finishes, so what blocks is the unpaired requests.
  std::vector<std::string> parts;
  for (std::int64_t id : blocked_on_) {
    const Pending& p = requests_[static_cast<std::size_t>(id)];
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
