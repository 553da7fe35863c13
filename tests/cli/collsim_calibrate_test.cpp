// collsim calibrate and the formula engine from the command line: calibrating in the model
// engine, whose contention-free Hockney the derived formulas follow exactly, gives back its alpha
// and beta, so the formula with the written parameters predicts what the model engine runs; and
// the formula engine's refusals.
#include <cmath>

#include "common/cli_test_util.hpp"

namespace collsim_test {
namespace {

const std::string kModel = "--alpha 12e-6 --beta 0.7e-9";

double time_of(const Outcome& o) {
  EXPECT_EQ(o.status, 0) << o.err;
  return std::stod(csv_field(o.out, "time_s"));
}

TEST(CliCalibrate, ParametersFromTheModelEnginePredictIt) {
  const std::string params = (scratch() / "params.yaml").string();
  const Outcome c = collsim("calibrate --engine model " + kModel + " --procs 2,5,8 --output " + params + " --quiet");
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_NE(c.out.find("bcast/binomial"), std::string::npos) << c.out;
  for (const char* call : {"--op bcast/binomial --procs 11 --bytes 100000 --segment 8KiB",
                           "--op bcast/split_binary_tree --procs 6 --bytes 70001 --segment 1000",
                           "--op gather/linear_sync --procs 7 --bytes 5000 --segment 1KiB"}) {
    const double model = time_of(collsim("measure --engine model " + kModel + " --csv " + call));
    const double formula = time_of(collsim("measure --engine formula --params " + params + " --csv " + call));
    EXPECT_NEAR(formula, model, 1e-8 * model) << call;
  }
  const Outcome row =
      collsim("measure --engine formula --params " + params + " --csv --op bcast/binomial --procs 4 --bytes 1");
  EXPECT_EQ(csv_field(row.out, "engine"), "formula-derived");
}

TEST(CliCalibrate, FormulaEngineOptions) {
  const std::string call = " --op bcast/binomial --procs 8 --bytes 64KiB --csv";
  // Textbook: ceil(log2 8) * (alpha + beta m).
  EXPECT_DOUBLE_EQ(time_of(collsim("measure --engine formula --formula textbook " + kModel + call)),
                   3 * (12e-6 + 0.7e-9 * 65536));
  // A formula moves no bytes: 10000 processes of 1 MiB are not refused for their payloads' memory.
  EXPECT_DOUBLE_EQ(time_of(collsim("measure --engine formula --formula textbook " + kModel +
                                   " --op bcast/binomial --procs 10000 --bytes 1MiB --csv")),
                   14 * (12e-6 + 0.7e-9 * 1048576));
  expect_bad_input("measure --engine formula --formula textbook --op bcast/chain --procs 4 --bytes 8",
                   "bcast/chain has no textbook formula");
  expect_bad_input("measure --engine formula --formula guess" + call, "--formula: 'guess' is not textbook or derived");
  expect_bad_input("measure --engine formula --params nowhere.yaml" + call,
                   "nowhere.yaml: cannot open the parameters file");
  expect_bad_input("measure --engine formula --params x.yaml --alpha 1" + call,
                   "--params gives the formula its parameters: --alpha cannot be given too");
  expect_bad_input("measure --engine model --formula derived" + call, "--formula does not apply to --engine model");
  expect_bad_input("calibrate --engine model " + kModel + " --bytes 8KiB,16KiB --ops bcast/binomial --output " +
                       (scratch() / "p.yaml").string(),
                   "calibrate bcast/binomial: the experiments cannot tell alpha from beta");
  expect_bad_input("calibrate --engine warp", "--engine: 'warp' is not an engine: model, sim, mpi, mpi-native");
}

// The protocol's keys of a parameters file (eager_handover, node_ranks) with a bad value: one line
// naming the file, the place and the problem, exit 2.
TEST(CliCalibrate, BadProtocolKeysOfAParametersFileAreRefused) {
  const fs::path dir = scratch() / "bad-protocol-keys";
  fs::create_directories(dir);
  const std::string fit = "algorithms:\n  bcast/binomial: {alpha: 1.0e-5, beta: 1.0e-9}\n";
  const std::string handover = (dir / "handover.yaml").string(), ranks = (dir / "ranks.yaml").string();
  std::ofstream(handover) << "collsim: parameters\neager_handover: 2\n" << fit;
  std::ofstream(ranks) << "collsim: parameters\nnode_ranks: many\n" << fit;
  const std::string call = " --op bcast/binomial --procs 4 --bytes 8KiB";
  expect_refused("measure --engine formula --params " + handover + call,
                 "collsim: " + handover + ":2:17: eager_handover: '2' is not true or false");
  expect_refused("measure --engine formula --params " + ranks + call,
                 "collsim: " + ranks + ":2:13: node_ranks: 'many' is not a whole number");
}

// A parameters file has fits for some algorithms: the formula engine predicts those, and refuses
// the others in one line naming the file and the algorithm, wherever the file is read (measure,
// select, a scenario), rather than predicting them with default or ping-pong costs.
TEST(CliCalibrate, FormulaRefusesAnAlgorithmItsParametersHaveNoFitFor) {
  const fs::path dir = scratch() / "no-fit";
  fs::create_directories(dir);
  const std::string params = (dir / "binomial-only.yaml").string();
  std::ofstream(params) << "collsim: parameters\n"
                           "pingpong: {alpha: 2.0e-5, beta: 1.0e-9}\n"
                           "algorithms:\n"
                           "  bcast/binomial: {alpha: 1.0e-5, beta: 1.0e-9}\n";
  const std::string call = " --params " + params + " --procs 4 --bytes 8KiB";
  EXPECT_DOUBLE_EQ(time_of(collsim("measure --engine formula --csv --op bcast/binomial" + call)), 2 * (1e-5 + 8192e-9));
  expect_refused(
      "measure --engine formula --op bcast/chain" + call,
      "collsim: " + params + " has no fit for bcast/chain (collsim calibrate --ops bcast/chain ... writes one)");
  // Textbook formulas take the ping-pong's costs, as the file's reader says, so they need no fit.
  EXPECT_DOUBLE_EQ(time_of(collsim("measure --engine formula --formula textbook --csv --op bcast/pipeline" + call)),
                   3 * (2e-5 + 8192e-9));
  // select passes over the candidates without a fit, names them in a note, and picks among the
  // rest (here bcast/binomial alone); an operation left with no candidate is refused.
  const Outcome picked = collsim("select --op bcast --procs 4,8 --params " + params);
  EXPECT_EQ(picked.status, 0) << picked.err;
  const std::string note =
      "collsim: note: passed over: " + params + " has no fit for bcast/basic_linear, bcast/chain, ";
  EXPECT_NE(picked.err.find(note), std::string::npos) << picked.err;
  EXPECT_EQ(picked.err.find("bcast/binomial"), std::string::npos) << picked.err;
  std::istringstream table(picked.out);
  int choices = 0;
  for (std::string line; std::getline(table, line);)
    if (line.starts_with("    from ")) {  // a choice: "from SIZE  ALGORITHM segment S"
      EXPECT_NE(line.find("bcast/binomial"), std::string::npos) << line;
      ++choices;
    }
  EXPECT_GT(choices, 0) << picked.out;
  expect_refused("select --op gather --procs 4 --params " + params,
                 "collsim: " + params +
                     " has no fit for gather/basic_linear, gather/binomial, gather/linear_sync (collsim calibrate "
                     "--ops gather/basic_linear,gather/binomial,gather/linear_sync ... writes them)");
  const std::string scenario = (dir / "scenario.yaml").string();
  std::ofstream(scenario) << "engines: [formula]\n"
                             "formula: {kinds: [textbook, derived], params: binomial-only.yaml}\n"
                             "procs: [4]\n"
                             "bytes: [8KiB]\n"
                             "operations:\n"
                             "  - bcast/binomial\n"
                             "  - bcast/pipeline\n";
  expect_refused("run " + scenario + " --out " + (dir / "out").string(),
                 "collsim: " + scenario + ":7:5: " + params +
                     " has no fit for bcast/pipeline (collsim calibrate --ops bcast/pipeline ... writes one)");
  EXPECT_FALSE(fs::exists(dir / "out"));
}

// README's and validation/paper-grisou.md's calibration runs at 4 to 32 processes: the default set
// leaves the two_proc algorithms out, saying so; named in --ops, one is still refused.
TEST(CliCalibrate, DefaultAlgorithmsAreThoseThatRunAtTheProcessCounts) {
  const std::string params = (scratch() / "params-4-8.yaml").string();
  const Outcome c = collsim("calibrate --engine model " + kModel + " --procs 4,8 --output " + params + " --quiet");
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_EQ(c.err,
            "collsim calibrate: skipped barrier/two_proc, allgather/two_proc, alltoall/two_proc: they run on 2 "
            "processes only, and --procs 4,8 has no 2\n");
  EXPECT_EQ(slurp(params).find("two_proc"), std::string::npos);
  EXPECT_NE(slurp(params).find("  barrier/recursive_doubling: "), std::string::npos);
  expect_refused("calibrate --engine model --procs 4,8 --ops bcast/binomial,barrier/two_proc --output " + params,
                 "collsim: calibrate: barrier/two_proc has no experiment among these process counts and sizes");
  expect_refused("calibrate --engine model --procs 4,8,4 --output " + params,
                 "collsim: --procs: '4' is listed twice in '4,8,4'");
}

// The table has every fit's residuals and quality, as the file does: under the contention-free
// model the fits are exact, hence ok; on two nodes of 2x12 cores with 24 ranks per node and one
// port, bcast/binary_tree's beta comes out at its bound 0 (the one-level formula cannot follow
// the two levels), and the table and the file say so.
TEST(CliCalibrate, EveryFitIsPrintedWithItsResidualsAndQuality) {
  const std::string exact = (scratch() / "quality-exact.yaml").string();
  const Outcome c = collsim("calibrate --engine model " + kModel +
                            " --procs 2,5,8 --ops bcast/binomial,barrier/tree --quiet --output " + exact);
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_NE(c.out.find("algorithm                           alpha  beta (s/B) points  rms resid   worst  quality\n"),
            std::string::npos)
      << c.out;
  for (const char* row : {"\nbcast/binomial ", "\nbarrier/tree ", "\nping-pong (textbook) "}) {
    const std::size_t at = c.out.find(row);
    ASSERT_NE(at, std::string::npos) << row << c.out;
    EXPECT_TRUE(c.out.substr(at, c.out.find('\n', at + 1) - at).ends_with("  ok")) << row << c.out;
  }
  EXPECT_EQ(c.out.find("fits are poor"), std::string::npos) << c.out;
  EXPECT_NE(slurp(exact).find("quality: \"ok\"}"), std::string::npos);

  const std::string platform = (scratch() / "two-by-twelve.xml").string();
  ASSERT_EQ(collsim("platform --nodes 2 --sockets 2 --cores 12 -o " + platform).status, 0);
  const std::string poor = (scratch() / "quality-poor.yaml").string();
  const Outcome p = collsim("calibrate --engine model --platform " + platform +
                            " --ranks-per-node 24 --one-port --procs 2,4,8,16,32,48 --ops bcast/binary_tree "
                            "--pingpong-sizes none --quiet --output " +
                            poor);
  ASSERT_EQ(p.status, 0) << p.err;
  const std::string file = slurp(poor);
  ASSERT_NE(file.find("bcast/binary_tree: {alpha: "), std::string::npos) << file;
  ASSERT_NE(file.find(", beta: 0, "), std::string::npos) << file;
  EXPECT_NE(file.find("quality: \"poor: beta at its bound 0"), std::string::npos) << file;
  EXPECT_NE(p.out.find("poor: beta at its bound 0"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("\n1 of 1 fits are poor: a fit is poor when alpha or beta sits at its bound 0"),
            std::string::npos)
      << p.out;
}

// Parameters that are no costs are refused in one line naming the file, its line and column,
// with exit status 2, by every command that reads them; and a formula whose time under the
// file's costs is not a number (beta 1e305 s/B over 1 MiB overflows, and infinities subtract) is refused, naming the
// call and the costs, from measure and from a scenario alike.
TEST(CliCalibrate, ParametersThatAreNoCostsAreRefusedWhereverRead) {
  const fs::path dir = scratch() / "unphysical";
  fs::create_directories(dir);
  const std::string negative = write_file(dir / "negative.yaml",
                                          "collsim: parameters\n"
                                          "algorithms:\n"
                                          "  bcast/binomial: {alpha: -1e-6, beta: 1e-9}\n")
                                   .string();
  const std::string line = negative + ":3:27: algorithms.bcast/binomial.alpha: -1e-6 must be at least 0";
  expect_refused("measure --engine formula --params " + negative + " --op bcast/binomial --procs 4 --bytes 8KiB",
                 "collsim: " + line);
  expect_bad_input("select --op bcast --procs 4 --params " + negative, line);
  const std::string ops = "procs: [4]\nbytes: [1MiB]\noperations: [bcast/binomial]\n";
  const fs::path scenario =
      write_file(dir / "negative-scenario.yaml", "engines: [formula]\nformula: {params: negative.yaml}\n" + ops);
  expect_bad_input("run " + scenario.string() + " --out " + (dir / "out1").string() + " --quiet", line);

  const std::string huge = write_file(dir / "huge.yaml",
                                      "collsim: parameters\n"
                                      "algorithms:\n"
                                      "  bcast/binomial: {alpha: 1e-6, beta: 1e305}\n")
                               .string();
  const std::string not_a_time =
      "formula-derived: bcast/binomial on 4 processes (root 0, 1048576 bytes) gives NaN, not a time, from alpha "
      "1e-06 s, beta 1e+305 s/B, gamma(4) = 1 (" +
      huge + "): these parameters do not describe this call";
  expect_refused("measure --engine formula --params " + huge + " --op bcast/binomial --procs 4 --bytes 1MiB",
                 "collsim: " + not_a_time);
  const fs::path huge_scenario =
      write_file(dir / "huge-scenario.yaml", "engines: [formula]\nformula: {params: huge.yaml}\n" + ops);
  expect_bad_input("run " + huge_scenario.string() + " --out " + (dir / "out2").string() + " --quiet", not_a_time);
}

// On the sim engine under tcp, every fit is per protocol regime: gather/basic_linear on 2 ranks
// of two nodes at two eager sizes and two above tcp's 65480 bytes gives each regime two
// experiments, printed as two rows and written as the entry's `above`; a malformed `above` is
// refused by every reader in one line, exit status 2.
TEST(CliCalibrate, SimCalibrationUnderTcpFitsEachRegime) {
  const std::string platform = (scratch() / "two-nodes.xml").string();
  ASSERT_EQ(collsim("platform --nodes 2 --sockets 1 --cores 2 -o " + platform).status, 0);
  const std::string params = (scratch() / "regimes.yaml").string();
  const Outcome c = collsim("calibrate --engine sim --platform " + platform +
                            " --protocol tcp --procs 2 --bytes 1KiB,16KiB,128KiB,512KiB --ops gather/basic_linear "
                            "--pingpong-sizes none --quiet --output " +
                            params);
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_NE(c.out.find("\ngather/basic_linear <= 65480 B "), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("\n  >= 65481 B (+2 msgs) "), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("Fitted per protocol regime of tcp between nodes"), std::string::npos) << c.out;
  const std::string file = slurp(params);
  EXPECT_NE(file.find("points: 2, "), std::string::npos) << file;
  EXPECT_NE(file.find(", above: [{from: 65481, handshake_messages: 2, handshake_bytes: 104, alpha: "),
            std::string::npos)
      << file;
  // Predictions from the regimes against the sim: the eager regime's two experiments fit exactly;
  // the rendezvous regime's fit has alpha at its bound 0 (the simulation's rendezvous costs
  // more per byte than the handshake's latencies explain), so it passes near its two points.
  const auto predicted_vs_sim = [&](const std::string& bytes) {
    const std::string call = " --op gather/basic_linear --procs 2 --bytes " + bytes + " --csv";
    return std::pair{time_of(collsim("measure --engine formula --params " + params + call)),
                     time_of(collsim("measure --engine sim --protocol tcp --platform " + platform + call))};
  };
  const auto [eager, eager_sim] = predicted_vs_sim("16KiB");
  EXPECT_NEAR(eager, eager_sim, 1e-9 * eager_sim);
  const auto [rendezvous, rendezvous_sim] = predicted_vs_sim("512KiB");
  EXPECT_NEAR(rendezvous, rendezvous_sim, 1e-4 * rendezvous_sim);

  const std::string bad = write_file(scratch() / "bad-regimes.yaml",
                                     "collsim: parameters\nalgorithms:\n  gather/basic_linear: {alpha: 1e-6, beta: "
                                     "1e-9, above: [{from: 0, handshake_messages: 2, handshake_bytes: 104, alpha: "
                                     "2e-6, beta: 1e-9}]}\n")
                              .string();
  expect_refused("measure --engine formula --params " + bad + " --op gather/basic_linear --procs 4 --bytes 8KiB",
                 "collsim: " + bad +
                     ":3:65: algorithms.gather/basic_linear.above[0].from: a regime above the first starts at 1 "
                     "byte or more");
}

// The case (issue 30): two nodes of 2 sockets x 12 cores, 24 ranks per node, derived
// formulas calibrated in the model engine of the platform with one port; 3 broadcasts x 4 process
// counts x 6 sizes = 72 points, every one a time (20 of them were negative before the fits were
// constrained).
TEST(CliCalibrate, TwoNodesOf24RanksWithOnePortPredictNoNegativeTime) {
  const fs::path dir = scratch() / "two-by-24";
  const fs::path scenario = write_file(dir / "one-port.yaml",
                                       "platform: {topology: crossbar, nodes: 2, sockets: 2, cores: 12}\n"
                                       "ranks_per_node: 24\n"
                                       "engines: [formula]\n"
                                       "model: {kind: two_level, from_platform: true, one_port: true}\n"
                                       "procs: [2, 12, 24, 48]\n"
                                       "bytes: [1, 1KiB, 8KiB, 64KiB, 256KiB, 1MiB]\n"
                                       "operations: [bcast/binary_tree, bcast/chain, bcast/binomial]\n");
  const Outcome o = collsim("run " + scenario.string() + " --out " + (dir / "out").string() + " --quiet");
  ASSERT_EQ(o.status, 0) << o.err;
  const std::vector<std::string> times = csv_column(slurp(dir / "out" / "results.csv"), "time_s");
  ASSERT_EQ(times.size(), 72u);
  for (const std::string& t : times) {
    const double v = std::stod(t);
    EXPECT_TRUE(std::isfinite(v) && v >= 0) << t;
  }
}

}  // namespace
}  // namespace collsim_test

namespace collsim_test {
namespace {

// The same pipeline on real MPI (mpirun of collsim-mpi per experiment, the ping-pong through
// collsim-mpi pingpong): it completes and writes a file the formula engine reads. Times on this
// machine are whatever it gives, so only their presence and sign are checked.
TEST(CliCalibrate, RunsOnRealMpi) {
  const std::string params = (scratch() / "mpi.yaml").string();
  const Outcome c = collsim(
      "calibrate --engine mpi-native --procs 2,3 --bytes 1KiB,8KiB --ops gather/basic_linear "
      "--gamma-procs 3 --pingpong-sizes 1,64KiB --min-runs 3 --max-runs 5 --quiet --output " +
      params);
  ASSERT_EQ(c.status, 0) << c.err << c.out;
  EXPECT_NE(c.out.find("calibrated on engine mpi-native"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("gamma(p), p = 2..3: 1 "), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("ping-pong (textbook)"), std::string::npos) << c.out;
  const double t = time_of(collsim("measure --engine formula --params " + params +
                                   " --csv --op gather/basic_linear --procs 3 --bytes 8KiB"));
  EXPECT_TRUE(std::isfinite(t)) << t;
  expect_bad_input("calibrate --engine mpi --platform x.xml", "--platform does not apply to --engine mpi");
}

// One run per experiment has no confidence interval, so none meets the target: the output counts
// them (gamma(2) and the two sizes of the broadcast).
TEST(CliCalibrate, SaysWhenMpiExperimentsStopAtMaxRuns) {
  const std::string params = (scratch() / "mpi-one-run.yaml").string();
  const Outcome c = collsim(
      "calibrate --engine mpi --procs 2 --bytes 1KiB,16KiB --ops bcast/basic_linear --gamma-procs 2 "
      "--pingpong-sizes none --min-runs 1 --max-runs 1 --quiet --output " +
      params);
  ASSERT_EQ(c.status, 0) << c.err << c.out;
  EXPECT_NE(c.out.find("\nCI target not met: 3 of 3 experiments stopped at --max-runs 1 with the 95% CI above 2.5% "
                       "of the mean"),
            std::string::npos)
      << c.out;
}

// --launcher: the experiments run under the given launcher line (tools/testbed's, one string),
// split at blanks, before "-np P"; here a stand-in that notes its arguments and answers as
// collsim-mpi would: one row for a measure, a ping-pong's CSV file for pingpong. With --statistic
// min the ping-pong's one-way times are half the fastest round trips: (1 B, 6 us) and (1001 B,
// 106 us), alpha 5.9 us and beta 0.1 us/B (half the medians, 50 and 500 us, would give
// 49.55 us and 0.45 us/B).
TEST(CliCalibrate, MpiExperimentsRunUnderTheLauncherGiven) {
  const fs::path args = scratch() / "calibrate-launcher.args";
  fs::remove(args);
  const fs::path launcher = scratch_file(
      "calibrate-launcher.sh",
      "echo \"$@\" >>" + args.string() +
          "\ncase \"$*\" in *' pingpong '*)\n"
          "  while [ $# -gt 0 ]; do if [ \"$1\" = --output ]; then out=$2; fi; shift; done\n"
          "  printf 'bytes,runs,min_rtt_s,median_rtt_s,mean_rtt_s,max_rtt_s,one_way_s,bandwidth_Bps\\n"
          "1,10,1.2e-05,0.0001,0.0001,0.0001,5e-05,0\\n1001,10,0.000212,0.001,0.001,0.001,0.0005,0\\n' >\"$out\"\n"
          "  exit 0 ;;\nesac\n"
          "echo engine,op,procs,bytes,segment,root,time_s,runs,mean_s,median_s,min_s,max_s,ci95_s,ci_target_met,"
          "data\necho mpi,bcast/basic_linear,2,1024,0,0,0.003,10,0.0035,0.003,0.001,0.009,0.0002,1,ok\n");
  const std::string params = (scratch() / "launcher.yaml").string();
  const Outcome c = collsim("calibrate --engine mpi --launcher 'sh " + launcher.string() +
                            "' --statistic min --procs 2 --bytes 1KiB,16KiB --ops bcast/basic_linear "
                            "--gamma-procs 2 --pingpong-sizes 1,1001 --quiet --output " +
                            params);
  ASSERT_EQ(c.status, 0) << c.err << c.out;
  // gamma(2), the broadcast at two sizes and the ping-pong, each one launch of -np 2.
  const std::vector<std::string> calls = lines(slurp(args));
  ASSERT_EQ(calls.size(), 4u) << slurp(args);
  for (const std::string& call : calls) EXPECT_EQ(call.rfind("-np 2 ", 0), 0u) << call;
  EXPECT_NE(calls[2].find(" measure --engine mpi --op bcast/basic_linear --bytes 16384 "), std::string::npos)
      << calls[2];
  EXPECT_NE(calls[3].find(" pingpong --sizes 1,1001 "), std::string::npos) << calls[3];
  const std::string yaml = slurp(params);
  const auto at = yaml.find("pingpong: {alpha: ");
  ASSERT_NE(at, std::string::npos) << yaml;
  const double alpha = std::stod(yaml.substr(at + 18));
  const double beta = std::stod(yaml.substr(yaml.find("beta: ", at) + 6));
  EXPECT_NEAR(alpha, 5.9e-6, 1e-12) << yaml;
  EXPECT_NEAR(beta, 1e-7, 1e-15) << yaml;
  expect_bad_input("calibrate --engine sim --launcher mpirun", "--launcher does not apply to --engine sim");
  expect_bad_input("calibrate --engine mpi --launcher ''", "--launcher: no command in ''");
  expect_bad_input("calibrate --engine mpi --statistic mean", "--statistic: 'mean' is not median or min");
}

}  // namespace
}  // namespace collsim_test

namespace collsim_test {
namespace {

// calibrate --from-osu: the platform and its fit are written, the fit printed, and the platform
// runs in the sim engine.
TEST(CliCalibrate, FromOsuWritesAPlatformAndItsFit) {
  const std::string out = (scratch() / "osu-fitted.xml").string();
  const Outcome c = collsim("calibrate --from-osu " + src("tests/data/osu/cluster") + " --cores 4 -o " + out);
  ASSERT_EQ(c.status, 0) << c.err;
  for (const char* text : {"socket: one-way time", "sockets: one-way time", "nodes: one-way time",
                           "  memcpy = ", "  memory_bandwidth = 38GBps", "  inter_socket_latency = ", "  latency = "})
    EXPECT_NE(c.out.find(text), std::string::npos) << text << "\n" << c.out;
  const std::string fit = slurp(scratch() / "osu-fitted.fit.csv");
  EXPECT_EQ(fit.substr(0, fit.find('\n')), "class,parameter,value,from");
  EXPECT_NE(fit.find("socket,fit/max_rel_residual,"), std::string::npos) << fit;
  const std::string xml = slurp(out);
  EXPECT_NE(xml.find("<prop id=\"collsim/shm/recv_overhead\" value=\"0:0:"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<prop id=\"collsim/protocol\" value=\"tcp+shm\"/>"), std::string::npos);
  EXPECT_NE(xml.find("core=\"8\""), std::string::npos);  // 2 sockets x 4 cores
  const Outcome run = collsim(
      "measure --engine sim --op bcast/binomial --procs 8 --bytes 64KiB --map-by core "
      "--payload virtual --csv --platform " +
      out);
  EXPECT_EQ(run.status, 0) << run.err;
  // Under pml ucx's protocols: its profiles' overhead tables, and the platform says ucx.
  const std::string ucx = (scratch() / "osu-ucx.xml").string();
  const Outcome u =
      collsim("calibrate --from-osu " + src("tests/data/osu/cluster") + " --cores 4 --protocol ucx -o " + ucx);
  ASSERT_EQ(u.status, 0) << u.err;
  const std::string ucx_xml = slurp(ucx);
  EXPECT_NE(ucx_xml.find("<prop id=\"collsim/protocol\" value=\"ucx\"/>"), std::string::npos) << ucx_xml;
  EXPECT_NE(ucx_xml.find("<prop id=\"collsim/ucx_sm/recv_overhead\" value=\"0:0:"), std::string::npos) << ucx_xml;
  EXPECT_NE(ucx_xml.find("<prop id=\"collsim/ucx/recv_overhead\" value=\"0:0:"), std::string::npos) << ucx_xml;
  EXPECT_EQ(ucx_xml.find("collsim/shm/"), std::string::npos) << ucx_xml;
}

// What `dir` holds makes calibrate --from-osu exit with 2 and this one line.
void expect_refusal(const std::string& args, const std::string& line) {
  const Outcome c = collsim("calibrate " + args + " -o " + (scratch() / "refused.xml").string());
  EXPECT_EQ(c.status, 2) << args;
  EXPECT_EQ(c.err, "collsim: " + line + "\n") << args;
}

TEST(CliCalibrate, FromOsuRefusesBadFilesAndOptionsInOneLine) {
  const auto dir = fresh_dir("cli", "osu-bad");
  const std::string file = (dir / "socket/osu_latency.txt").string();
  write_file(file, "# OSU MPI Latency Test v7.3\n# Size       Avg Latency(us)\n1     0.20\n2     n/a\n");
  expect_refusal("--from-osu " + dir.string() + " --cores 4", file + ":4: Avg Latency(us) 'n/a' is not a number");
  write_file(file, "# OSU MPI Latency Test v7.3\n# Size       Avg Latency(us)\n2     0.20\n1     0.30\n");
  expect_refusal("--from-osu " + dir.string() + " --cores 4",
                 file + ":4: size 1 after 2 (line 3): sizes must increase");
  write_file(file, "");
  expect_refusal("--from-osu " + dir.string() + " --cores 4", file + ":1: empty file: no OSU output");
  expect_refusal("--from-osu " + dir.string(), "--from-osu needs --cores (cores per socket of the measured nodes)");
  expect_refusal("--from-osu " + dir.string() + " --cores 4 --engine sim", "--engine does not go with --from-osu");
  expect_refusal("--engine model --cores 4", "--cores goes with --from-osu");
  expect_refusal("--from-osu " + src("tests/data/osu/cluster") + " --cores 4 --param memcpy=5GBps",
                 "memcpy: fitted from " + src("tests/data/osu/cluster") +
                     "/socket/osu_latency.txt, so it cannot be given as well (drop the option)");
  expect_refusal("--from-osu " + src("tests/data/osu/cluster") + " --cores 4 --param speed",
                 "--param: 'speed' is not NAME=VALUE");
  expect_refusal("--from-osu " + src("tests/data/osu/cluster") + " --cores 4 --protocol ideal",
                 "protocol: 'ideal' cannot be fitted: the fit is of tcp+shm (Open MPI's ob1: vader inside a node, "
                 "tcp between nodes) or ucx (pml ucx: its shared memory inside a node, InfiniBand between nodes)");
}

}  // namespace
}  // namespace collsim_test
