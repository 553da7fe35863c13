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

struct RequestState {
  bool done = false;
  bool is_recv = false;
  int peer = -1, tag = 0;
  Buffer buffer;  // receive target
};

class ModelEngine;

class ModelComm final : public Comm {
 public:
  ModelComm(ModelEngine& engine, int rank) : engine_(&engine), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override;
  double now() const override;
  bool start(Op& op) override;

 private:
  ModelEngine* engine_;
  int rank_;
};

struct Rank {
  explicit Rank(ModelEngine& engine, int rank) : comm(engine, rank) {}
  ModelComm comm;
  Task<> task;
  std::unique_ptr<RankData> data;
  Op* waiting = nullptr;  // the op this rank is suspended on, if it waits for requests
  bool finished = false;
  double finish = 0;
  std::vector<PostedRecv> posted;
  std::vector<Message> unexpected;
  models::Hockney::Ports ports;  // Hockney one-port
  models::LogGP::Rank clocks;    // LogGP
};

struct Event {
  enum class Kind : std::int32_t {
    resume,    // resume the rank
    complete,  // complete request `id`
    retry,     // LogGP: start the send or copy the rank is suspended on, if its resources are free
    arrive,    // LogGP: handle in-flight message `id` at the rank, if its resources are free
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
  bool loggp_copy(int rank, Op& op);
  void loggp_arrive(int rank, std::int64_t id);
  bool try_wait(int rank, Op& op);
  std::int64_t new_request(bool is_recv, int peer, int tag, Buffer buffer);
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
  std::vector<RequestState> requests_;
  std::vector<std::int64_t> free_requests_;
  std::vector<Message> in_flight_;  // LogGP: sent, not yet handled by the receiver
  std::vector<std::int64_t> free_in_flight_;
  EventQueue queue_;
  int in_barrier_ = 0;
};

int ModelComm::size() const { return engine_->size(); }
double ModelComm::now() const { return engine_->now(); }
bool ModelComm::start(Op& op) { return engine_->start(rank_, op); }

std::int64_t ModelEngine::new_request(bool is_recv, int peer, int tag, Buffer buffer) {
  std::int64_t id;
  if (!free_requests_.empty()) {
    id = free_requests_.back();
    free_requests_.pop_back();
  } else {
    id = static_cast<std::int64_t>(requests_.size());
    requests_.emplace_back();
  }
  requests_[static_cast<std::size_t>(id)] = RequestState{false, is_recv, peer, tag, buffer};
  return id;
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
      if (++in_barrier_ < size()) {
        ranks_[static_cast<std::size_t>(rank)].waiting = &op;
        return false;
      }
      in_barrier_ = 0;
      for (int r = 0; r < size(); ++r)
        if (ranks_[static_cast<std::size_t>(r)].waiting &&
            ranks_[static_cast<std::size_t>(r)].waiting->kind == OpKind::barrier)
          push(now_, r, Event::Kind::resume);
      return true;
    case OpKind::copy: return start_copy(rank, op);
  }
  return true;
}

bool ModelEngine::start_copy(int rank, Op& op) {
  if (op.buffer.size() != op.source.size())
    throw CommError("copy of " + std::to_string(op.source.size()) + " bytes into a buffer of " +
                    std::to_string(op.buffer.size()));
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
  if (op.peer < 0 || op.peer >= size())
    throw CommError("rank " + std::to_string(rank) + " sends to rank " + std::to_string(op.peer) +
                    ", which does not exist");
  op.request.id = new_request(false, op.peer, op.tag, {});
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
  if (op.peer < 0 || op.peer >= size())
    throw CommError("rank " + std::to_string(rank) + " receives from rank " + std::to_string(op.peer) +
                    ", which does not exist");
  Rank& me = ranks_[static_cast<std::size_t>(rank)];
  op.request.id = new_request(true, op.peer, op.tag, op.buffer);
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
  RequestState& r = requests_[static_cast<std::size_t>(request)];
  if (r.buffer.size() != message.size)
    throw CommError("rank " + std::to_string(rank) + " posted a receive of " + std::to_string(r.buffer.size()) +
                    " bytes from rank " + std::to_string(message.source) + " (tag " + std::to_string(message.tag) +
                    "), which sent " + std::to_string(message.size));
  if (!message.payload.empty() && !r.buffer.is_virtual())
    std::copy(message.payload.begin(), message.payload.end(), r.buffer.data());
  push(std::max(posted, message.ready), rank, Event::Kind::complete, request);
}

// True when `op` (wait_all / wait_any) is satisfied; then its requests are released.
bool ModelEngine::try_wait(int /*rank*/, Op& op) {
  auto done = [&](const Request& r) { return r.is_null() || requests_[static_cast<std::size_t>(r.id)].done; };
  auto release = [&](Request& r) {
    if (!r.is_null()) free_requests_.push_back(r.id);
    r = Request{};
  };
  if (op.kind == OpKind::wait_all) {
    if (!std::all_of(op.requests.begin(), op.requests.end(), done)) return false;
    for (auto& r : op.requests) release(r);
    return true;
  }
  for (std::size_t i = 0; i < op.requests.size(); ++i) {
    if (!op.requests[i].is_null() && done(op.requests[i])) {
      release(op.requests[i]);
      op.index = i;
      return true;
    }
  }
  if (std::all_of(op.requests.begin(), op.requests.end(), [](const Request& r) { return r.is_null(); }))
    throw CommError("wait_any on requests that are all null");
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
  if (r.waiting->kind == OpKind::barrier) return "in barrier";
  std::string s = r.waiting->kind == OpKind::wait_any ? "wait_any on" : "wait_all on";
  for (const Request& q : r.waiting->requests) {
    if (q.is_null()) continue;
    const RequestState& st = requests_[static_cast<std::size_t>(q.id)];
    if (st.done) continue;
    s += st.is_recv ? " recv from " : " send to ";
    s += std::to_string(st.peer) + " (tag " + std::to_string(st.tag) + ")";
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
    r.data =
        std::make_unique<RankData>(spec_.algorithm->op, i, size(), spec_.params.root, spec_.bytes, spec_.real_bytes);
    r.task = run_call(r.comm, r.data->buffers(), spec_);
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
          requests_[static_cast<std::size_t>(e.id)].done = true;
          if (r.waiting && (r.waiting->kind == OpKind::wait_all || r.waiting->kind == OpKind::wait_any) &&
              try_wait(e.rank, *r.waiting))
            resume(e.rank);
          break;
        case Event::Kind::retry:
          if (r.waiting->kind == OpKind::isend ? loggp_send(e.rank, *r.waiting) : loggp_copy(e.rank, *r.waiting))
            resume(e.rank);
          break;
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
    result.finish_s.push_back(r.finish);
    if (result.data_error.empty()) result.data_error = r.data->check();
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
