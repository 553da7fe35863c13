// SimComm: the messaging layer of one rank inside a SimGrid simulation (internal to the sim engine).
//
// Each rank is a SimGrid actor that runs its algorithm's coroutine on its own context, so every
// operation completes synchronously inside start(): the actor blocks in SimGrid until the
// operation is done and the coroutine never suspends. The protocol model (eager / rendezvous,
// copies, barrier) is described in sim_engine.hpp and protocol.hpp.
//
// MPI matching is kept by a ledger per channel (source, destination, tag) that pairs the k-th
// send with the k-th receive. It checks sizes when a pair forms, before anything reaches
// SimGrid, and tells a deadlock report which waits have no partner.
//
// Under the ideal profile each message is one SimGrid mailbox transfer: because paired
// operations have equal sizes, they choose the same protocol, so one mailbox per (channel,
// protocol) keeps MPI's order (SimGrid matches FIFO within a mailbox). Under tcp and shm the
// Transport moves the message and completes the rank's requests (complete()), waking the rank
// from its wait.
//
// One-sided operations are RDMA under every profile: host-to-host flows that need no actor at the
// target (SimGrid's Comm::sendto), bypassing the Transport (sim_engine.hpp has the cost model).
// Window memory lives in the Measurement, so a put can reach its target's bytes.
//
// A request completes one of two ways: through its own SimGrid comm (ideal-profile messages,
// puts), which the rank waits on, or through a flag that another actor sets with complete()
// (Transport messages, gets), which the rank waits for on its condition variable. SimGrid 3.32's
// Comm::wait_any returns at once on host-to-host comms, so a wait_any over anything but mailbox
// comms waits on the condition variable, and a comm-based request in it gets a watcher actor
// that raises the flag when its comm ends.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <simgrid/s4u.hpp>

#include "comm/buffer.hpp"
#include "comm/comm.hpp"
#include "engines/run.hpp"
#include "engines/sim/copy_cache.hpp"
#include "engines/sim/sim_trace.hpp"
#include "engines/sim/transport.hpp"
#include "models/registration.hpp"

namespace collsim::sim {

struct ChannelKey {
  int src = 0;
  int dst = 0;
  int tag = 0;
  bool operator==(const ChannelKey&) const = default;
};

struct ChannelKeyHash {
  std::size_t operator()(const ChannelKey& k) const noexcept {
    std::uint64_t h = static_cast<std::uint32_t>(k.src);
    h = h * 0x9E3779B97F4A7C15ull ^ static_cast<std::uint32_t>(k.dst);
    h = h * 0x9E3779B97F4A7C15ull ^ static_cast<std::uint32_t>(k.tag);
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};

// A FIFO of sizes that allocates nothing while empty (a std::deque allocates on construction,
// about 600 bytes, and a run has a channel or more per rank). It empties itself once everything
// pushed has been popped, so a channel's messages that pair as they go use one slot.
class SizeQueue {
 public:
  bool empty() const { return head_ == items_.size(); }
  std::size_t front() const { return items_[head_]; }
  void push_back(std::size_t v) { items_.push_back(v); }
  void pop_front() {
    if (++head_ == items_.size()) {
      items_.clear();
      head_ = 0;
    }
  }

 private:
  std::vector<std::size_t> items_;
  std::size_t head_ = 0;
};

// The ledger of one channel within one measurement.
struct Channel {
  std::uint64_t sends = 0;    // sends posted so far: the next send's sequence number
  std::uint64_t recvs = 0;    // receives posted so far
  SizeQueue unmatched_sends;  // sizes of posted sends no receive paired with yet
  SizeQueue unmatched_recvs;  // sizes of posted receives no send paired with yet
};

class SimComm;

// One window: its memory on every rank, allocated collectively with one size.
struct SimWindow {
  std::size_t bytes = 0;
  int first = 0;                // the rank that allocated it first (named by a size mismatch)
  std::vector<Storage> memory;  // by rank; empty once the rank has freed it
};

// The ranks' collective calls (barrier, win_allocate, win_free): every rank makes the same ones in
// the same order, so the ranks inside one must be in the same call.
struct CollectiveCall {
  OpKind kind = OpKind::barrier;
  int entered = 0;  // ranks inside the current call
};

// Everything the ranks of one measurement share.
struct Measurement {
  const RunSpec* spec = nullptr;
  int procs = 0;
  double start = 0;              // the common start date
  std::uint64_t generation = 0;  // distinguishes measurements for the mailbox receivers
  std::vector<simgrid::s4u::ActorPtr> actors;
  simgrid::s4u::BarrierPtr barrier;
  std::vector<std::unique_ptr<SimComm>> ranks;
  std::unordered_map<ChannelKey, Channel, ChannelKeyHash> channels;
  // The one mutex that SimGrid's condition variables need, shared by the ranks and connections:
  // it is only held between checking a condition and waiting, never across a blocking call, so
  // sharing it makes no actor wait, and it saves a SimGrid mutex (~500 bytes) per rank.
  simgrid::s4u::MutexPtr mutex = simgrid::s4u::Mutex::create();
  Transport* transport = nullptr;          // tcp / shm profiles; null under ideal (mailboxes)
  std::vector<simgrid::s4u::Host*> hosts;  // by rank
  std::deque<SimWindow> windows;           // by window id (allocation order)
  CollectiveCall collective;
  SimTrace* trace = nullptr;  // when the run is traced
};

// SimGrid mailboxes, one per (channel, protocol). They outlive measurements (SimGrid never frees
// a mailbox), so they are looked up once and reused; an eager mailbox's permanent receiver is
// re-pointed at the current measurement's destination actor the first time it is used in it.
class Mailboxes {
 public:
  simgrid::s4u::Mailbox* get(const ChannelKey& key, bool eager, const Measurement& m);
  // Drops the references to the finished measurement's actors.
  void release_receivers();

