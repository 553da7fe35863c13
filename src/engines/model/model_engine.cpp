#include "engines/model/model_engine.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>
#include <map>
#include <new>
#include <string>
#include <system_error>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "algorithms/rank_data.hpp"
#include "engines/model/huge_pages.hpp"
#include "engines/run_memory.hpp"

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

// Elements of ListPool lists carry their link, `next`, so a node is no larger than its element.
struct Message {
  int source, tag;
  std::int32_t next;
  std::int64_t id;  // numbered in send order, for traces
  std::size_t size;
  double ready;                    // the data is usable: Hockney's arrival, LogGP's end of handling
  std::vector<std::byte> payload;  // empty for virtual buffers
};

// A receive posted before its message was sent: the message, when it comes, arrives after the
// post, so the post time is not kept.
struct PostedRecv {
  int source = -1, tag = 0;
  std::int32_t request = -1;  // request ids are small (the front's table indexes them with int32)
  std::int32_t next = -1;
  Buffer buffer;  // receive target
};

// A rank's posted receives and unexpected messages are FIFO lists threaded through one pool per
// kind for the whole run: most ranks hold none or one at a time, and a vector per rank would cost
// its header and a heap block on each of millions of ranks.
constexpr std::int32_t kNone = -1;

template <class T>
class ListPool {
 public:
  struct List {
    std::int32_t head = kNone, tail = kNone;
  };
  void push_back(List& list, T value) {
    std::int32_t i;
    value.next = kNone;
    if (free_ != kNone) {
      i = free_;
      free_ = nodes_[static_cast<std::size_t>(i)].next;
      nodes_[static_cast<std::size_t>(i)] = std::move(value);
    } else {
      i = static_cast<std::int32_t>(nodes_.size());
      nodes_.push_back(std::move(value));
    }
    if (list.tail == kNone)
      list.head = i;
    else
      nodes_[static_cast<std::size_t>(list.tail)].next = i;
    list.tail = i;
  }
  // Removes and returns the first element of `list` for which match(element) holds, if any.
  template <class F>
  bool take_first(List& list, F&& match, T& out) {
    std::int32_t prev = kNone;
    for (std::int32_t i = list.head; i != kNone; prev = i, i = nodes_[static_cast<std::size_t>(i)].next) {
      T& n = nodes_[static_cast<std::size_t>(i)];
      if (!match(n)) continue;
      const std::int32_t next = n.next;
      out = std::move(n);
      if (prev == kNone)
        list.head = next;
      else
        nodes_[static_cast<std::size_t>(prev)].next = next;
      if (list.tail == i) list.tail = prev;
      n = T{};
      n.next = free_;
      free_ = i;
      return true;
    }
    return false;
  }

 private:
  huge_pages::Vector<T> nodes_;
  std::int32_t free_ = kNone;
};

// The index of an element of `items` to reuse: the last one `free` lists, else a new one
// (default-constructed) at the end. For the engine's pools of messages and landings.
template <class Items, class Free>
typename Free::value_type take_slot(Items& items, Free& free) {
  if (!free.empty()) {
    const auto id = free.back();
    free.pop_back();
    return id;
  }
  items.emplace_back();
  return static_cast<typename Free::value_type>(items.size() - 1);
}

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

 public:
  // The engine's state of the rank, declared last so that it takes the padding after rank_
  // rather than room of its own in the engine's Rank: its task has been started; the engine left
  // op() pending and will resume the rank; its task has finished (and its frame is freed).
  bool started = false;
  bool suspended = false;
  bool finished = false;
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

// What the engine keeps for each rank while it runs (RankTable); kept small, as a run holds
// millions. State that only some models or operations need (ports, clocks, one-sided) is in
// vectors sized on first use.
struct Rank {
  explicit Rank(ModelEngine& engine, int rank) noexcept : comm(engine, rank) {}
  ModelComm comm;
  Task<> task;
  // The op this rank is suspended on (always its Comm's op in flight), if it is.
  Op* waiting() { return comm.suspended ? &comm.op() : nullptr; }
  const Op* waiting() const { return comm.suspended ? &comm.op() : nullptr; }
  std::uint64_t done = 0;  // bit id set: request id (< 64) has completed (larger ids: done_large_)
  // The rank's posted receives, oldest first: the oldest here, the others in the engine's pool.
  // Most ranks hold at most one at a time, so matching a message reads the receiver's Rank only,
  // not a list head and then a node elsewhere (two dependent cache misses per message on a large
  // run, most of the matching's time).
  PostedRecv first_posted;  // none when its request is kNone
  ListPool<PostedRecv>::List more_posted;
  ListPool<Message>::List unexpected;
};

// The ranks' records, in one of two layouts chosen for the run:
//  - recycled (ranks that start late, AlgorithmInfo::receives_first): a rank has a record from
//    when it starts (when its first message arrives, or at its turn if a message waits for it
//    then) until it finishes; then the record is destroyed and its slot reused by a rank yet to
//    start. Messages sent to a rank before it starts wait in its slot's place (held). The run
//    holds records for the ranks in flight only and first-touches (page faults: the largest
//    cost of a cold run) only as many, reusing slots still in cache, at one lookup per access
//    (rank -> slot).
//  - in place (every rank starts at time 0): rank i's record is slot i, built on two threads
//    before the run and kept to its end; no lookup, which a run that holds them all anyway
//    would pay for nothing (measured: 15-25% slower with it).
// The slots are address space for one record per rank, reserved at once, so a record never
// moves (its coroutine holds a reference to its Comm).
class RankTable {
 public:
  RankTable() = default;
  RankTable(const RankTable&) = delete;
  RankTable& operator=(const RankTable&) = delete;
  ~RankTable() {
    if (recycled_) {
      for (const std::int32_t s : slot_)
        if (s >= 0) data_[s].~Rank();
    } else {
      for (std::size_t i = 0; i < next_; ++i) data_[i].~Rank();
    }
    huge_pages::release(data_, capacity_ * sizeof(Rank));
  }
  // Room for n ranks, none with a record yet.
  void allocate(std::size_t n, bool recycled) {
    data_ = static_cast<Rank*>(huge_pages::allocate(n * sizeof(Rank)));
    capacity_ = n;
    recycled_ = recycled;
    if (recycled) slot_.assign(n, kNever);
  }
  bool recycled() const { return recycled_; }

  // In place: builds rank i's record; any thread, each rank once, and every rank below n before
  // built(n), which must come before any other call.
  void construct_in_place(std::size_t i, ModelEngine& engine) { new (&data_[i]) Rank(engine, static_cast<int>(i)); }
  void built(std::size_t n) { next_ = n; }

  // Recycled: builds rank i's record (which it has not) in a free slot.
  Rank& make(std::size_t i, ModelEngine& engine) {
    std::size_t s;
    if (!free_.empty()) {
      s = static_cast<std::size_t>(free_.back());
      free_.pop_back();
    } else {
      s = next_++;
    }
    slot_[i] = static_cast<std::int32_t>(s);
    return *new (&data_[s]) Rank(engine, static_cast<int>(i));
  }
  // Recycled: destroys rank i's record; the rank counts as finished from now on.
  void release(std::size_t i) {
    const std::int32_t s = slot_[i];
    data_[s].~Rank();
    free_.push_back(s);
    slot_[i] = kReleased;
  }

