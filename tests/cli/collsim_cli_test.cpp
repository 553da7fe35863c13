// The collsim command as a user runs it: exit codes, one-line errors, numbers against hand
// calculations, and the files a scenario run leaves behind.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "common/cli_test_util.hpp"
#include "registry/registry.hpp"

namespace {

using namespace collsim_test;

TEST(Cli, HelpAndAlgorithms) {
  Outcome o = collsim_test::collsim("--help");
  EXPECT_EQ(o.status, 0);
  EXPECT_NE(o.out.find("collsim run SCENARIO.yaml"), std::string::npos);
  for (const char* command : {"collsim calibrate", "collsim compare", "collsim select"})
    EXPECT_NE(o.out.find(command), std::string::npos) << command;
  for (const char* command : {"calibrate", "compare", "select"})
    EXPECT_EQ(collsim_test::collsim(std::string(command) + " --help").status, 0) << command;
  o = collsim_test::collsim("measure --help");
  EXPECT_EQ(o.status, 0);
  EXPECT_NE(o.out.find("--ranks-per-node"), std::string::npos);
  o = collsim_test::collsim("algorithms");
  EXPECT_EQ(o.status, 0);
  EXPECT_NE(o.out.find("bcast/binomial"), std::string::npos);
  // Every entry with its ID and knobs in aligned columns, the longest name included: the ID's
  // last digit under the header's "ompi id", the knobs under "knobs".
  const std::string header = o.out.substr(0, o.out.find('\n'));
  const std::size_t id_end = header.find("ompi id") + 6, knobs = header.find("knobs");
  std::istringstream table(o.out.substr(header.size() + 1));
  int entries = 0;
  for (std::string line; std::getline(table, line) && !line.empty(); ++entries) {
    ASSERT_GT(line.size(), knobs) << line;
    EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(line[id_end]))) << line;
    EXPECT_EQ(line.substr(id_end + 1, 2), "  ") << line;
    EXPECT_NE(line[knobs], ' ') << line;
    EXPECT_EQ(line[knobs - 1], ' ') << line;
  }
  EXPECT_EQ(entries, static_cast<int>(collsim::all_algorithms().size()));
  const auto line_of = [&](const std::string& name) {
    const auto at = o.out.find("\n" + name + " ");
    return at == std::string::npos ? std::string() : o.out.substr(at + 1, o.out.find('\n', at + 1) - at - 1);
  };
  EXPECT_NE(line_of("reduce/chain").find("segment,fanout,max-requests"), std::string::npos);
}

// Model engine: an unsegmented binomial bcast on 1000 ranks under Hockney is 9 (alpha + beta m).
TEST(Cli, ModelMeasureMatchesClosedForm) {
  const Outcome o = collsim_test::collsim(
      "measure --engine model --op bcast/binomial --procs 1000 --bytes 1MiB --alpha 2e-5 --beta 1e-9 --csv "
      "--payload virtual");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(csv_field(o.out, "engine"), "model");
  EXPECT_EQ(csv_field(o.out, "procs"), "1000");
  EXPECT_EQ(csv_field(o.out, "bytes"), "1048576");
  const double t = std::stod(csv_field(o.out, "time_s"));
  EXPECT_NEAR(t, 9 * (2e-5 + 1e-9 * 1048576), 1e-12);
}

// The textbook reduce formula charges --reduce-gamma per byte combined: ceil(log2 8) = 3 steps of
// alpha + beta*m + gamma*m.
TEST(Cli, TextbookFormulaChargesTheReduction) {
  const Outcome o = collsim_test::collsim(
      "measure --engine formula --formula textbook --op reduce/binomial --procs 8 --bytes 8000 --datatype double "
      "--alpha 2e-5 --beta 1e-9 --reduce-gamma 5e-10 --csv");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NEAR(std::stod(csv_field(o.out, "time_s")), 3 * (2e-5 + 1e-9 * 8000 + 5e-10 * 8000), 1e-15);
}

