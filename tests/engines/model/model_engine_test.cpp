// The model engine against closed forms and hand calculations.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "comm/trace.hpp"
#include "common/run_specs.hpp"
#include "engines/model/model_engine.hpp"
#include "registry/registry.hpp"

namespace collsim {
namespace {

using collsim_test::named_spec;

ModelConfig hockney(double alpha, double beta) {
  ModelConfig c;
  c.hockney.alpha = alpha;
  c.hockney.beta = beta;
  return c;
}

// Two-level Hockney on 6 ranks, 2 per node (nodes {0,1}, {2,3}, {4,5}); root 0 of a linear
// broadcast isends to 1, 2, 3, 4, 5 in that order. Without contention each rank has the message
// one transfer after the start: rank 1 under the intra-node model, the others under the inter-node
// one. With one port the root's sends go one after another in that order.
TEST(ModelEngine, TwoLevelHockneyChoosesByNode) {
  ModelConfig c;
  c.kind = ModelConfig::Kind::two_level;
  c.two_level = {{1e-6, 0.1e-9}, {20e-6, 1e-9}, models::block_placement(2), std::nullopt, std::nullopt, std::nullopt};
  const double m = 100000, intra = 1e-6 + 0.1e-9 * m, inter = 20e-6 + 1e-9 * m;
  RunSpec s = named_spec("bcast/basic_linear", 6, 100000);
  RunResult r = run_model(c, s);
  ASSERT_TRUE(r.data_error.empty()) << r.data_error;
  EXPECT_NEAR(r.finish_s[1], intra, 1e-15);
  for (int k = 2; k < 6; ++k) EXPECT_NEAR(r.finish_s[static_cast<std::size_t>(k)], inter, 1e-15) << "rank " << k;
  c.one_port = true;
  r = run_model(c, s);
  EXPECT_NEAR(r.finish_s[1], intra, 1e-15);
  for (int k = 2; k < 6; ++k)
    EXPECT_NEAR(r.finish_s[static_cast<std::size_t>(k)], intra + (k - 1) * inter, 1e-14) << "rank " << k;
  // Four ranks per node: all six on the first two nodes, 1..3 beside the root. By default the
  // root's sends inside its node go one at a time, in the order posted (ranks 1, 2, 3); its sends
  // to the other node do not wait for them.
  c.one_port = false;
  c.two_level.placement = models::block_placement(4);
  r = run_model(c, s);
  for (int k = 1; k < 6; ++k)
    EXPECT_NEAR(r.finish_s[static_cast<std::size_t>(k)], k < 4 ? k * intra : inter, 1e-15) << "rank " << k;
  // The earlier rule: they overlap for free.
  c.concurrent_intra_sends = true;
  r = run_model(c, s);
  for (int k = 1; k < 6; ++k)
    EXPECT_NEAR(r.finish_s[static_cast<std::size_t>(k)], k < 4 ? intra : inter, 1e-15) << "rank " << k;
}

// One node of 8 ranks (two-level, every rank on node 0): a rank's sends go one at a time, each a
// transfer t, in the order posted; a rank finishes when its last send has arrived.
// basic_linear: rank k has the message at k*t. binomial (Open MPI's tree 0 -> 1 2 4; 1 -> 3 5;
// 2 -> 6; 3 -> 7): 1, 2, 4 receive at t, 2t, 3t; 3 and 5 at 2t and 3t (rank 1's two sends), 6 at
// 3t, 7 at 3t; every rank is done at 3t (rank 1 after its sends at 2t and 3t, rank 2 after one at
// 3t, rank 3 after one at 3t). With concurrent sends rank k receives at its depth d(k) times t and
// finishes once its children have: 1 and 2 at 2t, 3 at 3t, the root at t.
TEST(ModelEngine, SendsInsideANodeGoOneAtATime) {
  ModelConfig c;
  c.kind = ModelConfig::Kind::two_level;
  c.two_level.intra = {1e-6, 0.2e-9};
  c.two_level.inter = {20e-6, 1e-9};
  c.two_level.placement = models::block_placement(8);
  const double m = 65536, t = 1e-6 + 0.2e-9 * m;
  RunResult r = run_model(c, named_spec("bcast/basic_linear", 8, 65536));
  for (int k = 1; k < 8; ++k) EXPECT_NEAR(r.finish_s[static_cast<std::size_t>(k)], k * t, 1e-15) << "rank " << k;
  EXPECT_NEAR(r.time_s, 7 * t, 1e-15);
  r = run_model(c, named_spec("bcast/binomial", 8, 65536));
  const std::array<int, 8> serial{3, 3, 3, 3, 3, 3, 3, 3};
  for (std::size_t k = 0; k < 8; ++k) EXPECT_NEAR(r.finish_s[k], serial[k] * t, 1e-15) << "rank " << k;
  c.concurrent_intra_sends = true;
  r = run_model(c, named_spec("bcast/binomial", 8, 65536));
  const std::array<int, 8> done{1, 2, 2, 3, 1, 2, 2, 3};
  for (std::size_t k = 0; k < 8; ++k) EXPECT_NEAR(r.finish_s[k], done[k] * t, 1e-15) << "rank " << k;
  r = run_model(c, named_spec("bcast/basic_linear", 8, 65536));
  EXPECT_NEAR(r.time_s, t, 1e-15);
}

// One node of two sockets of two cores, placed by the sim engine's code (models::place): map-by
// core puts ranks 0, 1 on socket 0 and 2, 3 on socket 1; map-by socket alternates, 0 and 2 on
// socket 0. A linear broadcast from 0 (concurrent sends) reaches each rank after one transfer of
// its pair's level: within a socket `intra`, across `cross_socket`.
TEST(ModelEngine, CrossSocketPairsTakeTheirOwnCosts) {
  ModelConfig c;
  c.kind = ModelConfig::Kind::two_level;
  c.concurrent_intra_sends = true;
  c.two_level.intra = {0.5e-6, 0.1e-9};
  c.two_level.inter = {20e-6, 1e-9};
  c.two_level.cross_socket = models::Hockney{1.5e-6, 0.3e-9};
  const double m = 10000, within = 0.5e-6 + 0.1e-9 * m, across = 1.5e-6 + 0.3e-9 * m;
  const models::NodeShape shape{1, 2, 4};
  std::string error;
  const auto core = models::place(*models::parse_map_by("core"), shape, error);
  const auto socket = models::place(*models::parse_map_by("socket"), shape, error);
  ASSERT_TRUE(core && socket) << error;
  const RunSpec s = named_spec("bcast/basic_linear", 4, 10000);
  c.two_level.placement = *core;
  RunResult r = run_model(c, s);
  EXPECT_NEAR(r.finish_s[1], within, 1e-15);
  EXPECT_NEAR(r.finish_s[2], across, 1e-15);
  EXPECT_NEAR(r.finish_s[3], across, 1e-15);
  c.two_level.placement = *socket;
  r = run_model(c, s);
  EXPECT_NEAR(r.finish_s[1], across, 1e-15);
  EXPECT_NEAR(r.finish_s[2], within, 1e-15);
  EXPECT_NEAR(r.finish_s[3], across, 1e-15);
  // Without cross_socket, two levels: every rank of the node at `within`.
  c.two_level.cross_socket.reset();
  r = run_model(c, s);
  for (std::size_t k = 1; k < 4; ++k) EXPECT_NEAR(r.finish_s[k], within, 1e-15) << "rank " << k;
}

// One socket of 8 cores, 2 NUMA domains of 4, core groups of 2; map-by core puts rank r on core
// r. A linear broadcast from 0 (concurrent sends) reaches rank 1 (its core group) at `intra`,
// ranks 2 and 3 (the other group of NUMA 0) at `cross_group`, ranks 4-7 (NUMA 1) at
// `cross_numa`: the level each pair shares.
TEST(ModelEngine, PairsInsideASocketTakeTheLevelTheyShare) {
  ModelConfig c;
  c.kind = ModelConfig::Kind::two_level;
  c.concurrent_intra_sends = true;
  c.two_level.intra = {0.15e-6, 0.1e-9};
  c.two_level.inter = {20e-6, 1e-9};
  c.two_level.cross_group = models::Hockney{0.3e-6, 0.2e-9};
  c.two_level.cross_numa = models::Hockney{0.4e-6, 0.3e-9};
  const double m = 1000, group = 0.15e-6 + 0.1e-9 * m, ccx = 0.3e-6 + 0.2e-9 * m, numa = 0.4e-6 + 0.3e-9 * m;
  models::NodeShape shape{1, 1, 8};
  shape.core_group = 2;
  shape.numa_domains = 2;
  std::string error;
  const auto core = models::place(*models::parse_map_by("core"), shape, error);
  ASSERT_TRUE(core) << error;
  c.two_level.placement = *core;
  const RunResult r = run_model(c, named_spec("bcast/basic_linear", 8, 1000));
  const double want[] = {0, group, ccx, ccx, numa, numa, numa, numa};
  for (std::size_t k = 1; k < 8; ++k) EXPECT_NEAR(r.finish_s[k], want[k], 1e-15) << "rank " << k;
}

// Overhead tables (Hockney, alpha 10 us, beta 1 ns): a send of m bytes costs the sender
// 1 us below 4 KiB, 2 us + 0.5 ns per byte from there; a receive 3 us.
//  - one 8 KiB message between two ranks: the transfer starts after 2 + 4.096 us of send
//    overhead and the receive completes 3 us after the data arrives;
//  - a linear broadcast of 100 bytes to 3 ranks: the root's overheads follow one another (1 us
//    each), so rank k's transfer starts at k us; each receive adds its 3 us;
//  - a linear gather of 100 bytes from 3 ranks: all arrive at 1 us + t at the root, whose core
//    takes their receive overheads one after another: it finishes at 1 us + t + 3 * 3 us.
TEST(ModelEngine, OverheadTablesAddWhatTheySay) {
  ModelConfig c = hockney(10e-6, 1e-9);
  std::string problem;
  c.send_overhead = *models::parse_overhead("0:1us:0;4KiB:2us:0.5ns", problem);
  c.recv_overhead = *models::parse_overhead("3us", problem);
  const double os8k = 2e-6 + 0.5e-9 * 8192, t8k = 10e-6 + 1e-9 * 8192;
  RunResult r = run_model(c, named_spec("bcast/basic_linear", 2, 8192));
  EXPECT_NEAR(r.finish_s[0], os8k + t8k, 1e-15);
  EXPECT_NEAR(r.finish_s[1], os8k + t8k + 3e-6, 1e-15);
  const double t100 = 10e-6 + 1e-9 * 100;
  r = run_model(c, named_spec("bcast/basic_linear", 4, 100));
  for (int k = 1; k < 4; ++k)
    EXPECT_NEAR(r.finish_s[static_cast<std::size_t>(k)], k * 1e-6 + t100 + 3e-6, 1e-15) << "rank " << k;
  EXPECT_NEAR(r.finish_s[0], 3e-6 + t100, 1e-15);  // its last send completes on arrival
  r = run_model(c, named_spec("gather/basic_linear", 4, 100));
  EXPECT_NEAR(r.finish_s[0], 1e-6 + t100 + 9e-6, 1e-15);
}

// Bit length of x: the number of bits needed to write it, 0 for 0.
int bit_length(unsigned x) { return static_cast<int>(std::bit_width(x)); }

// An unsegmented binomial broadcast under Hockney without contention takes exactly
// H * (alpha + beta*m), H the height of Open MPI's binomial tree: a vrank's depth is its number of
// set bits (its parent is the vrank without its highest bit), and the most set bits below p is
// floor(log2 p) = bit_length(p) - 1 (a power of two 2^k has k below it, 2^k - 1; otherwise
// the bit length of p-1 is that of p and 2^(bit_length(p) - 1) - 1 < p is the widest).
TEST(ModelEngine, UnsegmentedBinomialBcastIsHeightTimesHockney) {
  const double alpha = 25e-6, beta = 1.0 / 1.17e9;
  for (int p : {2, 3, 5, 8, 13, 16, 33, 100, 1000}) {
    for (std::size_t m : {std::size_t{1}, std::size_t{8192}, std::size_t{1} << 20}) {
      RunSpec s = named_spec("bcast/binomial", p, m);
      s.real_bytes = false;
      const RunResult r = run_model(hockney(alpha, beta), s);
      const int height = bit_length(static_cast<unsigned>(p)) - 1;
      const double expected = height * (alpha + beta * static_cast<double>(m));
      EXPECT_NEAR(r.time_s, expected, 1e-12 * expected) << "p=" << p << " m=" << m;
    }
  }
}

// On two ranks the root sends one segment at a time (isend, then wait), so n segments take the
// sum of their Hockney times; the short last segment costs less.
TEST(ModelEngine, SegmentedTwoRanksStreamsSegments) {
  const double alpha = 10e-6, beta = 1e-9;
  RunSpec s = named_spec("bcast/binomial", 2, 10000, 1024);  // 9 full segments and one of 784
  const RunResult r = run_model(hockney(alpha, beta), s);
  const double expected = 9 * (alpha + beta * 1024) + (alpha + beta * 784);
  EXPECT_NEAR(r.time_s, expected, 1e-15);
  EXPECT_TRUE(r.data_error.empty()) << r.data_error;
}

// Per-rank finish times: under Hockney a rank of an unsegmented binomial bcast receives at
// depth * t, t = alpha + beta*m, and, if it has children, finishes one step later when its
// concurrent sends end. On 8 ranks vrank v's children are v + 2^k for the powers of two
// 2^k > v with v + 2^k < 8: vranks 0-3 have some, 4-7 none. With depth = set bits, vranks 0..7 finish at
// 0+1, 1+1, 1+1, 2+1, 1, 2, 2, 3 steps.
TEST(ModelEngine, FinishTimesFollowTreeDepth) {
  const double t = 10e-6 + 1e-9 * 4096;
  const int steps_by_vrank[8] = {1, 2, 2, 3, 1, 2, 2, 3};
  RunSpec s = named_spec("bcast/binomial", 8, 4096, 0, 3);
  const RunResult r = run_model(hockney(10e-6, 1e-9), s);
  ASSERT_EQ(r.finish_s.size(), 8u);
  for (int rank = 0; rank < 8; ++rank) {
    const int vrank = (rank - 3 + 8) % 8;
    EXPECT_NEAR(r.finish_s[static_cast<std::size_t>(rank)], steps_by_vrank[vrank] * t, 1e-15) << "rank " << rank;
  }
  EXPECT_DOUBLE_EQ(r.time_s, 3 * t);
}

// A run of 2^15 ranks or more builds its ranks on two threads (each half's coroutine frames from
// its own thread's pool) and then runs them on one: every rank's finish time is still the one
// FinishTimesFollowTreeDepth derives, depth (set bits) steps, plus one for a rank with children
// (vrank v has one iff v + 2^bit_length(v) < p). Real bytes through a segmented run (two
// receives posted at a time) arrive intact and take the time virtual ones do.
TEST(ModelEngine, LargeRunsBuiltOnTwoThreadsKeepTheirResults) {
  const double t = 10e-6 + 1e-9 * 4096;
  const int p = (1 << 16) + 5;
  RunSpec s = named_spec("bcast/binomial", p, 4096);
  s.real_bytes = false;
  const RunResult r = run_model(hockney(10e-6, 1e-9), s);
  ASSERT_EQ(r.finish_s.size(), static_cast<std::size_t>(p));
  for (int v = 0; v < p; ++v) {
    const int b = bit_length(static_cast<unsigned>(v));
    const int steps = std::popcount(static_cast<unsigned>(v)) + (v + (1 << b) < p ? 1 : 0);
    ASSERT_NEAR(r.finish_s[static_cast<std::size_t>(v)], steps * t, 1e-12) << "rank " << v;
  }
  RunSpec segmented = named_spec("bcast/binomial", 1 << 15, 100, 16, 7);
  const RunResult real = run_model(hockney(10e-6, 1e-9), segmented);
  EXPECT_TRUE(real.data_error.empty()) << real.data_error;
  segmented.real_bytes = false;
  EXPECT_EQ(real.finish_s, run_model(hockney(10e-6, 1e-9), segmented).finish_s);
}

// The engine says what it processed and where its wall time went (the scale benchmark prints
// it): under Hockney each message of an unsegmented broadcast is two events, the completion of
// its send and of its receive, and a segmented one two per segment.
TEST(ModelEngine, ReportsItsEventsAndPhases) {
  for (int p : {1, 2, 7, 64}) {
    RunSpec s = named_spec("bcast/binomial", p, 1000);
    RunResult r = run_model(hockney(10e-6, 1e-9), s);
    EXPECT_EQ(r.events, 2 * (p - 1)) << "p=" << p;
    EXPECT_GT(r.setup_wall_s, 0) << "p=" << p;
    EXPECT_GE(r.loop_wall_s, 0) << "p=" << p;
    s.params.segment = 300;  // four segments
    r = run_model(hockney(10e-6, 1e-9), s);
    EXPECT_EQ(r.events, 8 * (p - 1)) << "p=" << p;
  }
}

// Under one-port the root's isends to vranks 1, 2, 4, ... leave one after the other, the one to
// vrank 2^k over [k t, (k+1) t], t = alpha + beta*m. Likewise vrank v, having received at time
// b t, b = bit_length(v), sends to v + 2^k (k = b, b+1, ... while below p) over [k t, (k+1) t];
// no receiver gets two messages, so receive ports never wait. By induction vrank v receives at
// bit_length(v) t, and finishes then if it has no child, else when its last send ends, at
// (K+1) t for the largest K >= b with v + 2^K < p. As 2^K < p - v, no send ends after
// bit_length(p-1) t, when vrank p-1 receives: the broadcast takes bit_length(p-1) t, which is
// ceil(log2 p) t.
TEST(ModelEngine, UnsegmentedBinomialBcastUnderOnePortIsCeilLog2Steps) {
  ModelConfig c = hockney(7e-6, 1e-9);
  c.one_port = true;
  for (int p = 1; p <= 70; ++p)
    for (int root : {0, p / 3, p - 1})
      for (std::size_t m : {std::size_t{1}, std::size_t{4000}, std::size_t{1} << 20}) {
        SCOPED_TRACE("p=" + std::to_string(p) + " root=" + std::to_string(root) + " m=" + std::to_string(m));
        RunSpec s = named_spec("bcast/binomial", p, m, 0, root);
        s.real_bytes = false;
        const RunResult r = run_model(c, s);
        const double t = 7e-6 + 1e-9 * static_cast<double>(m);
        ASSERT_EQ(r.finish_s.size(), static_cast<std::size_t>(p));
        for (int v = 0; v < p; ++v) {
          int steps = bit_length(static_cast<unsigned>(v));
          for (int k = steps; v + (1 << k) < p; ++k) steps = k + 1;
          const double expected = steps * t;
          EXPECT_NEAR(r.finish_s[static_cast<std::size_t>((v + root) % p)], expected, 1e-12 * expected)
              << "vrank " << v;
        }
        const double expected = bit_length(static_cast<unsigned>(p - 1)) * t;
        EXPECT_NEAR(r.time_s, expected, 1e-12 * expected);
      }
}

// With one port per rank the root serves its children one after another: the linear gather's
// root receives P-1 messages back to back.
TEST(ModelEngine, OnePortSerialisesTheRootOfLinearGather) {
  ModelConfig c = hockney(5e-6, 2e-9);
  RunSpec s = named_spec("gather/basic_linear", 9, 1000);
  EXPECT_NEAR(run_model(c, s).time_s, 5e-6 + 2e-9 * 1000, 1e-15);  // all in parallel
  c.one_port = true;
  EXPECT_NEAR(run_model(c, s).time_s, 8 * (5e-6 + 2e-9 * 1000), 1e-15);
}

TEST(ModelEngine, CopiesAreChargedAtTheCopyRate) {
  ModelConfig c = hockney(5e-6, 2e-9);
  c.copy_bandwidth = 1e9;
  RunSpec s = named_spec("gather/basic_linear", 1, 1 << 20);
  EXPECT_NEAR(run_model(c, s).time_s, (1 << 20) / 1e9, 1e-15);
}

TEST(ModelEngine, LogGPBinomialOnTwoRanks) {
  ModelConfig c;
  c.kind = ModelConfig::Kind::loggp;
  c.loggp.L = 5e-6, c.loggp.o = 1e-6, c.loggp.g = 2e-6, c.loggp.G = 1e-9;
  RunSpec s = named_spec("bcast/binomial", 2, 1001);
  // One message of m = 1001 bytes, (m-1)G = 1 us: the root's send starts at 0 and holds its CPU
  // o = 1 us, after which the root returns (an eager send is complete when it starts). The first
  // byte reaches rank 1 at o + L = 6 us; rank 1, idle, handles it at once, its CPU busy
  // o + (m-1)G = 2 us: the data is usable, and the receive posted at 0 completes, at 8 us.
  const RunResult r = run_model(c, s);
  ASSERT_EQ(r.finish_s.size(), 2u);
  EXPECT_NEAR(r.finish_s[0], 1e-6, 1e-15);
  EXPECT_NEAR(r.finish_s[1], 8e-6, 1e-15);
  EXPECT_NEAR(r.time_s, 8e-6, 1e-15);
}

TEST(ModelEngine, IsDeterministic) {
  RunSpec s = named_spec("bcast/binomial", 37, 100000, 4096, 5);
  const RunResult a = run_model(hockney(7e-6, 1e-9), s);
  const RunResult b = run_model(hockney(7e-6, 1e-9), s);
  EXPECT_EQ(a.finish_s, b.finish_s);
}

TEST(ModelEngine, VirtualAndRealBytesTakeTheSameTime) {
  RunSpec s = named_spec("bcast/binomial", 13, 70000, 8192, 4);
  const RunResult real = run_model(hockney(7e-6, 1e-9), s);
  s.real_bytes = false;
  const RunResult fake = run_model(hockney(7e-6, 1e-9), s);
  EXPECT_EQ(real.finish_s, fake.finish_s);
  EXPECT_TRUE(real.data_error.empty());
}

// A test-only algorithm in which two ranks both receive first.
Task<> head_to_head(Comm& comm, RankBuffers b, const AlgorithmParams&) {
  const int other = 1 - comm.rank();
  co_await comm.recv(b.data, other, 7);
  co_await comm.send(b.data, other, 7);
}

TEST(ModelEngine, DeadlockNamesTheWaitingRanks) {
  AlgorithmInfo bad{"test/head_to_head", Operation::bcast, 0, false, "", &head_to_head};
  RunSpec s = named_spec("bcast/binomial", 2, 16);
  s.algorithm = &bad;
  try {
    run_model(hockney(1e-6, 1e-9), s);
    FAIL() << "no deadlock reported";
  } catch (const EngineError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("deadlock in test/head_to_head on 2 processes"), std::string::npos) << what;
    EXPECT_NE(what.find("rank 0 wait_all on recv from 1 (tag 7)"), std::string::npos) << what;
    EXPECT_NE(what.find("rank 1 wait_all on recv from 0 (tag 7)"), std::string::npos) << what;
  }
}

Task<> wrong_size(Comm& comm, RankBuffers b, const AlgorithmParams&) {
  if (comm.rank() == 0)
    co_await comm.send(b.data, 1, 7);
  else
    co_await comm.recv(b.data.slice(0, b.data.size() - 1), 0, 7);
}

TEST(ModelEngine, SizeMismatchIsAnError) {
  AlgorithmInfo bad{"test/wrong_size", Operation::bcast, 0, false, "", &wrong_size};
  RunSpec s = named_spec("bcast/binomial", 2, 16);
  s.algorithm = &bad;
  EXPECT_THROW(run_model(hockney(1e-6, 1e-9), s), EngineError);
}

// A trace sink that keeps nothing: a traced run starts every rank at time 0.
class NullSink final : public TraceSink {
 public:
  void record(const TraceEvent&) override {}
};

// The algorithms that receive first start a rank when its first message comes instead of at time
// 0; a traced run starts them all at time 0. Both must give the same run, to the bit, under every
// model (one-port and LogGP order ranks' competing transfers by when they are asked for, so a
// start that changed the order of events would show), for every root, for counts with leaves
// at many depths, for segmented (also into a short last segment) and empty messages, with the
// data checked.
TEST(ModelEngine, RanksThatReceiveFirstStartLateWithTheSameResults) {
  ModelConfig one_port = hockney(10e-6, 1e-9);
  one_port.one_port = true;
  ModelConfig loggp;
  loggp.kind = ModelConfig::Kind::loggp;
  ModelConfig two_level;
  two_level.kind = ModelConfig::Kind::two_level;
  two_level.two_level = {{1e-6, 0.1e-9}, {20e-6, 1e-9}, models::block_placement(3),
                         std::nullopt,   std::nullopt,  std::nullopt};
  NullSink sink;
  int checked = 0;
  for (const AlgorithmInfo& a : all_algorithms()) {
    if (!a.receives_first) continue;
    for (const ModelConfig& c : {hockney(10e-6, 1e-9), one_port, loggp, two_level})
      for (int p : {1, 2, 3, 5, 8, 13, 17, 33})
        for (int root : {0, p / 2, p - 1})
          for (auto [bytes, segment] : {std::pair<std::size_t, std::size_t>{1000, 0}, {1000, 300}, {7, 3}, {0, 0}}) {
            RunSpec s = named_spec(std::string(a.name).c_str(), p, bytes, segment, root);
            const RunResult late = run_model(c, s);
            s.trace = &sink;
            const RunResult on_time = run_model(c, s);
            const std::string where = std::string(a.name) + " " + to_string(c.kind) + (c.one_port ? " one-port" : "") +
                                      " p=" + std::to_string(p) + " root=" + std::to_string(root) +
                                      " bytes=" + std::to_string(bytes) + " segment=" + std::to_string(segment);
            ASSERT_TRUE(late.data_error.empty()) << where << ": " << late.data_error;
            ASSERT_EQ(late.finish_s, on_time.finish_s) << where;
            ASSERT_EQ(late.events, on_time.events) << where;
            ++checked;
          }
  }
  // Open MPI's seven bcasts and three scatters among them, and every one checked in each case.
  for (const char* name :
       {"bcast/basic_linear", "bcast/chain", "bcast/pipeline", "bcast/split_binary_tree", "bcast/binary_tree",
        "bcast/binomial", "bcast/knomial", "scatter/basic_linear", "scatter/binomial", "scatter/linear_nb"})
    EXPECT_TRUE(find_algorithm(name)->receives_first) << name;
  const auto flagged = std::count_if(all_algorithms().begin(), all_algorithms().end(),
                                     [](const AlgorithmInfo& a) { return a.receives_first; });
  EXPECT_EQ(checked, flagged * 4 * 8 * 3 * 4);
}

// Test-only algorithms that claim to receive first but do not: a rank started late would have
// sent (or copied) at time 0, so the engine refuses rather than run it at the wrong time.
Task<> sends_first(Comm& comm, RankBuffers b, const AlgorithmParams& params) {
  if (comm.rank() == params.root) co_return;
  co_await comm.send(b.data, params.root, 7);
}

Task<> copies_first(Comm& comm, RankBuffers b, const AlgorithmParams& params) {
  if (comm.rank() != params.root) co_await comm.copy(b.data, b.data);
  if (comm.rank() == 0) co_await comm.send(b.data, 1, 7);
  if (comm.rank() == 1) co_await comm.recv(b.data, 0, 7);
}

TEST(ModelEngine, AnAlgorithmThatClaimsToReceiveFirstAndDoesNotIsRefused) {
  AlgorithmInfo sends{"test/sends_first", Operation::bcast, 0, false, "", &sends_first};
  sends.receives_first = true;
  AlgorithmInfo copies{"test/copies_first", Operation::bcast, 0, false, "", &copies_first};
  copies.receives_first = true;
  ModelConfig c = hockney(1e-6, 1e-9);
  c.copy_bandwidth = 1e9;
  for (const auto& [algorithm, began] :
       {std::pair{&sends, "began with isend"}, std::pair{&copies, "began with copy"}}) {
    RunSpec s = named_spec("bcast/binomial", 4, 16);
    s.algorithm = algorithm;
    try {
      run_model(c, s);
      ADD_FAILURE() << algorithm->name << " ran";
    } catch (const EngineError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(began), std::string::npos) << what;
      EXPECT_NE(what.find(std::string(algorithm->name) + " is registered as receiving first"), std::string::npos)
          << what;
    }
  }
}

