// collsim timeline and tools/timeline: the pictures hold one arrow per message and one panel per
// run (tools/timeline names them in the SVG: id="run-I", id="message-I-K"), arrows are coloured
// by segment number, and bad input gets one line and status 2.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "comm/comm.hpp"
#include "common/cli_test_util.hpp"
#include "experiment/trace/trace_files.hpp"

namespace collsim_test {
namespace {

bool have_matplotlib() { return run_command("/usr/bin/python3 -c 'import matplotlib'").status == 0; }

#define SKIP_WITHOUT_MATPLOTLIB() \
  if (!have_matplotlib()) GTEST_SKIP() << "/usr/bin/python3 has no matplotlib (Debian: python3-matplotlib)"

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// The SVG group of element `id`, up to its first closing tag.
std::string group(const std::string& svg, const std::string& id) {
  const auto at = svg.find("id=\"" + id + "\"");
  if (at == std::string::npos) return "";
  return svg.substr(at, svg.find("</g>", at) - at);
}

const std::string kPipeline = "timeline --op bcast/pipeline --procs 8 --bytes 64KiB --segment 8KiB";

TEST(Timeline, PipelineOnModelHasOneArrowPerMessage) {
  SKIP_WITHOUT_MATPLOTLIB();
  const fs::path svg = scratch() / "pipeline.svg", csv = scratch() / "pipeline.csv";
  const Outcome o = collsim(kPipeline + " --svg " + svg.string() + " --trace " + csv.string());
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out, "wrote " + svg.string() + " (1 run), trace " + csv.string() + "\n");
  const std::string picture = slurp(svg);
  ASSERT_EQ(picture.rfind("<?xml", 0), 0u) << picture.substr(0, 100);
  EXPECT_NE(picture.find("</svg>"), std::string::npos);
  // A chain of 8 ranks, 8 segments of 8 KiB: 7 hops of 8 messages, each its arrow.
  const std::string trace = slurp(csv);
  EXPECT_EQ(occurrences(trace, ",send_start,"), 56u);
  EXPECT_EQ(occurrences(picture, "id=\"message-0-"), 56u);
  EXPECT_EQ(occurrences(picture, "id=\"run-"), 1u);
  EXPECT_NE(picture.find("id=\"run-0\""), std::string::npos);
}

TEST(Timeline, TwoRunsAreTwoPanels) {
  SKIP_WITHOUT_MATPLOTLIB();
  const fs::path fast = scratch() / "fast.csv", slow = scratch() / "slow.csv", svg = scratch() / "two.svg";
  ASSERT_EQ(collsim(kPipeline + " --svg " + (scratch() / "fast.svg").string() + " --trace " + fast.string()).status, 0);
  ASSERT_EQ(
      collsim(kPipeline + " --alpha 5e-5 --svg " + (scratch() / "slow.svg").string() + " --trace " + slow.string())
          .status,
      0);
  const Outcome o = collsim("timeline --from-trace " + fast.string() + " --from-trace " + slow.string() + " --svg " +
                            svg.string() + " --title 'alpha 10 us vs 50 us'");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out, "wrote " + svg.string() + " (2 runs)\n");
  const std::string picture = slurp(svg);
  EXPECT_EQ(occurrences(picture, "id=\"run-"), 2u);
  EXPECT_EQ(occurrences(picture, "id=\"message-0-"), 56u);
  EXPECT_EQ(occurrences(picture, "id=\"message-1-"), 56u);
  EXPECT_NE(picture.find("alpha 10 us vs 50 us"), std::string::npos);
  // The PNG of the same.
  const fs::path png = scratch() / "two.png";
  ASSERT_EQ(
      collsim("timeline --from-trace " + fast.string() + " --from-trace " + slow.string() + " --png " + png.string())
          .status,
      0);
  EXPECT_EQ(slurp(png).substr(1, 3), "PNG");
}