// Model engine, two-level Hockney: a linear bcast from rank 0 of 3 reaches rank 1 on its node and
// rank 2 on the next with 2 ranks per node (the inter-node time); all three on one node with 3,
// where the root's two sends go one after the other (or together with --intra-sends concurrent).
TEST(Cli, ModelTwoLevelHockney) {
  const std::string base =
      "measure --engine model --op bcast/basic_linear --procs 3 --bytes 1000 --alpha 2e-5 --beta 1e-9 "
      "--intra 1e-6,1e-10 --csv --ranks-per-node ";
  Outcome o = collsim_test::collsim(base + "2");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NEAR(std::stod(csv_field(o.out, "time_s")), 2e-5 + 1e-9 * 1000, 1e-15);
  o = collsim_test::collsim(base + "3");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NEAR(std::stod(csv_field(o.out, "time_s")), 2 * (1e-6 + 1e-10 * 1000), 1e-15);
  o = collsim_test::collsim(base + "3 --intra-sends concurrent");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NEAR(std::stod(csv_field(o.out, "time_s")), 1e-6 + 1e-10 * 1000, 1e-15);
  expect_bad_input("measure --engine model --op bcast/binomial --procs 4 --bytes 8 --intra 1e-6",
                   "--intra: '1e-6' is not two costs ALPHA,BETA (e.g. 5us,0.3ns)");
  expect_bad_input("measure --engine model --op bcast/binomial --procs 4 --bytes 8 --intra 1,2 --loggp 1,1,1,1",
                   "--intra applies to Hockney (kind hockney or two_level), not LogGP");
}

// Model engine with --platform: two-level Hockney from Grisou's routes (CM02, no factors):
// between nodes two 10 us links at 1.25 GB/s, inside a node the 5 us, 3 GB/s loopback. A linear
// bcast of 1000 bytes from rank 0 of 3 ends with the slowest of its transfers (inside a node, one
// after the other).
TEST(Cli, ModelParametersFromThePlatform) {
  const std::string base = "measure --engine model --op bcast/basic_linear --procs 3 --bytes 1000 --csv --platform " +
                           src("platforms/grisou.xml");
  // The CSV carries every digit of a double.
  const auto near = [](const Outcome& out, double want) {
    EXPECT_NEAR(std::stod(csv_field(out.out, "time_s")), want, 1e-15 * want) << out.out;
  };
  Outcome o = collsim_test::collsim(base + " --ranks-per-node 2");
  ASSERT_EQ(o.status, 0) << o.err;
  near(o, 20e-6 + 1000 / 1.25e9);
  o = collsim_test::collsim(base + " --ranks-per-node 3");
  ASSERT_EQ(o.status, 0) << o.err;
  near(o, 2 * (5e-6 + 1000 / 3e9));
  // The network model's factors apply: LV08 multiplies latencies by 13.01, bandwidths by 0.97.
  o = collsim_test::collsim(base + " --ranks-per-node 2 --cfg network/model:LV08");
  ASSERT_EQ(o.status, 0) << o.err;
  near(o, 13.01 * 20e-6 + 1000 / (0.97 * 1.25e9));
  expect_bad_input(base + " --alpha 1e-6", "--alpha cannot be given with --platform, which gives the model");
  expect_bad_input("measure --engine model --op bcast/binomial --procs 4 --bytes 8 --cfg network/model:LV08",
                   "--cfg applies to --engine model only with --platform");
}

// Sim engine, textbook (ideal) protocol: on 16 hosts with private 1.25 GB/s, 10 us links (20 us
// per route) under CM02, a linear gather of 1 MiB blocks goes rendezvous, so the root takes the 15
// blocks one after the other: 15 * (20 us + 1 MiB / 1.25 GB/s), after copying its own block at the platform's
// memcpy_bw of 1 GB/s.
TEST(Cli, SimMeasureMatchesHandCalculation) {
  const Outcome o =
      collsim_test::collsim("measure --engine sim --op gather/basic_linear --procs 16 --bytes 1MiB --csv --platform " +
                            src("platforms/test/star16.xml") +
                            " --cfg network/model:CM02 --cfg network/crosstraffic:0 --cfg network/TCP-gamma:1e12"
                            " --protocol ideal");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(csv_field(o.out, "engine"), "sim");
  EXPECT_EQ(csv_field(o.out, "protocol"), "ideal");
  EXPECT_EQ(csv_field(o.out, "data"), "ok");
  const double t = std::stod(csv_field(o.out, "time_s"));
  const double expected = 1048576 / 1e9 + 15 * (20e-6 + 1048576 / 1.25e9);
  EXPECT_NEAR(t, expected, 1e-9 * expected);
}

