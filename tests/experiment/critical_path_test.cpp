// The critical path (experiment/trace/critical_path.hpp) of model engine traces: exact shares on cases
// worked by hand, and on every algorithm a chain that tiles [0, finish] with shares adding up to it.
#include "experiment/trace/critical_path.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "common/critical_path_checks.hpp"
#include "common/every_algorithm.hpp"
#include "engines/model/model_engine.hpp"
#include "registry/registry.hpp"

namespace collsim {
namespace {

RunSpec spec(const char* name, int procs, std::size_t bytes, std::size_t segment = 0) {
  RunSpec s;
  s.algorithm = find_algorithm(name);
  s.procs = procs;
  s.bytes = collsim_test::test_bytes(*s.algorithm, bytes, s.params.reduction);  // elements, for a reduction
  s.params.segment = segment;
  return s;
}

struct Traced {
  RunResult result;
  std::vector<TraceEvent> events;
};

Traced traced(const ModelConfig& c, RunSpec s) {
  TraceBuffer buffer;
  s.trace = &buffer;
  Traced t;
  t.result = run_model(c, s);
  t.events = buffer.take();
  return t;
}

int transfers(const CriticalPath& path) {
  int n = 0;
  for (const PathStep& s : path.steps) n += s.kind == PathStep::Kind::transfer;
  return n;
}

// Hockney, no segments: the last rank of a binomial tree on 8 processes is three hops from the
// root, each a whole message sent at once (no one-port), so nothing waits.
TEST(CriticalPath, BinomialIsThreeMessagesOfLatencyAndTransfer) {
  ModelConfig c;
  const double alpha = c.hockney.alpha, beta = c.hockney.beta, m = 10000;
  const Traced t = traced(c, spec("bcast/binomial", 8, 10000));
  const CriticalPath path = critical_path(t.events);
  EXPECT_EQ(path.finish, t.result.time_s);
  EXPECT_EQ(path.last_rank, 3);  // its send to 7 completes on arrival, with 7's receive
  EXPECT_EQ(transfers(path), 3);
  EXPECT_NEAR(path.shares.latency, 3 * alpha, 1e-18);
  EXPECT_NEAR(path.shares.transfer, 3 * beta * m, 1e-18);
  EXPECT_EQ(path.shares.waiting, 0);
  EXPECT_EQ(path.shares.copying, 0);
  EXPECT_NEAR(path.shares.other, 0, 1e-18);
  EXPECT_EQ(path.shares.total(), path.finish);
  // The chain's messages (Open MPI's binomial tree: 0's children 1, 2, 4; 1's 3; 3's 7).
  std::vector<std::pair<int, int>> hops;
  for (const PathStep& s : path.steps)
    if (s.kind == PathStep::Kind::transfer) hops.emplace_back(s.rank, s.peer);
  EXPECT_EQ(hops, (std::vector<std::pair<int, int>>{{0, 1}, {1, 3}, {3, 7}}));
}

// A pipeline of 4 ranks and 4 segments of 1 KiB: the last segment reaches the last rank after
// (P - 1) + (S - 1) = 6 segment transfers, one after the other.
TEST(CriticalPath, PipelineIsOneSegmentTransferPerStage) {
  ModelConfig c;
  const double alpha = c.hockney.alpha, beta = c.hockney.beta;
  const Traced t = traced(c, spec("bcast/pipeline", 4, 4096, 1024));
  const CriticalPath path = critical_path(t.events);
  EXPECT_EQ(path.finish, t.result.time_s);
  EXPECT_EQ(transfers(path), 6);
  EXPECT_NEAR(path.shares.latency, 6 * alpha, 1e-18);
  EXPECT_NEAR(path.shares.transfer, 6 * beta * 1024, 1e-18);
  EXPECT_EQ(path.shares.waiting, 0);
  EXPECT_NEAR(path.finish, 6 * (alpha + beta * 1024), 1e-18);
  EXPECT_EQ(path.shares.total(), path.finish);
}

// One port: the root of a linear bcast on 5 processes sends one message after another, so its
// last send waits for the three before it: waiting 3T, then one transfer T = alpha + beta*m.
TEST(CriticalPath, OnePortWaitsForTheBusyPort) {
  ModelConfig c;
  c.one_port = true;
  const double alpha = c.hockney.alpha, beta = c.hockney.beta, m = 5000;
  const double T = alpha + beta * m;
  const Traced t = traced(c, spec("bcast/basic_linear", 5, 5000));
  const CriticalPath path = critical_path(t.events);
  EXPECT_NEAR(path.finish, 4 * T, 1e-18);
  EXPECT_EQ(transfers(path), 1);
  EXPECT_NEAR(path.shares.waiting, 3 * T, 1e-18);
  EXPECT_NEAR(path.shares.latency, alpha, 1e-18);
  EXPECT_NEAR(path.shares.transfer, beta * m, 1e-18);
  bool queued = false;
  for (const PathStep& s : path.steps) queued |= s.kind == PathStep::Kind::queued && s.rank == 0 && s.peer == 4;
  EXPECT_TRUE(queued);
  EXPECT_EQ(path.shares.total(), path.finish);
}

class CriticalPathOfEveryAlgorithm : public ::testing::TestWithParam<const AlgorithmInfo*> {};

TEST_P(CriticalPathOfEveryAlgorithm, TilesTheFinishTime) {
  const AlgorithmInfo& a = *GetParam();
  ModelConfig hockney, port, loggp;
  port.one_port = true;
  port.copy_bandwidth = 5e9;
  loggp.kind = ModelConfig::Kind::loggp;
  loggp.loggp.L = 3e-6;
  loggp.loggp.o = 0.7e-6;
  loggp.loggp.g = 1.5e-6;
  loggp.loggp.G = 0.6e-9;
  int config = 0;
  for (const ModelConfig& c : {hockney, port, loggp}) {
    ++config;
    for (int p : collsim_test::procs_for(a, {2, 3, 8, 13}))
      for (auto [bytes, segment] : {std::pair<std::size_t, std::size_t>{1001, 0}, {10007, 1024}, {0, 0}}) {
        // A barrier's only size is 0; the others' empty calls send nothing.
        if (!collsim_test::takes_size(a, bytes) || (bytes == 0 && operation_info(a.op).moves_data)) continue;
        RunSpec s = spec(std::string(a.name).c_str(), p, bytes, a.takes(Knob::segment) ? segment : 0);
        const Traced t = traced(c, s);
        const CriticalPath path = critical_path(t.events);
        const std::string what = std::string(a.name) + " config " + std::to_string(config) + " P=" + std::to_string(p) +
                                 " m=" + std::to_string(bytes);
        EXPECT_EQ(path.finish, t.result.time_s) << what;
        collsim_test::expect_tiled(path, what, c.kind == ModelConfig::Kind::loggp);
        EXPECT_GT(transfers(path), 0) << what;
      }
  }
}

INSTANTIATE_TEST_SUITE_P(Model, CriticalPathOfEveryAlgorithm, ::testing::ValuesIn(collsim_test::every_algorithm()),
                         collsim_test::algorithm_test_name);

// A tcp-like trace built by hand (times in us). Rank 0 sends rendezvous messages to ranks 1 and 2
// (m0, m1) and waits for both sends; rank 2 posts its receive at 10. m0's answer is back at 20 and
// its data leaves at once; m1's at 30, when the socket buffer takes its data and the send is done,
// but the interface is busy with m0 until 70. Rank 0 then sends m2 (eager) to rank 1, done 1 us
// into its post (the send overhead), whose data waits for the interface until 110 and reaches
// rank 1 at 125 (latency 10 us), the finish. The chain: rank 2 posts at 10; m1's handshake until
// its send is done at 30; rank 0's wait, its next post; m2 handed over at 31; m2's data waits for
// the interface until 110; its transfer. Before local completion was understood, m1's send done
// at 30 was taken as caused by its data's start at 70 and the walk gave up.
TEST(CriticalPath, ASendDoneBeforeItsDataLeftIsHandedOver) {
  constexpr double us = 1e-6;
  using K = TraceKind;
  using O = OpKind;
  constexpr auto R = TraceProtocol::rendezvous, E = TraceProtocol::eager, N = TraceProtocol::none;
  auto ev = [&](double t, K kind, O op, int rank, int peer, int tag, std::int64_t message, std::int64_t request,
                TraceProtocol protocol, double latency = -1) {
    TraceEvent e;
    e.time = t * us;
    e.kind = kind;
    e.op = op;
    e.rank = rank;
    e.peer = peer;
    e.tag = tag;
    e.bytes = tag == 1 ? 100 : 100000;
    e.message = message;
    e.request = request;
    e.protocol = protocol;
    e.latency = latency < 0 ? -1 : latency * us;
    return e;
  };
  const std::vector<TraceEvent> events = {
      ev(0, K::post, O::isend, 0, 1, 0, -1, 0, N),
      ev(0, K::complete, O::isend, 0, 1, 0, -1, 0, N),
      ev(0, K::post, O::isend, 0, 2, 0, -1, 1, N),
      ev(0, K::complete, O::isend, 0, 2, 0, -1, 1, N),
      ev(0, K::post, O::wait_all, 0, -1, 0, -1, -1, N),
      ev(0, K::post, O::irecv, 1, 0, 0, -1, 0, N),
      ev(0, K::complete, O::irecv, 1, 0, 0, -1, 0, N),
      ev(0, K::post, O::wait_all, 1, -1, 0, -1, -1, N),
      ev(10, K::post, O::irecv, 2, 0, 0, -1, 0, N),
      ev(10, K::complete, O::irecv, 2, 0, 0, -1, 0, N),
      ev(10, K::post, O::wait_all, 2, -1, 0, -1, -1, N),
      ev(20, K::request_done, O::isend, 0, 1, 0, 0, 0, R),
      ev(20, K::send_start, O::isend, 0, 1, 0, 0, -1, R, 10),
      ev(30, K::request_done, O::isend, 0, 2, 0, 1, 1, R),
      ev(30, K::complete, O::wait_all, 0, -1, 0, -1, -1, N),
      ev(30, K::post, O::isend, 0, 1, 1, -1, 0, N),
      ev(31, K::request_done, O::isend, 0, 1, 1, 2, 0, E),
      ev(31, K::complete, O::isend, 0, 1, 1, -1, 0, N),
      ev(31, K::post, O::wait_all, 0, -1, 0, -1, -1, N),
      ev(31, K::complete, O::wait_all, 0, -1, 0, -1, -1, N),
      ev(70, K::arrive, O::isend, 1, 0, 0, 0, -1, R),
      ev(70, K::send_start, O::isend, 0, 2, 0, 1, -1, R, 10),
      ev(71, K::request_done, O::irecv, 1, 0, 0, 0, 0, R),
      ev(71, K::complete, O::wait_all, 1, -1, 0, -1, -1, N),
      ev(71, K::post, O::irecv, 1, 0, 1, -1, 0, N),
      ev(71, K::complete, O::irecv, 1, 0, 1, -1, 0, N),
      ev(71, K::post, O::wait_all, 1, -1, 0, -1, -1, N),
      ev(110, K::send_start, O::isend, 0, 1, 1, 2, -1, E, 10),
      ev(120, K::arrive, O::isend, 2, 0, 0, 1, -1, R),
      ev(121, K::request_done, O::irecv, 2, 0, 0, 1, 0, R),
      ev(121, K::complete, O::wait_all, 2, -1, 0, -1, -1, N),
      ev(125, K::arrive, O::isend, 1, 0, 1, 2, -1, E),
      ev(125, K::request_done, O::irecv, 1, 0, 1, 2, 0, E),
      ev(125, K::complete, O::wait_all, 1, -1, 0, -1, -1, N),
  };
  const CriticalPath path = critical_path(events);
  EXPECT_EQ(path.finish, 125 * us);
  EXPECT_EQ(path.last_rank, 1);
  using S = PathStep::Kind;
  using H = PathStep::Handover;
  struct Want {
    S kind;
    double from, to;
    int rank;
    H handover;
  };
  const std::vector<Want> want = {
      {S::start, 0, 10, 2, H::none},       {S::handed_over, 10, 30, 0, H::handshake}, {S::wait, 30, 30, 0, H::none},
      {S::local, 30, 30, 0, H::none},      {S::handed_over, 30, 31, 0, H::at_post},   {S::queued, 31, 110, 0, H::none},
      {S::transfer, 110, 125, 0, H::none}, {S::delivered, 125, 125, 1, H::none},      {S::wait, 125, 125, 1, H::none},
  };
  ASSERT_EQ(path.steps.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    const PathStep& s = path.steps[i];
    EXPECT_EQ(s.kind, want[i].kind) << "step " << i << ": " << to_string(s.kind);
    EXPECT_EQ(s.from, want[i].from * us) << "step " << i;
    EXPECT_EQ(s.to, want[i].to * us) << "step " << i;
    EXPECT_EQ(s.rank, want[i].rank) << "step " << i;
    EXPECT_EQ(s.handover, want[i].handover) << "step " << i;
  }
  EXPECT_EQ(path.steps[1].peer, 2);  // m1's handshake with rank 2
  EXPECT_EQ(path.steps[1].message, 1);
  EXPECT_EQ(path.steps[4].message, 2);
  // Shares: latency 10 and transfer 5 (m2's transfer), waiting 20 (m1's handshake) + 79 (m2's
  // data behind m1's on the interface), other 10 (before rank 2's post) + 1 (m2's hand-over).
  EXPECT_NEAR(path.shares.latency, 10 * us, 1e-18);
  EXPECT_NEAR(path.shares.transfer, 5 * us, 1e-18);
  EXPECT_NEAR(path.shares.waiting, 99 * us, 1e-18);
  EXPECT_EQ(path.shares.copying, 0);
  EXPECT_NEAR(path.shares.other, 11 * us, 1e-18);
  EXPECT_EQ(path.shares.total(), path.finish);
}

TEST(SegmentNumbers, CountMessagesPerSenderReceiverAndTag) {
  ModelConfig c;
  const Traced t = traced(c, spec("bcast/pipeline", 3, 4096, 1024));
  const auto facts = message_facts(t.events);
  // Two links (0 -> 1, 1 -> 2), four segments each.
  std::map<std::pair<int, int>, std::vector<int>> seen;
  for (const TraceEvent& e : t.events)
    if (e.kind == TraceKind::send_start) {
      EXPECT_EQ(facts.at(e.message).sender, e.rank);
      EXPECT_EQ(facts.at(e.message).receiver, e.peer);
      seen[{e.rank, e.peer}].push_back(facts.at(e.message).segment);
    }
  EXPECT_EQ(seen.size(), 2u);
  for (const auto& [link, segments] : seen) EXPECT_EQ(segments, (std::vector<int>{0, 1, 2, 3}));
}

}  // namespace
}  // namespace collsim