// As the mpi engines trace: no send_start or arrive and no message ids, so the two messages of
// rank 0 to rank 1 (same tag) pair with the receives in order: segments 0 and 1.
const char* const kHandWritten =
    "run,engine,label,procs,kind,op,time,rank,peer,tag,bytes,message,request,protocol,latency\n"
    "0,mpi,\"two sends, by hand\",2,post,isend,0,0,1,5,100,-1,0,none,-1\n"
    "0,mpi,\"two sends, by hand\",2,complete,isend,0,0,1,5,100,-1,0,none,-1\n"
    "0,mpi,\"two sends, by hand\",2,post,irecv,0,1,0,5,100,-1,0,none,-1\n"
    "0,mpi,\"two sends, by hand\",2,complete,irecv,0,1,0,5,100,-1,0,none,-1\n"
    "0,mpi,\"two sends, by hand\",2,post,irecv,0,1,0,5,100,-1,1,none,-1\n"
    "0,mpi,\"two sends, by hand\",2,complete,irecv,0,1,0,5,100,-1,1,none,-1\n"
    "0,mpi,\"two sends, by hand\",2,post,wait_all,0,1,-1,0,0,-1,-1,none,-1\n"
    "0,mpi,\"two sends, by hand\",2,post,isend,1e-06,0,1,5,100,-1,1,none,-1\n"
    "0,mpi,\"two sends, by hand\",2,complete,isend,1e-06,0,1,5,100,-1,1,none,-1\n"
    "0,mpi,\"two sends, by hand\",2,post,wait_all,2e-06,0,-1,0,0,-1,-1,none,-1\n"
    "0,mpi,\"two sends, by hand\",2,request_done,isend,5e-06,0,1,5,100,-1,0,none,-1\n"
    "0,mpi,\"two sends, by hand\",2,request_done,irecv,5e-06,1,0,5,100,-1,0,none,-1\n"
    "0,mpi,\"two sends, by hand\",2,request_done,isend,6e-06,0,1,5,100,-1,1,none,-1\n"
    "0,mpi,\"two sends, by hand\",2,complete,wait_all,6e-06,0,-1,0,0,-1,-1,none,-1\n"
    "0,mpi,\"two sends, by hand\",2,request_done,irecv,7e-06,1,0,5,100,-1,1,none,-1\n"
    "0,mpi,\"two sends, by hand\",2,complete,wait_all,7e-06,1,-1,0,0,-1,-1,none,-1\n";

TEST(Timeline, HandWrittenTraceWithoutMessageEvents) {
  SKIP_WITHOUT_MATPLOTLIB();
  const fs::path csv = scratch_file("hand.csv", kHandWritten), svg = scratch() / "hand.svg";
  const Outcome o = collsim("timeline --from-trace " + csv.string() + " --svg " + svg.string());
  ASSERT_EQ(o.status, 0) << o.err;
  const std::string picture = slurp(svg);
  EXPECT_EQ(occurrences(picture, "id=\"message-0-"), 2u);
  EXPECT_NE(picture.find("two sends, by hand"), std::string::npos);
  // Segment 0 in matplotlib's first tab10 colour, segment 1 in its second.
  EXPECT_NE(group(picture, "message-0-0").find("#1f77b4"), std::string::npos) << group(picture, "message-0-0");
  EXPECT_NE(group(picture, "message-0-1").find("#ff7f0e"), std::string::npos) << group(picture, "message-0-1");
}

// The sim engine's tcp completes a send once the socket buffer has taken its data, which may be
// before the data leaves (binary tree, 64 KiB rendezvous segments, one FIFO interface per host:
// the data to the second child waits for the interface). Each such send of the trace gets its mark on the sender's row,
// dotted to its arrow (id="handed-1-K"), and the legend says what it is; the model's sends complete on arrival: no mark
// in its panel.
TEST(Timeline, MarksSendsDoneBeforeTheirDataLeft) {
  SKIP_WITHOUT_MATPLOTLIB();
  const fs::path svg = scratch() / "handed.svg", csv = scratch() / "handed.csv";
  const Outcome o = collsim(
      "timeline --op bcast/binary_tree --procs 8 --bytes 256KiB --segment 64KiB --engine "
      "model,sim --protocol-option tcp/interface:fifo --svg " +
      svg.string() + " --trace " + csv.string());
  ASSERT_EQ(o.status, 0) << o.err;
  const std::vector<collsim::TracedRun> runs = collsim::read_trace_csv(csv.string());
  ASSERT_EQ(runs.size(), 2u);
  std::map<std::int64_t, double> started, done;
  for (const collsim::TraceEvent& e : runs[1].events) {
    if (e.op != collsim::OpKind::isend) continue;
    if (e.kind == collsim::TraceKind::send_start) started[e.message] = e.time;
    if (e.kind == collsim::TraceKind::request_done) done[e.message] = e.time;
  }
  std::size_t early = 0;
  for (const auto& [message, time] : done) early += time < started.at(message);
  EXPECT_GT(early, 0u);
  const std::string picture = slurp(svg);
  EXPECT_EQ(occurrences(picture, "id=\"handed-1-"), early);
  EXPECT_EQ(occurrences(picture, "id=\"handed-0-"), 0u);
  EXPECT_NE(picture.find("send done before its data left"), std::string::npos);
}