TEST(Cli, BadCommandLinesExitTwoWithOneLine) {
  expect_bad_input("frobnicate", "unknown command 'frobnicate'");
  expect_bad_input("measure --engine model --op bcast/nope --procs 4 --bytes 1", "unknown algorithm 'bcast/nope'");
  expect_bad_input("measure --engine warp --op bcast/binomial --procs 4 --bytes 1",
                   "--engine: 'warp' is not an engine: sim, model, formula");
  expect_bad_input("measure --engine model --op bcast/binomial --procs 0 --bytes 1", "--procs: 0 is out of range");
  expect_bad_input("measure --engine model --op bcast/binomial --procs 4 --bytes -8", "--bytes: '-8' is not a size");
  expect_bad_input("measure --engine model --op bcast/binomial --procs 4 --bytes 8 --platform x.xml",
                   "x.xml: cannot open");
  expect_bad_input("measure --engine sim --op bcast/binomial --procs 4 --bytes 8 --platform /nonexistent.xml",
                   "/nonexistent.xml");
  expect_bad_input("measure --engine sim --op bcast/binomial --procs 9999 --bytes 8", "9999");
  expect_bad_input("run /nonexistent/scenario.yaml", "/nonexistent/scenario.yaml: cannot open");
  expect_bad_input("measure --engine sim --op bcast/binomial --procs 4 --bytes 8 --protocol udp",
                   "--protocol: 'udp' is not a protocol (ideal, tcp, tcp+shm, ucx)");
  expect_bad_input("measure --engine sim --op bcast/binomial --procs 4 --bytes 8 --protocol-option tcp/buffer:lots",
                   "'tcp/buffer:lots': 'lots' is not a size");
  expect_bad_input("measure --engine sim --op bcast/binomial --procs 4 --bytes 8 --protocol-option tcp/connect:later",
                   "'tcp/connect:later': 'later' is not established or first_use");
  expect_bad_input(
      "measure --engine sim --op bcast/binomial --procs 4 --bytes 8 --protocol ucx "
      "--protocol-option ucx/rndv_thresh:soon",
      "--protocol-option: 'ucx/rndv_thresh:soon': 'soon' is not a size");
  expect_bad_input(
      "measure --engine sim --op bcast/binomial --procs 4 --bytes 8 --protocol-option ucx/eager_limit:1KiB",
      "'ucx/eager_limit:1KiB': unknown key for the ucx profile (rndv_thresh, rndv_send_nbr_thresh, "
      "zcopy_thresh, max_short, send_overhead, recv_overhead, get_overhead, sync_overhead, yield_overhead)");
  expect_bad_input("run " + src("scenarios/quickstart.yaml") + " --protocol udp",
                   "--protocol: 'udp' is not a protocol (ideal, tcp, tcp+shm, ucx)");
  expect_bad_input("measure --engine model --op bcast/binomial --procs 4 --bytes 8 --datatype int32",
                   "--datatype applies to reducing operations (reduce, allreduce, reduce_scatter), not bcast");
  expect_bad_input("measure --engine model --op gather/binomial --procs 4 --bytes 8 --reduce-op max",
                   "--reduce-op applies to reducing operations (reduce, allreduce, reduce_scatter), not gather");
  expect_bad_input("measure --engine model --op bcast/binomial --procs 4 --bytes 8 --reduce-gamma -1",
                   "--reduce-gamma");
}

