// The analytic engine: runs the algorithms' coroutines in one process under point-to-point cost
// models, as a deterministic discrete-event simulation.
//
// Each rank is a suspended coroutine; the engine resumes it from a time-ordered event queue when
// what it waits for completes. No threads and no stacks per rank, so a run holds millions of
// ranks: a binomial broadcast's ranks are built when their first message arrives and freed when
// they finish (bytes per rank and seconds at 2^20 and 2^24 ranks: tools/bench/model_scale and
// its section of tools/bench/README.md).
//
// Cost models (their values, per-rank state and arithmetic: models/point_to_point.hpp; the engine
// only orders events and matches messages), for a message of m bytes posted at time t by rank s
// to rank d:
//  - Hockney (alpha, beta): the transfer takes alpha + beta*m; the send completes and the data
//    arrives at t + alpha + beta*m. A rank's concurrent sends all progress at full speed. With
//    one_port, a transfer needs the sender's send port and the receiver's receive port for its
//    whole duration and starts when both are free (ports are granted first come, first served in
//    the order sends are posted). A receive completes at max(post time, arrival).
//  - Two-level Hockney: the same with the (alpha, beta) of ranks of one node when s and d share
//    a node, else the one between nodes; with cross_socket, ranks of one node on two sockets
//    take that one and `intra` holds within a socket (three levels). Which node and socket a
//    rank is on is the placement's (models/placement.hpp, the sim engine's mapping: map-by core,
//    socket, node, ppr:K:node, ppr:K:socket). One send at a time inside a node, by default: a
//    transfer to a rank of the sender's node holds the sender's send port for its duration, so a
//    root's sends to its node's ranks follow one another: basic_linear to P ranks of one node
//    takes P - 1 transfers, linear in P as Open MPI 4.1 is measured (issue 29: 731, 1730 and
//    12900 us at 1 MiB on 8, 32 and 128 ranks). Under vader's single copy the receiver makes the
//    copy (../shared/reference/manycore-osu-ucx.md section 2); the sender's port stands for the
//    root's side of it, which the sim engine's node model splits exactly. Transfers between nodes
//    are as one_port says.
//    concurrent_intra_sends gives back the earlier rule (sends inside a node overlap for free).
//    Under plain Hockney every rank is a node of its own, so nothing changes there.
//  - Per-message software overheads (Hockney kinds; LogGP has its o): a send of m bytes costs its
//    rank send_overhead(m) before the transfer starts (the rank continues after it), and a
//    receive completes recv_overhead(m) after its data is there and the receive posted. Both
//    take the rank's core, one at a time in event order: a send waits for a receive's overhead in
//    progress and the other way round (SimGrid's SMPI smpi/os and smpi/or, as the sim engine has
//    them: models/overhead.hpp). With receive overheads every rank starts at time 0.
//  - LogGP (L, o, g, G) as LogGOPSim defines it (models::LogGP has the rules and how they compare
//    with LogGOPSim's), every message eager: each rank has a CPU, a NIC-send and a NIC-receive
//    clock. The send starts at t0 >= t when s's CPU and NIC-send are free; it completes at t0 and
//    the rank continues at t0 + o (its CPU is busy o); the first byte reaches d at t0 + o + L. An
//    arrival is handled, posted receive or not, at p >= arrival when d's CPU and NIC-receive are
//    free; the CPU is busy o + (m-1)G, so the data is usable at h = p + o + (m-1)G, and a receive
//    completes at max(post time, h); posting it costs nothing. Sends, arrivals and copies that
//    find a busy resource are retried when it frees, in event order (FIFO among equal times).
//    Messages are matched to receives when they are handled (Hockney: when sent), in the order
//    each source sent them.
// One-sided operations (put, get, flush; models/coarray_cost.hpp states the rules as a cost model):
// under the Hockney kinds each costs the origin send_overhead of its bytes first (a flush: of 0
// bytes; a get get_overhead when set), and the origin's port injects one put at a time, busy beta*m
// per put, so a rank's puts leave at least max(overhead, beta*m) apart with their latencies
// overlapping (one_port: both ports for the whole transfer, as for sends); under LogGP a put is a
// send for the CPU and NIC (o, g + (m-1)G) and a get and a flush cost o.
// A local copy of n > 0 bytes takes copy_overhead + n / copy_bandwidth (the bytes free when
// copy_bandwidth is 0; models::copy_time), a local reduction of n bytes n * reduce_gamma (free when
// 0), a win_sync sync_overhead (0 by default); under LogGP they hold the CPU, so arrivals meanwhile
// wait. A registration of n bytes (comm.register_memory) takes registration.time(n)
// (models/registration.hpp) and holds the rank as a copy does. The barrier is ideal: it releases
// every rank when the last one enters.
#pragma once

#include <optional>

#include "engines/run.hpp"
#include "models/overhead.hpp"
#include "models/point_to_point.hpp"
#include "models/registration.hpp"

namespace collsim {

struct ModelConfig {
  enum class Kind { hockney, two_level, loggp };
  Kind kind = Kind::hockney;
  models::Hockney hockney;            // kind hockney
  models::TwoLevelHockney two_level;  // kind two_level
  models::LogGP loggp;                // kind loggp
  bool one_port = false;              // Hockney and two-level (LogGP has g and G)
  // Two-level: a rank's sends to ranks of its own node overlap for free (false: one at a time).
  bool concurrent_intra_sends = false;
  models::Overhead send_overhead;  // Hockney and two-level: per message, the sender's
  models::Overhead recv_overhead;  // Hockney and two-level: per message, the receiver's
  // Hockney and two-level: the origin's overhead for a get, in place of send_overhead when set.
  std::optional<models::Overhead> get_overhead{};
  double copy_bandwidth = 0;              // bytes/s for comm.copy; 0 = free
  double copy_overhead = 0;               // s per comm.copy besides its bytes (c0)
  double sync_overhead = 0;               // s per win_sync, on the rank's core (F)
  double reduce_gamma = 0;                // s/byte for comm.reduce_local; 0 = free
  models::RegistrationCost registration;  // comm.register_memory; the platform's with --platform

  // The Hockney model between ranks a and b (kind hockney or two_level).
  const models::Hockney& hockney_between(int a, int b) const {
    return kind == Kind::two_level ? two_level.between(a, b) : hockney;
  }
  // Whether a transfer from a to b holds a's send port without one_port: inside a node, unless
  // concurrent_intra_sends (kind two_level).
  bool serial_send(int a, int b) const {
    return kind == Kind::two_level && !concurrent_intra_sends && two_level.same_node(a, b);
  }
  // Whether any transfer holds a port (the engine keeps ports then).
  bool uses_ports() const {
    return kind != Kind::loggp && (one_port || (kind == Kind::two_level && !concurrent_intra_sends));
  }
  bool has_overheads() const {
    return !send_overhead.empty() || !recv_overhead.empty() || (get_overhead && !get_overhead->empty());
  }
  // The origin's overhead table of a one-sided operation (a get's get_overhead when set).
  const models::Overhead& origin_overhead(bool get) const {
    return get && get_overhead ? *get_overhead : send_overhead;
  }
};

// "hockney", "two_level" or "loggp".
const char* to_string(ModelConfig::Kind kind);

// Runs one collective call; all ranks start at time 0. (A rank of an algorithm that receives
// first is built only when its first message comes, with the same result: see
// AlgorithmInfo::receives_first.) Throws EngineError on a deadlock (naming the ranks still waiting
// and on what) or on misuse of the messaging layer.
RunResult run_model(const ModelConfig& config, const RunSpec& spec);

}  // namespace collsim
