// Point-to-point cost models as values: what one message costs under each model, and the small
// per-rank state (ports, clocks) a model needs when messages share resources. The model engine
// takes every cost from here and only orders events and matches messages
// (engines/model/model_engine.hpp says when each cost is paid), so that a formula written from
// the same values cannot drift from the engine.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "models/placement.hpp"

namespace collsim::models {

// Hockney: a message of m bytes takes alpha + beta * m from its send to its arrival.
struct Hockney {
  double alpha = 10e-6;  // s per message
  double beta = 0.8e-9;  // s per byte (1 / 1.25 GB/s)

  double transfer(double bytes) const { return alpha + beta * bytes; }
  bool operator==(const Hockney&) const = default;

  // One port per rank (the model engine's one_port): a transfer holds the sender's send port and
  // the receiver's receive port for its whole duration.
  struct Ports {
    double send_free = 0, recv_free = 0;
  };
  // Reserves both ports for a transfer of `bytes` posted at `ready`, first come first served in
  // the order of the calls; returns when it ends (the send completes and the data arrives).
  double transfer_one_port(Ports& from, Ports& to, double ready, double bytes) const {
    const double end = std::max({ready, from.send_free, to.recv_free}) + transfer(bytes);
    from.send_free = to.recv_free = end;
    return end;
  }
  // A one-sided put (RMA) of `bytes` ready at `ready`: the origin's port (its NIC) injects one
  // transfer at a time and is busy while the bytes leave (beta * bytes), so consecutive puts
  // start at least their wire time apart while their latencies overlap. Returns the arrival.
  double inject(Ports& from, double ready, double bytes) const {
    const double start = std::max(ready, from.send_free);
    from.send_free = start + beta * bytes;
    return start + transfer(bytes);
  }
  // The same put when it also takes the target's port, which takes in one transfer at a time:
  // puts from several origins into one image then serialise there (a many-to-one pattern), each
  // starting once both ports are free. One origin's puts to one target never wait for it (its
  // own port spaced them already).
  double inject(Ports& from, Ports& to, double ready, double bytes) const {
    const double start = std::max({ready, from.send_free, to.recv_free});
    from.send_free = to.recv_free = start + beta * bytes;
    return start + transfer(bytes);
  }
  // Reserves the sender's send port only (a rank's sends inside its node, one at a time).
  double transfer_send_port(Ports& from, double ready, double bytes) const {
    const double end = std::max(ready, from.send_free) + transfer(bytes);
    from.send_free = end;
    return end;
  }
};

// Where a point-to-point protocol switches from eager to rendezvous, as plain facts that the sim
// engine's protocol profiles state (engines/sim/protocol.hpp, ProtocolProfile::protocol_switch)
// and the closed-form formulas read: payloads up to eager_max bytes go eager; a larger one first
// exchanges handshake_messages control messages of handshake_bytes in all (tcp: RNDV and the
// receiver's PUT control), each an eager message, before its data moves.
// With eager_handover an eager send completes once the transport has taken its data, before the
// data has crossed (tcp: once the socket buffer holds it), so the sender's next messages leave
// while this one's latency runs.
struct ProtocolSwitch {
  std::size_t eager_max = 0;
  int handshake_messages = 0;
  std::size_t handshake_bytes = 0;
  bool eager_handover = false;
};

// A regime of larger messages for the formulas: payloads of `from` bytes and more (up to the next
// regime's `from`) cost hockney's alpha + beta*m plus, for a rendezvous, its handshake: the
// control messages priced as messages of the smallest regime (PiecewiseHockney).
struct Regime {
  std::size_t from = 0;
  Hockney hockney;
  int handshake_messages = 0;
  std::size_t handshake_bytes = 0;
  bool operator==(const Regime&) const = default;
};

// A point-to-point cost piecewise in the message size: `base` for payloads below the first
// regime's `from` (for every payload when there is no regime: plain Hockney), each regime above
// (ascending `from`) with its own (alpha, beta) and handshake. The handshake of a regime is
// handshake_messages * base.alpha + handshake_bytes * base.beta: its control messages are small
// eager ones.
inline double piecewise_transfer(const Hockney& base, const std::vector<Regime>& regimes, double bytes) {
  for (auto r = regimes.rbegin(); r != regimes.rend(); ++r)
    if (bytes >= static_cast<double>(r->from))
      return r->hockney.transfer(bytes) + r->handshake_messages * base.alpha +
             static_cast<double>(r->handshake_bytes) * base.beta;
  return base.transfer(bytes);
}
// The regimes of `sw`: one above the eager one, from eager_max + 1, with `rendezvous` as its
// (alpha, beta); none when nothing is ever rendezvous.
inline std::vector<Regime> regimes_of(const ProtocolSwitch& sw, const Hockney& rendezvous) {
  if (sw.eager_max == SIZE_MAX) return {};
  return {Regime{sw.eager_max + 1, rendezvous, sw.handshake_messages, sw.handshake_bytes}};
}

// Hockney models by level: one between ranks of one node, one between nodes, and optionally one
// between ranks on two sockets of one node (then `intra` is between ranks of one socket). The
// placement says which ranks share a node and a socket (placement.hpp, as the sim engine places
// them); with one socket per node, or a placement that does not know the sockets, there are two
// levels whatever cross_socket says.
struct TwoLevelHockney {
  Hockney intra;  // ranks of one node (of one socket, with cross_socket)
  Hockney inter;  // ranks of two nodes
  Placement placement;
  std::optional<Hockney> cross_socket;  // ranks on two sockets of one node
  // Levels inside a socket (placement.hpp's core groups and NUMA domains): ranks of one socket in
  // two NUMA domains, else in two core groups; `intra` is then between ranks of one core group.
  std::optional<Hockney> cross_numa;
  std::optional<Hockney> cross_group;

