#include "engines/model/model_engine.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/rank_data.hpp"

namespace collsim {

const char* to_string(ModelConfig::Kind kind) {
  switch (kind) {
    case ModelConfig::Kind::hockney: return "hockney";
    case ModelConfig::Kind::two_level: return "two_level";
    case ModelConfig::Kind::loggp: return "loggp";
  }
  return "?";
}

namespace {

struct Message {
  int source, tag;
  std::size_t size;
  double ready;                    // the data is usable: Hockney's arrival, LogGP's end of handling
  std::vector<std::byte> payload;  // empty for virtual buffers
};

struct PostedRecv {
  int source, tag;
  std::int64_t request;
  double posted;
};

// The engine's side of one of a rank's requests (the Comm front keeps what it is).
struct RequestState {
  bool done = false;
  Buffer buffer;  // receive target
};

class ModelEngine;

class ModelComm final : public Comm {
 public:
  ModelComm(ModelEngine& engine, int rank) : engine_(&engine), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override;
  double now() const override;

 protected:
  bool start(Op& op) override;

 private:
  ModelEngine* engine_;
  int rank_;
};

// The latest arrival of a rank's puts to one target on one window, until a flush completes them.
struct Unflushed {
  int window;
  int target;
  double latest;
};

// Bytes that land at an event's time: a put's data in its target's window, a get's in the
// origin's buffer.
struct Landing {
  Buffer destination;
  std::vector<std::byte> payload;  // empty for virtual buffers
};

// One window: its memory on every rank (collectively allocated, the same size everywhere).
struct WindowMemory {
  std::size_t bytes = 0;
  std::vector<Storage> memory;  // by rank
};

struct Rank {
  explicit Rank(ModelEngine& engine, int rank) : comm(engine, rank) {}
  ModelComm comm;
  Task<> task;
  std::unique_ptr<RankWork> work;
  Op* waiting = nullptr;  // the op this rank is suspended on, if it waits for requests
  bool finished = false;
  double finish = 0;
  std::vector<RequestState> requests;  // by request id
  std::vector<PostedRecv> posted;
  std::vector<Message> unexpected;
  models::Hockney::Ports ports;  // Hockney one-port
  models::LogGP::Rank clocks;    // LogGP
  std::vector<Unflushed> unflushed;
};

struct Event {
  enum class Kind : std::int32_t {
    resume,    // resume the rank
    complete,  // complete request `id`
    retry,     // LogGP: start the send or copy the rank is suspended on, if its resources are free
    arrive,    // LogGP: handle in-flight message `id` at the rank, if its resources are free
    land,      // write landing `id` (one-sided data) into its destination
  };
  double time;
  int rank;
  Kind kind;
  std::int64_t id;
};

// Events in time order, FIFO among equal times (so runs are deterministic). Events are kept in
// one bucket per distinct time: collectives under uniform costs produce few distinct times and
// many events at each, so this beats a binary heap, whose sifts miss the cache on large runs.
class EventQueue {
 public:
  void push(const Event& e) {
    if (draining_ && e.time == current_time_)
      current_.push_back(e);
    else
      buckets_[e.time].push_back(e);
  }
  bool pop(Event& e) {
    while (next_ == current_.size()) {
      if (buckets_.empty()) return false;
      auto node = buckets_.extract(buckets_.begin());
      current_time_ = node.key();
      current_ = std::move(node.mapped());
      next_ = 0;
      draining_ = true;
    }
    e = current_[next_++];
    return true;
  }

 private:
  std::map<double, std::vector<Event>> buckets_;
  std::vector<Event> current_;
  std::size_t next_ = 0;
  double current_time_ = 0;
  bool draining_ = false;
};

class ModelEngine {
 public:
  ModelEngine(const ModelConfig& config, const RunSpec& spec) : config_(config), spec_(spec) {}

  RunResult run();

  int size() const { return spec_.procs; }
  double now() const { return now_; }
  bool start(int rank, Op& op);