// Options that would be read and never used are refused, as --alpha with --engine sim is.
TEST(Cli, OptionsThatDoNotApplyAreRefused) {
  const std::string call = " --op bcast/binomial --procs 2 --bytes 8";
  expect_refused("measure --engine sim --protocol tcp --eager-limit 4KiB" + call,
                 "collsim: --eager-limit applies to the ideal protocol only, not tcp (whose limits are the protocol "
                 "options tcp/eager_limit:SIZE, shm/eager_limit:SIZE and ucx/rndv_thresh:SIZE)");
  expect_refused("explain bcast/binomial --procs 2 --bytes 8 --engine sim --protocol tcp+shm --eager-limit 4KiB",
                 "collsim: --eager-limit applies to the ideal protocol only, not tcp+shm (whose limits are the "
                 "protocol options tcp/eager_limit:SIZE, shm/eager_limit:SIZE and ucx/rndv_thresh:SIZE)");
  EXPECT_EQ(collsim_test::collsim("measure --engine sim --protocol ideal --eager-limit 4KiB" + call).status, 0);
  expect_refused("measure --engine sim --platform " + src("platforms/grisou.xml") + " --eager-limit 4KiB" + call,
                 "collsim: the eager limit (--eager-limit, sim.eager_limit) is the ideal protocol's; this platform's "
                 "protocol (collsim/protocol) is tcp, whose limits are the protocol options tcp/eager_limit:SIZE, "
                 "shm/eager_limit:SIZE and ucx/rndv_thresh:SIZE");
  expect_refused("algorithms foo --bogus", "collsim: unknown option --bogus (see --help)");
  expect_refused("algorithms foo", "collsim: unexpected argument 'foo' (see --help)");
  expect_refused("select --op bcast --procs 4 --alpha 1us --beta 1ns extra",
                 "collsim: unexpected argument 'extra' (see --help)");
  EXPECT_EQ(collsim_test::collsim("algorithms --help").status, 0);
}

// A folder where a file is expected, as input or output, is one line and exit status 2 (a C++
// stream error and exit status 1 before), and an output is refused before anything runs.
TEST(Cli, AFolderGivenForAFileIsRefused) {
  const fs::path dir = scratch() / "folder.csv";
  fs::create_directories(dir);
  const std::string d = dir.string(), call = " --op bcast/binomial --procs 4 --bytes 1KiB";
  expect_refused("run " + d, "collsim: " + d + ": is a directory, not a scenario file");
  expect_refused("measure --engine formula --params " + d + call,
                 "collsim: " + d + ": is a directory, not a parameters file");
  expect_refused("select --op bcast --procs 4 --params " + d,
                 "collsim: " + d + ": is a directory, not a parameters file");
  expect_refused("compare " + d, "collsim: " + d + ": is a directory, not a results file");
  expect_refused("explain --from-trace " + d, "collsim: " + d + ": is a directory, not a trace file");
  const std::string scenario = (scratch() / "folder-params.yaml").string();
  std::ofstream(scenario) << "engines: [formula]\nformula: {params: folder.csv}\nprocs: 2\nbytes: 1\n"
                             "operations: [bcast/binomial]\n";
  expect_refused("run " + scenario, "collsim: " + scenario + ":2:19: " + d + ": is a directory, not a parameters file");
  // Outputs.
  expect_refused("measure --engine model --trace " + d + call,
                 "collsim: " + d + ": is a directory; give a file name for the trace");
  expect_refused("select --op bcast --procs 4 --alpha 1e-6 --beta 1e-9 --rules-out " + d,
                 "collsim: " + d + ": is a directory; give a file name for the rules file");
  const fs::path svg = scratch() / "folder.svg";
  fs::create_directories(svg);
  expect_refused("timeline --engine model --svg " + svg.string() + call,
                 "collsim: " + svg.string() + ": is a directory; give a file name for the picture");
  const fs::path folder = scratch() / "report-in";  // checked before the page is made
  fs::create_directories(folder);
  std::ofstream(folder / "results.csv") << "engine,op,procs,bytes,segment,root,time_s\n";
  expect_refused("report " + folder.string() + " -o " + d,
                 "collsim: " + d + ": is a directory; give a file name for the page");
  expect_refused("calibrate --engine model --procs 2 --output " + d,
                 "collsim: " + d + ": is a directory; give a file name for the parameters file");
  EXPECT_FALSE(fs::exists(d + ".tmp")) << "calibrate left its temporary file";
  const fs::path nowhere = scratch() / "no-such-folder" / "p.yaml";
  expect_refused("calibrate --engine model --procs 2 --output " + nowhere.string(),
                 "collsim: " + nowhere.string() + ": cannot write the parameters file (no folder " +
                     nowhere.parent_path().string() + ")");
}

