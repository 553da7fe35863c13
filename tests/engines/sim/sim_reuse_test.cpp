// run_sim_reusing_platform (a simulation forked per call from a process that loaded the platform
// once) against run_sim (a fresh process that loads it): the same results to the last bit, the
// same errors, and a server that outlives a crashed or failed call and follows the platform file.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "common/files.hpp"
#include "common/sim_test_util.hpp"
#include "engines/sim/platform_file.hpp"

namespace collsim {
namespace {

using collsim_test::exact;
using collsim_test::platform;
using collsim_test::run_all;

std::string write_temp(const std::string& name, const std::string& text) {
  return collsim_test::write_file(collsim_test::scratch_dir("sim-reuse") / name, text).string();
}

RunSpec spec_of(const std::string& algorithm, int procs, std::size_t bytes, std::size_t segment = 0) {
  RunSpec s;
  s.algorithm = find_algorithm(algorithm);
  s.procs = procs;
  s.bytes = bytes;
  s.real_bytes = false;
  s.params.segment = segment;
  return s;
}

std::vector<RunResult> reusing(const SimConfig& config, const std::vector<RunSpec>& specs) {
  std::vector<RunResult> out(specs.size());
  std::vector<bool> seen(specs.size(), false);
  run_sim_reusing_platform(config, specs, [&](std::size_t i, const RunResult& r) {
    out.at(i) = r;
    seen.at(i) = true;
  });
  for (std::size_t i = 0; i < specs.size(); ++i) EXPECT_TRUE(seen[i]) << "no result for run " << i;
  return out;
}

// Bit for bit: a sweep's rows must not depend on which way its points ran.
void expect_identical(const RunResult& got, const RunResult& want) {
  EXPECT_EQ(std::memcmp(&got.time_s, &want.time_s, sizeof got.time_s), 0) << got.time_s << " vs " << want.time_s;
  ASSERT_EQ(got.finish_s.size(), want.finish_s.size());
  for (std::size_t r = 0; r < got.finish_s.size(); ++r)
    EXPECT_EQ(std::memcmp(&got.finish_s[r], &want.finish_s[r], sizeof(double)), 0) << "rank " << r;
  EXPECT_EQ(got.protocol, want.protocol);
  EXPECT_EQ(got.data_error, want.data_error);
}

// Grisou as the scenarios run it (2 ranks per node, SimGrid's default network model), under the
// textbook and Open MPI's protocols; one point per call as a sweep makes them, several calls per
// server, and a call of several points (96 ranks, more than half of Grisou's room, run in a fresh
// process: the same results either way).
TEST(ReusedPlatform, SameResultsAsAFreshSimulation) {
  const std::vector<RunSpec> points = {
      spec_of("bcast/binomial", 2, 8192),
      spec_of("bcast/pipeline", 16, 1 << 20, 8192),
      spec_of("gather/linear_sync", 12, 4096, 1024),
      spec_of("bcast/scatter_allgather_ring", 96, 65536, 8192),
      spec_of("allreduce/ring", 8, 32768),
  };
  for (const char* protocol : {"ideal", "tcp", "tcp+shm"}) {
    SCOPED_TRACE(protocol);
    SimConfig c;
    c.platform_file = platform("grisou.xml");
    c.map_by = {models::MapBy::Policy::ppr_node, 2};
    c.protocol = protocol;
    for (const RunSpec& s : points) {
      SCOPED_TRACE(describe(s));
      const RunResult fresh = run_all(c, {s}).front();
      expect_identical(reusing(c, {s}).front(), fresh);
      expect_identical(reusing(c, {s}).front(), fresh);  // a second child of the same server
    }
    const std::vector<RunResult> fresh = run_all(c, points), served = reusing(c, points);
    for (std::size_t i = 0; i < points.size(); ++i) expect_identical(served[i], fresh[i]);
  }
}

TEST(ReusedPlatform, TracesAreTheSame) {
  const SimConfig c = exact("test/star16.xml", 2, "tcp");
  TraceBuffer fresh_events, served_events;
  RunSpec s = spec_of("bcast/binary_tree", 8, 20000, 4096);
  s.trace = &fresh_events;
  const RunResult fresh = run_all(c, {s}).front();
  s.trace = &served_events;
  expect_identical(reusing(c, {s}).front(), fresh);
  ASSERT_EQ(served_events.events().size(), fresh_events.events().size());
  ASSERT_FALSE(fresh_events.events().empty());
  for (std::size_t i = 0; i < fresh_events.events().size(); ++i) {
    const TraceEvent &a = served_events.events()[i], &b = fresh_events.events()[i];
    EXPECT_TRUE(a.time == b.time && a.rank == b.rank && a.peer == b.peer && a.kind == b.kind && a.bytes == b.bytes)
        << "event " << i;
  }
}

template <class Error>
std::string error_of(const std::function<void()>& run) {
  try {
    run();
  } catch (const Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("another error: ") + e.what();
  }
  return "no error";
}

// A call that fails (a point too large, a crash of SimGrid's on a missing route) fails as it
// would in a fresh process, and the next call is served.
TEST(ReusedPlatform, ErrorsAreTheSameAndTheServerGoesOn) {
  SimConfig c;
  c.platform_file = write_temp("collsim_reuse_no_route.xml",
                               "<?xml version='1.0'?>\n"
                               "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                               "<platform version=\"4.1\">\n"
                               "  <zone id=\"z\" routing=\"Dijkstra\">\n"
                               "    <host id=\"a\" speed=\"1Gf\"/>\n"
                               "    <host id=\"b\" speed=\"1Gf\"/>\n"
                               "    <host id=\"c\" speed=\"1Gf\"/>\n"
                               "    <host id=\"d\" speed=\"1Gf\"/>\n"
                               "    <host id=\"e\" speed=\"1Gf\"/>\n"
                               "    <host id=\"f\" speed=\"1Gf\"/>\n"
                               "    <link id=\"l\" bandwidth=\"1GBps\" latency=\"5us\"/>\n"
                               "    <route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></route>\n"
                               "  </zone>\n"
                               "</platform>\n");
  // Up to 3 ranks (half the hosts) run in the server; 7 do not fit.
  const RunSpec two = spec_of("bcast/binomial", 2, 10), three = spec_of("bcast/binomial", 3, 10),
                seven = spec_of("bcast/binomial", 7, 10);
  const RunResult fresh = run_all(c, {two}).front();
  for (const RunSpec& bad : {three, seven}) {
    SCOPED_TRACE(describe(bad));
    const std::string want = error_of<InputError>([&] { run_all(c, {bad}); });
    EXPECT_NE(want, "no error");
    EXPECT_EQ(error_of<InputError>([&] { reusing(c, {bad}); }), want);
    expect_identical(reusing(c, {two}).front(), fresh);
  }
}

TEST(ReusedPlatform, ABadPlatformIsRefusedAlike) {
  SimConfig c;
  c.platform_file = write_temp("collsim_reuse_malformed.xml", "this is not a platform\n");
  const RunSpec s = spec_of("bcast/binomial", 2, 10);
  EXPECT_EQ(error_of<PlatformError>([&] { reusing(c, {s}); }), c.platform_file + ":1:1: malformed XML: syntax error");
  c.platform_file = "/nonexistent/cluster.xml";
  EXPECT_EQ(error_of<InputError>([&] { reusing(c, {s}); }), error_of<InputError>([&] { run_all(c, {s}); }));
  c = exact("test/star16.xml");
  c.cfg.push_back("network/model:NOPE");
  EXPECT_EQ(error_of<InputError>([&] { reusing(c, {s}); }), error_of<InputError>([&] { run_all(c, {s}); }));
}

// The server follows its inputs: another configuration, or the file rewritten, is loaded anew.
TEST(ReusedPlatform, AChangedFileOrConfigIsLoadedAgain) {
  const auto cluster = [](const std::string& latency) {
    return "<?xml version='1.0'?>\n"
           "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
           "<platform version=\"4.1\">\n"
           "  <cluster id=\"c\" prefix=\"h\" suffix=\"\" radical=\"0-15\" speed=\"1Gf\" bw=\"1GBps\" lat=\"" +
           latency +
           "\"/>\n"
           "</platform>\n";
  };
  SimConfig c;
  c.platform_file = write_temp("collsim_reuse_rewritten.xml", cluster("1us"));
  const RunSpec s = spec_of("bcast/binomial", 8, 4096);
  const double before = reusing(c, {s}).front().time_s;
  write_temp("collsim_reuse_rewritten.xml", cluster("100us"));
  const double after = reusing(c, {s}).front().time_s;
  EXPECT_GT(after, before);
  expect_identical(reusing(c, {s}).front(), run_all(c, {s}).front());
  c.cfg = {"network/model:CM02"};
  expect_identical(reusing(c, {s}).front(), run_all(c, {s}).front());
}

}  // namespace
}  // namespace collsim
