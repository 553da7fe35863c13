// Clusters as a sweep axis (experiment/scenario/cluster_sweep.hpp): a scenario's generated platforms and
// placements expand into one cluster per combination, with the swept parameters as axes, each
// cluster's own platform file, placement and model; mistakes are refused at their position.
#include "experiment/scenario/cluster_sweep.hpp"
#include "common/files.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "engines/sim/generated_platform.hpp"
#include "experiment/scenario/scenario.hpp"

namespace collsim {
namespace {

namespace fs = std::filesystem;

fs::path scenario_file(const std::string& name, const std::string& text) {
  return collsim_test::write_file(collsim_test::scratch_dir("cluster-test") / (name + ".yaml"), text);
}

std::string axes(const std::vector<std::pair<std::string, std::string>>& a) {
  std::string out;
  for (const auto& [k, v] : a) out += (out.empty() ? "" : " ") + k + "=" + v;
  return out;
}

using collsim_test::slurp;

const std::string kOps = "procs: [4]\nbytes: [1KiB]\noperations: [bcast/binomial]\n";

TEST(ClusterSweep, EveryCombinationIsAClusterWithItsAxes) {
  const fs::path f = scenario_file("combos",
                                   "engines: [model, sim]\n"
                                   "model: {kind: two_level, from_platform: true}\n"
                                   "platform:\n  topology: fat_tree\n  nodes: 16\n  levels: 2\n"
                                   "  taper: [1, 2]\n  latency: [1us, 2us]\n"
                                   "map_by: [ppr:1:node, ppr:2:node]\n" +
                                       kOps);
  const Scenario sc = load_scenario(f.string());
  ASSERT_EQ(sc.clusters.size(), 8u);
  EXPECT_EQ(axes(sc.clusters[0].axes), "taper=1 latency=1us map_by=ppr:1:node");
  EXPECT_EQ(axes(sc.clusters[1].axes), "taper=1 latency=1us map_by=ppr:2:node");
  EXPECT_EQ(axes(sc.clusters[2].axes), "taper=1 latency=2us map_by=ppr:1:node");
  EXPECT_EQ(axes(sc.clusters[7].axes), "taper=2 latency=2us map_by=ppr:2:node");
  // Each cluster's platform is the generated file of its parameters, loaded by SimGrid.
  EXPECT_NE(sc.clusters[0].sim.platform_file, sc.clusters[2].sim.platform_file);
  EXPECT_EQ(sc.clusters[0].sim.platform_file, sc.clusters[1].sim.platform_file);  // same cluster, two placements
  EXPECT_EQ(slurp(sc.clusters[2].sim.platform_file), sc.clusters[2].generated_xml);
  EXPECT_NE(sc.clusters[2].generated_xml.find("<prop id=\"collsim/latency\" value=\"2us\"/>"), std::string::npos);
  EXPECT_EQ(platform_host_count(sc.clusters[0].sim.platform_file), 16u);
  // The model follows each cluster: its placement and its latency (2-level fat-tree routes cross 2
  // or 4 links, so the mean route's latency doubles with the link latency).
  // ppr:K:node with the generated nodes' 2 sockets of 8 cores: K ranks a node, socket 0 first.
  EXPECT_EQ(sc.clusters[1].model.two_level.placement, (models::Placement{2, 0, 2, false, 8}));
  EXPECT_EQ(sc.clusters[0].model.two_level.placement, (models::Placement{1, 0, 2, false, 8}));
  EXPECT_NEAR(sc.clusters[2].model.two_level.inter.alpha, 2 * sc.clusters[0].model.two_level.inter.alpha, 1e-15);
  // The plan: engines, then clusters, then the operations; each point carries its cluster.
  const auto plan = expand_plan(sc);
  ASSERT_EQ(plan.size(), 16u);
  EXPECT_EQ(plan[3].engine, Engine::model);
  EXPECT_EQ(axes(plan[3].axes), "taper=1 latency=2us map_by=ppr:2:node");
  EXPECT_EQ(plan[3].sim.platform_file, sc.clusters[3].sim.platform_file);
  EXPECT_EQ(plan[8].engine, Engine::sim);
  EXPECT_EQ(axes(plan[8].axes), axes(sc.clusters[0].axes));
}

TEST(ClusterSweep, AListOfClustersSweepsTopologyAndKeepsWhatIsShared) {
  const fs::path f = scenario_file("list",
                                   "engines: [sim]\nplatform:\n"
                                   "  - {topology: crossbar, nodes: 16, bandwidth: 10Gbps}\n"
                                   "  - {topology: torus, dims: '4,4', bandwidth: 10Gbps}\n" +
                                       kOps);
  const Scenario sc = load_scenario(f.string());
  ASSERT_EQ(sc.clusters.size(), 2u);
  // bandwidth is the same everywhere: not an axis; nodes and dims are given in one cluster only.
  EXPECT_EQ(axes(sc.clusters[0].axes), "topology=crossbar nodes=16 dims=");
  EXPECT_EQ(axes(sc.clusters[1].axes), "topology=torus nodes= dims=4,4");
}

TEST(ClusterSweep, AFileAndOnePlacementHaveNoAxes) {
  const fs::path f = scenario_file("file", "engines: [sim]\nplatform: " + std::string(COLLSIM_SOURCE_DIR) +
                                               "/platforms/grisou.xml\nmap_by: ppr:1:socket\n" + kOps);
  const Scenario sc = load_scenario(f.string());
  ASSERT_EQ(sc.clusters.size(), 1u);
  EXPECT_TRUE(sc.clusters[0].axes.empty());
  EXPECT_EQ(sc.clusters[0].sim.map_by, *models::parse_map_by("ppr:1:socket"));
  EXPECT_TRUE(sc.clusters[0].generated_xml.empty());
}

TEST(ClusterSweep, GeneratedFilesAreSharedByContent) {
  ClusterSpec spec;
  set_parameter(spec, "nodes", "3");
  const std::string xml = platform_xml(spec);
  const std::string a = cached_platform_file(xml);
  EXPECT_EQ(cached_platform_file(xml), a);
  EXPECT_EQ(slurp(a), xml);
  EXPECT_EQ(fs::path(a).parent_path(), fs::path(platform_cache_dir()));
}

// The message is FILE:where_and_what (all of it, or its start with `prefix`).
void expect_refused(const std::string& name, const std::string& text, const std::string& where_and_what,
                    bool prefix = false) {
  const fs::path f = scenario_file(name, text);
  try {
    load_scenario(f.string());
    ADD_FAILURE() << name << ": accepted";
  } catch (const ScenarioError& e) {
    const std::string want = f.string() + ":" + where_and_what;
    const std::string got = e.what();
    EXPECT_EQ(prefix ? got.substr(0, want.size()) : got, want);
  }
}

TEST(ClusterSweep, MistakesAreRefusedWhereTheyAre) {
  expect_refused("bad-value", "engines: [sim]\nplatform:\n  nodes: 4\n  latency: [1us, fast]\n" + kOps,
                 "4:18: platform: latency: 'fast' is not a time (e.g. 10us, 1.5ms, 2e-6; a bare number is seconds)");
  expect_refused("bad-name", "engines: [sim]\nplatform:\n  nodes: 4\n  speeed: 1Gf\n" + kOps,
                 "4:11: platform: speeed: not a platform parameter (topology, nodes, sockets, cores, speed, bandwidth, "
                 "latency, loopback_bandwidth, loopback_latency, memcpy, copy_overhead, memory_bandwidth, "
                 "inter_socket_bandwidth, "
                 "inter_socket_latency, core_group, numa_domains, core_group_latency, core_group_bandwidth, "
                 "numa_latency, numa_memory_bandwidth, fresh_copy_bandwidth, inter_socket_fresh_copy_bandwidth, "
                 "private_cache, shared_cache, uncached_copy_bandwidth, "
                 "source_read_bandwidth, "
                 "protocol, "
                 "network_model, crosstraffic, levels, down, taper, fat_tree, dims, "
                 "groups, chassis, routers, nodes_per_router, blue_links, black_links, green_links, dragonfly)");
  expect_refused("conflict", "engines: [sim]\nplatform:\n  nodes: 4\n  taper: [1, 2]\n" + kOps,
                 "3:3: platform (nodes 4, taper 1): taper applies to topology fat_tree, not crossbar");
  expect_refused("empty", "engines: [sim]\nplatform:\n  nodes: []\n" + kOps, "3:10: platform.nodes: an empty list");
  expect_refused("map", "engines: [sim]\nplatform: {nodes: 4}\nmap_by: [node, ppr:two:node]\n" + kOps,
                 "3:16: map_by: 'ppr:two:node' is not one of core, ppr:K:node (or block:K), ppr:K:socket, node, "
                 "socket, numa, ppr:K:numa");
  expect_refused("fit",
                 "engines: [sim]\nplatform: {nodes: 2}\nranks_per_node: [1, 2]\nprocs: [4]\nbytes: [1]\n"
                 "operations: [bcast/binomial]\n",
                 " bcast/binomial asks for 4 processes, but platform " + platform_cache_dir() + "/", true);
  // The message ends with the room there is: 2 nodes, one rank each.
  const fs::path f = scenario_file("fit-end",
                                   "engines: [sim]\nplatform: {nodes: 2}\nprocs: [3]\nbytes: [1]\n"
                                   "operations: [bcast/binomial]\n");
  try {
    load_scenario(f.string());
    ADD_FAILURE() << "3 processes accepted on 2 nodes";
  } catch (const ScenarioError& e) {
    EXPECT_TRUE(std::string(e.what()).ends_with(".xml has 2 hosts, room for 2 ranks placed --map-by ppr:1:node"))
        << e.what();
  }
}

}  // namespace
}  // namespace collsim