// collsim run --protocol replaces the scenario's sim.protocol, in the rows and in run.json.
TEST(Cli, RunProtocolOverridesTheScenario) {
  const fs::path scenario = scratch() / "protocol-override.yaml";
  std::ofstream(scenario) << "engines: [sim]\nplatform: " << src("platforms/test/star16.xml")
                          << "\nprocs: 2\nbytes: 1000\noperations: [bcast/binomial]\nsim: {protocol: tcp}\n";
  const fs::path out = scratch() / "protocol-override";
  for (const std::string protocol : {"tcp", "ideal"}) {
    const Outcome o = collsim_test::collsim("run " + scenario.string() + " --quiet --out " + out.string() +
                                            (protocol == "tcp" ? "" : " --protocol " + protocol));
    ASSERT_EQ(o.status, 0) << o.err;
    const std::string csv = slurp(out / "results.csv");
    EXPECT_EQ(csv_field(csv, "protocol"), protocol) << csv;
    EXPECT_NE(slurp(out / "run.json").find("\"protocol\": \"" + protocol + "\""), std::string::npos);
  }
}

// --timing osu overrides the scenario's timing: the model row gets the OSU columns (P = 2,
// bcast/binomial, m = 1000 under the default Hockney, 10 us and 0.8 ns/byte: both ranks take
// L = 10.8 us, tests/engines/model/model_osu_timing_test.cpp), the formula row leaves them empty,
// and run.json records it. A scenario of formulas only has no ranks to time.
TEST(Cli, RunTimingOverridesTheScenario) {
  const fs::path scenario = scratch() / "timing-override.yaml";
  std::ofstream(scenario) << "engines: [formula, model]\nprocs: 2\nbytes: 1000\noperations: [bcast/binomial]\n";
  const fs::path out = scratch() / "timing-override";
  const Outcome o = collsim_test::collsim("run " + scenario.string() + " --quiet --timing osu --out " + out.string());
  ASSERT_EQ(o.status, 0) << o.err;
  const std::string csv = slurp(out / "results.csv");
  const std::vector<std::string> engines = csv_column(csv, "engine"), avg = csv_column(csv, "osu_avg_s");
  ASSERT_EQ(engines, (std::vector<std::string>{"formula-derived", "model"})) << csv;
  EXPECT_EQ(avg[0], "") << csv;
  EXPECT_NEAR(std::stod(avg[1]), 10.8e-6, 1e-15) << csv;
  EXPECT_NEAR(std::stod(csv_column(csv, "osu_max_s")[1]), 10.8e-6, 1e-15) << csv;
  EXPECT_NE(slurp(out / "run.json").find("\"timing\": \"osu\""), std::string::npos);
  const fs::path formulas = scratch() / "timing-formulas.yaml";
  std::ofstream(formulas) << "engines: [formula]\nprocs: 2\nbytes: 1000\noperations: [bcast/binomial]\n";
  const Outcome refused = collsim_test::collsim("run " + formulas.string() + " --quiet --timing osu");
  EXPECT_EQ(refused.status, 2);
  EXPECT_EQ(refused.err, "collsim: --timing: osu applies only to the engines that run ranks (model, sim), and " +
                             formulas.string() + " runs none of them\n");
}

TEST(Cli, BadPlatformFileExitsTwo) {
  const fs::path bad = scratch() / "broken.xml";
  std::ofstream(bad)
      << "<?xml version='1.0'?>\n<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n<host id=\"a\"\n";
  expect_bad_input("measure --engine sim --op bcast/binomial --procs 2 --bytes 8 --platform " + bad.string(),
                   bad.string());
}

