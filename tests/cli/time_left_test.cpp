// The time left of collsim-mpi fidelity's progress line: rows yet to come cost what rows of their
// size cost so far, unseen sizes scaled from the nearest smaller one; and its rough durations.
#include "cli/time_left.hpp"

#include <gtest/gtest.h>

namespace collsim::cli {
namespace {

TEST(TimeLeft, RowsOfASizeCostWhatThatSizeCostSoFar) {
  TimeLeft left({8, 16, 32, 8, 16, 32});
  EXPECT_EQ(left.total(), 6u);
  EXPECT_EQ(left.seconds_left(), 0.0);  // nothing measured: no estimate
  left.row_done(1);
  // 16 and 32 unseen: 1 s scaled by 2 and 4 from size 8; then 8 (1), 16 (2), 32 (4).
  EXPECT_DOUBLE_EQ(left.seconds_left(), 2 + 4 + 1 + 2 + 4);
  left.row_done(3);
  // 32 from 16 (3 s x 2); 8 took 1 s, 16 took 3 s.
  EXPECT_DOUBLE_EQ(left.seconds_left(), 6 + 1 + 3 + 6);
  left.row_done(5);
  left.row_done(2);
  // Size 8 now averages (1 + 2) / 2; left: 16 (3 s) and 32 (5 s).
  EXPECT_DOUBLE_EQ(left.seconds_left(), 3 + 5);
  left.row_done(3);
  left.row_done(5);
  EXPECT_EQ(left.done(), 6u);
  EXPECT_EQ(left.seconds_left(), 0.0);
  left.row_done(7);  // beyond the last row: ignored
  EXPECT_EQ(left.done(), 6u);
}

TEST(TimeLeft, SizeZeroIsNotScaledFromAndNothingIsScaledDown) {
  TimeLeft zero_first({0, 8});
  zero_first.row_done(0.5);
  EXPECT_DOUBLE_EQ(zero_first.seconds_left(), 0.5);  // nothing positive below 8: size 0's time
  TimeLeft large_first({8, 0, 4});
  large_first.row_done(2);
  EXPECT_DOUBLE_EQ(large_first.seconds_left(), 2 + 2);  // 0 and 4 take what the nearest larger took
}

TEST(TimeLeft, RoughDurations) {
  EXPECT_EQ(rough_duration(0), "0 s");
  EXPECT_EQ(rough_duration(-3), "0 s");
  EXPECT_EQ(rough_duration(59.4), "59 s");
  EXPECT_EQ(rough_duration(89), "1 min");
  EXPECT_EQ(rough_duration(90), "2 min");
  EXPECT_EQ(rough_duration(3569), "59 min");
  EXPECT_EQ(rough_duration(3570), "1 h 00 min");
  EXPECT_EQ(rough_duration(2 * 3600 + 5 * 60 + 10), "2 h 05 min");
}

}  // namespace
}  // namespace collsim::cli
