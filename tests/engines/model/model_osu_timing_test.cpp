// OSU timing (engines/run.hpp, Timing::osu) in the model engine, against hand calculations under
// Hockney: L = alpha + beta*m for the broadcast's message, a = alpha for the barrier's empty ones.
// In the model engine a send completes when its data arrives (no eager return), so a rank's time
// is the wait for its message from its own entry.
#include <gtest/gtest.h>

#include <cstddef>

#include "common/run_specs.hpp"
#include "engines/model/model_engine.hpp"

namespace collsim {
namespace {

using collsim_test::named_spec;

constexpr double kAlpha = 10e-6, kBeta = 1e-9;

ModelConfig hockney() {
  ModelConfig c;
  c.hockney.alpha = kAlpha;
  c.hockney.beta = kBeta;
  return c;
}

RunSpec osu_spec(const char* name, int procs, std::size_t bytes) {
  RunSpec s = named_spec(name, procs, bytes);
  s.timing.kind = Timing::Kind::osu;
  return s;
}

// P = 2, bcast/binomial: the root's send and rank 1's receive both complete at L. The barrier
// (recursive doubling below 4 processes, Open MPI 4.1) is one exchange of empty messages that both
// enter at L and leave at L + a together, so every call starts in step: every rank's latency is
// L, and so are avg, min and max.
TEST(ModelOsuTiming, TwoRanksEachTakeOneTransfer) {
  const std::size_t m = 100000;
  const double L = kAlpha + kBeta * m;
  const RunResult r = run_model(hockney(), osu_spec("bcast/binomial", 2, m));
  ASSERT_TRUE(r.data_error.empty()) << r.data_error;
  EXPECT_NEAR(r.time_s, L, 1e-15);
  ASSERT_EQ(r.osu_s.size(), 2u);
  EXPECT_NEAR(r.osu_s[0], L, 1e-15);
  EXPECT_NEAR(r.osu_s[1], L, 1e-15);
  const auto t = osu_times(r.osu_s);
  ASSERT_TRUE(t);
  EXPECT_NEAR(t->avg_s, L, 1e-15);
  EXPECT_NEAR(t->min_s, L, 1e-15);
  EXPECT_NEAR(t->max_s, L, 1e-15);
}

// P = 4, bcast/binomial (Open MPI's tree, collsim tree bcast/binomial --procs 4: 0 -> 1, 0 -> 2,
// 1 -> 3). From a common start ranks 0 and 2 finish at L, ranks 1 and 3 at 2L: the collective
// time is 2L.
// The barrier at 4 processes is linear (Open MPI 4.1's fixed decision for 4 to 7): each rank
// sends rank 0 an empty message (arriving a after it enters), rank 0 waits for all three, the last
// at 2L + a, then sends to 1, 2, 3 in turn, a each. Ranks leave it at 2L + {4a, 2a, 3a, 4a}
// (rank 0 after its last send). So in the next call, with S = 2L + 4a the root's entry: rank 0
// returns at S + L (time L); rank 1 entered 2a before S, has its message at S + L and forwards
// it to 3 by S + 2L (time 2L + 2a); rank 2 entered a before S and has its message at S + L (time
// L + a); rank 3 entered at S and has it at S + 2L (time 2L). The calls finish in the pattern of
// the first, so every later iteration repeats this one: these are the ranks' means. None of them
// counts the barrier's messages (rank 0's three sends after its call would add 3a).
TEST(ModelOsuTiming, FourRanksEachFromItsOwnEntryAfterTheBarrier) {
  const std::size_t m = 100000;
  const double L = kAlpha + kBeta * m, a = kAlpha;
  const RunResult r = run_model(hockney(), osu_spec("bcast/binomial", 4, m));
  ASSERT_TRUE(r.data_error.empty()) << r.data_error;
  EXPECT_NEAR(r.time_s, 2 * L, 1e-14);
  ASSERT_EQ(r.osu_s.size(), 4u);
  EXPECT_NEAR(r.osu_s[0], L, 1e-14);
  EXPECT_NEAR(r.osu_s[1], 2 * L + 2 * a, 1e-14);
  EXPECT_NEAR(r.osu_s[2], L + a, 1e-14);
  EXPECT_NEAR(r.osu_s[3], 2 * L, 1e-14);
  const auto t = osu_times(r.osu_s);
  ASSERT_TRUE(t);
  EXPECT_NEAR(t->avg_s, (6 * L + 3 * a) / 4, 1e-14);
  EXPECT_NEAR(t->min_s, L, 1e-14);
  EXPECT_NEAR(t->max_s, 2 * L + 2 * a, 1e-14);
}

// More iterations change nothing once the ranks are in step, nor do virtual bytes; the default
// timing reports no OSU latencies and the same collective time.
TEST(ModelOsuTiming, SteadyAcrossIterationsAndAbsentByDefault) {
  const std::size_t m = 100000;
  const double L = kAlpha + kBeta * m, a = kAlpha;
  RunSpec s = osu_spec("bcast/binomial", 4, m);
  s.timing.skip = 3;
  s.timing.iterations = 5;
  s.real_bytes = false;
  const RunResult r = run_model(hockney(), s);
  ASSERT_EQ(r.osu_s.size(), 4u);
  EXPECT_NEAR(r.osu_s[1], 2 * L + 2 * a, 1e-14);
  EXPECT_NEAR(r.osu_s[2], L + a, 1e-14);
  const RunResult plain = run_model(hockney(), named_spec("bcast/binomial", 4, m));
  EXPECT_TRUE(plain.osu_s.empty());
  EXPECT_FALSE(osu_times(plain.osu_s));
  EXPECT_NEAR(plain.time_s, 2 * L, 1e-14);
}

// A chain 0 -> 1 -> 2 (bcast/chain, fanout 1) on real bytes, checked after the last iteration.
// From a common start: rank 0 at L, ranks 1 and 2 at 2L. The barrier at 3 processes is recursive
// doubling with one extra rank: rank 2 sends to 0 on entry (arriving 2L + a), rank 0 then
// exchanges with 1 (both messages sent by 2L + a: done at 2L + 2a, when rank 1 leaves) and
// releases 2 (at 2L + 3a, when both leave). With S = 2L + 3a rank 0's next entry, rank 1 entered
// at S - a and forwards at S + L to rank 2 (entered at S), which has it at S + 2L: times L,
// 2L + a and 2L, and the same pattern again.
TEST(ModelOsuTiming, ChainOnRealBytes) {
  const std::size_t m = 4096;
  const double L = kAlpha + kBeta * m, a = kAlpha;
  RunSpec s = osu_spec("bcast/chain", 3, m);
  s.params.fanout = 1;
  const RunResult r = run_model(hockney(), s);
  ASSERT_TRUE(r.data_error.empty()) << r.data_error;
  EXPECT_NEAR(r.time_s, 2 * L, 1e-14);
  ASSERT_EQ(r.osu_s.size(), 3u);
  EXPECT_NEAR(r.osu_s[0], L, 1e-14);
  EXPECT_NEAR(r.osu_s[1], 2 * L + a, 1e-14);
  EXPECT_NEAR(r.osu_s[2], 2 * L, 1e-14);
}

// Why a warm-up and two timed calls are enough (Timing's defaults): the model has no noise, and
// once a barrier has set the ranks' entries each call repeats the last, so more iterations give
// the same latencies, here on other trees, process counts and barriers (linear below 8,
// recursive doubling with extra ranks at 24, a power of two at 32).
TEST(ModelOsuTiming, MoreIterationsGiveTheSameLatencies) {
  for (const char* name : {"bcast/binomial", "bcast/binary_tree", "bcast/pipeline", "allreduce/ring"})
    for (int procs : {5, 24, 32}) {
      RunSpec s = osu_spec(name, procs, 65536);
      if (find_algorithm(name)->takes(Knob::segment)) s.params.segment = 8192;
      s.real_bytes = false;
      const RunResult few = run_model(hockney(), s);
      s.timing.skip = 4;
      s.timing.iterations = 6;
      const RunResult many = run_model(hockney(), s);
      ASSERT_EQ(few.osu_s.size(), many.osu_s.size());
      for (std::size_t r = 0; r < few.osu_s.size(); ++r)
        EXPECT_NEAR(few.osu_s[r], many.osu_s[r], 1e-12) << name << " P=" << procs << " rank " << r;
    }
}

}  // namespace
}  // namespace collsim