TEST(Cli, BadScenarioFilesNameFileAndLine) {
  const fs::path dir = scratch();
  auto scenario = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  const std::string platform = src("platforms/grisou.xml");
  std::string f = scenario("syntax.yaml", "engines: [model\nprocs: 2\n");
  expect_bad_input("run " + f, f + ":");
  f = scenario("typo.yaml", "engines: [model]\nprocz: [2]\nbytes: [1]\noperations: [bcast/binomial]\n");
  expect_bad_input("run " + f, f + ":2:1: unknown key 'procz'");
  f = scenario("algo.yaml", "engines: [model]\nprocs: [2]\nbytes: [1]\noperations:\n  - op: bcast/warp\n");
  expect_bad_input("run " + f, f + ":5:9: unknown algorithm 'bcast/warp'");
  f = scenario("neg.yaml", "engines: [model]\nprocs: [2, -1]\nbytes: [1]\noperations: [bcast/binomial]\n");
  expect_bad_input("run " + f, f + ":2:12: procs: -1 is out of range");
  f = scenario("size.yaml", "engines: [model]\nprocs: [2]\nbytes: [1, -4KiB]\noperations: [bcast/binomial]\n");
  expect_bad_input("run " + f, f + ":3:12: bytes: '-4KiB' is not a size");
  f = scenario("engine.yaml", "engines: [model, warp]\nprocs: [2]\nbytes: [1]\noperations: [bcast/binomial]\n");
  expect_bad_input("run " + f, f + ":1:18: 'warp' is not an engine: formula, model, sim, mpi, mpi-native");
  f = scenario("big.yaml",
               "engines: [sim]\nplatform: " + platform + "\nprocs: [1000]\nbytes: [1]\noperations: [bcast/binomial]\n");
  expect_bad_input("run " + f, "1000 processes");
  f = scenario("noplat.yaml",
               "engines: [sim]\nplatform: nowhere.xml\nprocs: [2]\nbytes: [1]\noperations: [bcast/binomial]\n");
  expect_bad_input("run " + f, f + ":2:11: platform file 'nowhere.xml' not found");
  f = scenario("empty.yaml", "");
  expect_bad_input("run " + f, "the scenario is empty");
  // Slips (tests/experiment/scenario_test.cpp has each): refused before anything runs or is written.
  f = scenario("dupkey.yaml", "engines: [model]\nprocs: [2]\nbytes: [1]\nprocs: [4]\noperations: [bcast/binomial]\n");
  expect_refused("run " + f, "collsim: " + f + ":4:1: duplicate key 'procs' (first at line 2)");
  f = scenario("twice.yaml", "engines: [model, model]\nprocs: [2]\nbytes: [1]\noperations: [bcast/binomial]\n");
  expect_refused("run " + f, "collsim: " + f + ":1:18: engines: 'model' is listed twice (item 1 is the same)");
  f = scenario("root99.yaml", "engines: [model]\nprocs: [2]\nbytes: [1]\nroot: [99]\noperations: [bcast/binomial]\n");
  expect_refused("run " + f, "collsim: " + f +
                                 ":4:8: root: 99 is not a rank of any process count of bcast/binomial (at most 2 "
                                 "processes, ranks 0 to 1)");
  f = scenario(
      "hockneyL.yaml",
      "engines: [model]\nprocs: [2]\nbytes: [1]\nmodel: {kind: hockney, L: 1e-5}\noperations: [bcast/binomial]\n");
  expect_refused("run " + f, "collsim: " + f + ":4:27: model.L applies to kind: loggp only, not hockney");
  f = scenario("eager.yaml", "engines: [sim]\nplatform: " + platform +
                                 "\nsim: {protocol: tcp, eager_limit: 4KiB}\nprocs: [2]\nbytes: [1]\n"
                                 "operations: [bcast/binomial]\n");
  expect_refused("run " + f,
                 "collsim: " + f +
                     ":3:35: sim.eager_limit applies to the ideal protocol only, not tcp (whose limits "
                     "are the protocol options tcp/eager_limit:SIZE, shm/eager_limit:SIZE and ucx/rndv_thresh:SIZE)");
  f = scenario("eager-ideal.yaml", "engines: [sim]\nplatform: " + platform +
                                       "\nsim: {protocol: ideal, eager_limit: 4KiB}\nprocs: [2]\nbytes: [1]\n"
                                       "operations: [bcast/binomial]\n");
  expect_refused("run " + f + " --protocol tcp",
                 "collsim: --protocol tcp: " + f +
                     " sets sim.eager_limit, which applies to the ideal protocol only, not tcp (whose limits are the "
                     "protocol options tcp/eager_limit:SIZE, shm/eager_limit:SIZE and ucx/rndv_thresh:SIZE)");
  // The same when the protocol is the platform's (grisou.xml says tcp), known once it is read.
  f = scenario("eager-platform.yaml", "engines: [sim]\nplatform: " + platform +
                                          "\nsim: {eager_limit: 4KiB}\nprocs: [2]\nbytes: [1]\n"
                                          "operations: [bcast/binomial]\n");
  expect_refused("run " + f, "collsim: " + f +
                                 ": the eager limit (--eager-limit, sim.eager_limit) is the ideal protocol's; this "
                                 "platform's protocol (collsim/protocol) is tcp, whose limits are the protocol options "
                                 "tcp/eager_limit:SIZE, shm/eager_limit:SIZE and ucx/rndv_thresh:SIZE");
}