// A rank that receives first and is never sent to still starts (after the others) and is found
// waiting: the deadlock reads as in a run that started it at time 0.
Task<> forgets_rank_two(Comm& comm, RankBuffers b, const AlgorithmParams&) {
  if (comm.rank() == 0)
    co_await comm.send(b.data, 1, 7);
  else
    co_await comm.recv(b.data, 0, 7);
}

TEST(ModelEngine, ARankThatReceivesFirstAndIsNeverSentToIsReportedWaiting) {
  AlgorithmInfo forgets{"test/forgets_rank_two", Operation::bcast, 0, false, "", &forgets_rank_two};
  forgets.receives_first = true;
  RunSpec s = named_spec("bcast/binomial", 3, 16);
  s.algorithm = &forgets;
  std::string late, on_time;
  try {
    run_model(hockney(1e-6, 1e-9), s);
  } catch (const EngineError& e) {
    late = e.what();
  }
  NullSink sink;
  s.trace = &sink;
  try {
    run_model(hockney(1e-6, 1e-9), s);
  } catch (const EngineError& e) {
    on_time = e.what();
  }
  EXPECT_NE(late.find("deadlock in test/forgets_rank_two on 3 processes"), std::string::npos) << late;
  EXPECT_NE(late.find(": rank 2 wait_all on recv from 0 (tag 7)"), std::string::npos) << late;
  EXPECT_EQ(late, on_time);
}

