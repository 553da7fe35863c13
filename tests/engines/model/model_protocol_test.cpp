// The model engine's messaging paths against hand calculations: wait_any, the barrier, LogGP's
// clocks over several messages (the CPU, NIC-send and NIC-receive of each rank, arrivals handled
// in time order), one-port on the sending side, the deadlock report and peer ranks that do not
// exist. (Whole algorithms against closed forms are in model_engine_test.cpp and
// model_closed_forms_test.cpp.)
//
// The algorithms here are written in the test with nothing but the messaging layer, so every
// expected time follows from the cost semantics in model_engine.hpp alone. Each is derived by
// hand in a comment, in microseconds; none is computed by the engine's or the library's code.
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "comm/buffer.hpp"
#include "common/test_algorithm.hpp"
#include "engines/model/model_engine.hpp"
#include "registry/registry.hpp"

namespace collsim {
namespace {

using collsim_test::test_algorithm;

constexpr double kUs = 1e-6;

// What the test algorithms observed, for the tests to check once the run is over: per rank, the
// clock wherever the algorithm calls mark(), and what wait_any returned.
struct Observed {
  std::map<int, std::vector<double>> marks;
  std::vector<std::size_t> picked;  // indices wait_any returned, in order
  std::vector<bool> nulls;          // after each wait_any, whether each request of its span is null
};
Observed seen;

void mark(const Comm& comm) { seen.marks[comm.rank()].push_back(comm.now()); }

RunResult run(const ModelConfig& config, const RunSpec& spec) {
  seen = Observed{};
  return run_model(config, spec);
}

// Sizes only: these algorithms move no data worth checking, and a virtual buffer costs the same.
RunSpec spec_for(const AlgorithmInfo& a, int procs, std::size_t bytes = 0, std::size_t segment = 0) {
  RunSpec s;
  s.algorithm = &a;
  s.procs = procs;
  s.bytes = bytes;
  s.params.segment = segment;
  s.real_bytes = false;
  return s;
}

// Hockney with a transfer of m bytes taking 10 + m/1000 us, and copies at 1000 bytes per us.
ModelConfig hockney() {
  ModelConfig c;
  c.hockney.alpha = 10 * kUs;
  c.hockney.beta = 1e-9;
  c.copy_bandwidth = 1e9;
  return c;
}

// LogGP with L = 5 us and G = 1 ns per byte (a message of m bytes injects for (m-1)/1000 us).
ModelConfig loggp(double o_us, double g_us) {
  ModelConfig c;
  c.kind = ModelConfig::Kind::loggp;
  c.loggp.L = 5 * kUs;
  c.loggp.o = o_us * kUs;
  c.loggp.g = g_us * kUs;
  c.loggp.G = 1e-9;
  c.copy_bandwidth = 1e9;
  return c;
}

void expect_us(double got_s, double want_us, const std::string& what) {
  EXPECT_NEAR(got_s, want_us * kUs, 1e-12 * want_us * kUs) << what;
}

void expect_finish_us(const RunResult& r, const std::vector<double>& want_us) {
  ASSERT_EQ(r.finish_s.size(), want_us.size());
  for (std::size_t i = 0; i < want_us.size(); ++i) expect_us(r.finish_s[i], want_us[i], "rank " + std::to_string(i));
}

void expect_marks_us(int rank, const std::vector<double>& want_us) {
  const std::vector<double>& got = seen.marks[rank];
  ASSERT_EQ(got.size(), want_us.size()) << "marks of rank " << rank;
  for (std::size_t i = 0; i < got.size(); ++i)
    expect_us(got[i], want_us[i], "mark " + std::to_string(i) + " of rank " + std::to_string(rank));
}

// The EngineError run_model throws, or "" (and a failure) when it returns.
std::string engine_error(const ModelConfig& config, const RunSpec& spec) {
  try {
    run(config, spec);
  } catch (const EngineError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no EngineError from " << describe(spec);
  return "";
}

// A copy of n bytes: at hockney()'s and loggp()'s copy rate, the way to make a rank busy n/1000 us.
Task<> busy(Comm& comm, std::size_t n) {
  Storage a(n, false), b(n, false);
  co_await comm.copy(a.view(), b.view());
}

// ---- wait_any ---------------------------------------------------------------------------------

// Rank 1 posts a receive from rank 2 (index 0), then one from rank 0 (index 1), spends
// AlgorithmParams::segment bytes of copying, then calls wait_any twice. Rank 0's message is the
// shorter, so it arrives first although its request comes second.
Task<> first_come(Comm& comm, RankBuffers, const AlgorithmParams& p) {
  Storage early(1000, false), late(5000, false);
  if (comm.rank() == 0) co_await comm.send(early.view(), 1, 3);
  if (comm.rank() == 2) co_await comm.send(late.view(), 1, 3);
  if (comm.rank() != 1) co_return;
  std::array<Request, 2> r;
  r[0] = co_await comm.irecv(late.view(), 2, 3);
  r[1] = co_await comm.irecv(early.view(), 0, 3);
  co_await busy(comm, p.segment);
  for (int i = 0; i < 2; ++i) {
    seen.picked.push_back(co_await comm.wait_any(r));
    mark(comm);
    for (const Request& q : r) seen.nulls.push_back(q.is_null());
  }
}

TEST(ModelWaitAny, ReturnsTheFirstToCompleteAndResetsIt) {
  const auto alg = test_algorithm("test/first_come", &first_come);
  const RunResult r = run(hockney(), spec_for(alg, 3));
  // Rank 0's 1000 bytes arrive at 10 + 1 = 11 us, rank 2's 5000 at 10 + 5 = 15 us; both receives
  // are posted at 0. The first wait_any returns index 1 at 11 us and nulls it, leaving index 0.
  EXPECT_EQ(seen.picked, (std::vector<std::size_t>{1, 0}));
  EXPECT_EQ(seen.nulls, (std::vector<bool>{false, true, true, true}));
  expect_marks_us(1, {11, 15});
  // The senders finish with their transfers; rank 1 with the second receive.
  expect_finish_us(r, {11, 15, 15});
}

TEST(ModelWaitAny, OnCompletedRequestsReturnsAtOnceAndNeverTwice) {
  const auto alg = test_algorithm("test/first_come", &first_come);
  // Rank 1 copies 20000 bytes (20 us) first: both messages (11 and 15 us) are in by then, so each
  // wait_any returns at 20 us without waiting, and the second returns the request the first did
  // not. Which of two completed requests comes first is the engine's choice.
  const RunResult r = run(hockney(), spec_for(alg, 3, 0, 20000));
  ASSERT_EQ(seen.picked.size(), 2u);
  ASSERT_LT(seen.picked[0], 2u);
  EXPECT_EQ(seen.picked[1], 1 - seen.picked[0]);
  ASSERT_EQ(seen.nulls.size(), 4u);
  EXPECT_TRUE(seen.nulls[seen.picked[0]]);
  EXPECT_FALSE(seen.nulls[1 - seen.picked[0]]);
  EXPECT_TRUE(seen.nulls[2] && seen.nulls[3]);
  expect_marks_us(1, {20, 20});
  expect_finish_us(r, {11, 20, 15});
}

// Rank 1 waits for any of {a null request, a receive from rank 0} twice: the second time only
// null requests are left.
Task<> wait_any_too_often(Comm& comm, RankBuffers b, const AlgorithmParams&) {
  if (comm.rank() == 0) co_await comm.send(b.data, 1, 4);
  if (comm.rank() == 1) {
    std::array<Request, 2> r;
    r[1] = co_await comm.irecv(b.data, 0, 4);
    seen.picked.push_back(co_await comm.wait_any(r));
    co_await comm.wait_any(r);
  }
}

// The last rank waits for any of three null requests (on 2 ranks) or of an empty span (on more).
Task<> wait_any_on_nothing(Comm& comm, RankBuffers, const AlgorithmParams&) {
  std::array<Request, 3> none;
  const std::span<Request> span(none.data(), comm.size() == 2 ? none.size() : 0);
  if (comm.rank() == comm.size() - 1) co_await comm.wait_any(span);
}

TEST(ModelWaitAny, OnlyNullRequestsIsAnError) {
  const auto again = test_algorithm("test/wait_any_too_often", &wait_any_too_often);
  EXPECT_EQ(engine_error(hockney(), spec_for(again, 2, 8)),
            "test/wait_any_too_often on 2 processes (root 0, 8 bytes): rank 1: wait_any on 2 requests, none of them "
            "outstanding");
  EXPECT_EQ(seen.picked, std::vector<std::size_t>{1});  // the first call skipped the null request

  const auto nothing = test_algorithm("test/wait_any_on_nothing", &wait_any_on_nothing);
  EXPECT_EQ(engine_error(hockney(), spec_for(nothing, 2)),
            "test/wait_any_on_nothing on 2 processes (root 0, 0 bytes): rank 1: wait_any on 3 requests, none of them "
            "outstanding");
  EXPECT_EQ(engine_error(loggp(1, 1), spec_for(nothing, 3)),
            "test/wait_any_on_nothing on 3 processes (root 0, 0 bytes): rank 2: wait_any on 0 requests, none of them "
            "outstanding");
}

// ---- barrier ----------------------------------------------------------------------------------

// Two barriers, each after a copy of a different length on every rank: rank r of 5 first copies
// (3r mod 5) us, then (r + 2 mod 5) us, marking the clock after each barrier.
Task<> staggered_barriers(Comm& comm, RankBuffers, const AlgorithmParams&) {
  const int r = comm.rank(), p = comm.size();
  const std::array<int, 2> delay_us{3 * r % p, (r + 2) % p};
  for (int d : delay_us) {
    co_await busy(comm, static_cast<std::size_t>(d) * 1000);
    co_await comm.barrier();
    mark(comm);
  }
}

TEST(ModelBarrier, ReleasesEveryRankAtTheLastArrival) {
  const auto alg = test_algorithm("test/staggered_barriers", &staggered_barriers);
  const RunResult r = run(hockney(), spec_for(alg, 5));
  // First delays by rank 0..4: 0, 3, 1, 4, 2 us; rank 3 arrives last and all leave at 4 us.
  // Second delays: 2, 3, 4, 0, 1 us from 4 us; rank 2 arrives last, at 8 us, and all leave then.
  for (int rank = 0; rank < 5; ++rank) expect_marks_us(rank, {4, 8});
  expect_finish_us(r, {8, 8, 8, 8, 8});
}

// ---- LogGP over several messages --------------------------------------------------------------
//
// Under loggp(o, g) (L = 5, G = 1 ns per byte, so a message of m bytes has (m-1)G = (m-1)/1000 us)
// the rules of model_engine.hpp give, by hand: a send posted at t starts at t0 >= t when the CPU
// and the NIC-send are free, holds the CPU to t0 + o (the rank continues then) and the NIC-send to
// t0 + g + (m-1)G; its request completes at t0; the data reaches the receiver at t0 + o + L. The
// receiver handles it from p >= arrival when its CPU and NIC-receive are free, holding the CPU to
// p + o + (m-1)G (the data is usable then: h) and the NIC-receive to p + g + (m-1)G. A receive
// completes at max(post, h).

// The root isends its buffer to ranks 1..P-1 in rank order, back to back, marks the clock, and
// waits for all of them; every other rank receives with a blocking receive posted at 0.
Task<> fan_out(Comm& comm, RankBuffers b, const AlgorithmParams&) {
  if (comm.rank() != 0) {
    co_await comm.recv(b.data, 0, 2);
    co_return;
  }
  std::vector<Request> sends(static_cast<std::size_t>(comm.size() - 1));
  for (std::size_t i = 0; i < sends.size(); ++i) sends[i] = co_await comm.isend(b.data, static_cast<int>(i) + 1, 2);
  mark(comm);
  co_await comm.wait_all(sends);
}

// The root's send j (j = 0..3) is posted when its CPU frees from send j-1 (t0_{j-1} + o) and
// starts once the NIC-send is free too (t0_{j-1} + g + (m-1)G): sends start
// spacing = max(o, g + (m-1)G) apart, at t0_j = j * spacing. The root marks, and finishes (its
// sends completed at their starts), when its CPU frees from the last: 3 * spacing + o. Rank j+1,
// idle, handles its message on arrival and finishes at t0_j + 2o + L + (m-1)G.
struct FanOutCase {
  const char* what;
  double o_us, g_us;
  std::size_t m;
  double first_us, spacing_us, root_us;
};

TEST(ModelLogGP, SendsAreSpacedByTheOverheadOrTheGapPlusTheBytes) {
  const FanOutCase cases[] = {
      // o = 1, g + (m-1)G = 3 + 1 = 4: t0_j = 4j; rank j+1 at 4j + 2 + 5 + 1 = 8 + 4j; root 12 + 1.
      {"g + (m-1)G above o", 1, 3, 1001, 8, 4, 13},
      // o = 1, g + (m-1)G = 3 + 4 = 7: t0_j = 7j; rank j+1 at 7j + 2 + 5 + 4 = 11 + 7j; root 21 + 1.
      {"(m-1)G adds to g", 1, 3, 4001, 11, 7, 22},
      // o = 5 above g + (m-1)G = 4: t0_j = 5j; rank j+1 at 5j + 10 + 5 + 1 = 16 + 5j; root 15 + 5.
      {"o above g + (m-1)G", 5, 3, 1001, 16, 5, 20},
      // o = 3 = g + (m-1)G = 1 + 2: t0_j = 3j (not g + o = 4 nor max(o, g) + (m-1)G = 5 apart);
      // rank j+1 at 3j + 6 + 5 + 2 = 13 + 3j; root 9 + 3.
      {"o equal to g + (m-1)G", 3, 1, 2001, 13, 3, 12},
      // Empty messages: (m-1)G counts as 0, so t0_j = 3j (g = 3); rank j+1 at 3j + 2 + 5 = 7 + 3j;
      // root 9 + 1.
      {"empty messages", 1, 3, 0, 7, 3, 10},
  };
  const auto alg = test_algorithm("test/fan_out", &fan_out);
  for (const FanOutCase& c : cases) {
    SCOPED_TRACE(c.what);
    const RunResult r = run(loggp(c.o_us, c.g_us), spec_for(alg, 5, c.m));
    expect_marks_us(0, {c.root_us});
    expect_finish_us(r, {c.root_us, c.first_us, c.first_us + c.spacing_us, c.first_us + 2 * c.spacing_us,
                         c.first_us + 3 * c.spacing_us});
    expect_us(r.time_s, c.first_us + 3 * c.spacing_us, "time");
  }
}

// Rank 0 sends its buffer to rank 1 three times with blocking sends; rank 1 first copies
// AlgorithmParams::segment bytes, then receives the three with blocking receives. Both mark the
// clock after each operation.
Task<> three_to_one(Comm& comm, RankBuffers b, const AlgorithmParams& p) {
  for (int i = 0; i < 3; ++i) {
    if (comm.rank() == 0) co_await comm.send(b.data, 1, 6);
    if (comm.rank() == 1) {
      if (i == 0) co_await busy(comm, p.segment);
      co_await comm.recv(b.data, 0, 6);
    }
    mark(comm);
  }
}

TEST(ModelLogGP, ArrivalsWaitForTheReceiversCpuAndNic) {
  const auto alg = test_algorithm("test/three_to_one", &three_to_one);
  // o = 1, g = 5, m = 2001 so (m-1)G = 2. Rank 0's sends start g + (m-1)G = 7 apart (the NIC-send
  // is the later of its two clocks): t0 = 0, 7, 14; each send returns o later (marks 1, 8, 15)
  // and the data arrives at t0 + o + L = 6, 13, 20. The sender never waits for the receiver.
  {
    SCOPED_TRACE("receiver ready");
    // Arrival 6: handled at once, CPU to 6 + 1 + 2 = 9 (receive 0 done, posted at 0), NIC-receive
    // to 6 + 5 + 2 = 13. Arrival 13: CPU free since 9, NIC-receive at 13: handled 13, done 16,
    // NIC-receive to 20. Arrival 20: handled 20, done 23.
    const RunResult r = run(loggp(1, 5), spec_for(alg, 2, 2001));
    expect_marks_us(0, {1, 8, 15});
    expect_marks_us(1, {9, 16, 23});
    expect_finish_us(r, {15, 23});
  }
  {
    SCOPED_TRACE("receiver copying");
    // Rank 1's CPU copies 20000 bytes over [0, 20]: arrivals 6 and 13 wait for it, and 20 comes
    // after them. From 20 the three are handled one after another, each starting when the
    // previous one frees the NIC-receive (g + (m-1)G = 7 after its start, later than the CPU's
    // o + (m-1)G = 3): handled at 20, 27, 34, done at 23, 30, 37. Receive 0 is posted at 20
    // (before the first handling ends), the others when the previous one completes (23, 30), all
    // before their data is usable.
    const RunResult r = run(loggp(1, 5), spec_for(alg, 2, 2001, 20000));
    expect_marks_us(0, {1, 8, 15});
    expect_marks_us(1, {23, 30, 37});
    expect_finish_us(r, {15, 37});
  }
}

// Ranks 0 and 2 each send AlgorithmParams::segment bytes to rank 1, which posts both receives at 0
// (from rank 2 first, index 0) and waits for any of them twice, marking the clock after each.
Task<> two_to_one(Comm& comm, RankBuffers, const AlgorithmParams& p) {
  Storage data(p.segment, false);
  if (comm.rank() != 1) {
    co_await comm.send(data.view(), 1, 8);
    co_return;
  }
  std::array<Request, 2> r;
  r[0] = co_await comm.irecv(data.view(), 2, 8);
  r[1] = co_await comm.irecv(data.view(), 0, 8);
  for (int i = 0; i < 2; ++i) {
    seen.picked.push_back(co_await comm.wait_any(r));
    mark(comm);
  }
}

TEST(ModelLogGP, ReceivesPostedTogetherAreHandledOneAfterTheOther) {
  const auto alg = test_algorithm("test/two_to_one", &two_to_one);
  // o = 2, g = 1, m = 1001 ((m-1)G = 1): both senders start at 0 and their data arrives at
  // o + L = 7. Rank 0's arrival was sent first and is handled first: CPU [7, 7 + 2 + 1 = 10],
  // NIC-receive to 7 + 1 + 1 = 9. Rank 2's waits for the CPU: handled from 10, usable at 13. (Were
  // the two o of the receives overlapped, both would complete at 10.)
  const RunResult r = run(loggp(2, 1), spec_for(alg, 3, 0, 1001));
  EXPECT_EQ(seen.picked, (std::vector<std::size_t>{1, 0}));
  expect_marks_us(1, {10, 13});
  expect_finish_us(r, {2, 13, 2});
}

// Ranks 0 and 2 each send three one-byte messages, valued 10 * rank + i, to rank 1, which copies
// AlgorithmParams::segment bytes first and then receives rank 2's three and rank 0's three,
// noting the values in `picked`.
Task<> three_each_to_a_busy_rank(Comm& comm, RankBuffers, const AlgorithmParams& p) {
  Storage one(1, true);
  if (comm.rank() != 1) {
    for (int i = 0; i < 3; ++i) {
      one.bytes()[0] = static_cast<std::byte>(10 * comm.rank() + i);
      co_await comm.send(one.view(), 1, 4);
    }
    co_return;
  }
  co_await busy(comm, p.segment);
  for (int source : {2, 0})
    for (int i = 0; i < 3; ++i) {
      co_await comm.recv(one.view(), source, 4);
      seen.picked.push_back(std::to_integer<std::size_t>(one.bytes()[0]));
    }
}

TEST(ModelLogGP, MessagesFromOneSenderAreMatchedInTheOrderSent) {
  // All six reach rank 1 while it is busy and wait to be handled; whatever the order of the
  // events that retry them, each sender's messages must match in the order sent (MPI's
  // non-overtaking rule). Busy for 0, 5, 15 and 100 us: none, some or all of them wait.
  const auto alg = test_algorithm("test/three_each_to_a_busy_rank", &three_each_to_a_busy_rank);
  for (std::size_t copy : {0, 5000, 15000, 100000}) {
    run(loggp(1, 5), spec_for(alg, 3, 0, copy));
    EXPECT_EQ(seen.picked, (std::vector<std::size_t>{20, 21, 22, 0, 1, 2})) << "copying " << copy << " bytes";
  }
}

// Rank 0 sends 1001 bytes to rank 1, then enters a barrier. Rank 2 copies AlgorithmParams::segment
// bytes, then enters it. Rank 1 enters it at once, and after it posts the receive from rank 0,
// waits for it and marks the clock.
Task<> receive_after_barrier(Comm& comm, RankBuffers, const AlgorithmParams& p) {
  Storage data(1001, false);
  if (comm.rank() == 0) co_await comm.send(data.view(), 1, 5);
  if (comm.rank() == 2) co_await busy(comm, p.segment);
  co_await comm.barrier();
  if (comm.rank() == 1) {
    co_await comm.recv(data.view(), 0, 5);
    mark(comm);
  }
}

TEST(ModelLogGP, AReceiveCompletesWhenPostedOrWhenItsDataIsUsable) {
  const auto alg = test_algorithm("test/receive_after_barrier", &receive_after_barrier);
  // o = 1, g = 3, m = 1001 ((m-1)G = 1): the message arrives at o + L = 6 and rank 1, idle, handles
  // it over [6, 8] whether or not its receive is posted. Rank 0 enters the barrier at o = 1.
  struct {
    const char* what;
    std::size_t copy;
    double post_us, done_us;
  } cases[] = {
      // Rank 2 copies nothing: the barrier releases at 1, before the arrival; the receive completes
      // when the data is usable, 8.
      {"posted before the arrival", 0, 1, 8},
      // Rank 2 copies 7 us: posted at 7, while the message is handled; completes at 8.
      {"posted during the handling", 7000, 7, 8},
      // Rank 2 copies 20 us: posted at 20, long after the handling; completes at once.
      {"posted after the handling", 20000, 20, 20},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    const RunResult r = run(loggp(1, 3), spec_for(alg, 3, 0, c.copy));
    expect_marks_us(1, {c.done_us});
    expect_finish_us(r, {c.post_us, c.done_us, c.post_us});
  }
}

// Rank 0 sends 1001 bytes to rank 1, then enters a barrier; rank 2 copies 7000 bytes (7 us), then
// enters it. After it, rank 1 either sends 1001 bytes to rank 2 (AlgorithmParams::fanout 0), which
// receives them, or copies 1000 bytes (fanout 1); then it receives rank 0's message. Rank 1 marks
// the clock after its send or copy.
Task<> busy_after_barrier(Comm& comm, RankBuffers, const AlgorithmParams& p) {
  Storage data(1001, false), a(1000, false), b(1000, false);
  if (comm.rank() == 0) co_await comm.send(data.view(), 1, 5);
  if (comm.rank() == 2) co_await busy(comm, 7000);
  co_await comm.barrier();
  if (comm.rank() == 1) {
    if (p.fanout == 0)
      co_await comm.send(data.view(), 2, 6);
    else
      co_await comm.copy(a.view(), b.view());
    mark(comm);
    co_await comm.recv(data.view(), 0, 5);
  }
  if (comm.rank() == 2 && p.fanout == 0) co_await comm.recv(data.view(), 1, 6);
}

TEST(ModelLogGP, HandlingAnArrivalDelaysTheReceiversSendsAndCopies) {
  const auto alg = test_algorithm("test/busy_after_barrier", &busy_after_barrier);
  // o = 1, g = 3, m = 1001 ((m-1)G = 1): rank 0's message arrives at 6 and rank 1's CPU handles it
  // over [6, 8]. The barrier releases everyone at 7 (rank 2's copy).
  RunSpec s = spec_for(alg, 3);
  {
    SCOPED_TRACE("send");
    s.params.fanout = 0;
    // Rank 1's send, posted at 7, starts when the CPU is free, at 8; rank 1 continues at 9, and
    // its receive, posted then, completes at once (the data was usable at 8). The data reaches
    // rank 2 at 8 + 1 + 5 = 14, usable at 14 + 1 + 1 = 16.
    const RunResult r = run(loggp(1, 3), s);
    expect_marks_us(1, {9});
    expect_finish_us(r, {7, 9, 16});
  }
  {
    SCOPED_TRACE("copy");
    // Rank 1's copy of 1 us, posted at 7, holds the CPU from 8 to 9.
    s.params.fanout = 1;
    const RunResult r = run(loggp(1, 3), s);
    expect_marks_us(1, {9});
    expect_finish_us(r, {7, 9, 7});
  }
}

// ---- one-port on the sending side -------------------------------------------------------------

// Rank 0 isends to rank 3 (1000 bytes), rank 1 (3000) and rank 2 (2000), in that order, and waits
// for all three. Rank 4 copies 5000 bytes (5 us), then sends 500 bytes to rank 1, which has both
// receives posted at 0.
Task<> crossing_sends(Comm& comm, RankBuffers, const AlgorithmParams&) {
  Storage to3(1000, false), to1(3000, false), to2(2000, false), from4(500, false);
  switch (comm.rank()) {
    case 0: {
      std::array<Request, 3> r;
      r[0] = co_await comm.isend(to3.view(), 3, 1);
      r[1] = co_await comm.isend(to1.view(), 1, 1);
      r[2] = co_await comm.isend(to2.view(), 2, 1);
      co_await comm.wait_all(r);
      break;
    }
    case 1: {
      std::array<Request, 2> r;
      r[0] = co_await comm.irecv(to1.view(), 0, 1);
      r[1] = co_await comm.irecv(from4.view(), 4, 1);
      co_await comm.wait_all(r);
      break;
    }
    case 2: co_await comm.recv(to2.view(), 0, 1); break;
    case 3: co_await comm.recv(to3.view(), 0, 1); break;
    case 4:
      co_await busy(comm, 5000);
      co_await comm.send(from4.view(), 1, 1);
      break;
  }
}

TEST(ModelOnePort, SendsOfOneRankLeaveInPostingOrder) {
  const auto alg = test_algorithm("test/crossing_sends", &crossing_sends);
  ModelConfig c = hockney();
  // Without contention every transfer takes 10 + m/1000 from its post: rank 3 receives at 11,
  // rank 1 at 13 (from 0) and 5 + 10.5 = 15.5 (from 4), rank 2 at 12; rank 0 waits for its
  // longest send (13), rank 4 for its own (15.5).
  expect_finish_us(run(c, spec_for(alg, 5)), {13, 15.5, 12, 11, 15.5});
  c.one_port = true;
  // Rank 0's send port carries its sends in posting order: to 3 over [0, 11], to 1 over
  // [11, 24], to 2 over [24, 36]. Rank 1's receive port went to rank 0's message when it was
  // posted (at 0); rank 4's, posted at 5, comes second and starts when that one ends, at 24,
  // ending at 34.5. Rank 0 finishes at 36, rank 1 at 34.5.
  expect_finish_us(run(c, spec_for(alg, 5)), {36, 34.5, 36, 11, 34.5});
}

// ---- the deadlock report ----------------------------------------------------------------------

// Ranks that are multiples of 3 return at once; every other rank waits for a message from the
// multiple of 3 below it, which never comes.
Task<> forgotten(Comm& comm, RankBuffers b, const AlgorithmParams&) {
  const int r = comm.rank();
  if (r % 3 != 0) co_await comm.recv(b.data, r - r % 3, 1001);
}

TEST(ModelDeadlock, ListsTheFirstEightStuckRanksAndCountsTheRest) {
  const auto alg = test_algorithm("test/forgotten", &forgotten);
  // Stuck below 12: ranks 1, 2, 4, 5, 7, 8, 10, 11, exactly the eight listed. On 14 ranks rank 13
  // is one more; on 20, ranks 13, 14, 16, 17 and 19 are five more. Ranks 0, 3, 6, ... finished
  // and are never listed.
  const std::string first_eight =
      "rank 1 wait_all on recv from 0 (tag 1001); rank 2 wait_all on recv from 0 (tag 1001); "
      "rank 4 wait_all on recv from 3 (tag 1001); rank 5 wait_all on recv from 3 (tag 1001); "
      "rank 7 wait_all on recv from 6 (tag 1001); rank 8 wait_all on recv from 6 (tag 1001); "
      "rank 10 wait_all on recv from 9 (tag 1001); rank 11 wait_all on recv from 9 (tag 1001)";
  EXPECT_EQ(engine_error(hockney(), spec_for(alg, 12, 16)),
            "deadlock in test/forgotten on 12 processes (root 0, 16 bytes): " + first_eight);
  EXPECT_EQ(engine_error(hockney(), spec_for(alg, 14, 16)),
            "deadlock in test/forgotten on 14 processes (root 0, 16 bytes): " + first_eight + "; and 1 more ranks");
  EXPECT_EQ(engine_error(hockney(), spec_for(alg, 20, 16)),
            "deadlock in test/forgotten on 20 processes (root 0, 16 bytes): " + first_eight + "; and 5 more ranks");
}

// Ranks 0 and 3 enter a barrier, rank 1 returns, rank 2 waits for a message from rank 1.
Task<> stuck_in_barrier(Comm& comm, RankBuffers b, const AlgorithmParams&) {
  if (comm.rank() == 0 || comm.rank() == 3) co_await comm.barrier();
  if (comm.rank() == 2) co_await comm.recv(b.data, 1, 5);
}

TEST(ModelDeadlock, NamesRanksInTheBarrier) {
  const auto alg = test_algorithm("test/stuck_in_barrier", &stuck_in_barrier);
  EXPECT_EQ(engine_error(hockney(), spec_for(alg, 4, 16)),
            "deadlock in test/stuck_in_barrier on 4 processes (root 0, 16 bytes): rank 0 in barrier; "
            "rank 2 wait_all on recv from 1 (tag 5); rank 3 in barrier");
}

// Rank 0 sends to ranks 1 and 2 (tag 4) and returns. Rank 1 waits for any of {that message, one
// from rank 2 with tag 9}, then for any again; rank 2 waits for all of {rank 0's message, one from
// rank 1 with tag 8}. Nobody sends tags 8 and 9.
Task<> stuck_in_wait_any(Comm& comm, RankBuffers b, const AlgorithmParams&) {
  std::array<Request, 2> r;
  switch (comm.rank()) {
    case 0:
      co_await comm.send(b.data, 1, 4);
      co_await comm.send(b.data, 2, 4);
      break;
    case 1:
      r[0] = co_await comm.irecv(b.data, 0, 4);
      r[1] = co_await comm.irecv(b.data, 2, 9);
      seen.picked.push_back(co_await comm.wait_any(r));
      co_await comm.wait_any(r);
      break;
    case 2:
      r[0] = co_await comm.irecv(b.data, 0, 4);
      r[1] = co_await comm.irecv(b.data, 1, 8);
      co_await comm.wait_all(r);
      break;
  }
}

TEST(ModelDeadlock, NamesWhatWaitAnyAndWaitAllStillWaitFor) {
  const auto alg = test_algorithm("test/stuck_in_wait_any", &stuck_in_wait_any);
  // The completed (and, in rank 1's span, nulled) receives from rank 0 are not listed.
  EXPECT_EQ(engine_error(hockney(), spec_for(alg, 3, 16)),
            "deadlock in test/stuck_in_wait_any on 3 processes (root 0, 16 bytes): "
            "rank 1 wait_any on recv from 2 (tag 9); rank 2 wait_all on recv from 1 (tag 8)");
  EXPECT_EQ(seen.picked, std::vector<std::size_t>{0});
}

// ---- peer ranks that do not exist -------------------------------------------------------------

// Peers outside the communicator and the other contract checks of the Comm front are in the
// conformance suite (tests/conformance), the same for every engine.

}  // namespace
}  // namespace collsim
