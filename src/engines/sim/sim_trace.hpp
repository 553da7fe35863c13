// The sim engine's half of the trace seam (comm/trace.hpp; internal): what the engine alone knows
// about a traced measurement's messages (send_start, arrive, request_done), recorded by SimComm
// and the Transport into the measurement's sink, inside the simulation's child process.
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