// Test-only: rank 1 returns with its send never waited for.
Task<> never_waits(Comm& comm, RankBuffers b, const AlgorithmParams&) {
  if (comm.rank() == 1) (void)co_await comm.isend(b.data, 0, 1);
}

TEST(ModelEngine, RequestsNeverWaitedAreAnError) {
  AlgorithmInfo leaky{"test/never_waits", Operation::bcast, 0, false, "", &never_waits};
  RunSpec s = named_spec("bcast/binomial", 3, 16);
  s.algorithm = &leaky;
  try {
    run_model(hockney(1e-6, 1e-9), s);
    FAIL() << "no error";
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find("test/never_waits on 3 processes (root 0, 16 bytes): rank 1 returned with 1 "
                                         "requests never completed (send to 0 (tag 1))"),
              std::string::npos)
        << e.what();
  }
}

// Test-only: a ring of receives first, in which each rank also sends a message nobody receives
// to the rank before it, which has finished by then (or not started, on the root's side). A
// rank's record is reused once it finishes; messages to a finished rank must neither reach the
// rank that took its record nor change the run.
Task<> ring_with_strays(Comm& comm, RankBuffers b, const AlgorithmParams& params) {
  const int p = comm.size(), me = comm.rank();
  const int next = (me + 1) % p, prev = (me + p - 1) % p;
  if (me != params.root) co_await comm.recv(b.data, prev, 7);
  if (next != params.root) co_await comm.send(b.data, next, 7);
  if (me != params.root) co_await comm.send(b.data, prev, 8);
}