  // Recycled: the first of the messages held for rank i, which has no record yet (kNone if none):
  // see ModelEngine::hold.
  std::int32_t held(std::size_t i) const { return recycled_ && slot_[i] <= kHeld ? kHeld - slot_[i] : kNone; }
  void hold(std::size_t i, std::int32_t first) { slot_[i] = kHeld - first; }

  // Rank i's record, or null if it has none: not started, or finished.
  Rank* find(std::size_t i) const {
    if (!recycled_) return &data_[i];
    return slot_[i] >= 0 ? &data_[slot_[i]] : nullptr;
  }
  // Rank i's record, which it must have.
  Rank& operator[](std::size_t i) const { return recycled_ ? data_[slot_[i]] : data_[i]; }
  bool released(std::size_t i) const { return recycled_ && slot_[i] == kReleased; }
  // Where rank i's slot number is (null in place), for an engine that prefetches it.
  const std::int32_t* slot_of(std::size_t i) const { return recycled_ ? &slot_[i] : nullptr; }

 private:
  static constexpr std::int32_t kNever = -1;     // no record yet
  static constexpr std::int32_t kReleased = -2;  // finished, record destroyed
  static constexpr std::int32_t kHeld = -3;      // and below: no record, messages held (kHeld - first)
  Rank* data_ = nullptr;
  std::size_t capacity_ = 0;
  bool recycled_ = false;
  huge_pages::Vector<std::int32_t> slot_;  // recycled: by rank
  huge_pages::Vector<std::int32_t> free_;  // recycled: destroyed records' slots, the latest last (in cache)
  std::size_t next_ = 0;                   // slots from here on have never held a record
};
// construct_in_place() cannot fail (nothing in a Rank allocates), so a failure later in run()
// finds every rank of a parallel build constructed.
static_assert(std::is_nothrow_constructible_v<Rank, ModelEngine&, int>);

struct Event {
  enum class Kind : std::int32_t {
    resume,    // resume the rank
    complete,  // complete request `id`
    retry,     // LogGP: start the send or copy the rank is suspended on, if its resources are free
    arrive,    // LogGP: handle in-flight message `id` at the rank, if its resources are free
    land,      // write landing `id` (one-sided data) into its destination
    held,      // held message `id` (ModelEngine::hold) reaches the rank
    received,  // overheads: receive `id` (a Receiving) has its data; its overhead takes the core
  };
  double time;
  int rank;
  Kind kind;
  std::int64_t id;
};

// Events in time order, FIFO among equal times (so runs are deterministic). Events are kept in
// one bucket per distinct time: collectives under uniform costs produce few distinct times and
// many events at each, so this beats a binary heap, whose sifts miss the cache on large runs.
// A bucket's events do not repeat its time (16 bytes each, not 24), and a drained bucket's vector
// is kept for the next new bucket, so the largest ones are not unmapped and faulted in again.
class EventQueue {
 public:
  void push(const Event& e) {
    const Entry entry{e.id, e.rank, e.kind};
    if (draining_ && e.time == current_time_) {
      current_.push_back(entry);
      return;
    }
    auto [bucket, created] = buckets_.try_emplace(e.time);
    if (created && !spare_.empty()) {
      bucket->second = std::move(spare_.back());
      spare_.pop_back();
    }
    bucket->second.push_back(entry);
  }
  bool pop(Event& e) {
    while (next_ == current_.size()) {
      if (buckets_.empty()) return false;
      auto node = buckets_.extract(buckets_.begin());
      current_time_ = node.key();
      current_.clear();
      spare_.push_back(std::move(current_));
      current_ = std::move(node.mapped());
      next_ = 0;
      draining_ = true;
    }
    const Entry& entry = current_[next_++];
    e = Event{current_time_, entry.rank, entry.kind, entry.id};
    return true;
  }
  // The rank of the event `distance` places after the last one popped, if it is in the same
  // bucket (-1 otherwise): the engine prefetches its state.
  int rank_ahead(std::size_t distance) const {
    const std::size_t at = next_ + distance - 1;
    return at < current_.size() ? current_[at].rank : -1;
  }

 private:
  struct Entry {
    std::int64_t id;
    int rank;
    Event::Kind kind;
  };
  using Bucket = huge_pages::Vector<Entry>;
  std::map<double, Bucket> buckets_;
  Bucket current_;
  std::vector<Bucket> spare_;  // emptied buckets' vectors, their capacity kept
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
  bool local_work(int rank, double duration);
  // The time a local copy or reduction takes.
  double local_duration(const Op& op) const {
    const auto bytes = static_cast<double>(op.buffer.size());
    return op.kind == OpKind::copy ? models::copy_time(bytes, config_.copy_bandwidth, config_.copy_overhead)
                                   : bytes * config_.reduce_gamma;
  }
  bool loggp_send(int rank, Op& op);
  bool collective(int rank, Op& op);
  bool start_put(int rank, Op& op);
  bool start_get(int rank, Op& op);
  bool start_flush(int rank, Op& op);
  void land_at(double time, int rank, Buffer destination, Buffer data);
  double one_sided_latency(int a, int b) const;
  // The bytes a put or get moves, and the origin's overhead for it (Hockney kinds): one
  // send_overhead (a get's get_overhead, when set) of its bytes, or of each piece of a strided one.
  static std::size_t rma_bytes(const Op& op) {
    const bool strided = (op.kind == OpKind::put || op.kind == OpKind::get) && op.strided;
    return strided ? op.strided->local.bytes() : op.buffer.size();
  }
  double origin_overhead(const Op& op) const {
    const models::Overhead& table = config_.origin_overhead(op.kind == OpKind::get);
    if (!op.strided) return table.at(op.buffer.size());
    double sum = 0;
    for_each_piece(*op.strided, [&](std::size_t, std::size_t, std::size_t n) { sum += table.at(n); });
    return sum;
  }
  bool loggp_local_work(int rank, double duration);
  void loggp_arrive(int rank, std::int64_t id);
  bool try_wait(int rank, Op& op);
  void new_request(int rank, const Op& op) { set_done(rank, op.request.id, false); }
  bool is_done(int rank, std::int64_t id) const;
  void set_done(int rank, std::int64_t id, bool done);
  models::Hockney::Ports& ports(int rank) { return ports_[static_cast<std::size_t>(rank)]; }
  // When a Hockney transfer of m bytes from `rank` to `peer`, ready to start at `ready`, arrives
  // (the ports it needs taken: model_engine.hpp).
  double hockney_arrival(int rank, int peer, double ready, double m) {
    const models::Hockney& h = config_.hockney_between(rank, peer);
    if (config_.one_port) return h.transfer_one_port(ports(rank), ports(peer), ready, m);
    if (config_.serial_send(rank, peer)) return h.transfer_send_port(ports(rank), ready, m);
    return ready + h.transfer(m);
  }
  // Overheads: the rank's core, from `ready` on, for `duration`; returns when it is done.
  double take_core(int rank, double ready, double duration) {
    double& free = cpu_free_[static_cast<std::size_t>(rank)];
    free = std::max(ready, free) + duration;
    return free;
  }
  void receive_overhead(int rank, std::int64_t id);
  models::LogGP::Rank& clocks(int rank) { return clocks_[static_cast<std::size_t>(rank)]; }
  Message message_of(int rank, const Op& op, double ready);
  // Trace records (trace.hpp) of the message events; callers check trace_ first.
  void trace_send(double start, double latency, int rank, const Op& op, std::int64_t message,
                  TraceProtocol protocol = TraceProtocol::none);
  void trace_at(TraceKind kind, double time, int rank, int peer, int tag, OpKind op, std::size_t bytes,
                std::int64_t message, std::int64_t request = -1, TraceProtocol protocol = TraceProtocol::none,
                double latency = -1);
  void match(int rank, Message message);
  void hold(std::size_t rank, Message message);
  bool arrive_held(std::size_t rank, std::int32_t id);
  void complete(int rank, std::int64_t request);
  void post(Rank& me, const PostedRecv& receive);
  template <class F>
  bool take_posted(Rank& me, F&& match, PostedRecv& out);
  void deliver(int rank, std::int64_t request, Buffer target, Message& message, double posted);
  void accept(int rank, Buffer target, Message& message);
  void push(double time, int rank, Event::Kind kind, std::int64_t id = -1) { queue_.push({time, rank, kind, id}); }
  void resume(int rank);
  // Every 2^20 events (a read of /proc that costs nothing beside them): InputError when the
  // process holds more memory than the run may take (run_memory.hpp).
  static constexpr std::int64_t kMemoryCheckEvents = (1 << 20) - 1;
  void check_memory_held() const {
    if (const std::string why = memory_exceeded(describe(spec_) + " on engine model"); !why.empty())
      throw InputError(why);
  }
  void make_task(std::size_t rank);
  void start_rank(std::size_t rank);
  void start_late(std::size_t rank);
  void retire(std::size_t rank);
  // A rank that has no record has not started (and no message waits for it) or has finished.
  bool is_started(std::size_t rank) const {
    const Rank* r = ranks_.find(rank);
    return r ? r->comm.started : ranks_.released(rank);
  }
  bool is_finished(std::size_t rank) const {
    const Rank* r = ranks_.find(rank);
    return r ? r->comm.finished : ranks_.released(rank);
  }
  void prefetch_ahead() const;
  void build_ranks(std::size_t begin, std::size_t end);
  [[noreturn]] void deadlock();
  std::string describe_wait(int rank) const;

