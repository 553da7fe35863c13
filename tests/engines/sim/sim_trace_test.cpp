// The sim engine's trace (comm/trace.hpp): the seam's contract on every algorithm under the ideal,
// tcp and shm profiles, events shipped back from the simulation process, tracing leaving the results
// alone, the protocols the tcp profile chose and when their data moved, and one-sided messages.
// Platform: platforms/test/star16.xml under CM02 without cross traffic (common/sim_test_util.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "comm/buffer.hpp"
#include "common/every_algorithm.hpp"
#include "common/sim_test_util.hpp"
#include "common/trace_contract.hpp"
#include "registry/registry.hpp"

namespace collsim {
namespace {

using collsim_test::exact;

constexpr double kLat = 20e-6;  // star16: every route between two hosts is two links of 10 us

RunSpec spec(const AlgorithmInfo& a, int procs, std::size_t bytes, std::size_t segment, int root) {
  RunSpec s;
  s.algorithm = &a;
  s.procs = procs;
  s.bytes = collsim_test::case_bytes(a, bytes, s.params.reduction, 4096);  // small ones in elements, for a reduction
  s.params.segment = segment;
  s.params.root = root;
  return s;
}

class SimTraceOfEveryAlgorithm : public ::testing::TestWithParam<const AlgorithmInfo*> {};

// Sizes: empty, eager, and segments above the eager limit of both profiles (65536).
TEST_P(SimTraceOfEveryAlgorithm, KeepsTheContractAndLeavesTheResultAlone) {
  const AlgorithmInfo& a = *GetParam();
  std::vector<RunSpec> specs;
  for (int p : collsim_test::procs_for(a, {1, 2, 3, 5, 8}))
    for (int root : collsim_test::roots_for(a, p, {0, p - 1}))
      for (auto [bytes, segment] : {std::pair<std::size_t, std::size_t>{0, 0}, {1001, 0}, {300007, 100000}})
        if (collsim_test::takes_size(a, bytes)) specs.push_back(spec(a, p, bytes, segment, root));
  // tcp+shm with two ranks per host: shm between ranks 2k and 2k+1, tcp between hosts.
  for (const auto& [protocol, per_host] : {std::pair<const char*, int>{"ideal", 1}, {"tcp", 1}, {"tcp+shm", 2}}) {
    const SimConfig config = exact("test/star16.xml", per_host, protocol);
    const std::vector<RunResult> without = collsim_test::run_all(config, specs);
    std::deque<TraceBuffer> buffers(specs.size());
    std::vector<RunSpec> traced = specs;
    for (std::size_t i = 0; i < traced.size(); ++i) traced[i].trace = &buffers[i];
    const std::vector<RunResult> with = collsim_test::run_all(config, traced);
    for (std::size_t i = 0; i < specs.size(); ++i) {
      const RunSpec& s = specs[i];
      const std::string what = describe(s) + " under " + protocol;
      const std::vector<TraceEvent>& events = buffers[i].events();
      EXPECT_EQ(with[i].finish_s, without[i].finish_s) << what;
      EXPECT_TRUE(with[i].data_error.empty()) << what << ": " << with[i].data_error;
      EXPECT_EQ(collsim_test::trace_contract(events, {s.procs, true, 0}), "") << what;
      EXPECT_TRUE(std::is_sorted(events.begin(), events.end(), [](const TraceEvent& x, const TraceEvent& y) {
        return x.time < y.time;
      })) << what;
      // Each rank's last completion is its finish.
      for (int r = 0; r < s.procs; ++r) {
        double last = 0;
        for (const TraceEvent& e : events)
          if (e.rank == r && e.kind == TraceKind::complete) last = std::max(last, e.time);
        EXPECT_EQ(last, with[i].finish_s[static_cast<std::size_t>(r)]) << what << " rank " << r;
      }
      // Messages travel by the profile's rule for their size: eager up to 65535 bytes (ideal),
      // 65480 (tcp), 4040 (shm, inside a host).
      for (const TraceEvent& e : events)
        if (e.kind == TraceKind::send_start) {
          const bool shm = per_host == 2 && e.rank / 2 == e.peer / 2;
          const std::size_t eager = protocol == std::string("ideal") ? 65535 : shm ? 4040 : 65480;
          EXPECT_EQ(e.protocol, e.bytes <= eager ? TraceProtocol::eager : TraceProtocol::rendezvous) << what;
          EXPECT_DOUBLE_EQ(e.latency, kLat) << what;
        }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sim, SimTraceOfEveryAlgorithm, ::testing::ValuesIn(collsim_test::every_algorithm()),
                         collsim_test::algorithm_test_name);

// In one simulation of several runs, each traced run's events reach its own sink, and an
// untraced run between them changes nothing: the traced ones' events are those they have alone
// (times to rounding: a later run's dates are taken from its own start).
TEST(SimTrace, EachRunOfABatchToItsOwnSink) {
  const SimConfig config = exact("test/star16.xml", 1, "tcp");
  const AlgorithmInfo& binomial = *find_algorithm("bcast/binomial");
  const auto alone = [&](const RunSpec& s) {
    TraceBuffer b;
    RunSpec t = s;
    t.trace = &b;
    collsim_test::run_one(config, t);
    return b.take();
  };
  std::vector<RunSpec> specs = {spec(binomial, 5, 1001, 0, 0), spec(binomial, 8, 100000, 0, 3),
                                spec(binomial, 3, 300007, 100000, 2)};
  TraceBuffer first, third;
  specs[0].trace = &first;
  specs[2].trace = &third;
  collsim_test::run_all(config, specs);
  EXPECT_EQ(collsim_test::trace_contract(first.events(), {5, true, 0}), "");
  EXPECT_EQ(collsim_test::trace_contract(third.events(), {3, true, 0}), "");
  for (const auto& [events, s] : {std::pair{first.events(), specs[0]}, {third.events(), specs[2]}}) {
    const std::vector<TraceEvent> want = alone(s);
    ASSERT_EQ(events.size(), want.size()) << describe(s);
    for (std::size_t k = 0; k < want.size(); ++k) {
      EXPECT_TRUE(events[k].kind == want[k].kind && events[k].rank == want[k].rank &&
                  events[k].message == want[k].message && events[k].request == want[k].request &&
                  events[k].latency == want[k].latency && events[k].protocol == want[k].protocol &&
                  events[k].bytes == want[k].bytes)
          << describe(s) << " event " << k;
      EXPECT_NEAR(events[k].time, want[k].time, 1e-12) << describe(s) << " event " << k;
    }
  }
}

Task<> busy(Comm& comm, std::size_t bytes) {
  Storage a(bytes, false), b(bytes, false);
  co_await comm.copy(a.view(), b.view());
}

// Rank 0 sends one message of params.segment bytes at once; rank 1 copies for 1 ms (star16 copies
// 1 GB/s) before it posts the receive.
Task<> late_receiver(Comm& comm, RankBuffers, const AlgorithmParams& p) {
  Storage msg(p.segment, false);
  if (comm.rank() == 0) co_await comm.send(msg.view(), 1, 1);
  if (comm.rank() == 1) {
    co_await busy(comm, 1000000);
    co_await comm.recv(msg.view(), 0, 1);
  }
}

const AlgorithmInfo kLateReceiver{"test/late_receiver", Operation::bcast, 0, 0, "test", late_receiver};

std::vector<TraceEvent> traced(const SimConfig& config, std::size_t message) {
  RunSpec s;
  s.algorithm = &kLateReceiver;
  s.procs = 2;
  s.real_bytes = false;
  s.params.segment = message;
  TraceBuffer buffer;
  s.trace = &buffer;
  collsim_test::run_one(config, s);
  return buffer.take();
}

const TraceEvent& only(const std::vector<TraceEvent>& events, TraceKind kind, OpKind op) {
  const auto n =
      std::count_if(events.begin(), events.end(), [&](const TraceEvent& e) { return e.kind == kind && e.op == op; });
  EXPECT_EQ(n, 1) << to_string(kind) << " " << to_string(op);
  const auto it =
      std::find_if(events.begin(), events.end(), [&](const TraceEvent& e) { return e.kind == kind && e.op == op; });
  if (it == events.end()) throw std::logic_error("no such event");
  return *it;
}

// Under tcp a message above the eager limit waits for the receive (RNDV, then the receiver's PUT
// control back); one below it leaves as it is posted.
TEST(SimTrace, TcpRendezvousWaitsForTheReceiveAndEagerDoesNot) {
  const SimConfig config = exact("test/star16.xml", 1, "tcp");
  {
    const std::vector<TraceEvent> events = traced(config, 100000);
    ASSERT_EQ(collsim_test::trace_contract(events, {2, true, 0}), "");
    const TraceEvent& start = only(events, TraceKind::send_start, OpKind::isend);
    const TraceEvent& recv = only(events, TraceKind::post, OpKind::irecv);
    EXPECT_EQ(start.protocol, TraceProtocol::rendezvous);
    EXPECT_NEAR(recv.time, 1e-3, 1e-9);
    EXPECT_GE(start.time, recv.time);
    EXPECT_EQ(start.rank, 0);
    EXPECT_EQ(start.peer, 1);
    EXPECT_EQ(start.bytes, 100000u);
  }
  {
    const std::vector<TraceEvent> events = traced(config, 1000);
    ASSERT_EQ(collsim_test::trace_contract(events, {2, true, 0}), "");
    const TraceEvent& start = only(events, TraceKind::send_start, OpKind::isend);
    const TraceEvent& send = only(events, TraceKind::post, OpKind::isend);
    const TraceEvent& arrive = only(events, TraceKind::arrive, OpKind::isend);
    EXPECT_EQ(start.protocol, TraceProtocol::eager);
    EXPECT_EQ(start.time, send.time);
    EXPECT_LT(arrive.time, 1e-3);  // long before the receive
    EXPECT_EQ(arrive.rank, 1);
  }
}

// Under the ideal profile a rendezvous message's data moves once both sides have posted, and
// takes latency + m / bandwidth on star16's idle route (10 Gb/s links).
TEST(SimTrace, IdealRendezvousStartsAtTheReceive) {
  const std::vector<TraceEvent> events = traced(exact("test/star16.xml"), 100000);
  ASSERT_EQ(collsim_test::trace_contract(events, {2, true, 0}), "");
  const TraceEvent& start = only(events, TraceKind::send_start, OpKind::isend);
  const TraceEvent& arrive = only(events, TraceKind::arrive, OpKind::isend);
  EXPECT_EQ(start.protocol, TraceProtocol::rendezvous);
  EXPECT_NEAR(start.time, 1e-3, 1e-9);
  EXPECT_NEAR(arrive.time - start.time, kLat + 100000 / 1.25e9, 1e-9);
  EXPECT_EQ(arrive.message, start.message);
}

// The root of a binomial bcast sends to its children at once, and they wait for it: the messages
// queue on the root's interface one behind another. A receive still completes as its data arrives:
// under tcp a rendezvous receive completes on the FIN, which follows the data on the wire (at most
// its 32 bytes later), every other one as the data arrives (sim_trace.hpp); and no message's data moves faster
// than star16's links (1.25 GB/s). tcp+shm: two ranks per host, shm between them.
TEST(SimTrace, WaitingReceivesCompleteAsTheirDataArrives) {
  const AlgorithmInfo& binomial = *find_algorithm("bcast/binomial");
  constexpr double kBw = 1.25e9;
  for (const auto& [protocol, per_host] : {std::pair<const char*, int>{"tcp", 1}, {"tcp+shm", 2}})
    for (std::size_t bytes : {std::size_t{1000}, std::size_t{1} << 20}) {
      RunSpec s = spec(binomial, 8, bytes, 0, 0);
      TraceBuffer buffer;
      s.trace = &buffer;
      collsim_test::run_one(exact("test/star16.xml", per_host, protocol), s);
      const std::vector<TraceEvent>& events = buffer.events();
      const std::string what = std::string(protocol) + " " + std::to_string(bytes) + " bytes";
      ASSERT_EQ(collsim_test::trace_contract(events, {8, true, 0}), "") << what;
      const auto find = [&](TraceKind kind, std::int64_t message) {
        const auto it = std::find_if(events.begin(), events.end(), [&](const TraceEvent& e) {
          return e.kind == kind && e.message == message && (kind != TraceKind::request_done || e.op == OpKind::irecv);
        });
        if (it == events.end()) throw std::logic_error("no such event");
        return *it;
      };
      int receives = 0;
      for (const TraceEvent& start : events) {
        if (start.kind != TraceKind::send_start) continue;
        const TraceEvent arrive = find(TraceKind::arrive, start.message);
        const TraceEvent done = find(TraceKind::request_done, start.message);
        const bool shm = per_host == 2 && start.rank / 2 == start.peer / 2;
        const bool fin = !shm && start.protocol == TraceProtocol::rendezvous;
        EXPECT_EQ(start.protocol, bytes == 1000 ? TraceProtocol::eager : TraceProtocol::rendezvous) << what;
        EXPECT_GE(arrive.time - start.time, static_cast<double>(bytes) / kBw) << what << " message " << start.message;
        // The FIN's 32 bytes at most (less when sharing slowed the data and the FIN caught up).
        EXPECT_GE(done.time, arrive.time) << what << " message " << start.message;
        EXPECT_LE(done.time - arrive.time, fin ? 32 / kBw + 1e-12 : 0.0) << what << " message " << start.message;
        ++receives;
      }
      EXPECT_EQ(receives, 7) << what;
    }
}

// Rank 0 puts params.segment bytes into rank 1's window and gets them back.
Task<> put_then_get(Comm& comm, RankBuffers, const AlgorithmParams& p) {
  const Window w = co_await comm.win_allocate(p.segment, false);
  Storage buf(p.segment, false);
  if (comm.rank() == 0) {
    Request r = co_await comm.put(w, 1, 0, buf.view());
    co_await comm.wait(r);
    co_await comm.flush(w, 1);
    r = co_await comm.get(w, 1, 0, buf.view());
    co_await comm.wait(r);
  }
  co_await comm.win_free(w);
}

const AlgorithmInfo kPutThenGet{"test/put_then_get", Operation::bcast, 0, 0, "test", put_then_get};

// A put's data goes origin -> target from its post; a get's target -> origin once its request has
// crossed the route (one latency). Both one_sided, with distinct message ids.
TEST(SimTrace, OneSidedMessages) {
  RunSpec s;
  s.algorithm = &kPutThenGet;
  s.procs = 2;
  s.real_bytes = false;
  s.params.segment = 5000;
  TraceBuffer buffer;
  s.trace = &buffer;
  collsim_test::run_one(exact("test/star16.xml"), s);
  const std::vector<TraceEvent>& events = buffer.events();
  ASSERT_EQ(collsim_test::trace_contract(events, {2, true, 0}), "");
  const TraceEvent& put = only(events, TraceKind::send_start, OpKind::put);
  const TraceEvent& put_posted = only(events, TraceKind::post, OpKind::put);
  const TraceEvent& get = only(events, TraceKind::send_start, OpKind::get);
  const TraceEvent& get_posted = only(events, TraceKind::post, OpKind::get);
  const TraceEvent& got = only(events, TraceKind::arrive, OpKind::get);
  EXPECT_EQ(put.protocol, TraceProtocol::one_sided);
  EXPECT_EQ(get.protocol, TraceProtocol::one_sided);
  EXPECT_NE(put.message, get.message);
  EXPECT_EQ(put.time, put_posted.time);
  EXPECT_EQ(put.rank, 0);
  EXPECT_EQ(put.peer, 1);
  EXPECT_EQ(get.rank, 1);
  EXPECT_EQ(get.peer, 0);
  EXPECT_NEAR(get.time - get_posted.time, kLat, 1e-9);
  EXPECT_NEAR(got.time - get.time, kLat + 5000 / 1.25e9, 1e-9);
  EXPECT_EQ(got.rank, 0);
}

}  // namespace
}  // namespace collsim
