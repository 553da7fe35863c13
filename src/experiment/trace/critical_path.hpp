// The critical path of one traced run (comm/trace.hpp): the chain of events that decided its
// finish time, found by walking back from the last operation to complete through what each step
// waited for, and the finish time split into what the chain spent it on.
//
// The walk, from an effect to its cause:
//  - a wait that completed later than its post: the last of its requests to be done (the
//    latest request_done of that rank in the wait, of a request posted before it; a request's
//    post is the latest post of its id recorded before its request_done); an operation that
//    completed at its post, or is no wait: its post;
//  - a post: the previous operation's complete on that rank (the first post: the start);
//  - a receive's request_done: its message's arrive, unless the receive was posted after the
//    arrival (then that post);
//  - a send's request_done: the arrive when the send completed on its data's arrival (ideal, shm
//    above its inline limit, Hockney); else the send completed locally, its data handed over
//    before it arrived (tcp: the socket buffer took it; shm: copied into the receiver's fast box;
//    LogGP: after the sender's overhead), and the step says what it waited for: nothing but its
//    post; room in the socket buffer (or its connection) after its post; the rendezvous
//    handshake (from the receiver's post when that came after the send's, else from the send's:
//    the request to send and its answer); or its data's start, the send done while its first
//    bytes were leaving (tcp: once the rest fitted in the socket buffer);
//  - an arrive: its send_start (the transfer, latency then bandwidth);
//  - a send_start later than its post: its send's request_done when the send was done before
//    (the data handed over, then a busy port or link); else under the rendezvous protocol the
//    handshake as above; else a busy port or link: waiting in every case;
//  - engines without send_start and arrive (mpi): a receive's request_done is caused by the later
//    of the send's and the receive's posts, and the time between is transfer.
// Shares: latency (the send_start's latency, clipped to the transfer), transfer (the rest of
// send_start..arrive, and a send's data leaving until it was done), waiting (time a step was held
// by something not on the chain: rendezvous handshakes, busy ports, a full socket buffer,
// barriers, flushes), copying (copy operations) and other (local work, hand-overs, the time
// before the chain's first post). They add up to the finish time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "comm/trace.hpp"

namespace collsim {

struct PathShares {
  double latency = 0, transfer = 0, waiting = 0, copying = 0, other = 0;
  double total() const { return latency + transfer + waiting + copying + other; }
};

// One link of the chain: from its cause's time to its effect's time.
struct PathStep {
  enum class Kind : std::uint8_t {
    start,        // the common start until the chain's first post
    local,        // between two operations of one rank, or an operation that is no wait
    copy,         // a local copy
    held,         // a barrier, flush or other operation held by others (waiting)
    wait,         // a wait released by one of its requests (zero length in the simulated engines)
    queued,       // a send waiting for a free port or link after its post
    handshake,    // a rendezvous send waiting for the handshake (and the receiver's post)
    transfer,     // send_start .. arrive, or (mpi) post .. request_done
    delivered,    // arrive (or a late receive's post) .. the request's completion
    handed_over,  // a send done before its data arrived (local completion): see `handover`
  };
  // handed_over: what the send waited for before it was done.
  enum class Handover : std::uint8_t {
    none,       // not a handed_over step
    at_post,    // nothing: done in its post (other)
    room,       // room in the socket buffer, or its connection, after its post (waiting)
    handshake,  // the rendezvous handshake: the receiver's post and its answer (waiting)
    leaving,    // its first bytes leaving, from its send_start (transfer; LogGP's overhead: other)
  };
  Kind kind = Kind::local;
  Handover handover = Handover::none;
  double from = 0, to = 0;
  int rank = -1;  // where the effect happens; transfer: the sender
  int peer = -1;  // transfer, handshake, handed_over: the receiver; wait, delivered: the other end; else -1
  OpKind op{};    // the operation concerned (for a message: isend, irecv, put or get)
  std::int64_t message = -1;
  std::uint64_t bytes = 0;
  TraceProtocol protocol = TraceProtocol::none;
  PathShares shares;  // this step's time by share
};

struct CriticalPath {
  double finish = 0;            // the latest complete of the run
  int last_rank = -1;           // the rank it happened on
  std::vector<PathStep> steps;  // in time order, from the start to the finish
  PathShares shares;            // sums of the steps' shares; they add up to `finish`
};

// The events break the trace contract in a way the walk cannot pass; `event` is the index of the
// event where it found the breach (for a file's reader to name its line).
class TraceContractError : public std::invalid_argument {
 public:
  TraceContractError(const std::string& what, std::size_t event)
      : std::invalid_argument("the trace breaks its contract: " + what), event_(event) {}
  std::size_t event() const { return event_; }

 private:
  std::size_t event_;
};

// The critical path of one run's events (empty steps when there are none). Throws
// TraceContractError when the events break the trace contract in a way the walk cannot pass.
CriticalPath critical_path(const std::vector<TraceEvent>& events);

// For each event, when it is a wait's complete later than its post: the index of the
// request_done that released it (the latest of that rank's in the wait, preferring one at the
// wait's end); else -1.
std::vector<std::ptrdiff_t> wait_holders(const std::vector<TraceEvent>& events);

// What a trace says of each message beyond its own events. Its segment number is its ordinal
// among the messages from the same sender to the same receiver with the same tag, in the order
// the sender posted them (0, 1, 2, ...).
struct MessageFacts {
  int sender = -1, receiver = -1, tag = 0;
  int segment = 0;
  double posted = -1;  // when the sender posted it (a get: when the origin asked); -1 unknown
};
std::unordered_map<std::int64_t, MessageFacts> message_facts(const std::vector<TraceEvent>& events);

// "transfer", "waiting (rendezvous)", ... for tables.
const char* to_string(PathStep::Kind kind);

}  // namespace collsim
