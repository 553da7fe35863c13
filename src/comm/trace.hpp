// The trace seam: what a run did, event by event, reported by every engine through one sink.
//
// Two kinds of events reach a sink:
//  - operation events, recorded by the Comm front for every engine alike: `post` when a rank
//    submits an operation (isend, irecv, put, get, copy, a wait, a barrier, ...; for a wait this
//    is when the rank starts waiting) and `complete` when that operation's co_await returns (for
//    a wait: when the rank stops waiting; for isend/irecv: at once, as they only post).
//  - message events, recorded by the engine, which alone knows them: `send_start` when the bytes
//    of message `message` begin to move from `rank` to `peer` (after a rendezvous handshake or a
//    busy port, so later than the post if something held it), `arrive` when they are all at
//    `rank` (from `peer`), and `request_done` when request `request` of `rank` completes (the
//    send buffer may be reused, the receive buffer holds the data). The mpi engines cannot see
//    inside MPI: they record `request_done` at the wait that completed the request, and no
//    send_start or arrive.
// Times are seconds on the engine's clock, from the call's common start. Message ids are unique
// within a run and the same in a message's send_start, arrive and the request_done of both ends.
//
// Recording is off unless an engine was given a sink; then a Comm holds a null pointer and each
// operation costs one predictable branch (tools/bench/model_scale shows it does not show).
// Writers (Chrome trace, Paje, timelines, critical paths) live in experiment/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace collsim {

enum class OpKind : std::uint8_t;

enum class TraceKind : std::uint8_t { post, complete, send_start, arrive, request_done };

// How a message travelled, as far as the engine models it: `none` when it does not say (the
// Hockney and LogGP models, real MPI), eager (sent without waiting for the receiver), rendezvous
// (the data waited for the receive to be posted), one_sided (put, get).
enum class TraceProtocol : std::uint8_t { none, eager, rendezvous, one_sided };

struct TraceEvent {
  double time = 0;
  // send_start: the part of the transfer time that is latency (alpha, L, the route's latency),
  // so that the rest is bandwidth; negative when the engine does not know it.
  double latency = -1;
  std::uint64_t bytes = 0;
  std::int64_t message = -1;  // send_start, arrive, request_done of a message's requests
  std::int64_t request = -1;  // post of isend/irecv/put/get, request_done: the rank's request id
  int rank = -1;              // where it happens
  int peer = -1;              // the other rank: destination, source, target; -1 for none
  int tag = 0;
  TraceKind kind = TraceKind::post;
  OpKind op{};  // post, complete: the operation; message events: isend, irecv, put or get
  TraceProtocol protocol = TraceProtocol::none;
};

class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual void record(const TraceEvent& event) = 0;
  // The events past which the sink keeps none: an engine that records elsewhere first (the sim
  // engine's simulation process) stops there too, and then tells the sink with lost().
  virtual std::size_t max_events() const { return SIZE_MAX; }
  virtual void lost() {}
};

// A sink that keeps the events in memory, in the order recorded, up to `max_events`: one more
// and it drops them all and says it overflowed, so that a run of millions of ranks or segments
// cannot fill memory with events (56 bytes each) before its trace is refused.
class TraceBuffer final : public TraceSink {
 public:
  explicit TraceBuffer(std::size_t max_events = SIZE_MAX) : max_(max_events) {}
  void record(const TraceEvent& event) override {
    if (overflowed_) return;
    if (events_.size() == max_) return lost();
    events_.push_back(event);
  }
  std::size_t max_events() const override { return max_; }
  void lost() override {
    overflowed_ = true;
    events_ = {};
  }
  bool overflowed() const { return overflowed_; }
  const std::vector<TraceEvent>& events() const { return events_; }
  std::vector<TraceEvent> take() { return std::move(events_); }

 private:
  std::vector<TraceEvent> events_;
  std::size_t max_;
  bool overflowed_ = false;
};

const char* to_string(TraceKind kind);
const char* to_string(TraceProtocol protocol);

}  // namespace collsim