  const ModelConfig& config_;
  const RunSpec& spec_;
  TraceSink* const trace_ = spec_.trace;
  std::int64_t messages_ = 0;  // sent so far: the next message's id
  double now_ = 0;
  std::vector<RankWork> work_;  // those that hold state; before ranks_: the tasks are destroyed first
  RankTable ranks_;
  std::vector<double> finish_;
  ListPool<PostedRecv> posted_;
  ListPool<Message> unexpected_;
  std::unordered_map<std::uint64_t, bool> done_large_;  // by rank << 32 | id, for ids >= 64
  huge_pages::Vector<models::Hockney::Ports> ports_;    // Hockney one-port
  huge_pages::Vector<models::LogGP::Rank> clocks_;      // LogGP
  huge_pages::Vector<double> cpu_free_;                 // Hockney with overheads: when a core frees
  // A receive whose data is there, waiting for its overhead (Event::Kind::received).
  struct Receiving {
    std::int64_t request, message;
    int source, tag;
    std::size_t size;
  };
  std::vector<Receiving> receiving_;
  std::vector<std::int64_t> free_receiving_;
  std::vector<std::vector<Unflushed>> unflushed_;  // by rank, once a window exists
  huge_pages::Vector<Message> in_flight_;          // LogGP: sent, not yet handled by the receiver
  // LogGP: per rank, the in-flight messages that reached it and wait for its CPU or NIC, oldest
  // first, linked through Message::next (unused while in flight). One arrive event per rank
  // retries the oldest, so a rank handles, hence matches, messages in the order they reached it:
  // from one sender, the order sent (MPI's non-overtaking rule).
  struct Waiting {
    std::int64_t head = -1, tail = -1;
  };
  huge_pages::Vector<Waiting> waiting_;
  huge_pages::Vector<std::int64_t> free_in_flight_;
  // Messages held for ranks that have not started (hold), each list in send order through
  // Message::next; its first node also keeps the last.
  struct Held {
    Message message;
    std::int32_t request = kPending;  // the receive it was paired with, once it was
    std::int32_t last = kNone;        // the first node: the list's last
    static constexpr std::int32_t kPending = -1, kUnexpected = -2;
  };
  huge_pages::Vector<Held> held_;
  huge_pages::Vector<std::int32_t> free_held_;
  EventQueue queue_;
  // Ranks that receive first (AlgorithmInfo::receives_first) start late: when their first
  // message comes, not at time 0. The ranks before start_turn_ have had their turn to start at
  // time 0 (all of them, once the event loop runs).
  bool late_starts_ = false;
  bool starting_late_ = false;
  std::size_t start_turn_ = 0;
  int in_collective_ = 0;  // ranks inside the current collective call
  OpKind collective_kind_ = OpKind::barrier;
  std::vector<WindowMemory> windows_;
  std::vector<Landing> landings_;
  std::vector<std::int64_t> free_landings_;
};

int ModelComm::size() const { return engine_->size(); }
double ModelComm::now() const { return engine_->now(); }
bool ModelComm::start(Op& op) { return engine_->start(rank_, op); }

bool ModelEngine::is_done(int rank, std::int64_t id) const {
  if (id < 64) return (ranks_[static_cast<std::size_t>(rank)].done >> id) & 1;
  const auto found = done_large_.find(static_cast<std::uint64_t>(rank) << 32 | static_cast<std::uint64_t>(id));
  return found != done_large_.end() && found->second;
}

void ModelEngine::set_done(int rank, std::int64_t id, bool done) {
  if (id >= 64) {
    done_large_[static_cast<std::uint64_t>(rank) << 32 | static_cast<std::uint64_t>(id)] = done;
    return;
  }
  std::uint64_t& bits = ranks_[static_cast<std::size_t>(rank)].done;
  const std::uint64_t bit = std::uint64_t{1} << id;
  bits = done ? bits | bit : bits & ~bit;
}

