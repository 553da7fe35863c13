// The timing protocol on real MPI: clock offsets, the common start date, per-rank finishes and
// the time of a call, failures agreed on by every rank, repetition and its statistics.
#include <time.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "common/mpi_test_util.hpp"
#include "engines/mpi/algorithm_call.hpp"
#include "engines/mpi/call_timer.hpp"
#include "engines/mpi/clock_sync.hpp"
#include "engines/mpi/measure.hpp"
#include "experiment/results/measurement.hpp"
#include "registry/registry.hpp"
#include "support/statistics.hpp"

namespace collsim {
namespace {

using collsim_test::world_rank;
using collsim_test::world_size;

double monotonic() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// CLOCK_MONOTONIC minus MPI_Wtime: Open MPI counts MPI_Wtime from each process's own origin,
// while the monotonic clock is shared by every process on this machine, so the true offsets
// between ranks' MPI_Wtime clocks can be read off it. `error` bounds the reading: the tightest
// of several monotonic brackets around an MPI_Wtime (a preemption inside one would spoil it).
double wtime_origin(double& error) {
  error = 1e9;
  double origin = 0;
  for (int k = 0; k < 50; ++k) {
    const double before = monotonic();
    const double w = MPI_Wtime();
    const double after = monotonic();
    if ((after - before) / 2 < error) {
      error = (after - before) / 2;
      origin = (before + after) / 2 - w;
    }
  }
  return origin;
}

TEST(ClockSync, OffsetIsWithinHalfTheRoundTripOfTheTruth) {
  const ClockSync sync(MPI_COMM_WORLD, 16);
  double error = 0;
  const double origin = wtime_origin(error);
  double reference[2] = {origin, error};
  MPI_Bcast(reference, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  const double truth = origin - reference[0];  // rank 0's MPI_Wtime minus ours, at any instant
  if (world_rank() == 0) {
    EXPECT_EQ(sync.offset_s(), 0.0);
  } else {
    EXPECT_GT(sync.rtt_s(), 0.0);
    // The reply was stamped between the ping and the pong, so the midpoint is off by at most
    // half the round trip.
    EXPECT_LE(std::abs(sync.offset_s() - truth), sync.rtt_s() / 2 + error + reference[1] + 1e-7)
        << "estimate " << sync.offset_s() << " truth " << truth << " rtt " << sync.rtt_s();
  }
  EXPECT_GE(sync.worst_rtt_s(), sync.rtt_s());
  // A date on our clock, converted to rank 0's, must be the date rank 0's clock shows at that
  // instant (the truth from the shared monotonic clock); converted back, our own date again.
  const double now = MPI_Wtime();
  const double tolerance = sync.rtt_s() / 2 + error + reference[1] + 1e-7;
  EXPECT_NEAR(sync.to_reference(now), now + truth, tolerance);
  EXPECT_NEAR(sync.to_local(now + truth), now, tolerance);
}

// The ranks of one machine share one clock, so the offsets measured above are about zero and
// cannot tell whether they are applied with the right sign. Here each rank's clock runs 100 s
// per rank ahead of MPI_Wtime: rank r's offset to rank 0 is -100 r.
constexpr double kSkew = 100;
double skewed_clock() {
  static const double ahead = kSkew * world_rank();
  return MPI_Wtime() + ahead;
}

TEST(ClockSync, OffsetsOfSkewedClocksHaveTheirSign) {
  const ClockSync sync(MPI_COMM_WORLD, 16, &skewed_clock);
  double error = 0;
  const double origin = wtime_origin(error);
  double reference[2] = {origin, error};
  MPI_Bcast(reference, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  const double truth = origin - reference[0] - kSkew * world_rank();  // rank 0's clock minus ours
  const double tolerance = sync.rtt_s() / 2 + error + reference[1] + 1e-7;
  EXPECT_NEAR(sync.offset_s(), truth, tolerance);
  const double now = skewed_clock();
  EXPECT_NEAR(sync.to_reference(now), now + truth, tolerance) << "a date on our clock, on rank 0's";
  EXPECT_NEAR(sync.to_local(now + truth), now, tolerance) << "a date on rank 0's clock, on ours";
}

TEST(ClockSync, WaitUntilNeverReturnsEarlyAndReportsLateness) {
  // Half a second ahead: the caller is early unless it is descheduled that long between the two
  // statements, which even a loaded, oversubscribed machine does not do.
  const double target = MPI_Wtime() + 0.5;
  const double late = wait_until(target);
  EXPECT_GE(MPI_Wtime(), target);
  EXPECT_LT(late, 0.0);
  EXPECT_GE(late, -0.5);
  const double past = MPI_Wtime() - 0.01;
  EXPECT_GE(wait_until(past), 0.01);
}

// Rank r works r * step seconds from the common start; records when it really started.
class StaggeredCall : public CollectiveCall {
 public:
  explicit StaggeredCall(double step, WallClock clock = &MPI_Wtime) : step_(step), clock_(clock) {}
  void prepare() override { ++prepared; }
  void run(double start_wtime) override {
    started_after_date.push_back(clock_() - start_wtime);
    const double until = start_wtime + step_ * world_rank();
    while (clock_() < until) {
    }
    if (throw_on == world_rank()) throw std::runtime_error("deliberate failure");
  }
  std::string check() override {
    return wrong_on == world_rank() ? "rank " + std::to_string(wrong_on) + ": byte 3 is wrong" : "";
  }
  std::string describe() const override { return "staggered call"; }

  int prepared = 0;
  int wrong_on = -1;
  int throw_on = -1;
  std::vector<double> started_after_date;

 private:
  double step_;
  WallClock clock_;
};

TEST(CallTimer, TimeIsTheLastFinishAfterTheCommonStart) {
  const int p = world_size();
  CallTimer timer(MPI_COMM_WORLD);
  StaggeredCall call(200e-6);
  for (int k = 0; k < 3; ++k) {
    const CallTiming t = timer.time(call);
    ASSERT_EQ(t.finish_s.size(), static_cast<std::size_t>(p));
    for (int r = 0; r < p; ++r) {
      EXPECT_GE(t.finish_s[static_cast<std::size_t>(r)], 0.0);
      // A rank cannot finish before its work is done, however the clocks were aligned.
      EXPECT_GE(t.finish_s[static_cast<std::size_t>(r)], 200e-6 * r - 1e-9) << "rank " << r;
    }
    EXPECT_DOUBLE_EQ(t.time_s, *std::max_element(t.finish_s.begin(), t.finish_s.end()));
    EXPECT_EQ(t.data_error, "");
  }
  EXPECT_EQ(call.prepared, 3);
  for (double s : call.started_after_date) EXPECT_GE(s, 0.0) << "a rank started before the date";
  EXPECT_GT(timer.lead_s(), 0.0);
}

// On clocks 100 s per rank apart, every rank still starts at the common date and its finish is
// measured on rank 0's clock: an offset applied with the wrong sign would start rank r 200 s
// too early (a finish near 200 s) or too late (a wait for 200 s, killed by the test timeout).
TEST(CallTimer, SkewedClocksStartTogether) {
  const int p = world_size();
  TimerOptions skewed;
  skewed.clock = &skewed_clock;
  CallTimer timer(MPI_COMM_WORLD, skewed);
  StaggeredCall call(200e-6, &skewed_clock);
  for (int k = 0; k < 3; ++k) {
    const CallTiming t = timer.time(call);
    for (int r = 0; r < p; ++r) {
      EXPECT_GE(t.finish_s[static_cast<std::size_t>(r)], 200e-6 * r - 1e-9) << "rank " << r;
      EXPECT_LT(t.finish_s[static_cast<std::size_t>(r)], 10.0) << "rank " << r;
    }
  }
  for (double s : call.started_after_date) EXPECT_GE(s, 0.0) << "a rank started before the date";
}

TEST(CallTimer, ClocksAreSynchronisedAgainWhenTheLastSyncIsOld) {
  TimerOptions options;
  options.resync_min_interval_s = 0;
  options.resync_max_overhead = 1e9;  // any age is too old
  CallTimer eager(MPI_COMM_WORLD, options);
  StaggeredCall call(0);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(eager.time(call).data_error, "");
  EXPECT_EQ(eager.syncs(), 4);  // every rank, in step

  // Never old, whatever three calls take on a loaded machine: by age, and by the cost rule (a
  // sync must be a billion times older than it took).
  TimerOptions young;
  young.resync_min_interval_s = 3600;
  CallTimer lazy(MPI_COMM_WORLD, young);
  for (int k = 0; k < 3; ++k) (void)lazy.time(call);
  EXPECT_EQ(lazy.syncs(), 1);
  TimerOptions cheap;
  cheap.resync_min_interval_s = 0;
  cheap.resync_max_overhead = 1e-9;
  CallTimer thrifty(MPI_COMM_WORLD, cheap);
  for (int k = 0; k < 3; ++k) (void)thrifty.time(call);
  EXPECT_EQ(thrifty.syncs(), 1);
}

// A start date already a second past when it is chosen: every rank is late by about a second,
// and its lateness counts in its finish. Half a second ahead: nobody is late.
TEST(CallTimer, LateRanksAreCountedAndTimed) {
  const int p = world_size();
  StaggeredCall call(0);
  TimerOptions past;
  past.initial_lead_s = past.min_lead_s = past.max_lead_s = -1.0;
  CallTimer late(MPI_COMM_WORLD, past);
  const CallTiming t = late.time(call);
  EXPECT_EQ(t.late_ranks, p);
  EXPECT_GE(t.max_late_s, 1.0 - 1e-3);
  for (double f : t.finish_s) EXPECT_GE(f, 1.0 - 1e-3);
  EXPECT_EQ(late.lead_s(), -1.0);

  TimerOptions ahead;
  ahead.initial_lead_s = ahead.min_lead_s = ahead.max_lead_s = 0.5;
  CallTimer early(MPI_COMM_WORLD, ahead);
  const CallTiming u = early.time(call);
  EXPECT_EQ(u.late_ranks, 0);
  EXPECT_EQ(u.max_late_s, 0.0);
}

TEST(CallTimer, EveryRankGetsTheSameTiming) {
  CallTimer timer(MPI_COMM_WORLD);
  StaggeredCall call(50e-6);
  const CallTiming t = timer.time(call);
  std::vector<double> mine = t.finish_s;
  mine.push_back(t.time_s);
  std::vector<double> root = mine;
  MPI_Bcast(root.data(), static_cast<int>(root.size()), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  EXPECT_EQ(mine, root);
}

TEST(CallTimer, AWrongByteOnOneRankIsReportedEverywhere) {
  const int p = world_size();
  CallTimer timer(MPI_COMM_WORLD);
  StaggeredCall call(0);
  call.wrong_on = p - 1;
  const CallTiming t = timer.time(call);
  EXPECT_EQ(t.data_error, "rank " + std::to_string(p - 1) + ": byte 3 is wrong");
}

TEST(CallTimer, AFailureOnOneRankThrowsOnEveryRank) {
  const int p = world_size();
  CallTimer timer(MPI_COMM_WORLD);
  StaggeredCall call(0);
  call.throw_on = p - 1;
  try {
    (void)timer.time(call);
    ADD_FAILURE() << "no error";
  } catch (const EngineError& e) {
    EXPECT_EQ(std::string(e.what()), "staggered call: rank " + std::to_string(p - 1) + ": deliberate failure");
  }
  // The protocol is still in step afterwards.
  call.throw_on = -1;
  EXPECT_EQ(timer.time(call).data_error, "");
}

// A bcast that is right except for one byte flipped on the last rank.
Task<> flipped_bcast(Comm& comm, RankBuffers b, const AlgorithmParams& params) {
  co_await find_algorithm("bcast/binomial")->run(comm, b, params);
  if (comm.rank() == comm.size() - 1 && b.data.size() > 0) b.data.data()[b.data.size() / 2] ^= std::byte{0x40};
}

// Posts a receive nobody will match and returns without waiting for it.
Task<> leaky_bcast(Comm& comm, RankBuffers b, const AlgorithmParams&) {
  (void)co_await comm.irecv(b.data, comm.rank(), 999);
}

const AlgorithmInfo kFlipped{"bcast/flipped", Operation::bcast, 0, false, "test", &flipped_bcast};
const AlgorithmInfo kLeaky{"bcast/leaky", Operation::bcast, 0, false, "test", &leaky_bcast};

RunSpec spec_of(const AlgorithmInfo& algo, std::size_t bytes, int root) {
  RunSpec spec;
  spec.algorithm = &algo;
  spec.procs = world_size();
  spec.bytes = bytes;
  spec.params.root = root;
  spec.real_bytes = false;  // the mpi engine uses real bytes regardless
  return spec;
}

TEST(RunMpi, OneCallWithPerRankFinishes) {
  const RunResult r = run_mpi(MPI_COMM_WORLD, spec_of(*find_algorithm("bcast/binomial"), 5000, 0));
  ASSERT_EQ(r.finish_s.size(), static_cast<std::size_t>(world_size()));
  for (double f : r.finish_s) EXPECT_GE(f, 0.0);
  EXPECT_DOUBLE_EQ(r.time_s, *std::max_element(r.finish_s.begin(), r.finish_s.end()));
  EXPECT_EQ(r.data_error, "");
}

TEST(RunMpi, AWrongByteIsFoundEvenWhenVirtualBytesWereAskedFor) {
  const int p = world_size();
  const RunResult r = run_mpi(MPI_COMM_WORLD, spec_of(kFlipped, 1001, 0));
  EXPECT_EQ(r.data_error.rfind("rank " + std::to_string(p - 1) + ": byte 500 of the broadcast buffer", 0), 0u)
      << r.data_error;
}

TEST(RunMpi, RequestsLeftBehindAreAnError) {
  try {
    (void)run_mpi(MPI_COMM_WORLD, spec_of(kLeaky, 16, 0));
    ADD_FAILURE() << "no error";
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find("rank 0 returned with 1 requests never completed ("), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("bcast/leaky on"), std::string::npos) << e.what();
  }
}

TEST(RunMpi, SpecThatDoesNotFitTheCommunicatorIsAnInputError) {
  RunSpec spec = spec_of(*find_algorithm("bcast/binomial"), 8, world_size());
  EXPECT_THROW((void)run_mpi(MPI_COMM_WORLD, spec), InputError);
  spec.params.root = 0;
  spec.procs = world_size() + 1;
  EXPECT_THROW((void)run_mpi(MPI_COMM_WORLD, spec), InputError);
}

TEST(Measure, RepeatsBetweenMinAndMaxRunsAndReportsTheMedian) {
  StaggeredCall call(20e-6);
  MeasureOptions options;
  options.warmup = 1;
  options.stop.min_runs = 3;
  options.stop.max_runs = 6;
  const MpiMeasurement m = measure(MPI_COMM_WORLD, call, options);
  EXPECT_GE(m.summary.runs, 3u);
  EXPECT_LE(m.summary.runs, 6u);
  EXPECT_EQ(m.samples_s.size(), m.summary.runs);
  EXPECT_EQ(call.prepared, 1 + static_cast<int>(m.summary.runs));
  // The row's statistics recomputed from the samples, not with the library's summarize().
  std::vector<double> x = m.samples_s;
  std::sort(x.begin(), x.end());
  const std::size_t n = x.size();
  const double median = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
  double mean = 0, squares = 0;
  for (double v : x) mean += v / static_cast<double>(n);
  for (double v : x) squares += (v - mean) * (v - mean);
  const double t975[] = {0, 12.706, 4.303, 3.182, 2.776, 2.571};  // Student's t, 1..5 degrees of freedom
  const double ci95 = t975[n - 1] * std::sqrt(squares / static_cast<double>(n - 1)) / std::sqrt(static_cast<double>(n));
  EXPECT_DOUBLE_EQ(m.summary.median, median);
  EXPECT_NEAR(m.summary.mean, mean, 1e-12 * mean);
  EXPECT_NEAR(m.summary.ci95, ci95, 1e-9 * ci95 + 1e-15);
  EXPECT_EQ(m.summary.min, x.front());
  EXPECT_EQ(m.summary.max, x.back());
  // The last rank works (p - 1) * 20 us from the start: no run can be shorter.
  EXPECT_GE(x.front(), 20e-6 * (world_size() - 1) - 1e-9);
  EXPECT_EQ(m.data, "ok");
}

TEST(Measure, FixedNumberOfRuns) {
  StaggeredCall call(0);
  MeasureOptions options;
  options.warmup = 0;
  options.stop.min_runs = options.stop.max_runs = 4;
  const MpiMeasurement m = measure(MPI_COMM_WORLD, call, options);
  EXPECT_EQ(m.summary.runs, 4u);
  EXPECT_EQ(call.prepared, 4);
}

TEST(Measure, StopsAtTheFirstWrongByte) {
  StaggeredCall call(0);
  call.wrong_on = 0;
  MeasureOptions options;
  options.warmup = 0;
  const MpiMeasurement m = measure(MPI_COMM_WORLD, call, options);
  EXPECT_EQ(m.summary.runs, 1u);
  EXPECT_EQ(m.data, "rank 0: byte 3 is wrong");
}

TEST(Measure, InconsistentOptionsAreInputErrors) {
  StaggeredCall call(0);
  MeasureOptions options;
  options.stop.min_runs = 5;
  options.stop.max_runs = 4;
  EXPECT_THROW((void)measure(MPI_COMM_WORLD, call, options), InputError);
  options.stop.max_runs = 5;
  options.stop.ci_target = 0;
  EXPECT_THROW((void)measure(MPI_COMM_WORLD, call, options), InputError);
  EXPECT_EQ(call.prepared, 0);
}

TEST(Measure, AlgorithmRowNamesWhatWasMeasured) {
  RunSpec spec = spec_of(*find_algorithm("bcast/binomial"), 10000, world_size() - 1);
  spec.params.segment = 1024;
  MeasureOptions options;
  options.stop.min_runs = 3;
  options.stop.max_runs = 5;
  const MpiMeasurement measured = measure_algorithm(MPI_COMM_WORLD, spec, options);
  const Measurement row = measured_row("mpi", spec, measured.summary, measured.ci_met, measured.data);
  const Measurement& m = row;
  EXPECT_EQ(m.engine, "mpi");
  EXPECT_EQ(m.op, "bcast/binomial");
  EXPECT_EQ(m.procs, world_size());
  EXPECT_EQ(m.bytes, 10000u);
  EXPECT_EQ(m.segment, 1024u);
  EXPECT_EQ(m.root, world_size() - 1);
  EXPECT_EQ(m.data, "ok");
  EXPECT_GT(m.time_s, 0.0);
  if (world_size() > 1)
    EXPECT_GT(measured.clock_rtt_s, 0.0);
  else
    EXPECT_EQ(measured.clock_rtt_s, 0.0);
}

// Pure functions: every rank computes them, which costs nothing and keeps ranks in step.
TEST(Statistics, StudentQuantiles) {
  EXPECT_DOUBLE_EQ(student_t975(1), 12.706);
  EXPECT_DOUBLE_EQ(student_t975(10), 2.228);
  EXPECT_DOUBLE_EQ(student_t975(30), 2.042);
  EXPECT_NEAR(student_t975(40), 2.021, 1e-3);
  EXPECT_NEAR(student_t975(120), 1.980, 1e-3);
  EXPECT_NEAR(student_t975(100000), 1.960, 1e-3);
}

TEST(Statistics, SummaryOfSamples) {
  const std::vector<double> x{4, 1, 3, 2};
  const Summary s = summarize(x);
  EXPECT_EQ(s.runs, 4u);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 4);
  EXPECT_NEAR(s.stddev, 1.2909944, 1e-6);
  EXPECT_NEAR(s.ci95, 3.182 * 1.2909944 / 2, 1e-6);
  const std::vector<double> one{7};
  EXPECT_EQ(summarize(one).ci95, 0.0);
  EXPECT_EQ(summarize(one).median, 7.0);
  EXPECT_EQ(summarize(std::vector<double>{}).runs, 0u);
}

TEST(Statistics, StopRule) {
  StopRule rule;  // 10..200 runs, 2.5%
  Summary s;
  s.mean = 1;
  s.ci95 = 0.001;
  s.runs = 9;
  EXPECT_FALSE(rule.done(s));  // tight, but too few runs
  s.runs = 10;
  EXPECT_TRUE(rule.done(s));
  s.ci95 = 0.1;
  EXPECT_FALSE(rule.done(s));  // enough runs, too loose
  s.runs = 200;
  EXPECT_TRUE(rule.done(s));  // the maximum ends it anyway
  rule.min_runs = 1;
  s.runs = 1;
  s.ci95 = 0;
  EXPECT_FALSE(rule.done(s));  // one run says nothing about its spread
}

// met(): the target reached, whether or not max_runs ended the series too.
TEST(Statistics, StopRuleMetOnlyWithinTheTarget) {
  StopRule rule;  // 10..200 runs, 2.5%
  Summary s;
  s.mean = 1;
  s.runs = 200;
  s.ci95 = 0.1;
  EXPECT_TRUE(rule.done(s));
  EXPECT_FALSE(rule.met(s));  // stopped by the maximum, the interval 10% of the mean
  s.ci95 = 0.025;
  EXPECT_TRUE(rule.met(s));  // at the maximum, but within the target
  s.runs = 9;
  s.ci95 = 0.001;
  EXPECT_FALSE(rule.met(s));  // tight, but fewer than min_runs
  rule.min_runs = rule.max_runs = 1;
  s.runs = 1;
  s.ci95 = 0;
  EXPECT_TRUE(rule.done(s));
  EXPECT_FALSE(rule.met(s));  // one run has no interval to meet a target
}

// A call whose k-th run lasts k times 20 us on every rank: runs that always differ.
class GrowingCall : public CollectiveCall {
 public:
  void prepare() override {}
  void run(double start_wtime) override {
    const double until = start_wtime + 20e-6 * ++runs_;
    while (MPI_Wtime() < until) {
    }
  }
  std::string check() override { return ""; }
  std::string describe() const override { return "growing call"; }

 private:
  int runs_ = 0;
};

// measure() says whether its runs met the target: not with a target their spread cannot meet,
// stopping at max_runs; yes with a target of 100 times the mean, which any 3 runs meet.
TEST(Measure, RowSaysWhetherTheCiTargetWasMet) {
  GrowingCall call;
  MeasureOptions options;
  options.warmup = 0;
  options.stop.min_runs = options.stop.max_runs = 3;
  options.stop.ci_target = 1e-12;
  MpiMeasurement m = measure(MPI_COMM_WORLD, call, options);
  EXPECT_EQ(m.summary.runs, 3u);
  EXPECT_FALSE(m.ci_met);
  options.stop.ci_target = 100;
  m = measure(MPI_COMM_WORLD, call, options);
  EXPECT_TRUE(m.ci_met);
}

}  // namespace
}  // namespace collsim
