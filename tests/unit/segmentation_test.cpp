#include <gtest/gtest.h>

#include "algorithms/segmentation.hpp"
#include "algorithms/topology/tree.hpp"

namespace collsim {
namespace {

TEST(Segmentation, FollowsOpenMpiRule) {
  Segmentation a(10000, 1024);
  EXPECT_EQ(a.count(), 10u);
  EXPECT_EQ(a.length(9), 784u);
  EXPECT_EQ(a.offset(9), 9216u);
  // A segment at least as large as the message means one segment.
  EXPECT_EQ(Segmentation(1024, 1024).count(), 1u);
  EXPECT_EQ(Segmentation(1000, 0).count(), 1u);
  EXPECT_EQ(Segmentation(1000, 0).length(0), 1000u);
  EXPECT_EQ(Segmentation(0, 1024).count(), 0u);
}

TEST(BinomialTree, MatchesOpenMpiShapeForEight) {
  // 0 -> {1,2,4}, 1 -> {3,5}, 2 -> {6}, 3 -> {7}
  EXPECT_EQ(binomial_tree(0, 8, 0).children, (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(binomial_tree(1, 8, 0).children, (std::vector<int>{3, 5}));
  EXPECT_EQ(binomial_tree(2, 8, 0).children, (std::vector<int>{6}));
  EXPECT_EQ(binomial_tree(3, 8, 0).children, (std::vector<int>{7}));
  EXPECT_TRUE(binomial_tree(7, 8, 0).children.empty());
  EXPECT_EQ(binomial_tree(7, 8, 0).parent, 3);
  EXPECT_EQ(binomial_tree(0, 8, 0).parent, -1);
}

TEST(BinomialTree, RootIsShifted) {
  // Root 3 of 5: vranks 0..4 are ranks 3,4,0,1,2.
  EXPECT_EQ(binomial_tree(3, 5, 3).children, (std::vector<int>{4, 0, 2}));
  EXPECT_EQ(binomial_tree(4, 5, 3).children, (std::vector<int>{1}));
  EXPECT_EQ(binomial_tree(1, 5, 3).parent, 4);
}

TEST(BinomialTree, EveryRankHasOneParentAndParentsListIt) {
  for (int p = 1; p <= 40; ++p)
    for (int root = 0; root < p; ++root) {
      std::vector<int> seen(static_cast<std::size_t>(p), 0);
      for (int r = 0; r < p; ++r)
        for (int c : binomial_tree(r, p, root).children) {
          ++seen[static_cast<std::size_t>(c)];
          EXPECT_EQ(binomial_tree(c, p, root).parent, r);
        }
      for (int r = 0; r < p; ++r) EXPECT_EQ(seen[static_cast<std::size_t>(r)], r == root ? 0 : 1);
    }
}

}  // namespace
}  // namespace collsim
