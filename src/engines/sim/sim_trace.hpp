// The sim engine's half of the trace seam (comm/trace.hpp; internal): what the engine alone knows
// about a traced measurement's messages (send_start, arrive, request_done), recorded by SimComm
// and the Transport into the measurement's sink, inside the simulation's child process.
//
// What the message events mark, per profile (protocol.hpp; a message's data is one flow here: the
// tcp RNDV, the PUT control and the FIN carry none, so a message's first and last fragments with
// data are that one):
//  - ideal: send_start when the flow starts (eager: the post; rendezvous: both sides posted),
//    arrive when it ends; the send and the receive are done then too.
//  - tcp: send_start when the data fragment (eager, or rendezvous data behind the receiver's PUT
//    control) starts leaving the sending host's interface, after the fragments handed to it
//    before; arrive when its last byte has reached the receiving host. Eager: the send is done
//    once the kernel holds the data (usually before send_start), the receive at arrive, or at its
//    post if that is later. Rendezvous: the send is done once the kernel holds the data, the
//    receive when the FIN that follows the data arrives: arrive plus at most the FIN's own 32
//    bytes at the route's bandwidth (less when sharing slowed the data and the FIN, already
//    behind it in the stream, caught up). Not transfer, and shown as such by the post events: an
//    RNDV waits for its receive to be posted, and a rank answers a RNDV or a PUT control only
//    while it is inside MPI (not during a local copy), so send_start follows those moments.
//  - shm: eager: send_start at the post, arrive when the fragment is in the peer's memory, the
//    receive done then (or at its post). Rendezvous: the data is the receiver's single copy,
//    started once it has matched the RGET and is inside MPI: send_start and arrive are that
//    copy's start and end, and the receive is done at arrive; the send when the FIN is back.
//  - one-sided (every profile): the RDMA flow's start and end.
//
// Message ids: a two-sided message's id is that of its (channel, position in the channel) pair,
// handed out on first use, so its sender and its receiver name it alike without talking to each
// other (MPI matching pairs the k-th send of a channel with its k-th receive); one-sided
// operations take fresh ids from the same count. Only a traced measurement has a SimTrace: an
// untraced one pays one null test per message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>

#include <simgrid/s4u.hpp>

#include "comm/comm.hpp"
#include "comm/trace.hpp"

namespace collsim::sim {

class SimTrace {
 public:
  // start: the measurement's common start date (event times are relative to it).
  SimTrace(TraceSink& sink, double start) : sink_(sink), start_(start) {}

  TraceSink& sink() { return sink_; }
  // The id of the seq-th message from src to dst with tag.
  std::int64_t message(int src, int dst, int tag, std::uint64_t seq);
  std::int64_t fresh() { return next_++; }
  // The route's latency from one host to another (route.hpp: its links' sum, with the network
  // model's factor), as send_start's latency.
  double latency(simgrid::s4u::Host* from, simgrid::s4u::Host* to);

  // A message event at simulated date `date` (absolute: converted here).
  struct Event {
    TraceKind kind;
    int rank, peer, tag;
    OpKind op;
    std::size_t bytes;
    std::int64_t message;
    std::int64_t request = -1;
    TraceProtocol protocol = TraceProtocol::none;
    double latency = -1;
  };
  void record(double date, const Event& e);

  // A comm-based request's message and post date, kept here from its post to its end, so that
  // SimComm's state per request is no larger than untraced runs need.
  struct Posted {
    std::int64_t message = -1;
    double date = 0;
  };
  void posted(int rank, std::int64_t request, Posted p) { posted_[key(rank, request)] = p; }
  Posted take(int rank, std::int64_t request);

 private:
  static std::uint64_t key(int rank, std::int64_t request) {
    return static_cast<std::uint64_t>(rank) << 32 | static_cast<std::uint32_t>(request);
  }
  struct Key {
    int src, dst, tag;
    std::uint64_t seq;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const noexcept;
  };
  TraceSink& sink_;
  double start_;
  std::int64_t next_ = 0;
  std::unordered_map<Key, std::int64_t, KeyHash> ids_;
  std::unordered_map<const void*, std::unordered_map<const void*, double>> latency_;
  std::unordered_map<std::uint64_t, Posted> posted_;  // by key(rank, request)
};

}  // namespace collsim::sim
