// Rank placement in the sim engine and in the platform's two-level model: every --map-by policy
// puts ranks where mpirun would, on Grisou (51 nodes, 2 sockets x 8 cores, a loopback inside a
// node), and the model engine's placement from the platform is the same one.
#include <gtest/gtest.h>

#include "common/sim_test_util.hpp"
#include "engines/model/model_engine.hpp"
#include "registry/registry.hpp"

namespace collsim {
namespace {

SimConfig grisou(const std::string& map_by) {
  SimConfig c = collsim_test::exact("grisou.xml");
  c.map_by = *models::parse_map_by(map_by);
  return c;
}

RunSpec bcast(int procs, std::size_t bytes) {
  RunSpec s;
  s.algorithm = find_algorithm("bcast/basic_linear");
  s.procs = procs;
  s.bytes = bytes;
  s.real_bytes = true;
  return s;
}

// grisou.xml: between nodes 2 links of 10 us at 1.25 GBps; inside a node the loopback, 5 us at 3 GBps.
constexpr double kBytes = 1 << 20;
const double kInter = 20e-6 + kBytes / 1.25e9;
const double kIntra = 5e-6 + kBytes / 3e9;

// Two ranks: one transfer, inside a node or between two, by the policy.
TEST(Placement, EachPolicyPutsTwoRanksWhereMpirunWould) {
  const struct {
    const char* map_by;
    double want;
  } cases[] = {{"ppr:1:node", kInter}, {"ppr:2:node", kIntra},   {"node", kInter},
               {"socket", kIntra},     {"ppr:1:socket", kIntra}, {"ppr:2:socket", kIntra}};
  for (const auto& c : cases) {
    const SimConfig config = grisou(c.map_by);
    const RunResult sim = collsim_test::run_all(config, {bcast(2, 1 << 20)}).at(0);
    EXPECT_EQ(sim.data_error, "") << c.map_by;
    EXPECT_NEAR(sim.time_s, c.want, c.want * 1e-9) << c.map_by;
    // The model engine on the platform's two-level Hockney, placed the same way.
    ModelConfig model;
    model.kind = ModelConfig::Kind::two_level;
    model.two_level = platform_hockney(config);
    EXPECT_NEAR(run_model(model, bcast(2, 1 << 20)).time_s, c.want, c.want * 1e-9) << c.map_by;
  }
}

// Linear bcast from rank 0 on 4 ranks: the root's sends share its link when they leave the node
// and the loopback when they stay, so the time says how many ranks share the root's node.
TEST(Placement, PlatformPlacementIsResolvedWithTheClustersShape) {
  const models::TwoLevelHockney by_socket = platform_hockney(grisou("ppr:1:socket"));
  EXPECT_EQ(by_socket.placement, (models::Placement{2, 0, 2, false}));
  const models::TwoLevelHockney socket = platform_hockney(grisou("socket"));
  EXPECT_EQ(socket.placement.block, 16);  // a node's 16 cores, sockets alternating
  EXPECT_TRUE(socket.placement.by_socket);
  const models::TwoLevelHockney node = platform_hockney(grisou("node"));
  EXPECT_EQ(node.placement.round_robin, 51);
  EXPECT_EQ(platform_size(grisou("node")).capacity, 51u * 16u);
  EXPECT_EQ(platform_size(grisou("ppr:3:node")).capacity, 51u * 3u);
  // Round-robin wraps: rank 51 shares grisou-1 with rank 0.
  EXPECT_TRUE(node.placement.same_node(0, 51));
  EXPECT_FALSE(node.placement.same_node(0, 50));
}

TEST(Placement, RoundRobinWrapsOntoTheFirstNodeAgain) {
  // 52 ranks by node on 51 nodes: ranks 0 and 51 share grisou-1's loopback; the linear bcast's
  // message to rank 51 goes through it, the others through the network.
  const RunResult r = collsim_test::run_all(grisou("node"), {bcast(52, 8)}).at(0);
  EXPECT_EQ(r.data_error, "");
  ASSERT_EQ(r.finish_s.size(), 52u);
  EXPECT_LT(r.finish_s[51], r.finish_s[1]);  // the loopback's 5 us beat the network's 20 us
}

TEST(Placement, APlatformWithoutSocketsRefusesASocketPlacement) {
  SimConfig c = collsim_test::exact("test/star16.xml");
  c.map_by = *models::parse_map_by("ppr:1:socket");
  try {
    collsim_test::run_all(c, {bcast(2, 8)});
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), collsim_test::platform("test/star16.xml") +
                                         ": map-by ppr:1:socket needs the number of sockets per node (a platform "
                                         "host property collsim/sockets)");
  }
}

}  // namespace
}  // namespace collsim