  bool same_node(int a, int b) const { return placement.same_node(a, b); }
  const Hockney& between(int a, int b) const {
    if (!same_node(a, b)) return inter;
    if (cross_socket && placement.socket_of(a) != placement.socket_of(b)) return *cross_socket;
    if (cross_numa && placement.cross_numa(a, b)) return *cross_numa;
    if (cross_group && placement.cross_group(a, b)) return *cross_group;
    return intra;
  }
};

// LogGP (L, o, g, G) as LogGOPSim defines it (Hoefler, Schneider, Lumsdaine, "LogGOPSim:
// simulating large-scale applications in the LogGOPS model", HPDC 2010; the rules of the event
// loop in spcl/LogGOPSim src/LogGOPSim/LogGOPSim.cpp), with O = 0 and every message eager
// (no S), one CPU and one NIC per rank. For a message of s bytes, with (s-1)G read as 0 when
// s = 0:
//  - a send ready at t starts at t0, the first time from t on when the sender's CPU and NIC-send
//    clock are both free; the CPU is then busy to t0 + o, the NIC-send to t0 + g + (s-1)G (so
//    consecutive sends start max(o, g + (s-1)G) apart). The send is complete at t0 (eager); the
//    first byte reaches the receiver at t0 + o + L. G is charged at the receiver, not the sender.
//  - an arrival at a is handled at p, the first time from a on when the receiver's CPU and
//    NIC-receive clock are both free, whether or not a receive is posted: the CPU is busy to
//    p + o + (s-1)G (it is held while the bytes come in), the NIC-receive to p + g + (s-1)G. The
//    data is usable at h = p + o + (s-1)G. One idle pair: h = 2o + L + (s-1)G.
//  - posting a receive costs nothing; the receive completes at max(post, h).
//  - a computation (a local copy) holds the CPU, and delays handling like a send does.
// Like LogGOPSim, an operation that finds its CPU or NIC busy is retried when they free, rather
// than booking them ahead: a CPU left idle while a NIC is busy can serve something else meanwhile.
// Where ours differs, and why:
//  - a rank is a coroutine that posts one operation after another, continuing after a send when
//    its CPU frees (t0 + o), not a graph of independently ready operations; a LogGOPSim receive
//    is ready when the CPU frees too, so the times agree, except that ours may post a receive
//    while its CPU handles another arrival and then completes it at max(post, h).
//  - operations ready at the same time are served in the order the engine queued them (FIFO);
//    LogGOPSim orders ties by its own sequence numbers, so which of two equal contenders goes
//    first may differ (with equal sizes the times are the same, only the names swap).
//  - a rank finishes when its call returns, LogGOPSim's host when its CPU last frees: the same
//    when, as in a collective, every message a rank receives is waited for.
//  - no O (per-byte CPU cost), S (rendezvous above S bytes), noise or several CPUs per rank: the
//    messaging layer has no such protocols to describe.
// Against a reading that charges (s-1)G at the sender and only o at the receiver, one message
// costs the same; but receivers serialise arrivals max(o, g) + (s-1)G apart and hold their CPU
// while the bytes come in, and one rank's sends start max(o, g + (s-1)G) apart.
struct LogGP {
  double L = 10e-6;   // s, wire latency of the first byte
  double o = 1e-6;    // s, CPU overhead per message, at each end
  double g = 1e-6;    // s, gap between consecutive messages at one NIC, in each direction
  double G = 0.8e-9;  // s per byte after the first

  // The clocks of one rank: when its CPU, NIC-send and NIC-receive are next free.
  struct Rank {
    double cpu_free = 0, nic_send_free = 0, nic_recv_free = 0;
  };

  double bytes_time(double bytes) const { return std::max(0.0, bytes - 1) * G; }

  // The earliest start of a send ready at `ready`; the engine starts it when that is now.
  double send_start(const Rank& r, double ready) const { return std::max({ready, r.cpu_free, r.nic_send_free}); }
  struct Send {
    double complete;  // the (eager) send request completes
    double cpu_free;  // the sender may post its next operation
    double arrival;   // the first byte reaches the receiver
  };
  // Starts a send at `start` (>= send_start), holding the sender's CPU and NIC-send.
  Send send(Rank& sender, double start, double bytes) const {
    sender.cpu_free = start + o;
    sender.nic_send_free = start + g + bytes_time(bytes);
    return {start, start + o, start + o + L};
  }

  // The earliest start of the handling of a message that arrived at `arrival`.
  double handle_start(const Rank& r, double arrival) const { return std::max({arrival, r.cpu_free, r.nic_recv_free}); }
  // Handles a message from `start` (>= handle_start); returns when its data is usable.
  double handle(Rank& receiver, double start, double bytes) const {
    receiver.cpu_free = start + o + bytes_time(bytes);
    receiver.nic_recv_free = start + g + bytes_time(bytes);
    return receiver.cpu_free;
  }

  // A computation of `duration` holds the CPU from `start` (>= compute_start); returns its end.
  double compute_start(const Rank& r, double ready) const { return std::max(ready, r.cpu_free); }
  double compute(Rank& r, double start, double duration) const { return r.cpu_free = start + duration; }
};

// A local copy of `bytes` at `bandwidth` bytes/s (the bytes are free when it is 0), plus its
// per-call cost `overhead` (the call, the loop set-up: a copy of 8 bytes is not 8 / rate); a copy
// of nothing is no call, and free.
inline double copy_time(double bytes, double bandwidth, double overhead = 0) {
  if (bytes <= 0) return 0;
  return overhead + (bandwidth > 0 ? bytes / bandwidth : 0);
}

}  // namespace collsim::models