// A root that is a rank of some process counts only is skipped for the others, and the run says
// how many points that left out.
TEST(Cli, RunCountsThePointsASkippedRootLeavesOut) {
  const fs::path f = scratch() / "someroots.yaml";
  std::ofstream(f) << "engines: [model]\nprocs: [2, 4]\nbytes: [1, 2]\nroot: [0, 3]\noperations: [bcast/binomial]\n";
  const Outcome o = collsim_test::collsim("run " + f.string() + " --out " + (scratch() / "someroots").string());
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.err.find("collsim: someroots: 6 measurements on 1 engine(s)"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("\ncollsim: 2 points skipped: their root is not a rank of their process count\n"),
            std::string::npos)
      << o.err;
}

TEST(Cli, QuickstartWritesCsvAndJson) {
  const fs::path out = scratch() / "quickstart";
  const Outcome o = collsim_test::collsim("run " + src("scenarios/quickstart.yaml") + " --out " + out.string());
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.out.find("bcast/binomial"), std::string::npos) << o.out;
  // The derived prediction, the model engine and the simulation side by side.
  EXPECT_NE(o.out.find("formula-derived  model"), std::string::npos) << o.out;
  const std::string csv = slurp(out / "results.csv");
  const std::string json = slurp(out / "run.json");
  EXPECT_EQ(csv.rfind("engine,op,procs,bytes,segment,root,time_s", 0), 0u);
  EXPECT_NE(csv.find("\nformula-derived,bcast/binomial,64,"), std::string::npos) << csv;
  const auto rows = std::count(csv.begin(), csv.end(), '\n') - 1;
  EXPECT_GT(rows, 10);
  EXPECT_NE(json.find("\"status\": \"complete\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"measurements_written\": " + std::to_string(rows)), std::string::npos) << json;
  // The model is Grisou's own: two-level Hockney from its routes (1.25 GB/s between nodes, a
  // 3 GB/s loopback inside one), recorded with its values.
  EXPECT_NE(json.find("\"kind\": \"two_level\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"beta\": 8e-10"), std::string::npos) << json;
  EXPECT_NE(json.find("\"intra_beta\": 3.333333333333333e-10"), std::string::npos) << json;
}

}  // namespace

namespace {

using namespace collsim_test;

TEST(Cli, TreePrintsOpenMpiShapes) {
  Outcome o = collsim_test::collsim("tree bcast/binary_tree --procs 7");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out, "0 -> 1 2\n1 -> 3 5\n2 -> 4 6\n");
  o = collsim_test::collsim("tree bcast/binomial --procs 8");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out, "0 -> 1 2 4\n1 -> 3 5\n2 -> 6\n3 -> 7\n");
  o = collsim_test::collsim("tree gather/binomial --procs 8 --dot");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out.rfind("digraph", 0), 0u) << o.out;
  expect_bad_input("tree bcast/binomial --procs 8 --root 8", "--root 8 is not a rank of 8 processes");
  expect_bad_input("tree bcast/warp --procs 8", "unknown algorithm 'bcast/warp'");
}

}  // namespace