TEST(ModelEngine, RanksThatFinishGiveTheirRecordsToRanksStillToStart) {
  AlgorithmInfo ring{"test/ring_with_strays", Operation::bcast, 0, false, "", &ring_with_strays};
  ring.receives_first = true;
  NullSink sink;
  for (int p : {2, 3, 7, 64})
    for (int root : {0, p / 2, p - 1}) {
      RunSpec s = named_spec("bcast/binomial", p, 100, 0, root);
      s.algorithm = &ring;
      const RunResult late = run_model(hockney(1e-6, 1e-9), s);
      s.trace = &sink;
      const RunResult on_time = run_model(hockney(1e-6, 1e-9), s);
      ASSERT_TRUE(late.data_error.empty()) << late.data_error;
      EXPECT_EQ(late.finish_s, on_time.finish_s) << "p=" << p << " root=" << root;
      EXPECT_EQ(late.events, on_time.events) << "p=" << p << " root=" << root;
      // The rank `hop` places after the root receives at hop transfers, then forwards (but the
      // last) and sends its stray, one transfer each (blocking sends).
      for (int hop = 1; hop < p; ++hop)
        EXPECT_DOUBLE_EQ(late.finish_s[static_cast<std::size_t>((root + hop) % p)],
                         (hop + (hop == p - 1 ? 1 : 2)) * (1e-6 + 100e-9))
            << "p=" << p << " root=" << root << " hop=" << hop;
    }
}

