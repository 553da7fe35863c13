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

TEST(Segmentation, ElementSegmentsRoundLikeOpenMpi) {
  // COLL_BASE_COMPUTED_SEGCOUNT: segsize / typesize elements, one more when the remainder is over
  // half an element; below one element or not below the message: the whole message.
  EXPECT_EQ(element_segment(8000, 1024, 8), 1024u);
  EXPECT_EQ(element_segment(8000, 1028, 8), 1024u);  // remainder 4 = half: rounds down
  EXPECT_EQ(element_segment(8000, 1029, 8), 1032u);  // remainder 5: one more element
  EXPECT_EQ(element_segment(8000, 13, 8), 16u);
  EXPECT_EQ(element_segment(8000, 7, 8), 8000u);     // under one element
  EXPECT_EQ(element_segment(8000, 8000, 8), 8000u);  // the whole vector
  EXPECT_EQ(element_segment(8000, 0, 8), 8000u);
  EXPECT_EQ(element_segment(4004, 4003, 4), 4004u);  // rounds up to the whole vector
  EXPECT_EQ(element_segment(4004, 6, 4), 4u);        // remainder 2 = half
  EXPECT_EQ(element_segment(4004, 7, 4), 8u);
  EXPECT_EQ(Segmentation(8000, element_segment(8000, 1029, 8)).count(), 8u);
}

}  // namespace
}  // namespace collsim
