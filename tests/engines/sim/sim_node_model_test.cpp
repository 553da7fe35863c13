// The sim engine's node model (engines/sim/node_model.hpp), one rule at a time, against hand
// calculations on platforms/test/node2x4.xml under tcp+shm: a core copies at 1 GB/s, one at a
// time; the copies of a socket share 1.5 GB/s; a copy between sockets crosses 0.5 GB/s and 2 us;
// the peer sees a copy 1 us (the loopback latency) after it ends.
//
// What moves (shm, Open MPI's vader): an eager message is one copy of 14 + N bytes by the sender;
// a rendezvous is an RGET of 48 bytes, the receiver's single copy of N bytes from the sender's
// socket to its own, and a FIN of 24 bytes back. Small pieces move at the copy rate too.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "algorithms/params.hpp"
#include "comm/buffer.hpp"
#include "common/files.hpp"
#include "common/rank_programs.hpp"
#include "common/sim_test_util.hpp"
#include "common/test_algorithm.hpp"

namespace collsim {
namespace {

using collsim_test::exact;
using collsim_test::root_to_all;
using collsim_test::run_one;
using collsim_test::test_algorithm;

constexpr double kUs = 1e-6;
constexpr double kCopy = 1e9, kSocket = 1.5e9, kAcross = 0.5e9, kAcrossLat = 2 * kUs, kHandover = 1 * kUs;

void expect_time(double got, double want, const std::string& what) {
  EXPECT_NEAR(got, want, want * 1e-9 + 2e-9) << what;
}

// params.segment: the message size; params.radix: the peer of one_to_peer.
RunSpec spec_for(const AlgorithmInfo& a, int procs, std::size_t message, int peer = 1) {
  RunSpec s;
  s.algorithm = &a;
  s.procs = procs;
  s.real_bytes = false;
  s.params.segment = message;
  s.params.radix = peer;
  return s;
}

// Rank 2k sends one message to rank 2k + 1, all pairs at once.
Task<> pairs(Comm& comm, RankBuffers, const AlgorithmParams& p) {
  Storage msg(p.segment, false);
  if (comm.rank() % 2 == 0)
    co_await comm.send(msg.view(), comm.rank() + 1, 1);
  else
    co_await comm.recv(msg.view(), comm.rank() - 1, 1);
}

// Rank 0 sends one message to rank params.radix.
Task<> one_to_peer(Comm& comm, RankBuffers, const AlgorithmParams& p) {
  Storage msg(p.segment, false);
  if (comm.rank() == 0) co_await comm.send(msg.view(), p.radix, 1);
  if (comm.rank() == p.radix) co_await comm.recv(msg.view(), 0, 1);
}

// Rank 0 sends one message to rank 1, which passes it on to rank params.radix.
Task<> relay(Comm& comm, RankBuffers, const AlgorithmParams& p) {
  Storage msg(p.segment, false);
  if (comm.rank() == 0) co_await comm.send(msg.view(), 1, 1);
  if (comm.rank() == 1) {
    co_await comm.recv(msg.view(), 0, 1);
    co_await comm.send(msg.view(), p.radix, 1);
  }
  if (comm.rank() == p.radix) co_await comm.recv(msg.view(), 1, 1);
}

const AlgorithmInfo kRootToAll = test_algorithm("test/root_to_all", &root_to_all);
const AlgorithmInfo kRelay = test_algorithm("test/relay", &relay);
const AlgorithmInfo kPairs = test_algorithm("test/pairs", &pairs);
const AlgorithmInfo kOneToPeer = test_algorithm("test/one_to_peer", &one_to_peer);

// ppr:K:node fills socket 0's 4 cores first; ppr:K:socket puts K on each socket.
SimConfig node(const std::string& map_by) {
  SimConfig c = exact("test/node2x4.xml", 1, "tcp+shm");
  c.map_by = *models::parse_map_by(map_by);
  return c;
}

TEST(SimNodeModel, ARootsEagerSendsSerialiseOnItsCore) {
  // Three copies of 14 + 4000 bytes one after another on rank 0's core; receiver k sees the k-th
  // a hand-over after it ends. A send larger than the fast box completes when its receiver has
  // taken it, so the root's last one with the last receiver.
  const double copy = 4014 / kCopy;
  RunResult r = run_one(node("ppr:4:node"), spec_for(kRootToAll, 4, 4000));
  for (int k = 1; k <= 3; ++k) expect_time(r.finish_s[k], k * copy + kHandover, "receiver " + std::to_string(k));
  expect_time(r.finish_s[0], 3 * copy + kHandover, "root");
  // Sends of at most the fast box (256 bytes) complete once copied: the root is done after its
  // three copies, before any receiver.
  const double small = 214 / kCopy;
  r = run_one(node("ppr:4:node"), spec_for(kRootToAll, 4, 200));
  expect_time(r.finish_s[0], 3 * small, "root of small messages");
  expect_time(r.finish_s[3], 3 * small + kHandover, "last receiver of small messages");
}

TEST(SimNodeModel, CopiesOnOneSocketShareItsMemoryBandwidth) {
  // One pair alone: RGET, the receiver's copy of N at a core's 1 GB/s, the FIN back.
  const double n = 300000;
  RunResult r = run_one(node("ppr:4:node"), spec_for(kPairs, 2, 300000));
  const double alone = 48 / kCopy + kHandover + n / kCopy;
  expect_time(r.finish_s[1], alone, "receiver alone");
  expect_time(r.finish_s[0], alone + 24 / kCopy + kHandover, "sender alone");
  // Two pairs on socket 0: each piece moves at half the socket's 1.5 GB/s, less than a core's.
  r = run_one(node("ppr:4:node"), spec_for(kPairs, 4, 300000));
  const double shared = 48 / (kSocket / 2) + kHandover + n / (kSocket / 2);
  for (int k : {1, 3}) expect_time(r.finish_s[k], shared, "receiver " + std::to_string(k) + " of two pairs");
  for (int k : {0, 2}) expect_time(r.finish_s[k], shared + 24 / (kSocket / 2) + kHandover, "sender of two pairs");
}

TEST(SimNodeModel, ACopyBetweenSocketsCrossesTheirLink) {
  // ppr:2:socket: ranks 0, 1 on socket 0, ranks 2, 3 on socket 1. Every piece of 0 -> 2 crosses
  // the inter-socket link (0.5 GB/s, 2 us), the single copy from socket 0 to socket 1 too.
  const double n = 300000;
  RunResult r = run_one(node("ppr:2:socket"), spec_for(kOneToPeer, 4, 300000, 2));
  const double received = kAcrossLat + 48 / kAcross + kHandover + kAcrossLat + n / kAcross;
  expect_time(r.finish_s[2], received, "receiver across");
  expect_time(r.finish_s[0], received + kAcrossLat + 24 / kAcross + kHandover, "sender across");
  // Within socket 0 the same message costs what a lone pair does.
  r = run_one(node("ppr:2:socket"), spec_for(kOneToPeer, 4, 300000, 1));
  expect_time(r.finish_s[1], 48 / kCopy + kHandover + n / kCopy, "receiver within");
}

TEST(SimNodeModel, DataJustReceivedIsCopiedOnAtTheFreshRate) {
  // 0 -> 1 -> peer, 300000 bytes. The first copy reads rank 0's buffer, which rank 0 never
  // received into: a lone pair's time. Rank 1 then returns the FIN (24 bytes) and sends the RGET
  // (48), together through its core's link, so the RGET arrives when 72 bytes have crossed it;
  // the peer's single copy reads the 200000 bytes (node2x4's private cache) of what rank 1
  // received at the fresh rate and the other 100000 at the route's.
  const double n = 300000, cached = 200000;
  const double first = 48 / kCopy + kHandover + n / kCopy;
  RunResult r = run_one(node("ppr:4:node"), spec_for(kRelay, 3, 300000, 2));
  const double within = first + 24 / kCopy + 48 / kCopy + kHandover + (n - cached) / kCopy + cached / 0.25e9;
  expect_time(r.finish_s[2], within, "peer on the same socket");
  // ppr:2:socket puts rank 2 on socket 1: the RGET crosses the inter-socket link, whose 0.5 GB/s
  // leave the FIN the rest of the core's link, then the copy reads the cached bytes at
  // 0.125 GB/s and the rest at the route's 0.5 GB/s.
  r = run_one(node("ppr:2:socket"), spec_for(kRelay, 4, 300000, 2));
  const double across =
      first + kAcrossLat + 48 / kAcross + kHandover + kAcrossLat + (n - cached) / kAcross + cached / 0.125e9;
  expect_time(r.finish_s[2], across, "peer on the other socket");
}

// node2x4 with the single copies that read one rank's memory sharing `rate`.
SimConfig node_with_source_reads(const std::string& map_by, const std::string& rate) {
  std::string xml = collsim_test::slurp(collsim_test::platform("test/node2x4.xml"));
  xml.insert(xml.find("  </cluster>"), "    <prop id=\"collsim/source_read_bandwidth\" value=\"" + rate + "\"/>\n");
  SimConfig c = node(map_by);
  c.platform_file =
      collsim_test::write_file(collsim_test::fresh_dir("sim_node_model", "reads") / "node2x4.xml", xml).string();
  return c;
}

TEST(SimNodeModel, SingleCopiesFromOneRankShareWhatItsMemoryGives) {
  // The root's two rendezvous of 300000 bytes on socket 0, its memory read at 1 GB/s by all its
  // readers together. Its two RGETs (48 bytes, no data to copy) cross its core's link together
  // and arrive together; the two single copies then share the root's 1 GB/s (0.5 GB/s each, below
  // the socket's 0.75 each), and end together. Their FINs (24 bytes) share the socket's 1.5 GB/s.
  const double n = 300000;
  const double copied = 2 * 48 / kCopy + kHandover + n / (1e9 / 2);
  const RunResult r = run_one(node_with_source_reads("ppr:4:node", "1GBps"), spec_for(kRootToAll, 3, 300000));
  for (int k : {1, 2}) expect_time(r.finish_s[k], copied, "reader " + std::to_string(k));
  expect_time(r.finish_s[0], copied + 24 / (kSocket / 2) + kHandover, "root");
  // Without the limit the two copies share the socket alone: 0.75 GB/s each.
  const RunResult free = run_one(node("ppr:4:node"), spec_for(kRootToAll, 3, 300000));
  for (int k : {1, 2})
    expect_time(free.finish_s[k], 2 * 48 / kCopy + kHandover + n / (kSocket / 2), "free reader " + std::to_string(k));
  // One reader at a core's rate is a lone pair.
  const RunResult lone = run_one(node_with_source_reads("ppr:4:node", "1GBps"), spec_for(kPairs, 2, 300000));
  expect_time(lone.finish_s[1], 48 / kCopy + kHandover + n / kCopy, "lone reader");
  // Eager messages are the sender's own copies, not reads of its memory by others.
  const RunResult eager = run_one(node_with_source_reads("ppr:4:node", "0.1GBps"), spec_for(kRootToAll, 4, 4000));
  for (int k = 1; k <= 3; ++k)
    expect_time(eager.finish_s[k], k * 4014 / kCopy + kHandover, "eager receiver " + std::to_string(k));
}

// node2x4 with 8 cores a socket and levels inside it: 2 NUMA domains of 4 cores (each with
// 1.2 GB/s of memory), core groups of 2; a copy between two groups of one domain crosses a link
// of 0.4 GB/s and 3 us, between two domains of one socket a link of 0.4 GB/s and 5 us. map-by
// ppr:16:node puts rank r on core r of socket 0 (r < 8): group r / 2, NUMA domain r / 4.
constexpr double kGroupBw = 0.4e9, kGroupLat = 3 * kUs, kNumaLat = 5 * kUs, kDomain = 1.2e9;

SimConfig node_with_levels(const std::string& map_by) {
  std::string xml = collsim_test::slurp(collsim_test::platform("test/node2x4.xml"));
  xml.replace(xml.find("core=\"8\""), 8, "core=\"16\"");
  xml.insert(xml.find("  </cluster>"),
             "    <prop id=\"collsim/numa_domains\" value=\"2\"/>\n"
             "    <prop id=\"collsim/core_group\" value=\"2\"/>\n"
             "    <prop id=\"collsim/core_group_latency\" value=\"3us\"/>\n"
             "    <prop id=\"collsim/core_group_bandwidth\" value=\"0.4GBps\"/>\n"
             "    <prop id=\"collsim/numa_latency\" value=\"5us\"/>\n"
             "    <prop id=\"collsim/numa_memory_bandwidth\" value=\"1.2GBps\"/>\n");
  SimConfig c = node(map_by);
  c.platform_file =
      collsim_test::write_file(collsim_test::fresh_dir("sim_node_model", "levels") / "node2x8.xml", xml).string();
  return c;
}

TEST(SimNodeModel, ACopyInsideASocketGoesThroughTheLevelItsRanksShare) {
  // A rendezvous of N bytes from rank 0: the RGET (48 bytes), the receiver's single copy, the FIN
  // (24 bytes), each over the pair's route. Same core group: a lone pair at a core's 1 GB/s (the
  // domain's 1.2 GB/s is wider).
  const double n = 300000;
  RunResult r = run_one(node_with_levels("ppr:16:node"), spec_for(kOneToPeer, 8, 300000, 1));
  expect_time(r.finish_s[1], 48 / kCopy + kHandover + n / kCopy, "same core group");
  // Rank 2, the other group of NUMA domain 0: every piece crosses the 0.4 GB/s, 3 us link.
  r = run_one(node_with_levels("ppr:16:node"), spec_for(kOneToPeer, 8, 300000, 2));
  double received = kGroupLat + 48 / kGroupBw + kHandover + kGroupLat + n / kGroupBw;
  expect_time(r.finish_s[2], received, "other core group");
  expect_time(r.finish_s[0], received + kGroupLat + 24 / kGroupBw + kHandover, "sender to the other group");
  // Rank 4, NUMA domain 1 of the same socket: the same link's rate, the NUMA latency.
  r = run_one(node_with_levels("ppr:16:node"), spec_for(kOneToPeer, 8, 300000, 4));
  received = kNumaLat + 48 / kGroupBw + kHandover + kNumaLat + n / kGroupBw;
  expect_time(r.finish_s[4], received, "other NUMA domain");
  expect_time(r.finish_s[0], received + kNumaLat + 24 / kGroupBw + kHandover, "sender to the other domain");
  // map-by ppr:2:numa puts ranks 2 and 3 on domain 1 (cores 4 and 5): rank 2 is as far as rank 4
  // was under ppr:16:node.
  r = run_one(node_with_levels("ppr:2:numa"), spec_for(kOneToPeer, 4, 300000, 2));
  expect_time(r.finish_s[2], received, "other NUMA domain, ppr:2:numa");
}

TEST(SimNodeModel, CopiesOfOneNumaDomainShareItsMemoryBandwidth) {
  // Four pairs at once, each inside one core group: (0,1) and (2,3) in domain 0, (4,5) and (6,7)
  // in domain 1. Each domain's 1.2 GB/s goes to its two copies, 0.6 GB/s each (below a core's
  // 1 GB/s), whatever the other domain does; the socket's 1.5 GB/s is no longer one pool (it
  // would give 0.375 GB/s each).
  const double n = 300000, each = kDomain / 2;
  const RunResult r = run_one(node_with_levels("ppr:16:node"), spec_for(kPairs, 8, 300000));
  const double shared = 48 / each + kHandover + n / each;
  for (int k : {1, 3, 5, 7}) expect_time(r.finish_s[k], shared, "receiver " + std::to_string(k));
  for (int k : {0, 2, 4, 6}) expect_time(r.finish_s[k], shared + 24 / each + kHandover, "sender " + std::to_string(k));
}

TEST(SimNodeModel, ANodeWithoutMemoryBandwidthKeepsItsLoopback) {
  // star16 states no memory bandwidth: the root's copies go out together on the host's links
  // (20 us and 1.25 GB/s), shared three ways.
  SimConfig c = exact("test/star16.xml", 4, "tcp+shm");
  const RunResult r = run_one(c, spec_for(kRootToAll, 4, 4000));
  for (int k = 1; k <= 3; ++k) expect_time(r.finish_s[k], 20e-6 + 3 * 4014 / 1.25e9, "receiver " + std::to_string(k));
}

}  // namespace
}  // namespace collsim
