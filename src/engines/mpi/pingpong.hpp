// Ping-pong between two ranks: the point-to-point latency and bandwidth of the network under the
// MPI transport in use, as a SimGrid platform needs them (tools/testbed writes one from these).
//
// Rank 0 sends a message of `bytes` to the peer, which sends it straight back; rank 0 times each
// round trip with MPI_Wtime (one clock, so no synchronisation is needed). Per size, after the
// warm-up round trips (connection set-up, page faults), the number of timed round trips is chosen
// from the last warm-up one so that the size takes about `time_per_size_s`, within min_runs and
// max_runs; rank 0 tells the peer that count before timing.
//
// Summary:
//   - latency: half the median round trip of the smallest size measured (a one-way time);
//   - bandwidth: 1 / slope of a least-squares line through the one-way times (median round trip
//     / 2) of the sizes from fit_from up. Above Open MPI's TCP eager limit (64 KiB) each message
//     also pays a rendezvous handshake, a constant per message: the slope of large sizes leaves it
//     out, while size / time at one size would not.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <string>
#include <vector>

#include "support/statistics.hpp"

namespace collsim {

struct PingPongOptions {
  std::vector<std::size_t> sizes;  // message sizes, each measured in turn
  int peer = 1;                    // the rank that answers rank 0
  int warmup = 2;                  // untimed round trips per size
  int min_runs = 5;                // timed round trips per size at least ...
  int max_runs = 1000;             // ... and at most
  double time_per_size_s = 0.25;   // aim for about this long per size, within the two
  std::size_t fit_from = 0;        // bandwidth fit over sizes >= this; 0: largest size / 16
};

struct PingPongPoint {
  std::size_t bytes = 0;
  Summary rtt;               // of the timed round trips, seconds
  double one_way_s = 0;      // rtt.median / 2
  double bandwidth_Bps = 0;  // bytes / one_way_s
};

struct PingPongFit {
  double latency_s = 0;           // half the median round trip of the smallest size
  std::size_t latency_bytes = 0;  // that size
  double bandwidth_Bps = 0;       // 1 / slope; 0 when the slope is not positive
  double intercept_s = 0;         // one-way time of the fitted line at 0 bytes
  std::size_t fit_from = 0, fit_to = 0;
  int fit_points = 0;
};

struct PingPongResult {
  std::vector<PingPongPoint> points;  // in the order of options.sizes; empty except on rank 0
  PingPongFit fit;                    // rank 0 only
  std::string host, peer_host;        // MPI_Get_processor_name of rank 0 and of the peer
  std::string data = "ok";            // "ok" or the first wrong byte seen; the same on every rank
};

// Latency and bandwidth from measured points (see the header comment). `fit_from` 0: the largest
// size / 16; when fewer than two sizes are >= fit_from, the two largest sizes are used.
PingPongFit fit_pingpong(const std::vector<PingPongPoint>& points, std::size_t fit_from);

// Collective over `comm`: rank 0 and options.peer ping-pong, the other ranks wait (sleeping, so
// that they leave the cores to the two that measure). Throws InputError on bad options.
PingPongResult measure_pingpong(MPI_Comm comm, const PingPongOptions& options);

}  // namespace collsim
