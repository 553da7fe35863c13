// The closed-form coarray times on hand examples, written out from the model engine's rules.
#include "models/coarray_cost.hpp"

#include <gtest/gtest.h>

namespace collsim::models {
namespace {

using coarray::choose_scheme;
using coarray::GetBehaviour;
using coarray::plan_get;
using coarray::plan_put;

constexpr double kAlpha = 2e-6, kBeta = 1e-9, kCopyBw = 5e9;
constexpr std::size_t kB = 400000;

CoarrayCosts costs() { return {{kAlpha, kBeta}, kCopyBw}; }

double copy(double bytes) { return bytes / kCopyBw; }

TEST(CoarrayCost, BlockingPutPaysTwoAlphasPerPut) {
  // Case 1, NR = NL = 8000, 100 units: copy, put, wait, flush each.
  const auto p = plan_put(choose_scheme(8000, 8000, kB, false), 800000);
  EXPECT_DOUBLE_EQ(coarray_put_time(p, costs(), true), 100 * (copy(8000) + 2 * kAlpha + kBeta * 8000));
  // Case 2, NL 8, NR 8000: 1000 copies of 8 bytes per unit, still one put.
  const auto p2 = plan_put(choose_scheme(8, 8000, kB, false), 800000, 3);
  EXPECT_DOUBLE_EQ(coarray_put_time(p2, costs(), true), 300 * (copy(8000) + 2 * kAlpha + kBeta * 8000));
  // DMA: no copies.
  const auto p0 = plan_put(choose_scheme(8, 8000, kB, true), 800000);
  EXPECT_DOUBLE_EQ(coarray_put_time(p0, costs(), true), 100000 * (2 * kAlpha + kBeta * 8));
}

TEST(CoarrayCost, NonBlockingBufferedPutChainsThroughTheBuffer) {
  // Case 4, runs of 500000 cut into 400000 + 100000: 8 units over 4 runs, 2 statements.
  const auto p = plan_put(choose_scheme(1000000, 500000, kB, false), 2000000, 2);
  ASSERT_EQ(p.transfers, 16u);
  EXPECT_DOUBLE_EQ(coarray_put_time(p, costs(), false),
                   2 * 4 * (copy(400000) + kAlpha + kBeta * 400000 + copy(100000) + kAlpha + kBeta * 100000) + kAlpha);
}

TEST(CoarrayCost, NonBlockingDmaPutsOverlap) {
  const auto p = plan_put(choose_scheme(8, 8000, kB, true), 800000, 10);
  EXPECT_DOUBLE_EQ(coarray_put_time(p, costs(), false), 2 * kAlpha + kBeta * 8);
}

TEST(CoarrayCost, EmptySegmentIsFree) {
  const auto p = plan_put(choose_scheme(8, 8000, kB, false), 0, 4);
  EXPECT_EQ(coarray_put_time(p, costs(), false), 0);
  EXPECT_EQ(coarray_put_time(p, costs(), true), 0);
  EXPECT_EQ(coarray_get_time(plan_get(p.scheme, 0), costs()), 0);
}

TEST(CoarrayCost, FreeCopies) {
  const auto p = plan_put(choose_scheme(8000, 8000, kB, false), 800000);
  EXPECT_DOUBLE_EQ(coarray_put_time(p, {{kAlpha, kBeta}, 0}, true), 100 * (2 * kAlpha + kBeta * 8000));
}

TEST(CoarrayCost, GetTable1AndOmni) {
  const auto scheme = choose_scheme(8, 8000, kB, false);  // case 2
  EXPECT_DOUBLE_EQ(coarray_get_time(plan_get(scheme, 800000), costs()), 100 * (2 * kAlpha + kBeta * 8000 + copy(8000)));
  EXPECT_DOUBLE_EQ(coarray_get_time(plan_get(scheme, 800000, GetBehaviour::omni), costs()),
                   100000 * (2 * kAlpha + kBeta * 8 + copy(8)));
  const auto dma = choose_scheme(8, 8000, kB, true);
  EXPECT_DOUBLE_EQ(coarray_get_time(plan_get(dma, 800000), costs()), 100000 * (2 * kAlpha + kBeta * 8));
}

}  // namespace
}  // namespace collsim::models