bool ModelEngine::start(int rank, Op& op) {
  if (starting_late_ && op.kind != OpKind::irecv && op.kind != OpKind::wait_all && op.kind != OpKind::wait_any)
    throw CommError("rank " + std::to_string(rank) + " began with " + to_string(op.kind) + ", but " +
                    std::string(spec_.algorithm->name) +
                    " is registered as receiving first (AlgorithmInfo::receives_first), which lets the model "
                    "engine start a rank when its first message comes");
  switch (op.kind) {
    case OpKind::isend: return start_isend(rank, op);
    case OpKind::irecv: return start_irecv(rank, op);
    case OpKind::wait_all:
    case OpKind::wait_any:
      if (try_wait(rank, op)) return true;
      ranks_[static_cast<std::size_t>(rank)].comm.suspended = true;
      return false;
    case OpKind::barrier:
    case OpKind::win_allocate:
    case OpKind::win_free: return collective(rank, op);
    case OpKind::copy: copy_bytes(op.buffer, op.source); return local_work(rank, local_duration(op));
    case OpKind::reduce_local: apply(op.reduction, op.source, op.buffer); return local_work(rank, local_duration(op));
    case OpKind::put: return start_put(rank, op);
    case OpKind::get: return start_get(rank, op);
    case OpKind::flush: return start_flush(rank, op);
    case OpKind::win_sync: return local_work(rank, config_.sync_overhead);
    case OpKind::register_memory: return local_work(rank, config_.registration.time(op.buffer.size()));
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
      if (unflushed_.empty()) unflushed_.resize(static_cast<std::size_t>(size()));
      if (ports_.empty()) ports_.resize(static_cast<std::size_t>(size()));  // puts take the origin's port
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
    ranks_[static_cast<std::size_t>(rank)].comm.suspended = true;
    return false;
  }
  in_collective_ = 0;
  if (op.kind == OpKind::win_free)
    for (Storage& m : windows_[static_cast<std::size_t>(op.window.id)].memory) m = Storage{};
  for (int r = 0; r < size(); ++r)
    if (const Rank* other = ranks_.find(static_cast<std::size_t>(r));
        other && other->waiting() && other->waiting()->kind == op.kind)
      push(now_, r, Event::Kind::resume);
  return true;
}

double ModelEngine::one_sided_latency(int a, int b) const {
  return config_.kind == ModelConfig::Kind::loggp ? config_.loggp.L : config_.hockney_between(a, b).alpha;
}

// Schedules `data` (its bytes as they are now) to be written into `destination` at `time`.
void ModelEngine::land_at(double time, int rank, Buffer destination, Buffer data) {
  const std::int64_t id = take_slot(landings_, free_landings_);
  Landing& l = landings_[static_cast<std::size_t>(id)];
  l.destination = destination;
  l.payload.clear();
  if (!data.is_virtual() && !destination.is_virtual()) l.payload.assign(data.data(), data.data() + data.size());
  push(time, rank, Event::Kind::land, id);
}

// A put of m bytes posted at t reaches the target's memory at A, and its request completes at A
// too. Hockney kinds: the origin first pays its software overhead send_overhead(m) (its core;
// the rank goes on after it), then its port injects the put when free, holding it beta*m (one
// transfer at a time, latencies overlapping: models::Hockney::inject), A = start + alpha + beta*m;
// the target's port takes one put's bytes at a time too, so puts of several origins into one
// image serialise (start = max(ready, both ports free)); under one_port both ports are held for the whole transfer, as
// for sends. LogGP: the first byte as for a send (o at the CPU, g + (m-1)G at the NIC), plus (m-1)G, without the
// target's CPU: RDMA. The origin's next flush to that target waits for A and then the acknowledgement.
//
// A strided put (op.strided) is one RDMA per piece contiguous on both sides, as Open MPI's osc
// rdma and osc ucx components issue it (models/coarray_cost.hpp): the origin pays the overhead of
// each piece, send_overhead(piece) (LogGP: o per piece beyond the first), before its bytes leave
// back to back, as one transfer of their sum.
bool ModelEngine::start_put(int rank, Op& op) {
  Rank& me = ranks_[static_cast<std::size_t>(rank)];
  const std::size_t bytes = rma_bytes(op);
  const double m = static_cast<double>(bytes);
  double arrival = 0, cpu_free = now_;
  if (config_.kind == ModelConfig::Kind::loggp) {
    const models::LogGP& p = config_.loggp;
    const double start = p.send_start(clocks(rank), now_);
    if (start > now_) {  // retried when the CPU and NIC are free
      me.comm.suspended = true;
      push(start, rank, Event::Kind::retry);
      return false;
    }
    const models::LogGP::Send sent = p.send(clocks(rank), now_, m);
    const double more = op.strided ? static_cast<double>(piece_count(*op.strided) - 1) * p.o : 0;
    arrival = sent.arrival + p.bytes_time(m) + more;
    cpu_free = more > 0 ? p.compute(clocks(rank), sent.cpu_free, more) : sent.cpu_free;
  } else {
    cpu_free = config_.has_overheads() ? take_core(rank, now_, origin_overhead(op)) : now_;
    arrival = config_.one_port
                  ? hockney_arrival(rank, op.peer, cpu_free, m)
                  : config_.hockney_between(rank, op.peer).inject(ports(rank), ports(op.peer), cpu_free, m);
  }
  new_request(rank, op);
  const Buffer window =
      windows_[static_cast<std::size_t>(op.window.id)].memory[static_cast<std::size_t>(op.peer)].view();
  if (op.strided)
    for_each_piece(*op.strided, [&](std::size_t local, std::size_t remote, std::size_t n) {
      land_at(arrival, op.peer, window.slice(remote, n), op.buffer.slice(local, n));
    });
  else
    land_at(arrival, op.peer, window.slice(op.offset, bytes), op.buffer);
  push(arrival, rank, Event::Kind::complete, op.request.id);
  if (trace_) {
    const std::int64_t id = messages_++;
    const double start = config_.kind == ModelConfig::Kind::loggp
                             ? now_
                             : arrival - config_.hockney_between(rank, op.peer).transfer(m);  // after a busy port
    trace_send(start, one_sided_latency(rank, op.peer), rank, op, id, TraceProtocol::one_sided);
    trace_at(TraceKind::arrive, arrival, op.peer, rank, 0, OpKind::put, bytes, id, -1, TraceProtocol::one_sided);
    trace_at(TraceKind::request_done, arrival, rank, op.peer, 0, OpKind::put, bytes, id, op.request.id,
             TraceProtocol::one_sided);
  }
  std::vector<Unflushed>& unflushed = unflushed_[static_cast<std::size_t>(rank)];
  auto u = std::find_if(unflushed.begin(), unflushed.end(),
                        [&](const Unflushed& x) { return x.window == op.window.id && x.target == op.peer; });
  if (u == unflushed.end())
    unflushed.push_back({op.window.id, op.peer, arrival});
  else
    u->latest = std::max(u->latest, arrival);
  if (cpu_free <= now_) return true;
  me.comm.suspended = true;
  push(cpu_free, rank, Event::Kind::resume);
  return false;
}

