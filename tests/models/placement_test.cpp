// Rank placement (models/placement.hpp): mpirun's --map-by forms, and where each rank lands.
#include "models/placement.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace collsim::models {
namespace {

std::vector<int> nodes(const Placement& p, int procs) {
  std::vector<int> v;
  for (int r = 0; r < procs; ++r) v.push_back(p.node_of(r));
  return v;
}

Placement resolve(const std::string& text, NodeShape shape) {
  const auto m = parse_map_by(text);
  EXPECT_TRUE(m) << text;
  std::string error;
  const auto p = place(*m, shape, error);
  EXPECT_TRUE(p) << text << ": " << error;
  return p.value_or(Placement{});
}

TEST(MapBy, ParsesMpirunFormsAndPrintsThemBack) {
  for (const char* text :
       {"ppr:1:node", "ppr:16:node", "ppr:2:socket", "node", "socket", "core", "numa", "ppr:3:numa"}) {
    const auto m = parse_map_by(text);
    ASSERT_TRUE(m) << text;
    EXPECT_EQ(to_string(*m), text);
  }
  EXPECT_EQ(parse_map_by("block:4"), (MapBy{MapBy::Policy::ppr_node, 4}));
  for (const char* bad : {"", "ppr", "ppr:0:node", "ppr:-1:node", "ppr:2:core", "ppr:x:node", "block:", "nodes",
                          "ppr:2:node:extra", "block:2x"})
    EXPECT_FALSE(parse_map_by(bad)) << bad;
}

// 2 nodes' worth of a cluster of 2 sockets x 4 cores per node, 3 nodes.
const NodeShape kShape{3, 2, 8};

TEST(Placement, PprPerNodeFillsNodesInOrder) {
  const Placement p = resolve("ppr:3:node", {});  // needs no shape
  EXPECT_EQ(nodes(p, 7), (std::vector<int>{0, 0, 0, 1, 1, 1, 2}));
  EXPECT_EQ(p.nodes_used(7), 3);
  EXPECT_EQ(p.capacity(kShape), 9);
}

TEST(Placement, PprPerSocketPutsKPerSocketAndBothSocketsOnANode) {
  const Placement p = resolve("ppr:1:socket", kShape);
  EXPECT_EQ(nodes(p, 5), (std::vector<int>{0, 0, 1, 1, 2}));
  EXPECT_EQ(p.socket_of(0), 0);
  EXPECT_EQ(p.socket_of(1), 1);
  EXPECT_EQ(p.socket_of(2), 0);
  const Placement two = resolve("ppr:2:socket", kShape);
  EXPECT_EQ(nodes(two, 5), (std::vector<int>{0, 0, 0, 0, 1}));
  EXPECT_EQ(two.socket_of(1), 0);
  EXPECT_EQ(two.socket_of(2), 1);
  EXPECT_EQ(two.capacity(kShape), 12);
}

TEST(Placement, ByNodeIsRoundRobinOverEveryNode) {
  const Placement p = resolve("node", kShape);
  EXPECT_EQ(nodes(p, 7), (std::vector<int>{0, 1, 2, 0, 1, 2, 0}));
  EXPECT_EQ(p.nodes_used(2), 2);
  EXPECT_EQ(p.nodes_used(7), 3);
  EXPECT_EQ(p.capacity(kShape), 24);  // every core of every node
  EXPECT_TRUE(p.same_node(0, 3));
  EXPECT_FALSE(p.same_node(0, 1));
}

TEST(Placement, BySocketFillsANodesCoresAlternatingSockets) {
  const Placement p = resolve("socket", kShape);
  EXPECT_EQ(nodes(p, 10), (std::vector<int>{0, 0, 0, 0, 0, 0, 0, 0, 1, 1}));
  std::vector<int> sockets;
  for (int r = 0; r < 10; ++r) sockets.push_back(p.socket_of(r));
  EXPECT_EQ(sockets, (std::vector<int>{0, 1, 0, 1, 0, 1, 0, 1, 0, 1}));
}

std::vector<int> sockets(const Placement& p, int procs) {
  std::vector<int> v;
  for (int r = 0; r < procs; ++r) v.push_back(p.socket_of(r));
  return v;
}

// mpirun gives the ranks a node receives its cores in order: socket 0's 4 cores, then socket 1's.
TEST(Placement, ByCoreFillsSocketZeroOfNodeZeroFirst) {
  const Placement p = resolve("core", kShape);
  EXPECT_EQ(nodes(p, 10), (std::vector<int>{0, 0, 0, 0, 0, 0, 0, 0, 1, 1}));
  EXPECT_EQ(sockets(p, 10), (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1, 0, 0}));
  EXPECT_EQ(p.capacity(kShape), 24);
  // ppr:K:node takes a node's cores in the same order, K ranks a node.
  const Placement six = resolve("ppr:6:node", kShape);
  EXPECT_EQ(sockets(six, 8), (std::vector<int>{0, 0, 0, 0, 1, 1, 0, 0}));
  // Round-robin over nodes: a node's k-th rank takes its k-th core.
  const Placement rr = resolve("node", kShape);
  EXPECT_EQ(sockets(rr, 15), (std::vector<int>{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1}));
  // Without a shape (no platform), ppr:K:node knows no sockets.
  EXPECT_EQ(sockets(resolve("ppr:6:node", {}), 6), (std::vector<int>(6, 0)));
}