// Test-only, receiving first: the root isends every other rank the whole buffer and then one
// byte of it, both with tag 5, and one byte with tag 9; all three leave at once, so the byte sent
// second arrives first. A rank posts both tag-5 receives, waits for the byte, and only then posts
// the tag-9 receive. A rank that has not started holds its messages until the first arrives;
// they must pair in the order sent (the whole buffer with the first receive, else the sizes
// differ), the tag-9 one must wait unexpected, and nothing may differ from a run whose ranks all
// start at time 0.
Task<> held_out_of_order(Comm& comm, RankBuffers b, const AlgorithmParams& params) {
  const Buffer byte = b.data.slice(0, 1);
  if (comm.rank() == params.root) {
    std::vector<Request> sends;
    for (int r = 0; r < comm.size(); ++r) {
      if (r == params.root) continue;
      for (auto [data, tag] : {std::pair{b.data, 5}, {byte, 5}, {byte, 9}}) {
        auto send = comm.isend(data, r, tag);
        sends.push_back(co_await send);
      }
    }
    co_await comm.wait_all(sends);
    co_return;
  }
  std::array<Request, 3> recvs;
  recvs[0] = co_await comm.irecv(b.data, params.root, 5);
  recvs[1] = co_await comm.irecv(byte, params.root, 5);
  co_await comm.wait(recvs[1]);
  recvs[2] = co_await comm.irecv(byte, params.root, 9);
  co_await comm.wait_all(recvs);
}