// A get of m bytes posted at t: the request reaches the target after one latency and the data
// comes back as a transfer of m bytes (Hockney: the origin's get_overhead(m), else
// send_overhead(m), then 2*alpha + beta*m, the reply leaving once the target's port is free: the
// replies to several origins serialise there, beta*m each; LogGP: the origin's CPU overhead o,
// then 2L + (m-1)G). The target's bytes are taken when the get is posted: a program that writes
// them meanwhile races, in MPI too.
// A strided get (op.strided) pays the overhead of each piece, as a strided put does, and moves
// the pieces' bytes as one transfer.
bool ModelEngine::start_get(int rank, Op& op) {
  new_request(rank, op);
  const std::size_t bytes = rma_bytes(op);
  const double m = static_cast<double>(bytes);
  double done = 0;
  if (config_.kind == ModelConfig::Kind::loggp) {
    const models::LogGP& p = config_.loggp;
    const double pieces = op.strided ? static_cast<double>(piece_count(*op.strided)) : 1;
    done = p.compute(clocks(rank), p.compute_start(clocks(rank), now_), pieces * p.o) + 2 * p.L + p.bytes_time(m);
  } else {
    const models::Hockney& h = config_.hockney_between(rank, op.peer);
    const double ready = config_.has_overheads() ? take_core(rank, now_, origin_overhead(op)) : now_;
    if (config_.one_port) {
      const double asked = h.transfer_one_port(ports(rank), ports(op.peer), ready, 0);
      done = h.transfer_one_port(ports(op.peer), ports(rank), asked, m);
    } else {
      models::Hockney::Ports& source = ports(op.peer);
      const double reply = std::max(ready + h.alpha, source.send_free);
      source.send_free = reply + h.beta * m;
      done = reply + h.transfer(m);
    }
  }
  const Buffer window =
      windows_[static_cast<std::size_t>(op.window.id)].memory[static_cast<std::size_t>(op.peer)].view();
  if (op.strided)
    for_each_piece(*op.strided, [&](std::size_t local, std::size_t remote, std::size_t n) {
      land_at(done, rank, op.buffer.slice(local, n), window.slice(remote, n));
    });
  else
    land_at(done, rank, op.buffer, window.slice(op.offset, bytes));
  push(done, rank, Event::Kind::complete, op.request.id);
  if (trace_) {
    // The data moves from the target back to this rank; its start is when the request got there.
    const std::int64_t id = messages_++;
    trace_at(TraceKind::send_start, now_ + one_sided_latency(rank, op.peer), op.peer, rank, 0, OpKind::get, bytes, id,
             -1, TraceProtocol::one_sided, one_sided_latency(op.peer, rank));
    trace_at(TraceKind::arrive, done, rank, op.peer, 0, OpKind::get, bytes, id, -1, TraceProtocol::one_sided);
    trace_at(TraceKind::request_done, done, rank, op.peer, 0, OpKind::get, bytes, id, op.request.id,
             TraceProtocol::one_sided);
  }
  return true;
}

// flush(target) costs the origin a software overhead first (Hockney kinds: send_overhead(0), the
// overhead of a message without bytes; LogGP: o at the CPU), then completes once every put to
// target has arrived, plus the latency of the acknowledgement; with nothing unflushed to target
// it completes after the overhead. flush_all: every target.
bool ModelEngine::start_flush(int rank, Op& op) {
  Rank& me = ranks_[static_cast<std::size_t>(rank)];
  double ready = now_;
  if (config_.kind == ModelConfig::Kind::loggp) {
    const models::LogGP& p = config_.loggp;
    if (p.o > 0) ready = p.compute(clocks(rank), p.compute_start(clocks(rank), now_), p.o);
  } else if (config_.has_overheads()) {
    ready = take_core(rank, now_, config_.send_overhead.at(0));
  }
  double done = ready;
  auto flushed = [&](const Unflushed& u) {
    if (u.window != op.window.id || (op.peer != -1 && u.target != op.peer)) return false;
    done = std::max(done, std::max(ready, u.latest) + one_sided_latency(rank, u.target));
    return true;
  };
  std::vector<Unflushed>& unflushed = unflushed_[static_cast<std::size_t>(rank)];
  unflushed.erase(std::remove_if(unflushed.begin(), unflushed.end(), flushed), unflushed.end());
  if (done <= now_) return true;
  me.comm.suspended = true;
  push(done, rank, Event::Kind::resume);
  return false;
}

// A local copy or reduction of `duration` seconds.
bool ModelEngine::local_work(int rank, double duration) {
  if (duration <= 0) return true;
  if (config_.kind == ModelConfig::Kind::loggp) return loggp_local_work(rank, duration);
  ranks_[static_cast<std::size_t>(rank)].comm.suspended = true;
  push(now_ + duration, rank, Event::Kind::resume);
  return false;
}

// The rank stays suspended until its CPU has done the work (or, busy, until it frees).
bool ModelEngine::loggp_local_work(int rank, double duration) {
  Rank& me = ranks_[static_cast<std::size_t>(rank)];
  const models::LogGP& p = config_.loggp;
  me.comm.suspended = true;
  const double start = p.compute_start(clocks(rank), now_);
  if (start > now_) {
    push(start, rank, Event::Kind::retry);
    return false;
  }
  push(p.compute(clocks(rank), now_, duration), rank, Event::Kind::resume);
  return false;
}

bool ModelEngine::start_isend(int rank, Op& op) {
  new_request(rank, op);
  if (config_.kind == ModelConfig::Kind::loggp) return loggp_send(rank, op);
  const double m = static_cast<double>(op.buffer.size());
  const models::Hockney& h = config_.hockney_between(rank, op.peer);
  // The sender's overhead comes first: the transfer starts, and the rank goes on, after it.
  const double ready =
      config_.has_overheads() ? take_core(rank, now_, config_.send_overhead.at(op.buffer.size())) : now_;
  const double arrival = hockney_arrival(rank, op.peer, ready, m);
  push(arrival, rank, Event::Kind::complete, op.request.id);
  Message message = message_of(rank, op, arrival);
  if (trace_) {
    trace_send(arrival - h.transfer(m), h.alpha, rank, op, message.id);
    trace_at(TraceKind::arrive, arrival, op.peer, rank, op.tag, OpKind::isend, op.buffer.size(), message.id);
    trace_at(TraceKind::request_done, arrival, rank, op.peer, op.tag, OpKind::isend, op.buffer.size(), message.id,
             op.request.id);
  }
  match(op.peer, std::move(message));
  if (ready <= now_) return true;
  ranks_[static_cast<std::size_t>(rank)].comm.suspended = true;
  push(ready, rank, Event::Kind::resume);
  return false;
}

void ModelEngine::trace_send(double start, double latency, int rank, const Op& op, std::int64_t message,
                             TraceProtocol protocol) {
  trace_at(TraceKind::send_start, start, rank, op.peer, op.tag, op.kind, rma_bytes(op), message, -1, protocol, latency);
}

void ModelEngine::trace_at(TraceKind kind, double time, int rank, int peer, int tag, OpKind op, std::size_t bytes,
                           std::int64_t message, std::int64_t request, TraceProtocol protocol, double latency) {
  TraceEvent e;
  e.kind = kind;
  e.latency = latency;
  e.time = time;
  e.rank = rank;
  e.peer = peer;
  e.tag = tag;
  e.op = op;
  e.bytes = bytes;
  e.message = message;
  e.request = request;
  e.protocol = protocol;
  trace_->record(e);
}

// Starts the send `op` now if the rank's CPU and NIC-send are free, else retries when they may be;
// either way the rank continues only once its CPU is free again.
bool ModelEngine::loggp_send(int rank, Op& op) {
  Rank& me = ranks_[static_cast<std::size_t>(rank)];
  const models::LogGP& p = config_.loggp;
  const double start = p.send_start(clocks(rank), now_);
  if (start > now_) {
    me.comm.suspended = true;
    push(start, rank, Event::Kind::retry);
    return false;
  }
  const models::LogGP::Send sent = p.send(clocks(rank), now_, static_cast<double>(op.buffer.size()));
  push(sent.complete, rank, Event::Kind::complete, op.request.id);
  if (trace_) {
    trace_send(now_, p.L, rank, op, messages_);
    trace_at(TraceKind::request_done, sent.complete, rank, op.peer, op.tag, OpKind::isend, op.buffer.size(), messages_,
             op.request.id);
  }
  const std::int64_t id = take_slot(in_flight_, free_in_flight_);
  in_flight_[static_cast<std::size_t>(id)] = message_of(rank, op, sent.arrival);
  push(sent.arrival, op.peer, Event::Kind::arrive, id);
  if (sent.cpu_free <= now_) return true;
  me.comm.suspended = true;
  push(sent.cpu_free, rank, Event::Kind::resume);
  return false;
}

