// Generated platforms (engines/sim/generated_platform.hpp) as SimGrid loads and simulates them:
// every topology holds its nodes and runs a collective with real bytes; a message's time is
// (links crossed) x latency + m / bandwidth for the route's link count under CM02; a fat-tree's
// taper divides the bandwidth of flows that cross the leaf switches' up links; and the model
// engine's two-level Hockney parameters are the loopback and the mean route.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "algorithms/params.hpp"
#include "common/sim_test_util.hpp"
#include "engines/sim/generated_platform.hpp"

namespace collsim {
namespace {

namespace fs = std::filesystem;

constexpr double kLat = 1e-6;   // per link
constexpr double kBw = 1.25e9;  // bytes/s per link
constexpr std::size_t kBytes = 1 << 20;

ClusterSpec spec_of(std::initializer_list<std::pair<const char*, const char*>> parameters) {
  ClusterSpec s;
  set_parameter(s, "latency", "1us");
  set_parameter(s, "bandwidth", "1.25GBps");
  set_parameter(s, "loopback_latency", "0.5us");
  set_parameter(s, "loopback_bandwidth", "4GBps");
  for (const auto& [name, value] : parameters) set_parameter(s, name, value);
  return s;
}

// The platform written to a file of this test process.
std::string written(const ClusterSpec& spec, const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("collsim-genplat-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / (name + ".xml");
  std::ofstream(file) << platform_xml(spec);
  return file.string();
}

SimConfig exact_on(const std::string& file, int ranks_per_node = 1) {
  SimConfig c = collsim_test::exact("grisou.xml", ranks_per_node);
  c.platform_file = file;
  return c;
}

struct Case {
  const char* name;
  ClusterSpec spec;
  long long nodes;
};

std::vector<Case> cases() {
  return {
      {"crossbar", spec_of({{"nodes", "8"}}), 8},
      {"fat_tree", spec_of({{"topology", "fat_tree"}, {"down", "4,4"}}), 16},
      {"fat_tree3", spec_of({{"topology", "fat_tree"}, {"levels", "3"}, {"nodes", "8"}, {"taper", "2"}}), 8},
      {"torus", spec_of({{"topology", "torus"}, {"dims", "4,4"}}), 16},
      {"dragonfly", spec_of({{"topology", "dragonfly"}, {"dragonfly", "2,1;2,1;2,1;2"}}), 16},
  };
}

TEST(GeneratedPlatformSim, EveryTopologyLoadsAndRunsRealBytes) {
  const AlgorithmInfo* bcast = find_algorithm("bcast/binomial");
  ASSERT_NE(bcast, nullptr);
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const std::string file = written(c.spec, c.name);
    EXPECT_EQ(platform_host_count(file), static_cast<std::size_t>(c.nodes));
    // The file's own protocol (tcp) and network model (CM02), two ranks per node.
    SimConfig config;
    config.platform_file = file;
    config.map_by = {models::MapBy::Policy::ppr_node, 2};
    RunSpec s;
    s.algorithm = bcast;
    s.procs = static_cast<int>(2 * c.nodes);
    s.bytes = 100000;
    const RunResult r = collsim_test::run_one(config, s);
    EXPECT_EQ(r.data_error, "");
    EXPECT_EQ(r.protocol, "tcp");
    EXPECT_GT(r.time_s, 0);
  }
}

// The defaults are Grisou's: a generated 51-node crossbar simulates exactly as grisou.xml does.
TEST(GeneratedPlatformSim, DefaultsAreGrisou) {
  ClusterSpec grisou;
  set_parameter(grisou, "nodes", "51");
  RunSpec s;
  s.algorithm = find_algorithm("bcast/scatter_allgather");
  ASSERT_NE(s.algorithm, nullptr);
  s.procs = 12;
  s.bytes = 300000;
  SimConfig generated;
  generated.platform_file = written(grisou, "grisou");
  generated.map_by = {models::MapBy::Policy::ppr_node, 2};
  SimConfig original = generated;
  original.platform_file = collsim_test::platform("grisou.xml");
  const RunResult a = collsim_test::run_one(generated, s);
  const RunResult b = collsim_test::run_one(original, s);
  EXPECT_EQ(a.data_error, "");
  EXPECT_EQ(a.protocol, b.protocol);
  EXPECT_EQ(a.time_s, b.time_s);
  EXPECT_EQ(a.finish_s, b.finish_s);
  EXPECT_EQ(platform_host_count(generated.platform_file), 51u);
}

// Rank 0 sends kBytes to the last rank; the others do nothing.
Task<> first_to_last(Comm& comm, RankBuffers b, const AlgorithmParams&) {
  if (comm.rank() == 0) co_await comm.send(b.data, comm.size() - 1, 7);
  if (comm.rank() == comm.size() - 1) co_await comm.recv(b.data, 0, 7);
}

// Ranks 0 .. k-1 each send kBytes to rank k + r at once (k = the `fanout` knob).
Task<> k_to_k(Comm& comm, RankBuffers b, const AlgorithmParams& p) {
  const int k = p.fanout;
  const int r = comm.rank();
  if (r < k) co_await comm.send(b.data, r + k, 7);
  if (r >= k && r < 2 * k) co_await comm.recv(b.data, r - k, 7);
}

double simulated(const std::string& file, AlgorithmFn fn, int procs, int fanout = 0) {
  const AlgorithmInfo a{"test/pattern", Operation::bcast, 0, false, "test", fn};
  RunSpec s;
  s.algorithm = &a;
  s.procs = procs;
  s.bytes = kBytes;
  s.real_bytes = false;
  s.params.fanout = fanout;
  return collsim_test::run_one(exact_on(file), s).time_s;
}

// Under CM02 with the ideal protocol a rendezvous of m bytes on an idle route takes
// links x latency + m / bandwidth; the link counts are SimGrid's routes (generated_platform.hpp).
TEST(GeneratedPlatformSim, OneMessageCostsItsRoute) {
  const auto expect_links = [](const ClusterSpec& spec, const char* name, int procs, int links) {
    SCOPED_TRACE(std::string(name) + " to host " + std::to_string(procs - 1));
    const double want = links * kLat + static_cast<double>(kBytes) / kBw;
    EXPECT_NEAR(simulated(written(spec, name), first_to_last, procs), want, want * 1e-9);
  };
  const auto all = cases();
  expect_links(all[0].spec, "crossbar", 8, 2);
  expect_links(all[1].spec, "fat_tree", 2, 2);   // one leaf switch
  expect_links(all[1].spec, "fat_tree", 16, 4);  // up to a top switch and down: 3 switches
  expect_links(all[2].spec, "fat_tree3", 8, 6);  // 5 switches
  expect_links(all[3].spec, "torus", 2, 1);      // neighbours
  expect_links(all[3].spec, "torus", 11, 4);     // (0,0) to (2,2)
  expect_links(all[4].spec, "dragonfly", 2, 2);  // one router
  expect_links(all[4].spec, "dragonfly", 3, 3);  // the next router of the chassis
  expect_links(all[4].spec, "dragonfly", 16, 6);
}

// Four nodes of one leaf switch send to four of another at once: at 1:1 each flow has its own up
// link (D-mod-K routing spreads the destinations over the 4 top switches), at 2:1 two share
// each, at 4:1 all four share one; max-min sharing divides the bandwidth accordingly.
TEST(GeneratedPlatformSim, TaperDividesTheBandwidthOfCrossSwitchFlows) {
  for (const auto& [taper, sharing] : {std::pair{"1:1", 1}, std::pair{"2:1", 2}, std::pair{"4:1", 4}}) {
    SCOPED_TRACE(taper);
    const ClusterSpec spec = spec_of({{"topology", "fat_tree"}, {"down", "4,4"}, {"taper", taper}});
    const double want = 4 * kLat + sharing * static_cast<double>(kBytes) / kBw;
    EXPECT_NEAR(simulated(written(spec, std::string("taper") + taper[0]), k_to_k, 8, 4), want, want * 1e-9);
  }
  // Inside one leaf switch the taper does not matter: ranks 0, 1 send to 2, 3.
  const ClusterSpec spec = spec_of({{"topology", "fat_tree"}, {"down", "4,4"}, {"taper", "4:1"}});
  const double want = 2 * kLat + static_cast<double>(kBytes) / kBw;
  EXPECT_NEAR(simulated(written(spec, "taper-leaf"), k_to_k, 4, 2), want, want * 1e-9);
}

// The model engine's view: intra = the loopback; inter = the mean route over pairs of nodes;
// alpha with an empty message's overheads.
TEST(GeneratedPlatformSim, HockneyIsTheLoopbackAndTheMeanRoute) {
  const auto expect = [](const ClusterSpec& spec, const char* name, double mean_links) {
    SCOPED_TRACE(name);
    const models::TwoLevelHockney h = platform_hockney(exact_on(written(spec, name), 4));
    EXPECT_EQ(h.placement, (models::Placement{4, 0, 2, false, 8}));  // 4 a node, socket 0's 8 cores first
    EXPECT_NEAR(h.intra.alpha, 0.5e-6, 1e-18);
    EXPECT_NEAR(h.intra.beta, 1 / 4e9, 1e-24);
    EXPECT_NEAR(h.inter.alpha, mean_links * kLat, 1e-15);
    EXPECT_NEAR(h.inter.beta, 1 / kBw, 1e-24);
  };
  const auto all = cases();
  expect(all[0].spec, "crossbar", 2);
  // From a node: 3 others under its leaf switch (2 links), 12 under the others (4 links).
  expect(all[1].spec, "fat_tree", (3 * 2 + 12 * 4) / 15.0);
  // 4 x 4 torus: ring distances 0, 1, 2, 1 in each dimension, 32 hops to the 15 others.
  expect(all[3].spec, "torus", 32 / 15.0);
  // One group, one chassis, 4 routers of 2 nodes: 1 node on the same router (2 links), 6 on the
  // others (3 links).
  expect(spec_of({{"topology", "dragonfly"}, {"dragonfly", "1,1;1,1;4,1;2"}}), "dragonfly1", 20 / 7.0);
  // LV08's factors apply to the mean as to any route.
  SimConfig lv08 = exact_on(written(all[1].spec, "fat_tree"), 1);
  lv08.cfg = {"network/model:LV08"};
  const models::TwoLevelHockney h = platform_hockney(lv08);
  EXPECT_NEAR(h.inter.alpha, 13.01 * 3.6 * kLat, 1e-15);
  EXPECT_NEAR(h.inter.beta, 1 / (0.97 * kBw), 1e-24);
  // An empty message's overheads are in alpha, each level its profile's: shm inside the node
  // (0.1 us sent, 0.05 us received), tcp between nodes (0.3 us sent); the per-byte parts are not.
  SimConfig costly = exact_on(written(all[0].spec, "crossbar"), 4);
  costly.protocol = "tcp+shm";
  costly.protocol_options = {"shm/send_overhead:0:1e-07:2e-10", "shm/recv_overhead:5e-08", "tcp/send_overhead:3e-07"};
  const models::TwoLevelHockney o = platform_hockney(costly);
  EXPECT_NEAR(o.intra.alpha, 0.5e-6 + 0.1e-6 + 0.05e-6, 1e-18);
  EXPECT_NEAR(o.intra.beta, 1 / 4e9, 1e-24);
  EXPECT_NEAR(o.inter.alpha, 2 * kLat + 0.3e-6, 1e-15);
}

}  // namespace
}  // namespace collsim
