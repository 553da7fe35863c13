// The sim engine's small helpers: host order, bandwidth units, rank lists in error messages.
#include <gtest/gtest.h>

#include <algorithm>

#include "engines/sim/simulation.hpp"

namespace collsim::sim {
namespace {

TEST(HostOrder, NaturalOrderOfNames) {
  std::vector<std::string> names{"grisou-10", "grisou-2", "grisou-1", "grisou-51", "grisou-9", "a", "grisou-02"};
  std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) { return natural_less(a, b); });
  EXPECT_EQ(names,
            (std::vector<std::string>{"a", "grisou-1", "grisou-02", "grisou-2", "grisou-9", "grisou-10", "grisou-51"}));
  EXPECT_TRUE(natural_less("node-2.site", "node-10.site"));
  EXPECT_FALSE(natural_less("node-10", "node-10"));
  EXPECT_TRUE(natural_less("n1", "n1a"));
}

TEST(HostOrder, BandwidthUnits) {
  EXPECT_DOUBLE_EQ(parse_bandwidth("5GBps"), 5e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("10Gbps"), 1.25e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("1.5e9"), 1.5e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth(" 2MiBps "), 2.0 * 1048576);
  EXPECT_LT(parse_bandwidth("fast"), 0);
  EXPECT_LT(parse_bandwidth("5 parsecs"), 0);
  EXPECT_LT(parse_bandwidth("0GBps"), 0);
  EXPECT_LT(parse_bandwidth(""), 0);
}

TEST(HostOrder, RankLists) {
  EXPECT_EQ(rank_list({3, 5}), "3, 5");
  EXPECT_EQ(rank_list({1, 2, 3, 5, 6}), "1-3, 5, 6");
  EXPECT_EQ(rank_list({7}), "7");
  std::vector<int> many;
  for (int i = 0; i < 100; i += 2) many.push_back(i);
  EXPECT_NE(rank_list(many).find("(50 ranks)"), std::string::npos);
}

}  // namespace
}  // namespace collsim::sim