// In-flight message `id` reaches `rank` (id < 0: the retry of the rank's waiting messages). The
// oldest waiting message is handled now if the rank's CPU and NIC-receive are free, else retried
// when they may be; then matched.
void ModelEngine::loggp_arrive(int rank, std::int64_t id) {
  const models::LogGP& p = config_.loggp;
  Waiting& w = waiting_[static_cast<std::size_t>(rank)];
  if (id >= 0) {
    in_flight_[static_cast<std::size_t>(id)].next = kNone;
    if (w.head >= 0) {  // older messages wait, and their retry will come to this one
      in_flight_[static_cast<std::size_t>(w.tail)].next = static_cast<std::int32_t>(id);
      w.tail = id;
      return;
    }
    w.head = w.tail = id;
  }
  const double start = p.handle_start(clocks(rank), now_);
  if (start > now_) {
    push(start, rank, Event::Kind::arrive, -1);
    return;
  }
  const std::int64_t oldest = w.head;
  Message message = std::move(in_flight_[static_cast<std::size_t>(oldest)]);
  free_in_flight_.push_back(oldest);
  w.head = message.next;
  if (w.head < 0) w.tail = -1;
  message.ready = p.handle(clocks(rank), now_, static_cast<double>(message.size));
  if (trace_)
    trace_at(TraceKind::arrive, message.ready, rank, message.source, message.tag, OpKind::isend, message.size,
             message.id);
  if (w.head >= 0) push(p.handle_start(clocks(rank), now_), rank, Event::Kind::arrive, -1);
  match(rank, std::move(message));
}

Message ModelEngine::message_of(int rank, const Op& op, double ready) {
  Message msg{rank, op.tag, kNone, messages_++, op.buffer.size(), ready, {}};
  if (!op.buffer.is_virtual()) msg.payload.assign(op.buffer.data(), op.buffer.data() + op.buffer.size());
  return msg;
}

// Gives a message that reached `rank` to its first receive posted for that source and tag, or
// keeps it as unexpected.
void ModelEngine::match(int rank, Message message) {
  const auto i = static_cast<std::size_t>(rank);
  // A rank whose turn to start has passed would have posted its receives by now: it starts when
  // the message reaches it (hold). One whose turn is still to come finds the message unexpected
  // then, as it would.
  if (!is_started(i) && i < start_turn_) return hold(i, std::move(message));
  Rank* me = ranks_.find(i);
  // A finished rank never receives it: it would lie in the rank's queue of unexpected messages.
  if (!me && ranks_.released(i)) return;
  if (!me) me = &ranks_.make(i, *this);  // to hold the message until the rank's turn
  PostedRecv p;
  if (!take_posted(
          *me, [&](const PostedRecv& r) { return r.source == message.source && r.tag == message.tag; }, p)) {
    unexpected_.push_back(me->unexpected, std::move(message));
    return;
  }
  deliver(rank, p.request, p.buffer, message, now_);
}

// A message for a rank that receives first and has not started: held, with no record for the
// rank, until it reaches it (arrive_held). A rank started at the send would only have posted its
// receives and waited for one to complete, which takes at least until then; so the run is the
// same, but the rank's record and coroutine exist one transfer less (a binomial broadcast on 2^20
// ranks holds half as many at once). The event is pushed where deliver() would push the
// completion of the receive, at the same time, so events keep their order.
void ModelEngine::hold(std::size_t rank, Message message) {
  const double ready = std::max(now_, message.ready);
  const std::int32_t id = take_slot(held_, free_held_);
  Held& h = held_[static_cast<std::size_t>(id)];
  h.message = std::move(message);
  h.message.next = kNone;
  h.request = Held::kPending;
  if (const std::int32_t first = ranks_.held(rank); first == kNone) {
    ranks_.hold(rank, id);
    h.last = id;
  } else {
    Held& head = held_[static_cast<std::size_t>(first)];
    held_[static_cast<std::size_t>(head.last)].message.next = id;
    head.last = id;
  }
  push(ready, static_cast<int>(rank), Event::Kind::held, id);
}

// Held message `id` reaches `rank`. The first to arrive starts the rank, as at time 0, and pairs
// all its held messages with its receives in the order sent, as match() would have at each send;
// each message's own arrival then completes its receive, if it has one. Returns false if the
// arrival completes nothing: the message waits unexpected (or the rank is finished), as it would
// have with no event.
bool ModelEngine::arrive_held(std::size_t rank, std::int32_t id) {
  if (const std::int32_t first = ranks_.held(rank); first != kNone) {
    start_late(rank);
    Rank* me = ranks_.find(rank);  // null if the rank has finished already
    for (std::int32_t n = first; n != kNone;) {
      Held& h = held_[static_cast<std::size_t>(n)];
      n = h.message.next;
      const Message& m = h.message;
      PostedRecv p;
      if (me && take_posted(
                    *me, [&](const PostedRecv& r) { return r.source == m.source && r.tag == m.tag; }, p)) {
        accept(static_cast<int>(rank), p.buffer, h.message);
        h.request = p.request;
      } else {
        h.request = Held::kUnexpected;
        if (me) unexpected_.push_back(me->unexpected, std::move(h.message));
      }
    }
  }
  Held& h = held_[static_cast<std::size_t>(id)];
  const std::int32_t request = h.request;
  h.message.payload = {};
  free_held_.push_back(id);
  if (request < 0) return false;
  complete(static_cast<int>(rank), request);
  return true;
}

bool ModelEngine::start_irecv(int rank, Op& op) {
  Rank& me = ranks_[static_cast<std::size_t>(rank)];
  new_request(rank, op);
  Message msg;
  if (unexpected_.take_first(
          me.unexpected, [&](const Message& m) { return m.source == op.peer && m.tag == op.tag; }, msg))
    deliver(rank, op.request.id, op.buffer, msg, now_);
  else
    post(me, {op.peer, op.tag, static_cast<std::int32_t>(op.request.id), kNone, op.buffer});
  return true;
}

void ModelEngine::post(Rank& me, const PostedRecv& receive) {
  if (me.first_posted.request == kNone)
    me.first_posted = receive;
  else
    posted_.push_back(me.more_posted, receive);
}

// Removes and returns the oldest posted receive of `me` for which match(receive) holds, if any.
template <class F>
bool ModelEngine::take_posted(Rank& me, F&& match, PostedRecv& out) {
  if (me.first_posted.request == kNone) return false;  // then there are no others either
  if (!match(me.first_posted)) return posted_.take_first(me.more_posted, match, out);
  out = me.first_posted;
  // The next oldest, if any, moves up.
  if (!posted_.take_first(
          me.more_posted, [](const PostedRecv&) { return true; }, me.first_posted))
    me.first_posted = PostedRecv{};
  return true;
}