namespace {

using namespace collsim_test;

// A scenario that asks for our algorithm on MPI and Open MPI's own side by side: collsim starts
// collsim-mpi under mpirun for each point and reads its rows back.
TEST(Cli, ScenarioRunsOursAndOpenMpisSideBySide) {
  const fs::path dir = scratch();
  // A target of 100 times the mean: any two runs meet it (ci_target_met 1).
  std::ofstream(dir / "side.yaml") << "name: side\nengines: [mpi, mpi-native]\nprocs: [2]\nbytes: [10000]\n"
                                      "segment: 1KiB\nmpi: {min_runs: 3, max_runs: 5, ci_target: 100, timeout: 100}\n"
                                      "operations: [bcast/chain, bcast/knomial, gather/linear_sync]\n";
  const Outcome o = collsim_test::collsim("run " + (dir / "side.yaml").string() + " --out " + (dir / "side").string());
  ASSERT_EQ(o.status, 0) << o.err << o.out;
  const std::string csv = slurp(dir / "side" / "results.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 7) << csv;  // header + 3 ops x 2 engines
  EXPECT_NE(csv.find("mpi,bcast/chain,2,10000,1024,0,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("mpi-native,gather/linear_sync,2,10000,1024,0,"), std::string::npos) << csv;
  EXPECT_EQ(csv.find("unchecked"), std::string::npos) << "MPI engines always check bytes\n" << csv;
  EXPECT_EQ(csv_column(csv, "ci_target_met"), std::vector<std::string>(6, "1")) << csv;
  EXPECT_EQ(o.out.find(" *"), std::string::npos) << o.out;
}

// Points that stop at max_runs with the CI above the scenario's ci_target: ci_target_met 0 in
// results.csv, their times marked in the table with the note under it.
TEST(Cli, ScenarioSaysWhichMpiPointsMissedTheCiTarget) {
  const fs::path dir = scratch();
  std::ofstream(dir / "loose.yaml") << "name: loose\nengines: [mpi]\nprocs: [2]\nbytes: [10000]\n"
                                       "mpi: {min_runs: 3, max_runs: 3, ci_target: 1e-9, timeout: 100}\n"
                                       "operations: [bcast/binomial]\n";
  const Outcome o =
      collsim_test::collsim("run " + (dir / "loose.yaml").string() + " --out " + (dir / "loose").string());
  ASSERT_EQ(o.status, 0) << o.err << o.out;
  const std::string csv = slurp(dir / "loose" / "results.csv");
  EXPECT_EQ(csv_column(csv, "runs"), std::vector<std::string>{"3"}) << csv;
  EXPECT_EQ(csv_column(csv, "ci_target_met"), std::vector<std::string>{"0"}) << csv;
  EXPECT_NE(o.out.find(" *  ok\n"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("\n* stopped at max_runs with the 95% CI above ci_target"), std::string::npos) << o.out;
}

TEST(Cli, SettingsListsEveryOptionAndScenarioKey) {
  const Outcome o = collsim_test::collsim("settings");
  ASSERT_EQ(o.status, 0) << o.err;
  // One row per setting: its option (or -), its scenario key (or -), its engines.
  for (const std::string row :
       {"--alpha TIME  model.alpha  formula, model", "--loggp L,o,g,G  -  formula, model",
        "-  model.intra.alpha  formula, model", "-  model.from_platform  formula, model",
        "--protocol-option PROFILE/KEY:VALUE  sim.protocol_options  sim",
        "--min-runs N  mpi.min_runs  mpi, mpi-native, caf-native", "-  mpi.timeout  mpi, mpi-native, caf-native",
        "--reduce-gamma TIME_PER_BYTE  model.reduce_gamma  formula, model (not coarray)",
        "--copy-bandwidth RATE  model.copy_bandwidth  model  "}) {
    bool found = false;
    for (const std::string& line : lines(o.out)) {
      // The columns two spaces apart, as in `row`.
      const std::string squeezed = std::regex_replace(line, std::regex("   +"), "  ") + "  ";
      if (squeezed.rfind(row, 0) == 0) found = true;
    }
    EXPECT_TRUE(found) << row << "\n" << o.out;
  }
}

}  // namespace