 private:
  struct Entry {
    simgrid::s4u::Mailbox* mailbox = nullptr;
    std::uint64_t generation = 0;
  };
  std::unordered_map<ChannelKey, Entry, ChannelKeyHash> eager_;
  std::unordered_map<ChannelKey, Entry, ChannelKeyHash> rendezvous_;
  std::vector<simgrid::s4u::Mailbox*> with_receiver_;
};

class SimComm final : public Comm {
 public:
  // memcpy_rate: bytes/s of comm.copy on this rank's host; 0 = free.
  SimComm(Measurement& m, Mailboxes& mailboxes, int rank, const ProtocolProfile& ideal, double memcpy_rate);
  double memcpy_rate() const { return memcpy_rate_; }
  // What comm.copy costs per call on this rank's host besides its bytes (collsim/copy_overhead).
  void set_copy_overhead(double seconds) { copy_overhead_ = seconds; }
  // What comm.register_memory costs on this rank's host (the platform's; the defaults otherwise).
  void set_registration(const models::RegistrationCost& cost) { registration_ = cost; }
  // The node's cache (copy_cache.hpp), shared by its ranks, and the rate of a copy of lines not in
  // it (collsim/shared_cache, collsim/uncached_copy_bandwidth); none: every copy at its rate.
  void set_cache(CopyCache* cache, double uncached_rate) {
    cache_ = cache;
    uncached_rate_ = uncached_rate;
  }
  // Whether this rank's node holds more ranks than it has cores: its flushes then yield
  // (protocol.hpp, yield_overhead).
  void set_oversubscribed(bool oversubscribed) { oversubscribed_ = oversubscribed; }
  // A run's copies cost what the cache holds, which the run before left: a program runs once
  // untimed first (RankWork::run_program), as the measured engines' fastest run follows others.
  bool warms_up() const override { return cache_ != nullptr; }

  int rank() const override { return rank_; }
  int size() const override { return m_.procs; }
  double now() const override;

  // For deadlock reports.
  std::string waiting_on() const;  // "recv from 1 tag 1001", "barrier", "flush of 1", ...
  bool finished = false;

  // For the Transport and the actors of gets: complete request `id` (waking the rank if it waits
  // for it); the receive buffer of a request; whether the rank is inside MPI (not in a local
  // copy, during which it makes no progress), and an action to run when its copy ends.
  void complete(std::int64_t id);
  Buffer receive_buffer(std::int64_t id) const { return requests_[static_cast<std::size_t>(id)]->dest; }
  bool in_mpi() const { return !in_copy_; }
  void defer(std::function<void()> action) { deferred_.push_back(std::move(action)); }

 protected:
  bool start(Op& op) override;