// Matches `message` with the receive `request` of `rank`, posted at `posted`.
void ModelEngine::deliver(int rank, std::int64_t request, Buffer target, Message& message, double posted) {
  accept(rank, target, message);
  const double done = std::max(posted, message.ready);
  if (!config_.recv_overhead.empty()) {
    // The overhead starts when the data is there and the core free, in event order.
    const std::int64_t id = take_slot(receiving_, free_receiving_);
    receiving_[static_cast<std::size_t>(id)] = {request, message.id, message.source, message.tag, message.size};
    push(done, rank, Event::Kind::received, id);
    return;
  }
  push(done, rank, Event::Kind::complete, request);
  if (trace_)
    trace_at(TraceKind::request_done, done, rank, message.source, message.tag, OpKind::irecv, message.size, message.id,
             request);
}

// Receive `id` (a Receiving) of `rank` has its data: it completes after its overhead on the core.
void ModelEngine::receive_overhead(int rank, std::int64_t id) {
  const Receiving r = receiving_[static_cast<std::size_t>(id)];
  free_receiving_.push_back(id);
  const double done = take_core(rank, now_, config_.recv_overhead.at(r.size));
  push(done, rank, Event::Kind::complete, r.request);
  if (trace_)
    trace_at(TraceKind::request_done, done, rank, r.source, r.tag, OpKind::irecv, r.size, r.message, r.request);
}

// The receive of `rank` into `target` takes `message`: checks its size and copies its bytes.
void ModelEngine::accept(int rank, Buffer target, Message& message) {
  if (target.size() != message.size)
    throw CommError("rank " + std::to_string(rank) + " posted a receive of " + std::to_string(target.size()) +
                    " bytes from rank " + std::to_string(message.source) + " (tag " + std::to_string(message.tag) +
                    "), which sent " + std::to_string(message.size));
  if (!message.payload.empty() && !target.is_virtual())
    std::copy(message.payload.begin(), message.payload.end(), target.data());
}

// Request `request` of `rank` completes now; a wait it satisfies resumes the rank.
void ModelEngine::complete(int rank, std::int64_t request) {
  // A rank cannot finish with requests outstanding (retire), so the record is there; the test
  // only guards.
  Rank* r = ranks_.find(static_cast<std::size_t>(rank));
  if (!r) return;
  set_done(rank, request, true);
  if (r->waiting() && (r->waiting()->kind == OpKind::wait_all || r->waiting()->kind == OpKind::wait_any) &&
      try_wait(rank, *r->waiting()))
    resume(rank);
}

// True when `op` (wait_all / wait_any) is satisfied (the front then releases its requests).
bool ModelEngine::try_wait(int rank, Op& op) {
  auto done = [&](const Request& r) { return r.is_null() || is_done(rank, r.id); };
  if (op.kind == OpKind::wait_all) return std::all_of(op.requests.begin(), op.requests.end(), done);
  for (std::size_t i = 0; i < op.requests.size(); ++i) {
    if (!op.requests[i].is_null() && done(op.requests[i])) {
      op.index = i;
      return true;
    }
  }
  return false;
}

// A large run is bound by cache misses on the state of the rank each event is for, in an order
// unrelated to memory. The events of a time bucket are known in advance, so the state of a rank
// some events ahead is prefetched: its Rank, then, closer in, what it reaches from there (the
// coroutine frame it will resume, the requests it waits for).
void ModelEngine::prefetch_ahead() const {
  if (const int r = queue_.rank_ahead(12); r >= 0 && ranks_.recycled())
    __builtin_prefetch(ranks_.slot_of(static_cast<std::size_t>(r)));
  if (const int r = queue_.rank_ahead(8); r >= 0) {
    if (const Rank* ahead = ranks_.find(static_cast<std::size_t>(r))) {
      const char* at = reinterpret_cast<const char*>(ahead);
      for (std::size_t line = 0; line < sizeof(Rank); line += 64) __builtin_prefetch(at + line);
    }
  }
  if (const int r = queue_.rank_ahead(4); r >= 0) {
    const Rank* found = ranks_.find(static_cast<std::size_t>(r));
    if (found && found->comm.suspended) {
      const Rank& ahead = *found;
      const Op& op = ahead.comm.op();
      // The frame: its first lines, where GCC puts the promise and the locals alive across awaits.
      const char* frame = static_cast<const char*>(op.waiter.address());
      for (std::size_t line = 0; line < 256; line += 64) __builtin_prefetch(frame + line);
      // What the wait checks (an array in the frame or on the heap) and the request table,
      // which a completed wait releases.
      if (op.kind == OpKind::wait_all || op.kind == OpKind::wait_any) __builtin_prefetch(op.requests.data());
      __builtin_prefetch(ahead.comm.requests().slots());
    }
  }
}

// Constructs ranks [begin, end) and their coroutines, up to the initial suspension, each rank in
// its own slot. Touches nothing shared but what it only reads (the spec, the config), so run() calls
// it on two threads.
void ModelEngine::build_ranks(std::size_t begin, std::size_t end) {
  for (std::size_t i = begin; i < end; ++i) {
    ranks_.construct_in_place(i, *this);
    if (trace_) ranks_[i].comm.set_trace(trace_);
  }
  for (std::size_t i = begin; i < end; ++i) make_task(i);
}

void ModelEngine::make_task(std::size_t rank) {
  Rank& r = ranks_[rank];
  r.task = work_.empty() ? RankWork(spec_, static_cast<int>(rank)).run(r.comm) : work_[rank].run(r.comm);
  // Almost every rank makes requests; its first slot is placed here, beside the frame, on the
  // same page, so that a large run's random accesses to a rank touch fewer pages.
  r.comm.reserve_requests(1);
}

// Runs the rank until its first suspension, or to its end.
void ModelEngine::start_rank(std::size_t rank) {
  if (!ranks_.find(rank)) ranks_.make(rank, *this);
  Rank& r = ranks_[rank];
  if (!r.task.handle()) make_task(rank);
  r.comm.started = true;
  collsim::start(r.task);
  if (r.task.done()) retire(rank);
}

// Starts a rank that receives first after its turn, as it would have started at time 0: it only
// posts receives and waits (start() refuses anything else), which nothing else can see, so the
// run is the one in which it started on time.
void ModelEngine::start_late(std::size_t rank) {
  // Not restored on an exception: it ends the run.
  const double now = now_;
  now_ = 0;
  starting_late_ = true;
  start_rank(rank);
  starting_late_ = false;
  now_ = now;
}

// The rank's task has completed: its frame is reused by the ranks still to start, and so is its
// record if the table recycles them and it holds no message it never received (else it is kept,
// as finished).
void ModelEngine::retire(std::size_t rank) {
  Rank& r = ranks_[rank];
  finish_[rank] = now_;
  r.comm.finished = true;
  rethrow_if_failed(r.task);
  r.task = {};
  r.comm.check_returned();  // so no completion is still to come for it
  if (ranks_.recycled() && r.unexpected.head == kNone) ranks_.release(rank);
}