std::vector<int> cores(const Placement& p, int procs) {
  std::vector<int> v;
  for (int r = 0; r < procs; ++r) v.push_back(p.core_of(r));
  return v;
}

// Levels inside a socket: 2 nodes of 2 sockets x 8 cores, 2 NUMA domains of 4 cores a socket,
// core groups of 2. A rank's core in its socket, by hand from mpirun's rules (placement.hpp):
//  - core: rank r of a node is on core r % 8 of socket r / 8, so ranks 0-1 share group 0, 2-3
//    group 1 (both NUMA 0), 4-7 are NUMA 1; rank 8 starts socket 1 at core 0;
//  - socket: sockets alternate, so ranks 0, 2, 4, ... take cores 0, 1, 2, ... of socket 0:
//    ranks 0 and 2 share a group, 4 is in the next, 8 (core 4) in NUMA 1;
//  - node (2 nodes): a node's k-th rank (r / 2) takes its k-th core: ranks 0 and 2 share group 0
//    of node 0, rank 4 is core 2 (group 1), rank 8 core 4 (NUMA 1);
//  - ppr:3:socket: rank r's core is r % 3 in socket r % 6 / 3.
TEST(Placement, RanksTakeCoresInOrderSoCoreGroupsAndNumaDomainsFillInTurn) {
  NodeShape shape{2, 2, 16};
  shape.core_group = 2;
  shape.numa_domains = 2;
  const Placement core = resolve("core", shape);
  EXPECT_EQ(cores(core, 17), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0}));
  EXPECT_EQ(core.cores_per_group, 2);
  EXPECT_EQ(core.cores_per_numa, 4);
  EXPECT_FALSE(core.cross_group(0, 1));
  EXPECT_TRUE(core.cross_group(1, 2));
  EXPECT_FALSE(core.cross_numa(1, 2));
  EXPECT_TRUE(core.cross_numa(3, 4));
  EXPECT_EQ(core.numa_of(9), 0);  // socket 1, core 1
  const Placement socket = resolve("socket", shape);
  EXPECT_EQ(cores(socket, 10), (std::vector<int>{0, 0, 1, 1, 2, 2, 3, 3, 4, 4}));
  EXPECT_FALSE(socket.cross_group(0, 2));
  EXPECT_TRUE(socket.cross_group(0, 4));
  EXPECT_TRUE(socket.cross_numa(0, 8));
  const Placement node = resolve("node", shape);
  EXPECT_EQ(cores(node, 10), (std::vector<int>{0, 0, 1, 1, 2, 2, 3, 3, 4, 4}));
  EXPECT_FALSE(node.cross_group(0, 2));
  EXPECT_TRUE(node.cross_numa(0, 8));
  const Placement ppr = resolve("ppr:3:socket", shape);
  EXPECT_EQ(cores(ppr, 7), (std::vector<int>{0, 1, 2, 0, 1, 2, 0}));
  EXPECT_TRUE(ppr.cross_group(0, 2));
  EXPECT_FALSE(ppr.cross_numa(0, 2));
  // Without the levels, no pair crosses one.
  const Placement flat = resolve("core", kShape);
  EXPECT_FALSE(flat.cross_group(0, 3));
  EXPECT_FALSE(flat.cross_numa(0, 3));
}

