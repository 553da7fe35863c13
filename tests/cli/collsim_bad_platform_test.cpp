// Bad platform files through the command line: the sim engine, the model engine (which derives
// its two-level Hockney parameters from the platform) and a scenario naming the file all refuse
// it before any output, in the one line "collsim: FILE:LINE:COLUMN: problem", exit status 2,
// where SimGrid would abort, print a backtrace, simulate a negative time or report its parser's
// state in several lines.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "common/cli_test_util.hpp"

namespace collsim_test {
namespace {

const std::string kHead =
    "<?xml version='1.0'?>\n"
    "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
    "<platform version=\"4.1\">\n";

// A platform of four hosts in one cluster with these attributes (line 4, column 3).
fs::path cluster(const std::string& name, const std::string& attributes) {
  return scratch_file(name, kHead + "  <cluster id=\"c\" prefix=\"n-\" suffix=\"\" radical=\"0-3\" " + attributes +
                                "/>\n</platform>\n");
}

// `op` on `procs` ranks on `platform` is refused with `problem` (after "FILE:") by both engines
// and by a scenario that names the platform.
void expect_platform_refused(const fs::path& platform, const std::string& op, int procs, const std::string& problem) {
  const std::string line = "collsim: " + platform.string() + ":" + problem;
  for (const char* engine : {"sim", "model"}) {
    SCOPED_TRACE(engine);
    expect_refused(std::string("measure --engine ") + engine + " --op " + op + " --procs " + std::to_string(procs) +
                       " --bytes 1KiB --platform " + platform.string(),
                   line);
  }
  const fs::path scenario = scratch_file(platform.stem().string() + ".yaml",
                                         "name: bad-platform\n"
                                         "platform: " +
                                             platform.filename().string() +
                                             "\n"
                                             "engines: [model, sim]\n"
                                             "model: {kind: two_level, from_platform: true}\n"
                                             "procs: [" +
                                             std::to_string(procs) +
                                             "]\n"
                                             "bytes: [1KiB]\n"
                                             "operations:\n"
                                             "  - op: " +
                                             op + "\n");
  SCOPED_TRACE("scenario");
  const Outcome o = collsim_in(scratch(), "run " + scenario.string());
  EXPECT_EQ(o.status, 2) << o.err;
  EXPECT_EQ(o.err, line + "\n");
  EXPECT_EQ(o.out, "");
}

TEST(BadPlatform, ZeroBandwidth) {
  expect_platform_refused(cluster("bw0.xml", "speed=\"1Gf\" bw=\"0GBps\" lat=\"5us\""), "bcast/binomial", 4,
                          "4:3: <cluster> bw '0GBps' must be more than 0");
}

// allreduce/ring reduces locally: SimGrid aborts on a core of speed 0 once it computes.
TEST(BadPlatform, ZeroSpeed) {
  expect_platform_refused(cluster("speed0.xml", "speed=\"0f\" bw=\"1GBps\" lat=\"5us\""), "allreduce/ring", 4,
                          "4:3: <cluster> speed '0f' must be more than 0");
}

// The sim engine took it for a deadlock, the model engine for a negative time.
TEST(BadPlatform, NegativeLatency) {
  expect_platform_refused(cluster("latneg.xml", "speed=\"1Gf\" bw=\"1GBps\" lat=\"-5us\""), "bcast/binomial", 4,
                          "4:3: <cluster> lat '-5us' must not be negative");
}

TEST(BadPlatform, HostsWithoutARoute) {
  const fs::path platform =
      scratch_file("noroute.xml", kHead +
                                      "  <zone id=\"z\" routing=\"Full\">\n"
                                      "    <host id=\"a\" speed=\"1Gf\"/>\n"
                                      "    <host id=\"b\" speed=\"1Gf\"/>\n"
                                      "    <host id=\"c\" speed=\"1Gf\"/>\n"
                                      "    <link id=\"l\" bandwidth=\"1GBps\" latency=\"5us\"/>\n"
                                      "    <route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></route>\n"
                                      "  </zone>\n"
                                      "</platform>\n");
  expect_platform_refused(platform, "bcast/binomial", 3, "5:5: no route from host a to host c");
}

// SimGrid's refusal took 8 lines.
TEST(BadPlatform, VersionThree) {
  const fs::path platform =
      scratch_file("v3.xml",
                   "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                   "<platform version=\"3\">\n  <cluster id=\"c\" prefix=\"n-\" suffix=\"\" radical=\"0-3\" "
                   "speed=\"1Gf\" bw=\"1GBps\" lat=\"5us\"/>\n</platform>\n");
  expect_platform_refused(
      platform, "bcast/binomial", 4,
      "3:1: <platform> version '3' is too old: SimGrid 3.32 reads version 4.1 (simgrid_update_xml " +
          platform.string() + " updates the file)");
}

// SimGrid gave the line only, and its parser's state.
TEST(BadPlatform, MalformedXml) {
  const fs::path platform = scratch_file("malformed.xml", kHead +
                                                              "  <zone id=\"z\" routing=\"Full\">\n"
                                                              "    <host id=\"a\" speed=\"1Gf\">\n"
                                                              "  </zone>\n"
                                                              "</platform>\n");
  expect_platform_refused(platform, "bcast/binomial", 1,
                          "6:5: malformed XML: mismatched tag (the <host> of line 5 is still open)");
}

}  // namespace
}  // namespace collsim_test