void ModelEngine::resume(int rank) {
  Rank& r = ranks_[static_cast<std::size_t>(rank)];
  std::coroutine_handle<> h = r.waiting()->waiter;
  r.comm.suspended = false;
  h.resume();
  if (r.task.done()) retire(static_cast<std::size_t>(rank));
}

std::string ModelEngine::describe_wait(int rank) const {
  const Rank& r = ranks_[static_cast<std::size_t>(rank)];
  if (!r.waiting()) return "running";
  switch (r.waiting()->kind) {
    case OpKind::barrier: return "in barrier";
    case OpKind::win_allocate: return "in win_allocate";
    case OpKind::win_free: return "in win_free";
    default: break;
  }
  std::string s = r.waiting()->kind == OpKind::wait_any ? "wait_any on" : "wait_all on";
  for (const Request& q : r.waiting()->requests) {
    if (q.is_null() || is_done(rank, q.id)) continue;
    s += ' ';
    s += r.comm.requests().describe(q.id);
  }
  return s;
}

void ModelEngine::deadlock() {
  std::string msg = "deadlock in " + describe(spec_) + ":";
  int listed = 0, stuck = 0;
  for (int i = 0; i < size(); ++i) {
    if (is_finished(static_cast<std::size_t>(i))) continue;
    if (++stuck <= 8) msg += (listed++ ? "; rank " : " rank ") + std::to_string(i) + " " + describe_wait(i);
  }
  if (stuck > 8) msg += "; and " + std::to_string(stuck - 8) + " more ranks";
  throw EngineError(msg);
}

RunResult ModelEngine::run() {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point setup_start = Clock::now();
  Clock::time_point loop_start, loop_end;
  std::int64_t events = 0;
  const auto P = static_cast<std::size_t>(size());
  const bool keep_work = RankWork::holds_state(spec_);
  // Traced runs start every rank at time 0, so that the trace is written in time order. Under OSU
  // timing a rank's first receive is only the first of many calls: it starts on time.
  // A receive overhead is paid at an event of its own, which a held message (hold) does not have.
  late_starts_ = !spec_.program && spec_.algorithm && spec_.algorithm->receives_first && !trace_ &&
                 spec_.timing.kind == Timing::Kind::collective && config_.recv_overhead.empty();
  ranks_.allocate(P, late_starts_);
  if (keep_work) work_.reserve(P);
  huge_pages::advise(work_.data(), work_.capacity() * sizeof(RankWork));
  finish_.reserve(P);  // handed on in the result, so from the standard allocator
  huge_pages::advise(finish_.data(), P * sizeof(double));
  finish_.assign(P, 0);
  if (config_.kind == ModelConfig::Kind::loggp) {
    clocks_.resize(P);
    waiting_.resize(P);
  } else {
    if (config_.uses_ports()) ports_.resize(P);
    if (config_.has_overheads()) cpu_free_.resize(P);
  }
  try {
    // When every rank starts at time 0, a large run spends much of its setup in first touches of
    // fresh memory (page faults and zeroing, slow in a VM) for the ranks and their coroutine
    // frames. Building a rank touches only its own state (the frame pool is per thread), so a
    // second thread builds the upper half. Starting the ranks posts their first operations into
    // the engine's shared state: that stays on this thread, in rank order, so results do not
    // depend on the split. Ranks that start late are built when they start.
    if (keep_work)
      for (int i = 0; i < size(); ++i) work_.emplace_back(spec_, i);
    constexpr std::size_t kParallelFrom = std::size_t{1} << 15;  // below, a thread costs more than it saves
    const std::size_t built = late_starts_ ? 0 : P;
    std::size_t half = built >= kParallelFrom ? built / 2 : built;
    std::exception_ptr upper_failed;
    std::thread upper;
    if (half < built) {
      try {
        upper = std::thread([&] {
          try {
            build_ranks(half, built);
          } catch (...) {
            upper_failed = std::current_exception();
          }
        });
      } catch (const std::system_error&) {
        half = built;  // no thread to be had: build them all here
      }
    }
    std::exception_ptr lower_failed;
    try {
      build_ranks(0, half);
    } catch (...) {
      lower_failed = std::current_exception();
    }
    if (upper.joinable()) upper.join();
    ranks_.built(built);
    if (lower_failed) std::rethrow_exception(lower_failed);
    if (upper_failed) std::rethrow_exception(upper_failed);
    // Every rank's turn to start at time 0, in rank order. A rank that receives first starts
    // at its turn only if a message is already waiting for it (its receive takes it now, as it
    // would have); otherwise when its first message comes (match).
    for (start_turn_ = 0; start_turn_ < P; ++start_turn_)
      if (!late_starts_ || static_cast<int>(start_turn_) == spec_.params.root || ranks_.find(start_turn_))
        start_rank(start_turn_);
    loop_start = Clock::now();
    Event e;
    while (queue_.pop(e)) {
      // What the estimate before the run cannot bound (P^2 messages posted at once) is watched.
      if ((++events & kMemoryCheckEvents) == 0) check_memory_held();
      now_ = e.time;
      prefetch_ahead();
      switch (e.kind) {
        case Event::Kind::resume: {
          const Rank* r = ranks_.find(static_cast<std::size_t>(e.rank));
          if (r && r->waiting()) resume(e.rank);
          break;
        }
        case Event::Kind::complete: complete(e.rank, e.id); break;
        case Event::Kind::retry: {
          Op& op = *ranks_[static_cast<std::size_t>(e.rank)].waiting();
          bool done = false;
          if (op.kind == OpKind::isend)
            done = loggp_send(e.rank, op);
          else if (op.kind == OpKind::put)
            done = start_put(e.rank, op);
          else
            done = loggp_local_work(e.rank, local_duration(op));
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
        case Event::Kind::received: receive_overhead(e.rank, e.id); break;
        case Event::Kind::held:
          // Counted only as the completion it stands for, so that the count is the run's
          // whichever way its ranks start.
          if (!arrive_held(static_cast<std::size_t>(e.rank), static_cast<std::int32_t>(e.id))) --events;
          break;
      }
    }
    // Those no message reached start now, as at time 0, and may be found deadlocked.
    for (std::size_t i = 0; i < P; ++i)
      if (!is_started(i)) start_late(i);
    loop_end = Clock::now();
  } catch (const CommError& e) {
    throw EngineError(describe(spec_) + ": " + e.what());
  }
  for (std::size_t i = 0; i < P; ++i)
    if (!is_finished(i)) deadlock();

  RunResult result;
  result.finish_s = std::move(finish_);
  for (std::size_t i = 0; i < work_.size(); ++i) {
    const RankWork& w = work_[i];
    if (w.timed_s()) result.finish_s[i] = *w.timed_s();
    if (w.osu_s()) result.osu_s.push_back(*w.osu_s());
    if (result.data_error.empty()) result.data_error = w.check();
  }
  result.time_s = call_time(spec_, result.finish_s);
  result.setup_wall_s = std::chrono::duration<double>(loop_start - setup_start).count();
  result.loop_wall_s = std::chrono::duration<double>(loop_end - loop_start).count();
  result.events = events;
  return result;
}

}  // namespace

RunResult run_model(const ModelConfig& config, const RunSpec& spec) {
  ModelEngine engine(config, spec);
  return engine.run();
}

}  // namespace collsim
