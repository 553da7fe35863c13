// A cluster's platform from OSU measurements (`collsim calibrate --from-osu DIR`): reads DIR's
// layout, fits each placement class's latency, bandwidth and per-message costs, and sets them in a
// ClusterSpec, which `collsim platform`'s own writer (engines/sim/generated_platform.hpp) turns
// into the platform file.
//
// DIR holds one folder per placement class of the measured pair (platforms/README.md, "A platform
// from OSU measurements", has the mpirun lines):
//   socket/   both ranks on one socket          sockets/  two sockets of one node
//   nodes/    two nodes
// each with any of osu_latency.txt, osu_bw.txt, osu_bibw.txt, osu_mbw_mr.txt (socket/ only) and
// osu_bcast*.txt. Anything else is refused, naming it.
//
// What each file gives (the sim engine's tcp+shm protocols; protocol.hpp has their steps):
//  - osu_latency, one-way time T(N) in two regimes, the profile's eager sizes and the larger
//    rendezvous ones, each a line fitted on relative residuals (Huber, regression.hpp):
//    T = a_e + s_e N and T = a_r + s_r N.
//  - osu_bw (optional): per-message time N / bandwidth, fitted the same way over the eager sizes,
//    whose intercept is the sender's per-message cost (send_overhead), and over the rendezvous
//    sizes, whose slope, the streaming bandwidth, is reported beside the ping-pong's (the
//    platform follows the ping-pong, whose points it is to give back).
//  - osu_mbw_mr in socket/: the aggregate bandwidth of its pairs at its largest size is the
//    socket's memory bandwidth (collsim/memory_bandwidth).
//  - osu_bcast.txt, osu_bcast -f on the pair (2 processes), without osu_bw: its smallest rank's time is the
//    root's, whose eager send returns once the message is handed over, os + (header + N) / B; a
//    line over the eager sizes gives os as osu_bw's does. OSU separates the calls by a barrier,
//    so the root never waits for the other rank there.
//  - osu_bibw, and osu_bcast otherwise: read and checked, reported, not fitted.
// Into the platform, per class (B = 1/s_r; os = that intercept less the header's copy, else 0;
// h, the hand-over):
//  - socket: memcpy = B (one core's copy); an eager message of N bytes costs
//    os + (14 + N)/B + h + (s_e - s_r) N, so h = loopback_latency = a_e - os - 14/B and the
//    receiver's copy-out (s_e - s_r) N is shm/recv_overhead's eager per-byte cost; a rendezvous
//    costs os + 48/B + h + N/B + R, so R = a_r - os - 48/B - h is its receiver's set-up
//    (shm/recv_overhead's base above the eager sizes).
//  - sockets: inter_socket_bandwidth = 1/s_r there, inter_socket_latency = a_e(sockets) - a_e(socket)
//    (a copy between sockets crosses the link once; the overheads are the shm profile's, shared).
//  - nodes (crossbar, tcp): bandwidth = B, latency per link = (a_e - os - 22/B) / 2 (a route crosses
//    2 links), tcp/recv_overhead per byte s_e - s_r on eager sizes and base R on the rendezvous (RNDV,
//    PUT control, data, FIN: three crossings), tcp/send_overhead os.
// Under ucx (--protocol ucx) the same, for ucx_sm inside a node and ucx between nodes: the lines
// are cut where osu_latency's MPI_Send changes protocol (eager up to 262143 bytes on both), the
// eager line keeps the sizes MPI_Isend also sends eager (ucx_sm: up to 8255) and, between nodes,
// the short ones (up to 2038: above them the sender's bcopy adds N / memcpy); ucx's send
// overhead is the intercept alone (a short send copies nothing) and its rendezvous crosses the
// route three times (RTS, read request, data) with the 58-byte RTS. The overhead tables switch
// at MPI_Isend's eager limits.
// A value that would be negative is 0, and the report says so. The fit's residuals are those of
// the platform: each measured osu_latency point against the time the fitted parameters give.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engines/sim/generated_platform.hpp"
#include "experiment/analysis/osu_output.hpp"

namespace collsim {

enum class PairClass { socket, sockets, nodes };
const char* to_string(PairClass c);

struct OsuClassData {
  PairClass pair_class = PairClass::socket;
  std::optional<OsuOutput> latency, bw, bibw, mbw_mr;
  std::vector<OsuOutput> bcast;
};

// Reads DIR's layout and every file in it. Throws InputError naming the file (and line) for
// anything that does not fit: an unknown folder or file, a file whose benchmark is not its name's,
// osu_mbw_mr outside socket/, a class with osu_bw but no osu_latency, no osu_latency at all.
std::vector<OsuClassData> read_osu_dir(const std::string& dir);

// One fitted platform parameter, with where it came from.
struct OsuParameter {
  PairClass pair_class;
  std::string name;   // a platform parameter ("memcpy") or protocol option ("shm/recv_overhead")
  std::string value;  // as the platform states it ("15.6GBps", "0:0:0.17ns;4041:1.2us:0")
  std::string from;   // "socket/osu_latency.txt: rendezvous slope", "clamped to 0: ..."
};

struct OsuClassFit {
  PairClass pair_class;
  // The lines fitted to osu_latency (seconds, seconds per byte) and the points in each.
  double eager_intercept = 0, eager_slope = 0, rndv_intercept = 0, rndv_slope = 0;
  int eager_points = 0, rndv_points = 0;
  // The platform's one-way time of each osu_latency row (seconds; the sim engine's steps written
  // out), and against the measured ones: |predicted - measured| / measured.
  std::vector<double> predicted;
  double max_rel_residual = 0, median_rel_residual = 0;
  int points = 0;
  std::vector<std::string> notes;  // what was read but not fitted, what was clamped
};

struct OsuFit {
  std::vector<OsuClassFit> classes;
  std::vector<OsuParameter> parameters;
};

// Fits the classes and sets the results in `spec` (whose other parameters stay as given; its
// protocol becomes tcp+shm unless `given` names protocol, which must then be tcp+shm or ucx). Throws InputError when a
// fitted parameter was also given in `given` (names of parameters set by the user) or when a class has too few points
// to fit.
OsuFit fit_osu(const std::vector<OsuClassData>& data, ClusterSpec& spec, const std::vector<std::string>& given);

// The fit as CSV: class,parameter,value,from, then per class its lines and residuals.
std::string osu_fit_csv(const OsuFit& fit);
// The fit as a text table for people.
std::string osu_fit_table(const OsuFit& fit);

}  // namespace collsim
