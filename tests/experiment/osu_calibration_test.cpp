// collsim calibrate --from-osu's fit (experiment/analysis/osu_calibration.hpp): osu_latency files
// written here, in OSU's format (2 decimals of us), from known parameters by the closed forms of
// a 2-rank ping-pong under tcp+shm (written out below, not taken from the code under test), give
// those parameters back; the layout's refusals name the file.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>

#include "common/files.hpp"
#include "experiment/analysis/osu_calibration.hpp"
#include "support/input_error.hpp"

namespace collsim {
namespace {

namespace fs = std::filesystem;
using collsim_test::fresh_dir;
using collsim_test::write_file;

// osu_latency v7 output of sizes 1 B .. 4 MiB, one-way time t(N) in seconds.
std::string latency_file(const std::function<double(double)>& t) {
  std::string s = "\n# OSU MPI Latency Test v7.3\n# Datatype: MPI_CHAR.\n# Size       Avg Latency(us)\n";
  for (long n = 1; n <= 4L << 20; n *= 2) {
    char row[64];
    std::snprintf(row, sizeof row, "%-10ld%20.2f\n", n, t(static_cast<double>(n)) * 1e6);
    s += row;
  }
  return s;
}

// The truth. Inside a node (shm): eager up to 4096 - 56 = 4040 bytes, one copy of 14 + N bytes
// by the sender, a hand-over, the receiver's copy-out per byte; above it an RGET of 48 bytes
// (copy and hand-over), the receiver's single copy of N, its set-up. Between sockets each copy
// crosses the inter-socket link (its latency once for eager, twice for a rendezvous).
constexpr double kCopy = 12e9, kHandover = 0.3e-6, kCopyOut = 0.25e-9, kRndvSetup = 1.5e-6;
constexpr double kAcross = 8e9, kAcrossLat = 0.25e-6;
// Between nodes (tcp): eager up to 65536 - 56 = 65480 bytes, 22 + N bytes over a route of two
// links; above it RNDV 40, PUT control 64, data 24 + N, FIN 32: three crossings.
constexpr double kLink = 10e9, kLinkLat = 0.6e-6, kTcpPerByte = 0.05e-9, kTcpSetup = 2e-6;

double socket_time(double n) {
  return n <= 4040 ? (14 + n) / kCopy + kHandover + kCopyOut * n : 48 / kCopy + kHandover + n / kCopy + kRndvSetup;
}
double sockets_time(double n) {
  return n <= 4040 ? kAcrossLat + (14 + n) / kAcross + kHandover + kCopyOut * n
                   : 2 * kAcrossLat + 48 / kAcross + kHandover + n / kAcross + kRndvSetup;
}
double nodes_time(double n) {
  return n <= 65480 ? 2 * kLinkLat + (22 + n) / kLink + kTcpPerByte * n
                    : 6 * kLinkLat + (40 + 64 + 24 + 32 + n) / kLink + kTcpSetup;
}

fs::path layout(const std::string& name) {
  const fs::path dir = fresh_dir("osu_calibration", name);
  write_file(dir / "socket/osu_latency.txt", latency_file(socket_time));
  write_file(dir / "sockets/osu_latency.txt", latency_file(sockets_time));
  write_file(dir / "nodes/osu_latency.txt", latency_file(nodes_time));
  return dir;
}

const OsuParameter& parameter(const OsuFit& fit, const std::string& name) {
  for (const OsuParameter& p : fit.parameters)
    if (p.name == name) return p;
  throw std::logic_error("no parameter " + name);
}

TEST(OsuCalibration, SyntheticPingPongsGiveTheirParametersBack) {
  ClusterSpec spec;
  spec.cores = 12;
  const OsuFit fit = fit_osu(read_osu_dir(layout("synthetic").string()), spec, {});
  // Times are rounded to 10 ns, so small sizes carry up to 3% of noise.
  EXPECT_NEAR(spec.memcpy, kCopy, 0.01 * kCopy);
  EXPECT_NEAR(spec.loopback_latency, kHandover, 0.01e-6);
  EXPECT_NEAR(spec.inter_socket_bandwidth, kAcross, 0.01 * kAcross);
  EXPECT_NEAR(spec.inter_socket_latency, kAcrossLat, 0.02e-6);
  EXPECT_NEAR(spec.bandwidth, kLink, 0.01 * kLink);
  EXPECT_NEAR(spec.latency, kLinkLat, 0.01e-6);
  EXPECT_EQ(spec.protocol, "tcp+shm");
  // The overhead tables: the eager sections' per-byte cost, the rendezvous' set-up.
  double per_byte = 0, setup = 0;
  const std::string shm = parameter(fit, "shm/recv_overhead").value;
  ASSERT_EQ(std::sscanf(shm.c_str(), "0:0:%lf;4041:%lf:0", &per_byte, &setup), 2) << shm;
  EXPECT_NEAR(per_byte, kCopyOut, 0.02 * kCopyOut);
  EXPECT_NEAR(setup, kRndvSetup, 0.03e-6);
  const std::string tcp = parameter(fit, "tcp/recv_overhead").value;
  ASSERT_EQ(std::sscanf(tcp.c_str(), "0:0:%lf;65481:%lf:0", &per_byte, &setup), 2) << tcp;
  EXPECT_NEAR(per_byte, kTcpPerByte, 0.05 * kTcpPerByte);
  EXPECT_NEAR(setup, kTcpSetup, 0.05e-6);
  // Every class: the platform within the rounding of the points (half of 10 ns on 0.3 us).
  ASSERT_EQ(fit.classes.size(), 3u);
  for (const OsuClassFit& c : fit.classes) {
    EXPECT_EQ(c.points, 23) << to_string(c.pair_class);
    EXPECT_LT(c.max_rel_residual, 0.03) << to_string(c.pair_class);
    EXPECT_LT(c.median_rel_residual, 0.005) << to_string(c.pair_class);
  }
  EXPECT_EQ(fit.classes[0].eager_points, 12);  // 1 .. 2048 B
  EXPECT_EQ(fit.classes[0].rndv_points, 11);   // 4 KiB .. 4 MiB
}

// osu_bcast -f v7 output of sizes 1 B .. 1 MiB on 2 processes, the root's (smallest) time
// root(N) and the other rank's other(N), in seconds.
std::string bcast_file(const std::function<double(double)>& root, const std::function<double(double)>& other) {
  std::string s =
      "\n# OSU MPI Broadcast Latency Test v7.3\n# Datatype: MPI_CHAR.\n"
      "# Size         Avg Latency(us)     Min Latency(us)     Max Latency(us)  Iterations\n";
  for (long n = 1; n <= 1L << 20; n *= 2) {
    const double r = root(static_cast<double>(n)) * 1e6, o = other(static_cast<double>(n)) * 1e6;
    char row[128];
    std::snprintf(row, sizeof row, "%-10ld%20.2f%20.2f%20.2f%12d\n", n, (r + o) / 2, r, o, 1000);
    s += row;
  }
  return s;
}

// A send overhead of 0.12 us within a socket: the ping-pong pays it once per one-way time; the
// root of osu_bcast on the pair returns after it and its copy of the 14-byte header and N bytes
// (eager), or once the other rank has pulled the data (rendezvous: the whole one-way time).
constexpr double kSendOs = 0.12e-6;
double socket_time_os(double n) { return kSendOs + socket_time(n); }
double root_time(double n) { return n <= 4040 ? kSendOs + (14 + n) / kCopy : socket_time_os(n); }

TEST(OsuCalibration, TheRootOfOsuBcastOnThePairGivesTheSendOverhead) {
  fs::path dir = layout("bcast-root");
  write_file(dir / "socket/osu_latency.txt", latency_file(socket_time_os));
  write_file(dir / "socket/osu_bcast.txt", bcast_file(root_time, [](double n) { return 2 * socket_time_os(n); }));
  ClusterSpec spec;
  spec.cores = 12;
  const OsuFit fit = fit_osu(read_osu_dir(dir.string()), spec, {});
  // 0.12 us + (14 + N) / 12 GB/s rounded to 10 ns: 0.12 us back within 5 ns, the hand-over too.
  const OsuParameter& os = parameter(fit, "shm/send_overhead");
  EXPECT_NEAR(std::stod(os.value), kSendOs, 0.005e-6);
  EXPECT_EQ(os.from, "osu_bcast -f on the pair: the root's (smallest) time over the eager sizes");
  EXPECT_NEAR(spec.loopback_latency, kHandover, 0.01e-6);
  // Without the min column (osu_bcast without -f) nothing is fitted from it: no send overhead; nor
  // from another osu_bcast*.txt, which may hold more processes.
  dir = layout("bcast-avg");
  write_file(dir / "socket/osu_bcast.txt",
             "# OSU MPI Broadcast Latency Test v7.3\n# Size       Avg Latency(us)\n"
             "1                    0.30\n2                    0.30\n");
  write_file(dir / "socket/osu_bcast_p8.txt", bcast_file(root_time, [](double n) { return 2 * socket_time_os(n); }));
  ClusterSpec plain;
  plain.cores = 12;
  const OsuFit avg_only = fit_osu(read_osu_dir(dir.string()), plain, {});
  for (const OsuParameter& p : avg_only.parameters) EXPECT_NE(p.name, "shm/send_overhead");
  EXPECT_NEAR(plain.loopback_latency, kHandover, 0.01e-6);
}

// The same measurements under pml ucx (protocol.hpp's ucx and ucx_sm): osu_latency's MPI_Send
// is eager up to 262143 bytes on both. Inside a node the sender copies 8 + N bytes into the
// receiver's FIFO, then the hand-over and the receiver's copy-out; from 262144 bytes an RTS of 50
// bytes, the receiver's single copy and its set-up. Between nodes 8 + N bytes over the route of
// two links up to 2038 bytes (short), from 2039 bytes the sender first copies N bytes at the
// socket's copy rate (bcopy), and from 262144 bytes an RTS of 58 bytes, the receiver's read request
// and the data: three crossings, then its set-up.
constexpr double kUcxCopy = 14e9, kUcxHandover = 0.18e-6, kUcxCopyOut = 0.1e-9, kUcxRndvSetup = 0.9e-6;
constexpr double kIbLink = 12e9, kIbLinkLat = 0.5e-6, kIbPerByte = 0.1e-9, kIbRndvSetup = 1.2e-6;

double ucx_socket_time(double n) {
  return n < 262144 ? (8 + n) / kUcxCopy + kUcxHandover + kUcxCopyOut * n
                    : 50 / kUcxCopy + kUcxHandover + n / kUcxCopy + kUcxRndvSetup;
}
double ucx_nodes_time(double n) {
  if (n >= 262144) return 6 * kIbLinkLat + (58 + n) / kIbLink + kIbRndvSetup;
  return (n > 2038 ? n / kUcxCopy : 0) + 2 * kIbLinkLat + (8 + n) / kIbLink + kIbPerByte * n;
}

TEST(OsuCalibration, UnderUcxTheSameMeasurementsGiveUcxParameters) {
  const fs::path dir = fresh_dir("osu_calibration", "ucx");
  write_file(dir / "socket/osu_latency.txt", latency_file(ucx_socket_time));
  write_file(dir / "nodes/osu_latency.txt", latency_file(ucx_nodes_time));
  ClusterSpec spec;
  spec.cores = 12;
  spec.protocol = "ucx";
  const OsuFit fit = fit_osu(read_osu_dir(dir.string()), spec, {"protocol"});
  EXPECT_EQ(spec.protocol, "ucx");
  EXPECT_NEAR(spec.memcpy, kUcxCopy, 0.01 * kUcxCopy);
  EXPECT_NEAR(spec.loopback_latency, kUcxHandover, 0.01e-6);
  EXPECT_NEAR(spec.bandwidth, kIbLink, 0.01 * kIbLink);
  EXPECT_NEAR(spec.latency, kIbLinkLat, 0.01e-6);
  // The tables switch at MPI_Isend's eager limits: 8256 - 1 inside a node, 29119 - 1 between.
  double per_byte = 0, setup = 0;
  const std::string sm = parameter(fit, "ucx_sm/recv_overhead").value;
  ASSERT_EQ(std::sscanf(sm.c_str(), "0:0:%lf;8256:%lf:0", &per_byte, &setup), 2) << sm;
  EXPECT_NEAR(per_byte, kUcxCopyOut, 0.05 * kUcxCopyOut);
  EXPECT_NEAR(setup, kUcxRndvSetup, 0.03e-6);
  const std::string ib = parameter(fit, "ucx/recv_overhead").value;
  ASSERT_EQ(std::sscanf(ib.c_str(), "0:0:%lf;29119:%lf:0", &per_byte, &setup), 2) << ib;
  // Over the short sizes only (up to 1 KiB), the 10 ns rounding leaves some 5% on the slope.
  EXPECT_NEAR(per_byte, kIbPerByte, 0.1 * kIbPerByte);
  EXPECT_NEAR(setup, kIbRndvSetup, 0.05e-6);
  for (const OsuParameter& p : fit.parameters) EXPECT_FALSE(p.name.starts_with("shm/") || p.name.starts_with("tcp/"));
  // Lines: inside a node the 14 sizes up to 8 KiB and the 5 from 256 KiB; between nodes the 11
  // short sizes up to 1 KiB and the same 5. The sizes between are checked against the platform:
  // the bcopy sizes between nodes up to 16 KiB follow it (the sender's copy), and so do
  // at least half of all the points.
  ASSERT_EQ(fit.classes.size(), 2u);
  EXPECT_EQ(fit.classes[0].eager_points, 14);
  EXPECT_EQ(fit.classes[0].rndv_points, 5);
  EXPECT_EQ(fit.classes[1].eager_points, 11);
  EXPECT_EQ(fit.classes[1].rndv_points, 5);
  for (const OsuClassFit& c : fit.classes) EXPECT_LT(c.median_rel_residual, 0.01) << to_string(c.pair_class);
}

TEST(OsuCalibration, OnlyTcpShmAndUcxAreFitted) {
  ClusterSpec spec;
  spec.cores = 12;
  spec.protocol = "ideal";
  try {
    fit_osu(read_osu_dir(layout("ideal").string()), spec, {"protocol"});
    ADD_FAILURE() << "ideal was fitted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "protocol: 'ideal' cannot be fitted: the fit is of tcp+shm (Open MPI's ob1: vader inside a node, tcp "
              "between nodes) or ucx (pml ucx: its shared memory inside a node, InfiniBand between nodes)");
  }
}

std::string refusal(const fs::path& dir, const std::vector<std::string>& given = {}) {
  try {
    ClusterSpec spec;
    fit_osu(read_osu_dir(dir.string()), spec, given);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(OsuCalibration, TheLayoutRefusesWhatDoesNotFitNamingIt) {
  fs::path dir = layout("stray");
  write_file(dir / "socket/notes.txt", "x");
  EXPECT_EQ(refusal(dir), (dir / "socket/notes.txt").generic_string() +
                              ": not part of the layout (DIR holds socket/, sockets/ and nodes/, each with "
                              "osu_latency.txt, osu_bw.txt, osu_bibw.txt, osu_mbw_mr.txt (socket/ only) or "
                              "osu_bcast*.txt)");
  dir = layout("folder");
  fs::create_directories(dir / "numa");
  EXPECT_EQ(refusal(dir).substr(0, (dir / "numa").generic_string().size() + 27),
            (dir / "numa").generic_string() + ": not part of the layout (D");
  dir = layout("swapped");
  write_file(dir / "nodes/osu_bw.txt", latency_file(nodes_time));
  EXPECT_EQ(refusal(dir),
            (dir / "nodes/osu_bw.txt").generic_string() + ":1: osu_latency output in a file named for osu_bw");
  dir = layout("mbw");
  write_file(dir / "nodes/osu_mbw_mr.txt", "");
  EXPECT_EQ(refusal(dir), (dir / "nodes/osu_mbw_mr.txt").generic_string() +
                              ": osu_mbw_mr is read in socket/ only (its pairs on one socket)");
  dir = layout("bad-row");
  write_file(dir / "sockets/osu_latency.txt", latency_file(sockets_time) + "8388608   lots\n");
  EXPECT_EQ(refusal(dir),
            (dir / "sockets/osu_latency.txt").generic_string() + ":28: Avg Latency(us) 'lots' is not a number");
  dir = layout("no-socket");
  fs::remove_all(dir / "socket");
  EXPECT_EQ(refusal(dir),
            dir.string() + "/sockets: needs socket/osu_latency.txt too (a copy's costs inside a socket come from it)");
  dir = layout("bw-alone");
  fs::remove(dir / "nodes/osu_latency.txt");
  write_file(dir / "nodes/osu_bw.txt", "");
  EXPECT_EQ(refusal(dir),
            (dir / "nodes").generic_string() + ": no osu_latency.txt: a class is fitted from its osu_latency");
  dir = layout("given");
  EXPECT_EQ(refusal(dir, {"memcpy"}), "memcpy: fitted from " + (dir / "socket/osu_latency.txt").generic_string() +
                                          ", so it cannot be given as well (drop the option)");
  dir = fresh_dir("osu_calibration", "empty");
  EXPECT_EQ(refusal(dir),
            dir.string() +
                ": no osu_latency.txt in socket/, sockets/ or nodes/ (DIR holds socket/, sockets/ and nodes/, each "
                "with osu_latency.txt, osu_bw.txt, osu_bibw.txt, osu_mbw_mr.txt (socket/ only) or osu_bcast*.txt)");
}

}  // namespace
}  // namespace collsim
