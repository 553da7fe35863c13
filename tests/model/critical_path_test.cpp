// The critical path (experiment/critical_path.hpp) of model engine traces: exact shares on cases
// worked by hand, and on every algorithm a chain that tiles [0, finish] with shares adding up to it.
#include "experiment/critical_path.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "algorithms/registry.hpp"
#include "common/every_algorithm.hpp"
#include "engines/model/model_engine.hpp"

namespace collsim {
namespace {

RunSpec spec(const char* name, int procs, std::size_t bytes, std::size_t segment = 0) {
  RunSpec s;
  s.algorithm = find_algorithm(name);
  s.procs = procs;
  s.bytes = testing::test_bytes(*s.algorithm, bytes, s.params.reduction);  // elements, for a reduction
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

// The steps follow each other from 0 to the finish, and the copying share is the copy steps'
// time (with a copy rate some algorithms have local copies on the chain).
void expect_tiled(const CriticalPath& path, const std::string& what, bool local_work) {
  ASSERT_FALSE(path.steps.empty()) << what;
  EXPECT_EQ(path.steps.front().from, 0) << what;
  EXPECT_EQ(path.steps.back().to, path.finish) << what;
  double copying = 0;
  for (std::size_t i = 0; i < path.steps.size(); ++i) {
    const PathStep& s = path.steps[i];
    EXPECT_LE(s.from, s.to) << what << " step " << i;
    if (i + 1 < path.steps.size()) {
      EXPECT_EQ(s.to, path.steps[i + 1].from) << what << " step " << i;
    }
    if (s.kind == PathStep::Kind::copy) copying += s.to - s.from;
    EXPECT_GE(s.shares.latency, 0) << what;
    EXPECT_GE(s.shares.transfer, 0) << what;
  }
  EXPECT_EQ(path.shares.copying, copying) << what;
  EXPECT_EQ(path.shares.total(), path.finish) << what;
  // Hockney has no local work (LogGP has its overheads o); then other is rounding only.
  if (!local_work) {
    EXPECT_NEAR(path.shares.other, 0, 1e-12 + 1e-9 * path.finish) << what;
  }
  EXPECT_GE(path.shares.other, -1e-12 * path.finish) << what;
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
    for (int p : testing::procs_for(a, {2, 3, 8, 13}))
      for (auto [bytes, segment] : {std::pair<std::size_t, std::size_t>{1001, 0}, {10007, 1024}, {0, 0}}) {
        // A barrier's only size is 0; the others' empty calls send nothing.
        if (!testing::takes_size(a, bytes) || (bytes == 0 && operation_info(a.op).moves_data)) continue;
        RunSpec s = spec(std::string(a.name).c_str(), p, bytes, a.takes(Knob::segment) ? segment : 0);
        const Traced t = traced(c, s);
        const CriticalPath path = critical_path(t.events);
        const std::string what = std::string(a.name) + " config " + std::to_string(config) + " P=" + std::to_string(p) +
                                 " m=" + std::to_string(bytes);
        EXPECT_EQ(path.finish, t.result.time_s) << what;
        expect_tiled(path, what, c.kind == ModelConfig::Kind::loggp);
        EXPECT_GT(transfers(path), 0) << what;
      }
  }
}

INSTANTIATE_TEST_SUITE_P(Model, CriticalPathOfEveryAlgorithm, ::testing::ValuesIn(testing::every_algorithm()),
                         testing::algorithm_test_name);

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
