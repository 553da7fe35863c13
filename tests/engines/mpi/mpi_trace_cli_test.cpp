// `collsim-mpi measure --trace FILE` as a user runs it: the merged trace of one timed call keeps
// the trace seam's contract on a common time axis, holds one isend post per message the algorithm
// sends, pairs each send with its receive, and ends with the time measured for that call; engine mpi-native refuses to
// be traced.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "common/csv_row.hpp"
#include "common/mpirun.hpp"
#include "common/trace_contract.hpp"
#include "experiment/results/measurement.hpp"
#include "experiment/trace/trace_files.hpp"

namespace {

namespace fs = std::filesystem;
using collsim_test::Outcome;

constexpr int kProcs = 4;
// How far two ranks' clocks may disagree after the engine's offsets (half a loopback round trip
// is a few microseconds; this leaves room for an oversubscribed machine).
constexpr double kSlack = 50e-6;

Outcome mpirun(int procs, const std::string& args) {
  return collsim_test::mpirun(procs, std::string(COLLSIM_MPI_BIN) + " " + args);
}

fs::path trace_path(const std::string& name) {
  return fs::temp_directory_path() / ("collsim-mpi-trace-" + std::to_string(::getpid()) + "-" + name + ".csv");
}

// Measures one timed call (so the CSV row's time is the traced call's) with --trace and checks
// the trace; `isends` is how many messages the algorithm sends.
void check_traced_call(const std::string& call, const std::string& label, std::size_t isends) {
  const fs::path path = trace_path(std::to_string(isends));
  const Outcome o =
      mpirun(kProcs, "measure " + call + " --csv --warmup 2 --min-runs 1 --max-runs 1 --trace " + path.string());
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.err.find("trace of the first timed call"), std::string::npos) << o.err;
  auto row = collsim_test::csv_row(o.out, collsim::csv_header());
  ASSERT_EQ(row["runs"], "1");
  const double time = std::stod(row["time_s"]);

  const std::vector<collsim::TracedRun> runs = collsim::read_trace_csv(path.string());
  fs::remove(path);
  ASSERT_EQ(runs.size(), 1u);
  const collsim::TracedRun& run = runs.front();
  EXPECT_EQ(run.engine, "mpi");
  EXPECT_EQ(run.label, label);
  EXPECT_EQ(run.procs, kProcs);
  EXPECT_EQ(collsim_test::trace_contract(run.events, {kProcs, false, kSlack}), "");

  std::size_t posted = 0, done = 0;
  std::vector<double> last_complete(kProcs, -1);
  for (const collsim::TraceEvent& e : run.events) {
    if (e.kind == collsim::TraceKind::post && e.op == collsim::OpKind::isend) ++posted;
    if (e.kind == collsim::TraceKind::request_done && e.op == collsim::OpKind::isend) ++done;
    if (e.kind == collsim::TraceKind::complete)
      last_complete[static_cast<std::size_t>(e.rank)] =
          std::max(last_complete[static_cast<std::size_t>(e.rank)], e.time);
    EXPECT_NE(e.kind, collsim::TraceKind::send_start);
    EXPECT_NE(e.kind, collsim::TraceKind::arrive);
  }
  EXPECT_EQ(posted, isends);
  EXPECT_EQ(done, isends);
  // Each message's two ends, paired on rank 0: the receive is done after the send was posted,
  // on the common time axis (a wrong clock offset would put some receives before their send).
  std::map<std::int64_t, std::vector<const collsim::TraceEvent*>> ends;
  std::map<std::pair<int, std::int64_t>, double> open_sends;  // (rank, request) -> its post
  std::map<std::int64_t, double> sent;                        // message -> its isend's post
  for (const collsim::TraceEvent& e : run.events) {
    if (e.kind == collsim::TraceKind::post && e.op == collsim::OpKind::isend) open_sends[{e.rank, e.request}] = e.time;
    if (e.kind != collsim::TraceKind::request_done) continue;
    ASSERT_GE(e.message, 0) << "rank " << e.rank << " request " << e.request << " unpaired";
    ends[e.message].push_back(&e);
    if (e.op == collsim::OpKind::isend) sent[e.message] = open_sends.at({e.rank, e.request});
  }
  EXPECT_EQ(ends.size(), isends);
  for (const auto& [id, pair] : ends) {
    ASSERT_EQ(pair.size(), 2u) << "message " << id;
    const bool first_sends = pair[0]->op == collsim::OpKind::isend;
    const collsim::TraceEvent& send = first_sends ? *pair[0] : *pair[1];
    const collsim::TraceEvent& receive = first_sends ? *pair[1] : *pair[0];
    EXPECT_EQ(send.op, collsim::OpKind::isend);
    EXPECT_EQ(receive.op, collsim::OpKind::irecv);
    EXPECT_EQ(send.peer, receive.rank);
    EXPECT_EQ(receive.peer, send.rank);
    EXPECT_EQ(send.tag, receive.tag);
    EXPECT_EQ(send.bytes, receive.bytes);
    EXPECT_GE(receive.time + kSlack, sent.at(id)) << "message " << id;
  }
  // A rank's finish is read on the same clock right after its last operation returned, and the
  // call's time is the latest finish: no rank's last complete is later, and the latest is close.
  for (int r = 0; r < kProcs; ++r) {
    EXPECT_GE(last_complete[static_cast<std::size_t>(r)], 0) << "rank " << r << " completed nothing";
    EXPECT_LE(last_complete[static_cast<std::size_t>(r)], time + 1e-9) << "rank " << r;
  }
  const double latest = *std::max_element(last_complete.begin(), last_complete.end());
  EXPECT_GE(latest, 0.8 * time - 200e-6) << "latest complete " << latest << " s, call " << time << " s";
}

TEST(MpiTraceCli, BinomialBcastOneIsendPerChild) {
  check_traced_call("--op bcast/binomial --bytes 64KiB", "bcast/binomial on 4 processes (root 0, 65536 bytes)",
                    kProcs - 1);
}

TEST(MpiTraceCli, SegmentedPipelineOneIsendPerSegmentAndLink) {
  // A chain of P - 1 links, each carrying every one of the 8 segments.
  check_traced_call("--op bcast/pipeline --bytes 64KiB --segment 8KiB",
                    "bcast/pipeline on 4 processes (root 0, 65536 bytes, segment 8192)", (kProcs - 1) * 8);
}

TEST(MpiTraceCli, NativeEngineRefusesToTrace) {
  const fs::path path = trace_path("native");
  const Outcome o = mpirun(2, "measure --engine mpi-native --op bcast/binomial --bytes 1KiB --trace " + path.string());
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.err.find("--trace: engine mpi-native"), std::string::npos) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  EXPECT_FALSE(fs::exists(path));
}

TEST(MpiTraceCli, UnknownTraceFormatRefusedBeforeMeasuring) {
  const Outcome o = mpirun(2, "measure --op bcast/binomial --bytes 1KiB --csv --trace " +
                                  (fs::temp_directory_path() / "collsim-mpi-trace.xyz").string());
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.err.find("--trace: "), std::string::npos) << o.err;
  EXPECT_EQ(o.out, "") << "nothing measured";
}

TEST(MpiTraceCli, OnlyMeasureTakesTrace) {
  const Outcome o = mpirun(2, "run --op bcast/binomial --bytes 1KiB --trace x.csv");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.err.find("trace"), std::string::npos) << o.err;
}

}  // namespace
