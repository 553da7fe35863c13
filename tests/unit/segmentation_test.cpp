#include <gtest/gtest.h>

#include "algorithms/segmentation.hpp"

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

}  // namespace
}  // namespace collsim
