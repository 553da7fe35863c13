// Point-to-point cost models as values: what one message costs under each model. The model
// engine takes every cost from here (engines/model/model_engine.hpp says when each cost is paid),
// so that a formula written from the same values cannot drift from the engine.
#pragma once

#include <algorithm>

namespace collsim::models {

// Hockney: a message of m bytes takes alpha + beta * m from its send to its arrival.
struct Hockney {
  double alpha = 10e-6;  // s per message
  double beta = 0.8e-9;  // s per byte (1 / 1.25 GB/s)

  double transfer(double bytes) const { return alpha + beta * bytes; }
};

// Two Hockney models: one between ranks of one node, one between nodes. Rank r runs on node
// r / ranks_per_node (block placement, as the sim engine places ranks and as
// mpirun --map-by ppr:N:node does).
struct TwoLevelHockney {
  Hockney intra;  // ranks of one node
  Hockney inter;  // ranks of two nodes
  int ranks_per_node = 1;

  bool same_node(int a, int b) const { return a / ranks_per_node == b / ranks_per_node; }
  const Hockney& between(int a, int b) const { return same_node(a, b) ? intra : inter; }
};

// LogGP (L, o, g, G) as LogGOPSim defines it: the sender's CPU is busy o per message; injecting
// m bytes takes (m - 1) G; consecutive injections from one rank start at least g apart (or the
// previous injection's length, if longer); the data arrives L after its injection ends.
struct LogGP {
  double L = 10e-6;   // s, wire latency
  double o = 1e-6;    // s, CPU overhead per message, at each end
  double g = 1e-6;    // s, gap between consecutive injections
  double G = 0.8e-9;  // s per byte of injection

  double injection(double bytes) const { return std::max(0.0, bytes - 1) * G; }
  // The earliest start of a rank's next injection, after one of `bytes` that started at 0.
  double next_injection(double bytes) const { return std::max(g, injection(bytes)); }
};

}  // namespace collsim::models