// By NUMA domain on the same shape (2 sockets x 2 domains of 4 cores a node, domains numbered
// socket by socket): map-by numa sends rank r of a node to domain r % 4, its (r / 4)-th rank,
// so ranks 0-3 go to domains 0, 1 (socket 0), 2, 3 (socket 1) at their first cores 0, 4, 0, 4,
// and rank 4 to domain 0's second core; ppr:2:numa puts ranks 2d and 2d + 1 on domain d, 8 a node.
TEST(Placement, ByNumaRoundRobinsOverANodesDomainsAndPprPutsKOnEach) {
  NodeShape shape{2, 2, 16};
  shape.core_group = 2;
  shape.numa_domains = 2;
  const Placement numa = resolve("numa", shape);
  EXPECT_EQ(nodes(numa, 17), (std::vector<int>{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}));
  EXPECT_EQ(sockets(numa, 8), (std::vector<int>{0, 0, 1, 1, 0, 0, 1, 1}));
  EXPECT_EQ(cores(numa, 8), (std::vector<int>{0, 4, 0, 4, 1, 5, 1, 5}));
  EXPECT_TRUE(numa.cross_numa(0, 1));
  EXPECT_FALSE(numa.cross_group(0, 4));  // cores 0 and 1 of domain 0: one group
  const Placement ppr = resolve("ppr:2:numa", shape);
  EXPECT_EQ(nodes(ppr, 9), (std::vector<int>{0, 0, 0, 0, 0, 0, 0, 0, 1}));
  EXPECT_EQ(sockets(ppr, 8), (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(cores(ppr, 8), (std::vector<int>{0, 1, 4, 5, 0, 1, 4, 5}));
  EXPECT_EQ(ppr.capacity(shape), 16);
  std::string error;
  EXPECT_FALSE(place(*parse_map_by("numa"), kShape, error));
  EXPECT_EQ(error,
            "map-by numa needs NUMA domains (platform host properties collsim/sockets and collsim/numa_domains)");
}

TEST(Placement, PoliciesThatNeedTheClusterSaySo) {
  std::string error;
  EXPECT_FALSE(place(*parse_map_by("node"), {}, error));
  EXPECT_EQ(error, "map-by node needs the number of nodes (from a platform)");
  EXPECT_FALSE(place(*parse_map_by("socket"), {4, 0, 0}, error));
  EXPECT_EQ(error, "map-by socket needs the number of cores per node (from a platform)");
  EXPECT_FALSE(place(*parse_map_by("core"), {4, 0, 0}, error));
  EXPECT_EQ(error, "map-by core needs the number of cores per node (from a platform)");
  EXPECT_FALSE(place(*parse_map_by("ppr:1:socket"), {4, 0, 16}, error));
  EXPECT_EQ(error,
            "map-by ppr:1:socket needs the number of sockets per node (a platform host property collsim/sockets)");
  EXPECT_FALSE(place(MapBy{MapBy::Policy::ppr_node, 0}, {}, error));
  EXPECT_EQ(error, "map-by ppr:0:node: the count must be at least 1");
}

}  // namespace
}  // namespace collsim::models