 private:
  // What wakes the rank: the condition variable it waits on, and the count of completions that
  // orders them. Shared with watcher and flush actors, which may outlive the measurement's ranks
  // by a scheduling round.
  struct Waker {
    simgrid::s4u::ConditionVariablePtr cv = simgrid::s4u::ConditionVariable::create();
    std::uint64_t completions = 0;
  };
  // A flag an actor raises when a comm ends (see the file comment).
  struct Watch {
    bool done = false;
    std::uint64_t order = 0;
  };
  // A put in flight or not yet flushed.
  struct PutFlow {
    simgrid::s4u::CommPtr comm;  // origin -> target, the put's bytes
    int window = 0;
    int target = 0;
    std::size_t offset = 0;
    std::vector<std::byte> bytes;  // snapshot of the source at post time (empty: nothing to write)
    // A strided put: where `bytes` go, piece by piece (offset, length); empty: all at `offset`.
    std::vector<std::pair<std::size_t, std::size_t>> pieces;
    bool observed = false;  // the origin saw the flow end and wrote the bytes
  };
  enum class PendingKind : std::uint8_t { send, recv, put, get };
  struct Pending {
    simgrid::s4u::CommPtr comm;  // what the request completes with, unless `flagged`
    ChannelKey channel;          // one-sided: {origin, target, 0}
    std::uint64_t seq = 0;       // position in its channel's sends or receives
    PendingKind kind = PendingKind::send;
    std::size_t size = 0;
    Buffer dest;                   // receive buffer
    std::byte* payload = nullptr;  // receive: the sender's copy of the bytes (or a marker: none)
    bool live = false;
    bool flagged = false;          // completed by another actor's complete() (Transport, get)
    bool done = false;             // ... and it has been
    std::uint64_t done_order = 0;  // ... as the how-manieth of this rank's completions
    std::shared_ptr<Watch> watch;  // comm-based, in a wait_any: raised when the comm ends
    std::shared_ptr<PutFlow> put;
  };
  enum class Blocked : std::uint8_t { no, requests, collective, flush };

  void post_send(const Op& op);
  void post_recv(const Op& op);
  void wait_all(std::span<Request> requests);
  std::size_t wait_any(std::span<Request> requests);
  void copy(Buffer dst, Buffer src);
  void register_memory(std::size_t bytes);
  void reduce_local(const Op& op);
  template <class F>
  void local_work(F&& work);
  void collective(OpKind kind);
  void win_allocate(Op& op);
  void win_free(int window);
  void post_put(const Op& op);
  void flush_overhead(int peer);
  void win_sync();
  // The origin's overhead for a put or get: of its bytes, or of each piece of a strided one,
  // slept at once.
  void rma_overhead(const Op& op);
  void post_get(const Op& op);
  void flush(int window, int target);
  void land(PutFlow& flow);
  void watch(Pending& p);
  void wait_flag(const Pending& p);
  Pending& slot(std::int64_t id);  // a fresh state for request id
  Pending& pending(const Request& r);
  void finish(const Request& r);                            // after its SimGrid comm completed
  void trace_comm(const Pending& p, std::int64_t request);  // finish() of a traced comm-based request
  bool matched(const Pending& p) const;
  std::string describe(const Pending& p) const;

  Measurement& m_;
  Mailboxes& mailboxes_;
  int rank_;
  ProtocolProfile ideal_;  // the ideal profile, for messages the Transport does not carry
  double memcpy_rate_;
  double copy_overhead_ = 0;
  models::RegistrationCost registration_;
  bool oversubscribed_ = false;
  double yield_overhead() const;
  CopyCache* cache_ = nullptr;
  double uncached_rate_ = 0;
  // How many times longer than at the copy rate a copy of `pieces` takes through the node's cache
  // (1 without one); touches their lines.
  double cache_factor(std::span<const CopyPiece> pieces);
  std::vector<CopyPiece> one_sided_pieces(const Op& op, const Storage& window) const;
  // The bytes the flow of a put or get of `size` bytes to or from `window` carries: its own, those
  // of the lines the node's cache misses rate / uncached rate times over.
  std::size_t flow_bytes(const Op& op, const Storage& window, std::size_t size);
  // By request id (ids are reused, so this stays as long as the most requests live at once); each
  // apart, so a payload slot's address stays put while SimGrid writes to it.
  std::vector<std::unique_ptr<Pending>> requests_;
  Blocked blocked_ = Blocked::no;
  OpKind blocked_kind_ = OpKind::wait_all;  // requests: wait_all / wait_any; collective: which
  int blocked_target_ = -1;                 // flush: its target (-1: all)
  std::vector<std::int64_t> blocked_on_;
  // Flagged requests. Made on first use: ranks whose requests all complete through their own
  // SimGrid comm (ideal-profile messages) never need one.
  const std::shared_ptr<Waker>& shared_waker();
  Waker& waker() { return *shared_waker(); }
  std::shared_ptr<Waker> waker_;
  bool in_copy_ = false;
  // One-sided.
  std::size_t windows_allocated_ = 0;                // this rank's k-th allocation is window k
  std::vector<std::shared_ptr<PutFlow>> unflushed_;  // puts not yet flushed, in post order
  std::vector<std::function<void()>> deferred_;
};

}  // namespace collsim::sim
