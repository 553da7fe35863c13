// The analytic engine: runs the algorithms' coroutines in one process under point-to-point cost
// models, as a deterministic discrete-event simulation.
//
// Each rank is a suspended coroutine; the engine resumes it from a time-ordered event queue when
// what it waits for completes. No threads and no stacks per rank, so a run holds millions of
// ranks: a binomial broadcast costs about 1.3 KiB per rank, coroutine frames included, and
// 2^20 ranks run in about 7 s (bench/model_scale).
//
// Cost models (their values and arithmetic: models/point_to_point.hpp), for a message of m bytes
// posted at time t by rank s to rank d:
//  - Hockney (alpha, beta): the transfer takes alpha + beta*m; the send completes and the data
//    arrives at t + alpha + beta*m. By default there is no contention at all: a rank's concurrent
//    sends all progress at full speed. With one_port, a transfer needs the sender's send port and
//    the receiver's receive port for its whole duration and starts when both are free (ports are
//    granted first come, first served in the order sends are posted).
//  - Two-level Hockney: the same with the (alpha, beta) of ranks of one node when s and d share
//    a node (rank r on node r / ranks_per_node), else the one between nodes.
//  - LogGP (L, o, g, G): the sender's CPU is busy o; injection starts when the CPU is done and the
//    rank's previous injection allows it (consecutive injections start at least g apart) and lasts
//    (m-1)*G; the send completes when injection ends; the data arrives L later; the receive
//    completes o after both the arrival and the post.
// A receive completes at max(post time, arrival) (+ o under LogGP). A local copy of n bytes takes
// n / copy_bandwidth (free when copy_bandwidth is 0). The barrier is ideal: it releases every
// rank when the last one enters.
#pragma once

#include "engines/run.hpp"
#include "models/point_to_point.hpp"

namespace collsim {

struct ModelConfig {
  enum class Kind { hockney, two_level, loggp };
  Kind kind = Kind::hockney;
  models::Hockney hockney;            // kind hockney
  models::TwoLevelHockney two_level;  // kind two_level
  models::LogGP loggp;                // kind loggp
  bool one_port = false;              // Hockney and two-level (LogGP has g and G)
  double copy_bandwidth = 0;          // bytes/s for comm.copy; 0 = free

  // The Hockney model between ranks a and b (kind hockney or two_level).
  const models::Hockney& hockney_between(int a, int b) const {
    return kind == Kind::two_level ? two_level.between(a, b) : hockney;
  }
};

// "hockney", "two_level" or "loggp".
const char* to_string(ModelConfig::Kind kind);

// Runs one collective call; all ranks start at time 0. Throws EngineError on a deadlock (naming
// the ranks still waiting and on what) or on misuse of the messaging layer.
RunResult run_model(const ModelConfig& config, const RunSpec& spec);

}  // namespace collsim