// As the mpi engines trace, but rank 1's receive is done at 1 us, before rank 0 posted the send at
// 2 us (line 10): bad input, refused in one line naming the file and the line.
TEST(Timeline, RefusesATraceThatBreaksItsContract) {
  SKIP_WITHOUT_MATPLOTLIB();
  const std::string head = "0,mpi,\"one send, by hand\",2,";
  const fs::path csv = scratch_file(
      "broken.csv",
      "run,engine,label,procs,kind,op,time,rank,peer,tag,bytes,message,request,"
      "protocol,latency\n" +
          head + "post,isend,2e-06,0,1,5,100,-1,0,none,-1\n" + head + "complete,isend,2e-06,0,1,5,100,-1,0,none,-1\n" +
          head + "post,wait_all,2e-06,0,-1,0,0,-1,-1,none,-1\n" + head +
          "request_done,isend,3e-06,0,1,5,100,0,0,none,-1\n" + head +
          "complete,wait_all,3e-06,0,-1,0,0,-1,-1,none,-1\n" + head + "post,irecv,0,1,0,5,100,-1,0,none,-1\n" + head +
          "complete,irecv,0,1,0,5,100,-1,0,none,-1\n" + head + "post,wait_all,0,1,-1,0,0,-1,-1,none,-1\n" + head +
          "request_done,irecv,1e-06,1,0,5,100,0,0,none,-1\n" + head +
          "complete,wait_all,4e-06,1,-1,0,0,-1,-1,none,-1\n");
  const fs::path svg = scratch() / "broken.svg";
  expect_refused("timeline --from-trace " + csv.string() + " --svg " + svg.string(),
                 "collsim: " + csv.string() +
                     ":10: the trace breaks its contract: an event caused by a later one (request_done of rank 1 at "
                     "1e-06 s, after post of rank 0 at 2e-06 s)");
  EXPECT_FALSE(fs::exists(svg));
}

TEST(Timeline, BadInput) {
  SKIP_WITHOUT_MATPLOTLIB();
  const std::string svg = (scratch() / "bad.svg").string();
  expect_bad_input(kPipeline, "give one picture: --png FILE or --svg FILE");
  expect_bad_input(kPipeline + " --svg a.svg --png a.png", "give one picture");
  expect_bad_input(kPipeline + " --svg a.png", "--svg a.png: the file name must end in .svg");
  expect_bad_input(kPipeline + " --engine mpi --svg " + svg,
                   "--engine: 'mpi' is not an engine that traces: model, sim");
  expect_bad_input(kPipeline + " --engine model,model --svg " + svg, "--engine: model is named twice");
  expect_bad_input(kPipeline + " --protocol ideal --svg " + svg, "--protocol does not apply to --engine model");
  expect_bad_input("timeline --op bcast/pipeline --procs 8 --svg " + svg, "missing --bytes");
  expect_bad_input("timeline --from-trace /nonexistent.csv --svg " + svg,
                   "/nonexistent.csv: cannot open the trace file (No such file or directory)");
  const fs::path hand = scratch_file("hand2.csv", kHandWritten);
  expect_bad_input("timeline --from-trace " + hand.string() + " --procs 4 --svg " + svg,
                   "--procs does not apply to --from-trace");
  const fs::path bad = scratch_file("bad.csv", "run,engine\n0,model\n");
  expect_bad_input("timeline --from-trace " + bad.string() + " --svg " + svg, "bad.csv:1: not a collsim trace");
  // Above 64 ranks tools/timeline refuses, in one line.
  expect_bad_input("timeline --op bcast/binomial --procs 65 --bytes 1KiB --svg " + svg,
                   "timeline: run 0 (model) has 65 ranks; timelines are drawn for at most 64");
  EXPECT_FALSE(fs::exists(svg));
  // Without a Python that has matplotlib.
  const Outcome none = run_command("COLLSIM_PYTHON=/nonexistent/python3 " + std::string(COLLSIM_BIN) + " " + kPipeline +
                                   " --svg " + svg);
  EXPECT_EQ(none.status, 2);
  EXPECT_EQ(none.err, "collsim: timeline needs python3 with matplotlib (Debian: apt-get install python3-matplotlib)\n");
  // The tool itself: one line, status 2.
  for (const std::string& args : {std::string(""), "/nonexistent.csv " + svg, hand.string() + " out.pdf"}) {
    const Outcome t = run_command("/usr/bin/python3 " + src("tools/timeline") + " " + args);
    EXPECT_EQ(t.status, 2) << args << "\n" << t.err;
    EXPECT_EQ(std::count(t.err.begin(), t.err.end(), '\n'), 1) << args << "\n" << t.err;
    EXPECT_EQ(t.err.rfind("timeline: ", 0), 0u) << t.err;
  }
}

}  // namespace
}  // namespace collsim_test
