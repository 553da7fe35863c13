// The model engine's trace (comm/trace.hpp): the seam's contract on every algorithm and cost
// model, exact message times under Hockney and LogGP, and tracing leaving the results alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <string>

#include "common/every_algorithm.hpp"
#include "common/model_configs.hpp"
#include "common/trace_contract.hpp"
#include "engines/model/model_engine.hpp"
#include "experiment/trace/trace_files.hpp"
#include "registry/registry.hpp"

namespace collsim {
namespace {

RunSpec spec(const AlgorithmInfo& a, int procs, std::size_t bytes, std::size_t segment, int root) {
  RunSpec s;
  s.algorithm = &a;
  s.procs = procs;
  s.bytes = collsim_test::test_bytes(a, bytes, s.params.reduction);  // elements, for a reduction
  s.params.segment = segment;
  s.params.root = root;
  return s;
}

using collsim_test::loggp;

ModelConfig one_port() {
  ModelConfig c;
  c.one_port = true;
  c.copy_bandwidth = 5e9;
  return c;
}

std::vector<TraceEvent> traced(const ModelConfig& c, RunSpec s, RunResult* result = nullptr) {
  TraceBuffer buffer;
  s.trace = &buffer;
  const RunResult r = run_model(c, s);
  if (result) *result = r;
  return buffer.take();
}

class TraceOfEveryAlgorithm : public ::testing::TestWithParam<const AlgorithmInfo*> {};

TEST_P(TraceOfEveryAlgorithm, KeepsTheContractAndLeavesTheResultAlone) {
  const AlgorithmInfo& a = *GetParam();
  for (const ModelConfig& c : {ModelConfig{}, loggp(), one_port()})
    for (int p : collsim_test::procs_for(a, {1, 2, 3, 5, 8, 13}))
      for (int root : {0, p - 1})
        for (auto [bytes, segment] : {std::pair<std::size_t, std::size_t>{0, 0}, {1001, 0}, {10007, 1024}}) {
          if (!collsim_test::takes_root(a, root) || !collsim_test::takes_size(a, bytes)) continue;
          const RunSpec s = spec(a, p, bytes, segment, root);
          RunResult with;
          const std::vector<TraceEvent> events = traced(c, s, &with);
          const RunResult without = run_model(c, s);
          EXPECT_EQ(with.finish_s, without.finish_s) << describe(s);
          EXPECT_TRUE(with.data_error.empty()) << describe(s) << ": " << with.data_error;
          EXPECT_EQ(collsim_test::trace_contract(events, {p, true, 0}), "")
              << describe(s) << " under " << to_string(c.kind);
          // Each rank's last completion is its finish.
          for (int r = 0; r < p; ++r) {
            double last = 0;
            for (const TraceEvent& e : events)
              if (e.rank == r && e.kind == TraceKind::complete) last = std::max(last, e.time);
            EXPECT_EQ(last, with.finish_s[static_cast<std::size_t>(r)]) << describe(s) << " rank " << r;
          }
        }
}

INSTANTIATE_TEST_SUITE_P(Model, TraceOfEveryAlgorithm, ::testing::ValuesIn(collsim_test::every_algorithm()),
                         collsim_test::algorithm_test_name);

// A binomial broadcast of m bytes on 8 ranks under Hockney: 7 messages, each arriving
// alpha + beta*m after it starts, starting when its sender has the data (the root at 0), and
// each receive done at its message's arrival.
TEST(ModelTrace, BinomialBroadcastMessagesUnderHockney) {
  ModelConfig c;
  c.hockney = {2e-6, 1e-9};
  const double m = 4000, transfer = 2e-6 + 1e-9 * m;
  const std::vector<TraceEvent> events = traced(c, spec(*find_algorithm("bcast/binomial"), 8, 4000, 0, 0));
  std::vector<const TraceEvent*> starts, arrivals;
  for (const TraceEvent& e : events) {
    if (e.kind == TraceKind::send_start) starts.push_back(&e);
    if (e.kind == TraceKind::arrive) arrivals.push_back(&e);
  }
  ASSERT_EQ(starts.size(), 7u);
  ASSERT_EQ(arrivals.size(), 7u);
  for (const TraceEvent* s : starts) {
    EXPECT_EQ(s->latency, 2e-6);
    EXPECT_EQ(s->bytes, 4000u);
    EXPECT_EQ(s->op, OpKind::isend);
    const auto a =
        std::find_if(arrivals.begin(), arrivals.end(), [&](const TraceEvent* x) { return x->message == s->message; });
    ASSERT_NE(a, arrivals.end());
    EXPECT_DOUBLE_EQ((*a)->time - s->time, transfer);
    // Binomial depth: the sender got the data after as many hops as its vrank has bits set.
    EXPECT_DOUBLE_EQ(s->time, std::popcount(static_cast<unsigned>(s->rank)) * transfer) << "from " << s->rank;
    const auto done = std::find_if(events.begin(), events.end(), [&](const TraceEvent& x) {
      return x.kind == TraceKind::request_done && x.op == OpKind::irecv && x.message == s->message;
    });
    ASSERT_NE(done, events.end());
    EXPECT_EQ(done->rank, s->peer);
    EXPECT_EQ(done->time, (*a)->time);
  }
}

// Under LogGP a message starts when the sender's CPU and NIC are free, its latency is L, and its
// data is usable after the receiver handled it: o + L + o + (m-1)G after a start on idle ranks.
TEST(ModelTrace, LogGpMessageTimes) {
  const ModelConfig c = loggp();
  const std::vector<TraceEvent> events = traced(c, spec(*find_algorithm("bcast/basic_linear"), 2, 1000, 0, 0));
  const auto s =
      std::find_if(events.begin(), events.end(), [](const TraceEvent& e) { return e.kind == TraceKind::send_start; });
  const auto a =
      std::find_if(events.begin(), events.end(), [](const TraceEvent& e) { return e.kind == TraceKind::arrive; });
  ASSERT_NE(s, events.end());
  ASSERT_NE(a, events.end());
  EXPECT_EQ(s->latency, c.loggp.L);
  EXPECT_EQ(s->time, 0);
  EXPECT_NEAR(a->time, 2 * c.loggp.o + c.loggp.L + 999 * c.loggp.G, 1e-18);
}

// The contract checker itself rejects broken traces, so the tests above can fail.
TEST(ModelTrace, ContractCheckerCatchesBreaches) {
  std::vector<TraceEvent> events = traced(ModelConfig{}, spec(*find_algorithm("bcast/binomial"), 4, 100, 0, 0));
  ASSERT_EQ(collsim_test::trace_contract(events, {4, true, 0}), "");
  auto broken = events;
  broken.erase(
      std::find_if(broken.begin(), broken.end(), [](const TraceEvent& e) { return e.kind == TraceKind::arrive; }));
  EXPECT_NE(collsim_test::trace_contract(broken, {4, true, 0}), "");
  broken = events;
  broken.erase(
      std::find_if(broken.begin(), broken.end(), [](const TraceEvent& e) { return e.kind == TraceKind::complete; }));
  EXPECT_NE(collsim_test::trace_contract(broken, {4, true, 0}), "");
  broken = events;
  for (TraceEvent& e : broken)
    if (e.kind == TraceKind::request_done && e.op == OpKind::irecv) {
      e.time = -1;
      break;
    }
  EXPECT_NE(collsim_test::trace_contract(broken, {4, true, 0}), "");
  EXPECT_NE(collsim_test::trace_contract(events, {4, false, 0}), "");  // messages from an engine that has none
}

// A trace written as CSV reads back event for event, bit for bit.
TEST(TraceFiles, CsvRoundTrip) {
  const RunSpec s = spec(*find_algorithm("bcast/split_binary_tree"), 7, 10007, 1024, 3);
  std::vector<TracedRun> runs = {{"model", describe(s), 7, traced(loggp(), s)},
                                 {"model", "with, a \"quoted\" label", 7, traced(one_port(), s)}};
  const std::string path = ::testing::TempDir() + "/trace_roundtrip.csv";
  write_trace(path, runs);
  const std::vector<TracedRun> back = read_trace_csv(path);
  ASSERT_EQ(back.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(back[i].engine, runs[i].engine);
    EXPECT_EQ(back[i].label, runs[i].label);
    EXPECT_EQ(back[i].procs, 7);
    ASSERT_EQ(back[i].events.size(), runs[i].events.size());
    for (std::size_t k = 0; k < back[i].events.size(); ++k) {
      const TraceEvent &a = back[i].events[k], &b = runs[i].events[k];
      EXPECT_TRUE(a.time == b.time && a.latency == b.latency && a.bytes == b.bytes && a.message == b.message &&
                  a.request == b.request && a.rank == b.rank && a.peer == b.peer && a.tag == b.tag &&
                  a.kind == b.kind && a.op == b.op && a.protocol == b.protocol)
          << "run " << i << " event " << k;
    }
  }
  EXPECT_THROW(write_trace(::testing::TempDir() + "/trace.txt", runs), InputError);
}

}  // namespace
}  // namespace collsim