 private:
  bool start_isend(int rank, Op& op);
  bool start_irecv(int rank, Op& op);
  bool start_copy(int rank, Op& op);
  bool loggp_send(int rank, Op& op);
  bool collective(int rank, Op& op);
  bool start_put(int rank, Op& op);
  bool start_get(int rank, Op& op);
  bool start_flush(int rank, Op& op);
  void land_at(double time, int rank, Buffer destination, Buffer data);
  double one_sided_latency(int a, int b) const;
  bool loggp_copy(int rank, Op& op);
  void loggp_arrive(int rank, std::int64_t id);
  bool try_wait(int rank, Op& op);
  RequestState& new_request(int rank, const Op& op);
  static Message message_of(int rank, const Op& op, double ready);
  void match(int rank, Message message);
  void deliver(int rank, std::int64_t request, Message& message, double posted);
  void push(double time, int rank, Event::Kind kind, std::int64_t id = -1) { queue_.push({time, rank, kind, id}); }
  void resume(int rank);
  [[noreturn]] void deadlock();
  std::string describe_wait(const Rank& r) const;

  const ModelConfig& config_;
  const RunSpec& spec_;
  double now_ = 0;
  std::vector<Rank> ranks_;
  std::vector<Message> in_flight_;  // LogGP: sent, not yet handled by the receiver
  std::vector<std::int64_t> free_in_flight_;
  EventQueue queue_;
  int in_collective_ = 0;  // ranks inside the current collective call
  OpKind collective_kind_ = OpKind::barrier;
  std::vector<WindowMemory> windows_;
  std::vector<Landing> landings_;
  std::vector<std::int64_t> free_landings_;
};

int ModelComm::size() const { return engine_->size(); }
double ModelComm::now() const { return engine_->now(); }
bool ModelComm::start(Op& op) { return engine_->start(rank_, op); }

RequestState& ModelEngine::new_request(int rank, const Op& op) {
  auto& states = ranks_[static_cast<std::size_t>(rank)].requests;
  const auto id = static_cast<std::size_t>(op.request.id);
  if (states.size() <= id) states.resize(id + 1);
  states[id] = RequestState{};
  return states[id];
}

bool ModelEngine::start(int rank, Op& op) {
  switch (op.kind) {
    case OpKind::isend: return start_isend(rank, op);
    case OpKind::irecv: return start_irecv(rank, op);
    case OpKind::wait_all:
    case OpKind::wait_any:
      if (try_wait(rank, op)) return true;
      ranks_[static_cast<std::size_t>(rank)].waiting = &op;
      return false;
    case OpKind::barrier:
    case OpKind::win_allocate:
    case OpKind::win_free: return collective(rank, op);
    case OpKind::copy: return start_copy(rank, op);
    case OpKind::put: return start_put(rank, op);
    case OpKind::get: return start_get(rank, op);
    case OpKind::flush: return start_flush(rank, op);
    case OpKind::win_sync: return true;
  }
  return true;
}

// Barrier, win_allocate and win_free: every rank makes the same collective calls in the same
// order, so the ranks inside one are in the same call; it completes, ideally, when the last rank
// enters it.
bool ModelEngine::collective(int rank, Op& op) {
  const bool first = in_collective_ == 0;
  if (first)
    collective_kind_ = op.kind;
  else if (op.kind != collective_kind_)
    throw CommError("rank " + std::to_string(rank) + " entered a different collective call than the ranks before it");
  if (op.kind == OpKind::win_allocate) {
    // Windows are numbered in allocation order, the same on every rank.
    if (first) {
      windows_.emplace_back();
      windows_.back().bytes = op.bytes;
      windows_.back().memory.resize(static_cast<std::size_t>(size()));
    }
    WindowMemory& w = windows_.back();
    if (op.bytes != w.bytes)
      throw CommError("rank " + std::to_string(rank) + ": win_allocate of " + std::to_string(op.bytes) +
                      " bytes, but another rank allocated " + std::to_string(w.bytes) + " (windows are symmetric)");
    Storage& mine = w.memory[static_cast<std::size_t>(rank)];
    mine = Storage(op.bytes, op.real);
    op.window = Window{static_cast<int>(windows_.size()) - 1};
    op.buffer = mine.view();
  }
  if (++in_collective_ < size()) {
    ranks_[static_cast<std::size_t>(rank)].waiting = &op;
    return false;
  }
  in_collective_ = 0;
  if (op.kind == OpKind::win_free)
    for (Storage& m : windows_[static_cast<std::size_t>(op.window.id)].memory) m = Storage{};
  for (int r = 0; r < size(); ++r)
    if (ranks_[static_cast<std::size_t>(r)].waiting && ranks_[static_cast<std::size_t>(r)].waiting->kind == op.kind)
      push(now_, r, Event::Kind::resume);
  return true;
}

double ModelEngine::one_sided_latency(int a, int b) const {
  return config_.kind == ModelConfig::Kind::loggp ? config_.loggp.L : config_.hockney_between(a, b).alpha;
}

// Schedules `data` (its bytes as they are now) to be written into `destination` at `time`.
void ModelEngine::land_at(double time, int rank, Buffer destination, Buffer data) {
  std::int64_t id;
  if (!free_landings_.empty()) {
    id = free_landings_.back();
    free_landings_.pop_back();
  } else {
    id = static_cast<std::int64_t>(landings_.size());
    landings_.emplace_back();
  }
  Landing& l = landings_[static_cast<std::size_t>(id)];
  l.destination = destination;
  l.payload.clear();
  if (!data.is_virtual() && !destination.is_virtual()) l.payload.assign(data.data(), data.data() + data.size());
  push(time, rank, Event::Kind::land, id);
}

// A put of m bytes posted at t reaches the target's memory at A (Hockney: t + alpha + beta*m, or
// later under one-port; LogGP: the first byte as for a send, plus (m-1)G, without the target's
// CPU: RDMA), and its request completes at A too. The origin's next flush to that target waits
// for A and then the acknowledgement's latency.
bool ModelEngine::start_put(int rank, Op& op) {
  Rank& me = ranks_[static_cast<std::size_t>(rank)];
  const double m = static_cast<double>(op.buffer.size());
  double arrival = 0, cpu_free = now_;
  if (config_.kind == ModelConfig::Kind::loggp) {
    const models::LogGP& p = config_.loggp;
    const double start = p.send_start(me.clocks, now_);
    if (start > now_) {  // retried when the CPU and NIC are free
      me.waiting = &op;
      push(start, rank, Event::Kind::retry);
      return false;
    }
    const models::LogGP::Send sent = p.send(me.clocks, now_, m);
    arrival = sent.arrival + p.bytes_time(m);
    cpu_free = sent.cpu_free;
  } else {
    const models::Hockney& h = config_.hockney_between(rank, op.peer);
    arrival = config_.one_port ? h.transfer_one_port(me.ports, ranks_[static_cast<std::size_t>(op.peer)].ports, now_, m)
                               : now_ + h.transfer(m);
  }
  new_request(rank, op);
  const Buffer target =
      windows_[static_cast<std::size_t>(op.window.id)].memory[static_cast<std::size_t>(op.peer)].view().slice(
          op.offset, op.buffer.size());
  land_at(arrival, op.peer, target, op.buffer);
  push(arrival, rank, Event::Kind::complete, op.request.id);
  auto u = std::find_if(me.unflushed.begin(), me.unflushed.end(),
                        [&](const Unflushed& x) { return x.window == op.window.id && x.target == op.peer; });
  if (u == me.unflushed.end())
    me.unflushed.push_back({op.window.id, op.peer, arrival});
  else
    u->latest = std::max(u->latest, arrival);
  if (cpu_free <= now_) return true;
  me.waiting = &op;
  push(cpu_free, rank, Event::Kind::resume);
  return false;
}

// A get of m bytes posted at t: the request reaches the target after one latency and the data
// comes back as a transfer of m bytes (Hockney: t + 2*alpha + beta*m; LogGP: the origin's CPU
// overhead o, then 2L + (m-1)G). The target's bytes are taken when the get is posted: a program
// that writes them meanwhile races, in MPI too.
bool ModelEngine::start_get(int rank, Op& op) {
  Rank& me = ranks_[static_cast<std::size_t>(rank)];
  new_request(rank, op);
  const double m = static_cast<double>(op.buffer.size());
  double done = 0;
  if (config_.kind == ModelConfig::Kind::loggp) {
    const models::LogGP& p = config_.loggp;
    done = p.compute(me.clocks, p.compute_start(me.clocks, now_), p.o) + 2 * p.L + p.bytes_time(m);
  } else {
    const models::Hockney& h = config_.hockney_between(rank, op.peer);
    if (config_.one_port) {
      Rank& target = ranks_[static_cast<std::size_t>(op.peer)];
      const double asked = h.transfer_one_port(me.ports, target.ports, now_, 0);
      done = h.transfer_one_port(target.ports, me.ports, asked, m);
    } else {
      done = now_ + h.alpha + h.transfer(m);
    }
  }
  const Buffer source =
      windows_[static_cast<std::size_t>(op.window.id)].memory[static_cast<std::size_t>(op.peer)].view().slice(
          op.offset, op.buffer.size());
  land_at(done, rank, op.buffer, source);
  push(done, rank, Event::Kind::complete, op.request.id);
  return true;
}

// flush(target) completes once every put to target has arrived, plus the latency of the
// acknowledgement; with nothing unflushed to target it completes at once. flush_all: every target.
bool ModelEngine::start_flush(int rank, Op& op) {
  Rank& me = ranks_[static_cast<std::size_t>(rank)];
  double done = now_;
  auto flushed = [&](const Unflushed& u) {
    if (u.window != op.window.id || (op.peer != -1 && u.target != op.peer)) return false;
    done = std::max(done, std::max(now_, u.latest) + one_sided_latency(rank, u.target));
    return true;
  };
  me.unflushed.erase(std::remove_if(me.unflushed.begin(), me.unflushed.end(), flushed), me.unflushed.end());
  if (done <= now_) return true;
  me.waiting = &op;
  push(done, rank, Event::Kind::resume);
  return false;
}

bool ModelEngine::start_copy(int rank, Op& op) {
  copy_bytes(op.buffer, op.source);
  const double duration = models::copy_time(static_cast<double>(op.buffer.size()), config_.copy_bandwidth);
  if (duration <= 0) return true;
  if (config_.kind == ModelConfig::Kind::loggp) return loggp_copy(rank, op);
  ranks_[static_cast<std::size_t>(rank)].waiting = &op;
  push(now_ + duration, rank, Event::Kind::resume);
  return false;
}

// The rank stays suspended on `op` until its CPU has done the copy (or, busy, until it frees).
bool ModelEngine::loggp_copy(int rank, Op& op) {
  Rank& me = ranks_[static_cast<std::size_t>(rank)];
  const models::LogGP& p = config_.loggp;
  me.waiting = &op;
  const double start = p.compute_start(me.clocks, now_);
  if (start > now_) {
    push(start, rank, Event::Kind::retry);
    return false;
  }
  const double duration = models::copy_time(static_cast<double>(op.buffer.size()), config_.copy_bandwidth);
  push(p.compute(me.clocks, now_, duration), rank, Event::Kind::resume);
  return false;
}

bool ModelEngine::start_isend(int rank, Op& op) {
  new_request(rank, op);
  if (config_.kind == ModelConfig::Kind::loggp) return loggp_send(rank, op);
  Rank& me = ranks_[static_cast<std::size_t>(rank)];
  Rank& dest = ranks_[static_cast<std::size_t>(op.peer)];
  const double m = static_cast<double>(op.buffer.size());
  const models::Hockney& h = config_.hockney_between(rank, op.peer);
  const double arrival = config_.one_port ? h.transfer_one_port(me.ports, dest.ports, now_, m) : now_ + h.transfer(m);
  push(arrival, rank, Event::Kind::complete, op.request.id);
  match(op.peer, message_of(rank, op, arrival));
  return true;
}

// Starts the send `op` now if the rank's CPU and NIC-send are free, else retries when they may be;
// either way the rank continues only once its CPU is free again.
bool ModelEngine::loggp_send(int rank, Op& op) {
  Rank& me = ranks_[static_cast<std::size_t>(rank)];
  const models::LogGP& p = config_.loggp;
  const double start = p.send_start(me.clocks, now_);
  if (start > now_) {
    me.waiting = &op;
    push(start, rank, Event::Kind::retry);
    return false;
  }
  const models::LogGP::Send sent = p.send(me.clocks, now_, static_cast<double>(op.buffer.size()));
  push(sent.complete, rank, Event::Kind::complete, op.request.id);
  std::int64_t id;
  if (!free_in_flight_.empty()) {
    id = free_in_flight_.back();
    free_in_flight_.pop_back();
    in_flight_[static_cast<std::size_t>(id)] = message_of(rank, op, sent.arrival);
  } else {
    id = static_cast<std::int64_t>(in_flight_.size());
    in_flight_.push_back(message_of(rank, op, sent.arrival));
  }
  push(sent.arrival, op.peer, Event::Kind::arrive, id);
  if (sent.cpu_free <= now_) return true;
  me.waiting = &op;
  push(sent.cpu_free, rank, Event::Kind::resume);
  return false;
}

// Handles in-flight message `id` at `rank` now if its CPU and NIC-receive are free (else retries
// when they may be), then matches it.
void ModelEngine::loggp_arrive(int rank, std::int64_t id) {
  Rank& me = ranks_[static_cast<std::size_t>(rank)];
  const models::LogGP& p = config_.loggp;
  const double start = p.handle_start(me.clocks, now_);
  if (start > now_) {
    push(start, rank, Event::Kind::arrive, id);
    return;
  }
  Message message = std::move(in_flight_[static_cast<std::size_t>(id)]);
  free_in_flight_.push_back(id);
  message.ready = p.handle(me.clocks, now_, static_cast<double>(message.size));
  match(rank, std::move(message));
}

Message ModelEngine::message_of(int rank, const Op& op, double ready) {
  Message msg{rank, op.tag, op.buffer.size(), ready, {}};
  if (!op.buffer.is_virtual()) msg.payload.assign(op.buffer.data(), op.buffer.data() + op.buffer.size());
  return msg;
}

// Gives a message that reached `rank` to its first receive posted for that source and tag, or
// keeps it as unexpected.
void ModelEngine::match(int rank, Message message) {
  Rank& me = ranks_[static_cast<std::size_t>(rank)];
  auto posted = std::find_if(me.posted.begin(), me.posted.end(),
                             [&](const PostedRecv& p) { return p.source == message.source && p.tag == message.tag; });
  if (posted == me.posted.end()) {
    me.unexpected.push_back(std::move(message));
    return;
  }
  const PostedRecv p = *posted;
  me.posted.erase(posted);
  deliver(rank, p.request, message, p.posted);
}

bool ModelEngine::start_irecv(int rank, Op& op) {
  Rank& me = ranks_[static_cast<std::size_t>(rank)];
  new_request(rank, op).buffer = op.buffer;
  auto found = std::find_if(me.unexpected.begin(), me.unexpected.end(),
                            [&](const Message& m) { return m.source == op.peer && m.tag == op.tag; });
  if (found != me.unexpected.end()) {
    Message msg = std::move(*found);
    me.unexpected.erase(found);
    deliver(rank, op.request.id, msg, now_);
  } else {
    me.posted.push_back({op.peer, op.tag, op.request.id, now_});
  }
  return true;
}

// Matches `message` with the receive `request` of `rank`, posted at `posted`.
void ModelEngine::deliver(int rank, std::int64_t request, Message& message, double posted) {
  RequestState& r = ranks_[static_cast<std::size_t>(rank)].requests[static_cast<std::size_t>(request)];
  if (r.buffer.size() != message.size)
    throw CommError("rank " + std::to_string(rank) + " posted a receive of " + std::to_string(r.buffer.size()) +
                    " bytes from rank " + std::to_string(message.source) + " (tag " + std::to_string(message.tag) +
                    "), which sent " + std::to_string(message.size));
  if (!message.payload.empty() && !r.buffer.is_virtual())
    std::copy(message.payload.begin(), message.payload.end(), r.buffer.data());
  push(std::max(posted, message.ready), rank, Event::Kind::complete, request);
}

// True when `op` (wait_all / wait_any) is satisfied (the front then releases its requests).
bool ModelEngine::try_wait(int rank, Op& op) {
  const auto& states = ranks_[static_cast<std::size_t>(rank)].requests;
  auto done = [&](const Request& r) { return r.is_null() || states[static_cast<std::size_t>(r.id)].done; };
  if (op.kind == OpKind::wait_all) return std::all_of(op.requests.begin(), op.requests.end(), done);
  for (std::size_t i = 0; i < op.requests.size(); ++i) {
    if (!op.requests[i].is_null() && done(op.requests[i])) {
      op.index = i;
      return true;
    }
  }
  return false;
}

void ModelEngine::resume(int rank) {
  Rank& r = ranks_[static_cast<std::size_t>(rank)];
  std::coroutine_handle<> h = r.waiting->waiter;
  r.waiting = nullptr;
  h.resume();
  if (r.task.done() && !r.finished) {
    r.finished = true;
    r.finish = now_;
    rethrow_if_failed(r.task);
  }
}

std::string ModelEngine::describe_wait(const Rank& r) const {
  if (!r.waiting) return "running";
  switch (r.waiting->kind) {
    case OpKind::barrier: return "in barrier";
    case OpKind::win_allocate: return "in win_allocate";
    case OpKind::win_free: return "in win_free";
    default: break;
  }
  std::string s = r.waiting->kind == OpKind::wait_any ? "wait_any on" : "wait_all on";
  for (const Request& q : r.waiting->requests) {
    if (q.is_null() || r.requests[static_cast<std::size_t>(q.id)].done) continue;
    s += ' ';
    s += r.comm.requests().describe(q.id);
  }
  return s;
}

void ModelEngine::deadlock() {
  std::string msg = "deadlock in " + describe(spec_) + ":";
  int listed = 0, stuck = 0;
  for (int i = 0; i < size(); ++i) {
    const Rank& r = ranks_[static_cast<std::size_t>(i)];
    if (r.finished) continue;
    if (++stuck <= 8) msg += (listed++ ? "; rank " : " rank ") + std::to_string(i) + " " + describe_wait(r);
  }
  if (stuck > 8) msg += "; and " + std::to_string(stuck - 8) + " more ranks";
  throw EngineError(msg);
}

RunResult ModelEngine::run() {
  const auto P = static_cast<std::size_t>(size());
  ranks_.reserve(P);
  for (int i = 0; i < size(); ++i) ranks_.emplace_back(*this, i);
  for (int i = 0; i < size(); ++i) {
    Rank& r = ranks_[static_cast<std::size_t>(i)];
    r.work = std::make_unique<RankWork>(spec_, i);
    r.task = r.work->run(r.comm);
  }
  try {
    for (int i = 0; i < size(); ++i) {
      Rank& r = ranks_[static_cast<std::size_t>(i)];
      collsim::start(r.task);
      if (r.task.done()) {
        r.finished = true;
        rethrow_if_failed(r.task);
      }
    }
    Event e;
    while (queue_.pop(e)) {
      now_ = e.time;
      Rank& r = ranks_[static_cast<std::size_t>(e.rank)];
      switch (e.kind) {
        case Event::Kind::resume:
          if (r.waiting) resume(e.rank);
          break;
        case Event::Kind::complete:
          r.requests[static_cast<std::size_t>(e.id)].done = true;
          if (r.waiting && (r.waiting->kind == OpKind::wait_all || r.waiting->kind == OpKind::wait_any) &&
              try_wait(e.rank, *r.waiting))
            resume(e.rank);
          break;
        case Event::Kind::retry: {
          Op& op = *r.waiting;
          bool done = false;
          if (op.kind == OpKind::isend)
            done = loggp_send(e.rank, op);
          else if (op.kind == OpKind::put)
            done = start_put(e.rank, op);
          else
            done = loggp_copy(e.rank, op);
          if (done) resume(e.rank);
          break;
        }
        case Event::Kind::land: {
          Landing& l = landings_[static_cast<std::size_t>(e.id)];
          if (!l.payload.empty()) std::copy(l.payload.begin(), l.payload.end(), l.destination.data());
          free_landings_.push_back(e.id);
          break;
        }
        case Event::Kind::arrive: loggp_arrive(e.rank, e.id); break;
      }
    }
  } catch (const CommError& e) {
    throw EngineError(describe(spec_) + ": " + e.what());
  }
  if (std::any_of(ranks_.begin(), ranks_.end(), [](const Rank& r) { return !r.finished; })) deadlock();

  RunResult result;
  result.finish_s.reserve(P);
  for (const Rank& r : ranks_) {
    result.finish_s.push_back(r.work->timed_s().value_or(r.finish));
    if (result.data_error.empty()) result.data_error = r.work->check();
  }
  result.time_s = call_time(spec_, result.finish_s);
  return result;
}

}  // namespace

RunResult run_model(const ModelConfig& config, const RunSpec& spec) {
  ModelEngine engine(config, spec);
  return engine.run();
}

}  // namespace collsim
