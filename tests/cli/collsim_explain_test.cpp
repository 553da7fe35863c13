// collsim explain (a small run told step by step, and its critical path) and the scenario key
// critical_path (the path's shares as results.csv columns).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "common/cli_test_util.hpp"

namespace {

using namespace collsim_test;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Binomial on 8 ranks under the default Hockney model (alpha 10 us, beta 0.8 ns/B), 10000 bytes:
// three hops of 10 + 8 = 18 us, 0 -> 1 -> 3 -> 7; latency 30 us of 54 us.
TEST(CollsimExplain, TellsTheRunAndItsCriticalPath) {
  const Outcome o = collsim("explain bcast/binomial --procs 8 --bytes 10000");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_TRUE(has(o.out, "the model has no protocol")) << o.out;
  EXPECT_TRUE(has(o.out, "t=0 s        rank 0 sends segment 0 (10000) to rank 4")) << o.out;
  EXPECT_TRUE(has(o.out, "t=18 us      segment 0 (10000) from rank 0 has arrived at rank 4")) << o.out;
  EXPECT_TRUE(has(o.out, "t=0 s        rank 7 waits for segment 0 from rank 3 (54 us)")) << o.out;
  EXPECT_TRUE(has(o.out, "t=54 us      rank 7 is done")) << o.out;
  EXPECT_TRUE(has(o.out, "critical path (finish 54 us on rank 3)")) << o.out;
  EXPECT_TRUE(has(o.out, "segment 0 (10000) rank 1 -> rank 3")) << o.out;
  EXPECT_TRUE(has(o.out, "  latency    55.6 %  30 us")) << o.out;
  EXPECT_TRUE(has(o.out, "  transfer   44.4 %  24 us")) << o.out;
  EXPECT_TRUE(has(o.out, "  waiting     0.0 %  0 s")) << o.out;
}

// Each message is explained by the profile that carried it: on star16 with two ranks a host,
// rank 0's message to rank 1 stays inside the node (shm, ucx_sm), its message to rank 2 crosses
// to the next host (tcp, ucx).
TEST(CollsimExplain, NamesTheLimitOfTheProfileEachMessageTook) {
  const std::string run = "explain bcast/basic_linear --procs 3 --engine sim --ranks-per-node 2 --platform " +
                          src("platforms/test/star16.xml");
  Outcome o = collsim(run + " --bytes 100KiB --protocol tcp+shm");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_TRUE(has(o.out, "100KiB is above shm's eager limit of 4KiB less a 56-byte header")) << o.out;
  EXPECT_TRUE(has(o.out, "100KiB is above tcp's eager limit of 64KiB less a 56-byte header")) << o.out;
  o = collsim(run + " --bytes 10KiB --protocol ucx");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_TRUE(has(o.out, "10KiB is at or above ucx_sm's rendezvous threshold of 8256")) << o.out;
  EXPECT_TRUE(has(o.out, "10KiB is below ucx's rendezvous threshold of 29119")) << o.out;
}

TEST(CollsimExplain, NumbersTheSegmentsOfAPipeline) {
  const Outcome o = collsim("explain bcast/pipeline --procs 3 --bytes 4KiB --segment 1KiB");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_TRUE(has(o.out, "rank 1 sends segment 3 (1KiB) to rank 2")) << o.out;
  EXPECT_TRUE(has(o.out, "rank 2 waits for segment 3 from rank 1")) << o.out;
  EXPECT_FALSE(has(o.out, "segment 4")) << o.out;
}

TEST(CollsimExplain, ShowsWaitingForABusyPort) {
  const Outcome o = collsim("explain bcast/basic_linear --procs 4 --bytes 5000 --one-port");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_TRUE(has(o.out, "rank 0's segment 0 to rank 3 waits for a busy port or link")) << o.out;
  EXPECT_TRUE(has(o.out, "(its port or link was busy)")) << o.out;
}

TEST(CollsimExplain, RefusesBadInputInOneLine) {
  expect_bad_input("explain bcast/binomial --procs 33 --bytes 1KiB", "explain tells runs of at most 32 ranks");
  expect_bad_input("explain --procs 8 --bytes 1KiB", "explain takes one algorithm");
  expect_bad_input("explain bcast/nope --procs 8 --bytes 1KiB", "unknown algorithm 'bcast/nope'");
  expect_bad_input("explain bcast/binomial --procs 8 --bytes 1KiB --engine formula",
                   "'formula' is not an engine that traces: model, sim");
  expect_bad_input("explain bcast/binomial --procs 8", "missing --bytes");
  expect_bad_input("explain bcast/binomial --procs 8 --bytes 1KiB --protocol tcp",
                   "--protocol does not apply to --engine model");
}

std::string run_scenario(const std::string& name, const std::string& extra) {
  const fs::path scenario = scratch() / (name + ".yaml");
  std::ofstream(scenario) << "name: " << name << "\nengines: [model]\n"
                          << extra << "operations:\n  - op: bcast/binomial\n    procs: [8]\n    bytes: [10000]\n";
  const fs::path out = scratch() / name;
  const Outcome o = collsim("run " + scenario.string() + " --out " + out.string() + " --quiet");
  EXPECT_EQ(o.status, 0) << o.err;
  return slurp(out / "results.csv");
}

// An mpi-like trace (posts, completions and request_done only, as collsim-mpi writes it): rank 0
// sends 1000 bytes at 0, rank 1 posts its receive at 1 us and has the data at 5 us. The path is
// rank 1's wait for that message: 1 us before the later post, then 4 us of transfer from 0 to 1.
TEST(CollsimExplain, TellsARunOfATraceFile) {
  const fs::path trace = scratch() / "explain-mpi.csv";
  const std::string head = "0,mpi,\"bcast/basic_linear on 2 processes (root 0, 1000 bytes)\",2,";
  std::ofstream(trace) << "run,engine,label,procs,kind,op,time,rank,peer,tag,bytes,message,request,protocol,latency\n"
                       << head << "post,isend,0,0,1,7,1000,-1,0,none,-1\n"
                       << head << "complete,isend,0,0,1,7,1000,-1,0,none,-1\n"
                       << head << "post,wait_all,0,0,-1,0,0,-1,-1,none,-1\n"
                       << head << "request_done,isend,3e-06,0,1,7,1000,0,0,none,-1\n"
                       << head << "complete,wait_all,3e-06,0,-1,0,0,-1,-1,none,-1\n"
                       << head << "post,irecv,1e-06,1,0,7,1000,-1,0,none,-1\n"
                       << head << "complete,irecv,1e-06,1,0,7,1000,-1,0,none,-1\n"
                       << head << "post,wait_all,1e-06,1,-1,0,0,-1,-1,none,-1\n"
                       << head << "request_done,irecv,5e-06,1,0,7,1000,0,0,none,-1\n"
                       << head << "complete,wait_all,5e-06,1,-1,0,0,-1,-1,none,-1\n";
  const Outcome o = collsim("explain --from-trace " + trace.string());
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_TRUE(has(o.out, "bcast/basic_linear on 2 processes (root 0, 1000 bytes) on engine mpi")) << o.out;
  EXPECT_TRUE(has(o.out, "the mpi trace does not say which protocol")) << o.out;
  EXPECT_TRUE(has(o.out, "critical path (finish 5 us on rank 1)")) << o.out;
  EXPECT_TRUE(has(o.out, "segment 0 (1000) rank 0 -> rank 1")) << o.out;
  EXPECT_TRUE(has(o.out, "  transfer   80.0 %  4 us")) << o.out;
  EXPECT_TRUE(has(o.out, "  other      20.0 %")) << o.out;  // 1 us, less rounding: 1000 ns
  expect_bad_input("explain --from-trace " + trace.string() + " --procs 2", "--procs does not apply with --from-trace");
  expect_bad_input("explain bcast/binomial --from-trace " + trace.string(), "--from-trace takes no algorithm");
  expect_bad_input("explain --from-trace " + (scratch() / "no-such.csv").string(), "no-such.csv");
}

// The sim engine's tcp completes a send once the socket buffer has taken its data. Binary tree on
// 8 ranks of grisou, 4 rendezvous segments of 64 KiB, through one FIFO interface per host
// (tcp/interface:fifo): rank 0's send of segment 0 to rank 2 is done at 40.13 us, when rank 2's
// answer is back and its data is in the socket buffer, but the data leaves only at 92.58 us, behind
// segment 0 to rank 1 on the interface. Explain says so, and the critical path starts with that
// local completion.
TEST(CollsimExplain, TellsASendDoneBeforeItsDataLeft) {
  const Outcome o = collsim(
      "explain bcast/binary_tree --procs 8 --bytes 256KiB --segment 64KiB --engine sim "
      "--protocol-option tcp/interface:fifo");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_TRUE(has(o.out,
                  "t=0 s        rank 0 waits for its send of segment 0 to rank 2 (40.13 us), done before its "
                  "data leaves at 92.58 us\n"
                  "                         tcp completes a send once the socket buffer has taken its data"))
      << o.out;
  EXPECT_TRUE(has(o.out,
                  "rank 0 sends segment 0 (64KiB) to rank 2, 92.58 us after posting it (the rendezvous: it "
                  "waited for the receiver until 40.13 us, when its send was done with the data handed over, "
                  "then for a busy port or link)"))
      << o.out;
  EXPECT_TRUE(has(o.out,
                  "  0 s         40.13 us    waiting     rank 0's send of segment 0 to rank 2: the rendezvous "
                  "handshake (its receive posted, the answer back), then done as the socket buffer takes its "
                  "data, before it leaves\n"))
      << o.out;
}

// A trace file whose events break the contract (line 8: segment 0 arrives at rank 1 before it
// started from rank 0) is bad input, refused in one line naming the file and the line; so is a
// time of nan.
TEST(CollsimExplain, RefusesATraceFileThatBreaksItsContract) {
  const fs::path trace = scratch() / "explain-broken.csv";
  const std::string head = "0,sim,\"bcast/basic_linear on 2 processes (root 0, 1000 bytes)\",2,";
  std::ofstream(trace) << "run,engine,label,procs,kind,op,time,rank,peer,tag,bytes,message,request,protocol,latency\n"
                       << head << "post,isend,0,0,1,7,1000,-1,0,none,-1\n"
                       << head << "complete,isend,0,0,1,7,1000,-1,0,none,-1\n"
                       << head << "post,wait_all,0,0,-1,0,0,-1,-1,none,-1\n"
                       << head << "post,irecv,0,1,0,7,1000,-1,0,none,-1\n"
                       << head << "complete,irecv,0,1,0,7,1000,-1,0,none,-1\n"
                       << head << "post,wait_all,0,1,-1,0,0,-1,-1,none,-1\n"
                       << head << "arrive,isend,1e-06,1,0,7,1000,0,-1,eager,-1\n"
                       << head << "send_start,isend,2e-06,0,1,7,1000,0,-1,eager,1e-06\n"
                       << head << "request_done,isend,2e-06,0,1,7,1000,0,0,eager,-1\n"
                       << head << "complete,wait_all,2e-06,0,-1,0,0,-1,-1,none,-1\n"
                       << head << "request_done,irecv,4e-06,1,0,7,1000,0,0,eager,-1\n"
                       << head << "complete,wait_all,4e-06,1,-1,0,0,-1,-1,none,-1\n";
  const std::string line = "collsim: " + trace.string() +
                           ":8: the trace breaks its contract: an event caused by a later one (arrive of rank 1 at "
                           "1e-06 s, after send_start of rank 0 at 2e-06 s)";
  expect_refused("explain --from-trace " + trace.string(), line);
  // A time that is no number of seconds, which would break the walk's order.
  const fs::path nan = scratch() / "explain-nan.csv";
  std::ofstream(nan) << "run,engine,label,procs,kind,op,time,rank,peer,tag,bytes,message,request,protocol,latency\n"
                     << head << "post,isend,0,0,1,7,1000,-1,0,none,-1\n"
                     << head << "complete,isend,nan,0,1,7,1000,-1,0,none,-1\n";
  expect_refused("explain --from-trace " + nan.string(),
                 "collsim: " + nan.string() + ":3: time 'nan' is not a finite number");
}

TEST(ScenarioCriticalPath, AddsTheSharesAsColumns) {
  const std::string csv = run_scenario("cp-on", "critical_path: true\n");
  EXPECT_TRUE(has(lines(csv).at(0),
                  ",protocol,datatype,reduce_op,osu_avg_s,osu_min_s,osu_max_s,interval_low_s,interval_high_s,"
                  "cp_latency_s,cp_transfer_s,cp_wait_s,cp_copy_s,cp_other_s,key"))
      << csv;
  EXPECT_NEAR(std::stod(csv_field(csv, "cp_latency_s")), 3e-5, 1e-18);
  EXPECT_NEAR(std::stod(csv_field(csv, "cp_transfer_s")), 3 * 8e-10 * 10000, 1e-18);
  EXPECT_EQ(std::stod(csv_field(csv, "cp_wait_s")), 0);
  EXPECT_EQ(std::stod(csv_field(csv, "cp_copy_s")), 0);
  EXPECT_NEAR(std::stod(csv_field(csv, "cp_other_s")), 0, 1e-18);
}

TEST(ScenarioCriticalPath, LeavesTheRowsAloneWhenOff) {
  const std::string on = run_scenario("cp-on-2", "critical_path: true\n");
  const std::string off = run_scenario("cp-off", "");
  EXPECT_FALSE(has(off, "cp_")) << off;
  // Same row up to the protocol column, then the key.
  const std::string row_on = lines(on).at(1), row_off = lines(off).at(1);
  EXPECT_EQ(row_off.substr(0, row_off.rfind(',')), row_on.substr(0, row_off.rfind(',')));
}

TEST(ScenarioCriticalPath, RejectsANonBoolean) {
  const fs::path scenario = scratch() / "cp-bad.yaml";
  std::ofstream(scenario) << "engines: [model]\ncritical_path: maybe\noperations:\n  - op: bcast/binomial\n"
                             "    procs: [8]\n    bytes: [1]\n";
  expect_bad_input("run " + scenario.string(), "critical_path");
}

}  // namespace