TEST(ModelEngine, MessagesHeldForARankNotStartedPairInTheOrderSent) {
  AlgorithmInfo held{"test/held_out_of_order", Operation::bcast, 0, false, "", &held_out_of_order};
  held.receives_first = true;
  NullSink sink;
  const double alpha = 1e-6, beta = 1e-9;
  for (int p : {1, 2, 3, 8})
    for (int root : {0, p - 1}) {
      RunSpec s = named_spec("bcast/binomial", p, 1000, 0, root);
      s.algorithm = &held;
      const RunResult late = run_model(hockney(alpha, beta), s);
      s.trace = &sink;
      const RunResult on_time = run_model(hockney(alpha, beta), s);
      ASSERT_TRUE(late.data_error.empty()) << late.data_error;
      EXPECT_EQ(late.finish_s, on_time.finish_s) << "p=" << p << " root=" << root;
      EXPECT_EQ(late.events, on_time.events) << "p=" << p << " root=" << root;
      // Every transfer starts at 0; the whole buffer's is the last to end, for every rank.
      for (int r = 0; r < p; ++r)
        EXPECT_DOUBLE_EQ(late.finish_s[static_cast<std::size_t>(r)], p == 1 ? 0 : alpha + 1000 * beta)
            << "p=" << p << " root=" << root << " rank=" << r;
    }
}

}  // namespace
}  // namespace collsim
