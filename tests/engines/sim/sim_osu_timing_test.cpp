// OSU timing (engines/run.hpp, Timing::osu) in the sim engine. On platforms/test/star16.xml under
// CM02 (collsim_test::exact) a transfer of m bytes alone on its route takes 20 us + m / 1.25 GB/s,
// an empty message as one byte (sim_comm.cpp).
#include <gtest/gtest.h>

#include <cmath>

#include "common/run_specs.hpp"
#include "common/sim_test_util.hpp"

namespace collsim {
namespace {

using collsim_test::exact;
using collsim_test::named_spec;
using collsim_test::run_one;

double transfer(double bytes) { return 20e-6 + bytes / 1.25e9; }

RunSpec osu_spec(int procs, std::size_t bytes) {
  RunSpec s = named_spec("bcast/binomial", procs, bytes);
  s.timing.kind = Timing::Kind::osu;
  return s;
}

// P = 2 under the ideal protocol, whose sends complete when their data has arrived: the root and
// rank 1 both finish the broadcast at L = transfer(m); the barrier (recursive doubling) is one
// exchange of empty messages that both enter at L and leave together, so each later call starts
// in step and takes L on both ranks. The collective time is L too.
TEST(SimOsuTiming, TwoRanksUnderTheIdealProtocol) {
  const std::size_t m = 100000;
  const double L = transfer(static_cast<double>(m));
  const RunResult r = run_one(exact("test/star16.xml"), osu_spec(2, m));
  ASSERT_TRUE(r.data_error.empty()) << r.data_error;
  EXPECT_NEAR(r.time_s, L, L * 1e-9);
  ASSERT_EQ(r.osu_s.size(), 2u);
  for (double t : r.osu_s) EXPECT_NEAR(t, L, L * 1e-9);
}

// OSU's "0, L, 2L" at P = 2: under tcp an eager send completes once written into the socket,
// before its data arrives, so the root returns from a small broadcast at once (0) while rank 1
// has the data at L, the collective time. In the barrier the root, there first, sends its empty
// message at once and waits; rank 1 arrives at L, finds the root's message there, sends its own
// and leaves at L; the root leaves when that message arrives, L0 later (L0: one empty message,
// about L for a 64-byte broadcast, whose time is mostly latency and headers). Rank 1 is then
// L0 early for the next call and waits L0 + L: min 0, max about 2L, avg about L.
TEST(SimOsuTiming, TheRootOfAnEagerBroadcastReturnsAtOnceUnderTcp) {
  const RunResult r = run_one(exact("test/star16.xml", 1, "tcp"), osu_spec(2, 64));
  ASSERT_TRUE(r.data_error.empty()) << r.data_error;
  ASSERT_EQ(r.osu_s.size(), 2u);
  const double L = r.time_s;
  ASSERT_GT(L, 20e-6);  // at least the route's latency
  EXPECT_EQ(r.osu_s[0], 0);
  EXPECT_NEAR(r.osu_s[1], 2 * L, 0.01 * L);
  const auto t = osu_times(r.osu_s);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->min_s, 0);
  EXPECT_NEAR(t->avg_s, L, 0.005 * L);
  EXPECT_EQ(t->max_s, r.osu_s[1]);
}

}  // namespace
}  // namespace collsim
