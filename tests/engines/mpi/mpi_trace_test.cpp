// The mpi engine's half of the trace seam: request_done at the wait that completed each request,
// one traced call per trace_next_run, and the ranks' events merged on rank 0 (gather_trace) on
// one time axis that keeps the seam's contract.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "common/mpi_test_util.hpp"
#include "common/trace_contract.hpp"
#include "engines/mpi/measure.hpp"
#include "engines/mpi/native_call.hpp"
#include "engines/mpi/trace_gather.hpp"
#include "registry/registry.hpp"

namespace collsim {
namespace {

using collsim_test::world_rank;
using collsim_test::world_size;

constexpr double kSlack = 50e-6;  // clock disagreement left after the engine's offsets

RunSpec binomial(std::size_t bytes) {
  RunSpec spec;
  spec.algorithm = find_algorithm("bcast/binomial");
  spec.procs = world_size();
  spec.bytes = bytes;
  return spec;
}

std::size_t count(const std::vector<TraceEvent>& events, TraceKind kind, OpKind op) {
  return static_cast<std::size_t>(
      std::count_if(events.begin(), events.end(), [&](const TraceEvent& e) { return e.kind == kind && e.op == op; }));
}

TEST(MpiTrace, OneTracedCallMergedOnRankZeroKeepsTheContract) {
  TraceBuffer mine;
  RunSpec spec = binomial(20000);
  spec.trace = &mine;
  const RunResult r = run_mpi(MPI_COMM_WORLD, spec);
  ASSERT_EQ(r.data_error, "");
  // Every event is this rank's, within the call (setup and check are not traced).
  for (const TraceEvent& e : mine.events()) {
    EXPECT_EQ(e.rank, world_rank());
    EXPECT_GE(e.time, 0.0);
    EXPECT_LE(e.time, r.finish_s[static_cast<std::size_t>(world_rank())]);
  }
  const std::vector<TraceEvent> all = gather_trace(MPI_COMM_WORLD, mine.events());
  if (world_rank() != 0) {
    EXPECT_TRUE(all.empty());
    return;
  }
  EXPECT_EQ(collsim_test::trace_contract(all, {world_size(), false, kSlack}), "");
  const auto messages = static_cast<std::size_t>(world_size() - 1);
  EXPECT_EQ(count(all, TraceKind::post, OpKind::isend), messages);
  EXPECT_EQ(count(all, TraceKind::post, OpKind::irecv), messages);
  EXPECT_EQ(count(all, TraceKind::request_done, OpKind::isend), messages);
  EXPECT_EQ(count(all, TraceKind::request_done, OpKind::irecv), messages);
  // Every request_done of a message is paired with the other end's (pair_messages).
  std::vector<int> ends(static_cast<std::size_t>(world_size() - 1));
  for (const TraceEvent& e : all) {
    if (e.kind != TraceKind::request_done) continue;
    ASSERT_GE(e.message, 0);
    ASSERT_LT(e.message, world_size() - 1);
    ++ends[static_cast<std::size_t>(e.message)];
  }
  for (int n : ends) EXPECT_EQ(n, 2);
  // Rank by rank, in the order recorded.
  EXPECT_TRUE(
      std::is_sorted(all.begin(), all.end(), [](const TraceEvent& a, const TraceEvent& b) { return a.rank < b.rank; }));
}

TEST(MpiTrace, MeasureTracesOnlyTheFirstTimedCall) {
  TraceBuffer mine;
  MeasureOptions options;
  options.stop.min_runs = 3;
  options.stop.max_runs = 3;
  options.trace = &mine;
  const MpiMeasurement m = measure_algorithm(MPI_COMM_WORLD, binomial(4096), options);
  ASSERT_EQ(m.data, "ok");
  ASSERT_EQ(m.samples_s.size(), 3u);
  const std::vector<TraceEvent>& events = mine.events();
  // Rank 0 of a binomial tree sends to ceil(log2 P) children and receives nothing, the others
  // receive once: one call's worth, not three.
  std::size_t sends = 0;
  for (int p = 1; p < world_size(); p *= 2) ++sends;
  EXPECT_EQ(count(events, TraceKind::post, OpKind::irecv), world_rank() == 0 ? 0u : 1u);
  if (world_rank() == 0) {
    EXPECT_EQ(count(events, TraceKind::post, OpKind::isend), sends);
  }
  for (const TraceEvent& e : events) EXPECT_LE(e.time, m.samples_s[0] + 1e-9);
}

TraceEvent event(TraceKind kind, OpKind op, int rank, int peer, int tag, std::int64_t request) {
  TraceEvent e;
  e.kind = kind;
  e.op = op;
  e.rank = rank;
  e.peer = peer;
  e.tag = tag;
  e.request = request;
  return e;
}

TEST(PairMessages, NthSendMeetsNthReceiveOfTheSameRouteAndTag) {
  using K = TraceKind;
  using O = OpKind;
  // Rank 0 sends tag 5 twice, reusing request 0, then tag 6; rank 1 posts tag 6 first, then the
  // two tag-5 receives, and waits for all three at once.
  std::vector<TraceEvent> events = {
      event(K::post, O::isend, 0, 1, 5, 0),         event(K::request_done, O::isend, 0, 1, 5, 0),
      event(K::post, O::isend, 0, 1, 5, 0),         event(K::request_done, O::isend, 0, 1, 5, 0),
      event(K::post, O::isend, 0, 1, 6, 0),         event(K::request_done, O::isend, 0, 1, 6, 0),
      event(K::post, O::irecv, 1, 0, 6, 0),         event(K::post, O::irecv, 1, 0, 5, 1),
      event(K::post, O::irecv, 1, 0, 5, 2),         event(K::request_done, O::irecv, 1, 0, 6, 0),
      event(K::request_done, O::irecv, 1, 0, 5, 1), event(K::request_done, O::irecv, 1, 0, 5, 2),
  };
  pair_messages(events);
  const std::vector<std::int64_t> want = {-1, 0, -1, 1, -1, 2, -1, -1, -1, 2, 0, 1};
  for (std::size_t i = 0; i < events.size(); ++i) EXPECT_EQ(events[i].message, want[i]) << "event " << i;
}

TEST(MpiTrace, NativeCallsRefuseToBeTraced) {
  RunSpec spec;
  spec.algorithm = find_algorithm("gather/linear_sync");
  spec.procs = world_size();
  spec.bytes = 3000;
  spec.params.segment = 1024;
  NativeCall call(MPI_COMM_WORLD, spec);
  TraceBuffer mine;
  try {
    call.trace_next_run(&mine);
    ADD_FAILURE() << "Open MPI's own gather was traced";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot be traced"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace collsim
