// collsim run when a run fails part way (exit status 1 or 2, run.json's status "failed: <reason>",
// the rows measured before the failure kept in results.csv), and where a run's files go (name,
// description, output.dir, --out).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/cli_test_util.hpp"

namespace {

using namespace collsim_test;

// The value of a string field of run.json ("status": "...").
std::string json_string_field(const std::string& json, const std::string& key) {
  const std::string open = "\"" + key + "\": \"";
  const auto start = json.find(open);
  if (start == std::string::npos) return "<no " + key + ">";
  const auto end = json.find("\",\n", start);
  return json.substr(start + open.size(), end - start - open.size());
}

// The model row that the failing scenarios below measure first: bcast/binomial on 2 ranks of 1000
// bytes under the default Hockney model, alpha + beta m = 10 us + 1000 * 0.8 ns = 10.8 us, written
// with every digit of the double that 1e-5 + 0.8e-9 * 1000 gives, and the point's key (the hash of
// "engine=model;op=bcast/binomial;procs=2;bytes=1000;segment=0;root=0": stable across versions).
const std::string kModelRow =
    "model,bcast/binomial,2,1000,0,0,1.0800000000000002e-05,1,1.0800000000000002e-05,1.0800000000000002e-05,"
    "1.0800000000000002e-05,1.0800000000000002e-05,0,,unchecked,,,,,,,,,8bd7b993eb02ab63";

struct Failed {
  Outcome outcome;
  std::string csv, json;
};

Failed run_until_failure(const std::string& name, const std::string& text) {
  const fs::path scenario = scratch_file(name + ".yaml", text);
  const fs::path out = scratch() / name;
  Failed f{collsim("run " + scenario.string() + " --out " + out.string()), "", ""};
  f.csv = slurp(out / "results.csv");
  f.json = slurp(out / "run.json");
  return f;
}

// The checks common to every run that fails after its first (model) row.
void expect_failed_after_model_row(const Failed& f, const std::string& error_start) {
  // stderr: the progress line, then the error.
  const auto err = lines(f.outcome.err);
  ASSERT_EQ(err.size(), 2u) << f.outcome.err;
  EXPECT_EQ(err[1].rfind("collsim: " + error_start, 0), 0u) << err[1];
  const std::string status = json_string_field(f.json, "status");
  EXPECT_EQ(status.rfind("failed: " + error_start, 0), 0u) << f.json;
  EXPECT_EQ("collsim: " + status.substr(std::string("failed: ").size()), err[1]) << "run.json and stderr differ";
  EXPECT_NE(f.json.find("\"measurements_planned\": 2,"), std::string::npos) << f.json;
  EXPECT_NE(f.json.find("\"measurements_written\": 1,"), std::string::npos) << f.json;
  EXPECT_EQ(f.csv,
            "engine,op,procs,bytes,segment,root,time_s,runs,mean_s,median_s,min_s,max_s,ci95_s,ci_target_met,data,"
            "protocol,datatype,reduce_op,osu_avg_s,osu_min_s,osu_max_s,interval_low_s,interval_high_s,key\n" +
                kModelRow + "\n");
  // What was measured is still shown.
  EXPECT_NE(f.outcome.out.find("bcast/binomial      2   1000        -  10.8 us"), std::string::npos) << f.outcome.out;
}

const std::string kModelThenMpi = "engines: [model, mpi]\nprocs: 2\nbytes: 1000\noperations: [bcast/binomial]\n";

TEST(RunFailure, MpiProgramThatFailsExitsOne) {
  const Failed f = run_until_failure("program-fails", kModelThenMpi + "mpi: {program: /bin/false}\n");
  EXPECT_EQ(f.outcome.status, 1) << f.outcome.err;
  EXPECT_NE(f.json.find("\"program\": \"/bin/false\""), std::string::npos) << f.json;
  EXPECT_NE(f.json.find("\"timeout_s\": 300}"), std::string::npos) << f.json;
  const std::string what = "mpi bcast/binomial on 2 processes (root 0, 1000 bytes) failed (exit status 1): ";
  expect_failed_after_model_row(f, what);
  // The reason is what mpirun said, not the rule of dashes its notices start with.
  const auto err = lines(f.outcome.err);
  ASSERT_EQ(err.size(), 2u);
  const std::string reason = err[1].substr(std::string("collsim: ").size() + what.size());
  EXPECT_EQ(reason.find("---"), std::string::npos) << reason;
  EXPECT_NE(reason.find_first_of("abcdefghijklmnopqrstuvwxyz"), std::string::npos) << reason;
}

// The launcher line goes before "-np P ...": with `sh -c "sleep 30" sh` the shell takes the rest
// as its positional parameters and sleeps; the 1 s timeout must kill it.
TEST(RunFailure, MpiTimeoutExitsOneWithinTheTimeout) {
  const auto start = std::chrono::steady_clock::now();
  const Failed f =
      run_until_failure("timeout", kModelThenMpi + "mpi: {launcher: [sh, -c, \"sleep 30\", sh], timeout: 1}\n");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(f.outcome.status, 1) << f.outcome.err;
  EXPECT_LT(seconds, 10) << "the launcher was not killed at the timeout";
  expect_failed_after_model_row(
      f, "mpi bcast/binomial on 2 processes (root 0, 1000 bytes): timed out: no answer from sh after 1 s");
}

// A stand-in for mpirun: it notes the command line it was given (in ARGS) and prints the row
// collsim-mpi measure --csv would, of a point whose runs took 1 ms at the fastest, 3 ms at the
// median and 3.5 ms on average.
fs::path fake_mpirun(const std::string& name) {
  const fs::path args = scratch() / (name + ".args");
  fs::remove(args);
  return scratch_file(name + ".sh",
                      "echo \"$@\" >>" + args.string() +
                          "\necho engine,op,procs,bytes,segment,root,time_s,runs,mean_s,median_s,min_s,max_s,ci95_s,"
                          "ci_target_met,data,protocol,datatype,reduce_op,osu_avg_s,osu_min_s,osu_max_s\n"
                          "echo mpi,bcast/binomial,2,1000,0,0,0.003,10,0.0035,0.003,0.001,0.009,0.0002,1,ok,,,,,,\n");
}

const std::string kMpiOnly = "engines: [mpi]\nprocs: 2\nbytes: 1000\noperations: [bcast/binomial]\n";

// mpi.statistic: the row's time is the median of the runs by default, the fastest run with min
// (the other statistics stay in their columns).
TEST(RunMpi, StatisticChoosesTheMedianOrTheFastestRun) {
  const fs::path launcher = fake_mpirun("statistic");
  for (const auto& [statistic, time] :
       {std::pair<std::string, std::string>{"", "0.003"}, {"median", "0.003"}, {"min", "0.001"}}) {
    const std::string settings = statistic.empty() ? "" : ", statistic: " + statistic;
    const fs::path scenario =
        scratch_file("statistic.yaml", kMpiOnly + "mpi: {launcher: [sh, " + launcher.string() + "]" + settings + "}\n");
    const fs::path out = scratch() / ("statistic-" + statistic);
    const Outcome o = collsim("run " + scenario.string() + " --quiet --force --out " + out.string());
    ASSERT_EQ(o.status, 0) << o.err;
    const std::string csv = slurp(out / "results.csv");
    EXPECT_EQ(csv_field(csv, "time_s"), time) << statistic << "\n" << csv;
    EXPECT_EQ(csv_field(csv, "median_s"), "0.003") << csv;
    EXPECT_EQ(csv_field(csv, "min_s"), "0.001") << csv;
    EXPECT_NE(slurp(out / "run.json").find("\"statistic\": \"" + (statistic.empty() ? "median" : statistic) + "\""),
              std::string::npos)
        << slurp(out / "run.json");
  }
  // The statistic changes what the rows mean: a run of the other one does not resume them.
  const fs::path median =
      scratch_file("statistic.yaml", kMpiOnly + "mpi: {launcher: [sh, " + launcher.string() + "]}\n");
  expect_bad_input("run " + median.string() + " --quiet --resume --out " + (scratch() / "statistic-min").string(),
                   "cannot resume them");
  const fs::path bad = scratch_file("statistic-bad.yaml", kMpiOnly + "mpi:\n  statistic: mean\n");
  expect_bad_input("run " + bad.string(), bad.string() + ":6:");
  expect_bad_input("run " + bad.string(), "'mean' is not median or min");
}

// mpi.launches: each point in N launches, its row the median launch's (by its time) or, under
// statistic min, the fastest launch's. The stand-in's three launches print medians of 5, 2 and
// 4 ms with fastest runs of half that: the median launch is the 4 ms one, the fastest 1 ms.
TEST(RunMpi, LaunchesTakeTheMedianOrTheFastestLaunch) {
  const fs::path counter = scratch() / "launches.count";
  const fs::path launcher = scratch_file(
      "launches.sh", "n=$(cat " + counter.string() + " 2>/dev/null || echo 0); n=$((n + 1)); echo $n >" +
                         counter.string() +
                         "\ncase $n in 1) t=0.005 m=0.0025 ;; 2) t=0.002 m=0.001 ;; *) t=0.004 m=0.002 ;; esac"
                         "\necho engine,op,procs,bytes,segment,root,time_s,runs,mean_s,median_s,min_s,max_s,ci95_s,"
                         "ci_target_met,data,protocol,datatype,reduce_op,osu_avg_s,osu_min_s,osu_max_s"
                         "\necho mpi,bcast/binomial,2,1000,0,0,$t,10,$t,$t,$m,0.009,0.0002,1,ok,,,,,,\n");
  for (const auto& [statistic, time, min] :
       {std::tuple<std::string, std::string, std::string>{"median", "0.004", "0.002"}, {"min", "0.001", "0.001"}}) {
    fs::remove(counter);
    const fs::path scenario = scratch_file("launches.yaml", kMpiOnly + "mpi: {launcher: [sh, " + launcher.string() +
                                                                "], launches: 3, statistic: " + statistic + "}\n");
    const fs::path out = scratch() / ("launches-" + statistic);
    const Outcome o = collsim("run " + scenario.string() + " --quiet --force --out " + out.string());
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_EQ(slurp(counter), "3\n") << "not three launches";
    const std::string csv = slurp(out / "results.csv");
    EXPECT_EQ(csv_field(csv, "time_s"), time) << statistic << "\n" << csv;
    EXPECT_EQ(csv_field(csv, "min_s"), min) << statistic << "\n" << csv;
    EXPECT_NE(slurp(out / "run.json").find("\"launches\": 3"), std::string::npos) << slurp(out / "run.json");
  }
  const fs::path bad = scratch_file("launches-bad.yaml", kMpiOnly + "mpi:\n  launches: 0\n");
  expect_bad_input("run " + bad.string(), bad.string() + ":6:");
}

// run --launcher: the launcher line of a testbed ("$TESTBED_MPIRUN", one string) instead of the
// scenario's, split at blanks, before "-np P PROGRAM measure ..."; not part of the plan, so a run
// measured under one launcher resumes under another.
TEST(RunMpi, LauncherFromTheCommandLine) {
  const fs::path launcher = fake_mpirun("launcher");
  const fs::path scenario = scratch_file("launcher.yaml", kMpiOnly + "mpi: {program: /no/collsim-mpi}\n");
  const fs::path out = scratch() / "launcher";
  const Outcome o = collsim("run " + scenario.string() + " --quiet --force --out " + out.string() +
                            " --launcher 'sh  " + launcher.string() + "'");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(csv_field(slurp(out / "results.csv"), "time_s"), "0.003");
  const std::string args = slurp(scratch() / "launcher.args");
  EXPECT_EQ(args.rfind("-np 2 /no/collsim-mpi measure --engine mpi --op bcast/binomial --bytes 1000 ", 0), 0u) << args;
  EXPECT_EQ(collsim("run " + scenario.string() + " --quiet --resume --out " + out.string()).status, 0)
      << "the launcher is not part of the plan: the finished run resumes under the default one";
  expect_bad_input("run " + scenario.string() + " --launcher ' '", "--launcher: no command in ' '");
  const fs::path model = scratch_file("launcher-model.yaml",
                                      "engines: [model]\nprocs: 2\nbytes: 1000\n"
                                      "operations: [bcast/binomial]\n");
  expect_bad_input("run " + model.string() + " --launcher mpirun",
                   "--launcher: " + model.string() + " runs no mpi engine");
}

// collsim-mpi refuses --root for an operation without a root: the launcher gives it to rooted ones
// only (the stand-in's row is a broadcast's, so only the command line it was given is judged).
TEST(RunMpi, RootOnlyForRootedOperations) {
  const fs::path launcher = fake_mpirun("root");
  const fs::path scenario = scratch_file(
      "root.yaml",
      "engines: [mpi]\nprocs: 2\nbytes: 1000\noperations: [bcast/binomial, {op: barrier/linear, bytes: 0}]\n"
      "mpi: {launcher: [sh, " +
          launcher.string() + "]}\n");
  collsim("run " + scenario.string() + " --quiet --force --out " + (scratch() / "root").string());
  const std::string args = slurp(scratch() / "root.args");
  // One command line per launch: the line that runs `op`.
  const auto line_of = [&](const std::string& op) {
    std::istringstream lines(args);
    for (std::string line; std::getline(lines, line);)
      if (line.find("--op " + op + " ") != std::string::npos || line.ends_with("--op " + op)) return line;
    ADD_FAILURE() << "no launch of " << op << " in\n" << args;
    return std::string{};
  };
  EXPECT_NE(line_of("bcast/binomial").find(" --root 0"), std::string::npos) << args;
  EXPECT_EQ(line_of("barrier/linear").find("--root"), std::string::npos) << args;
}

// A SimGrid option that only SimGrid can judge is found when the scenario is checked (its
// platform is loaded with the scenario's options): bad input, before anything runs.
TEST(RunFailure, UnknownSimGridOptionInAScenarioIsRefusedBeforeRunning) {
  const fs::path scenario =
      scratch_file("bad-cfg.yaml", "engines: [model, sim]\nplatform: " + src("platforms/grisou.xml") +
                                       "\nprocs: 2\nbytes: 1000\noperations: [bcast/binomial]\n"
                                       "sim: {cfg: [network/no-such-option:3]}\n");
  expect_refused("run " + scenario.string(), "collsim: " + scenario.string() +
                                                 ": bad SimGrid option 'network/no-such-option:3': Bad config key: "
                                                 "network/no-such-option");
}

TEST(RunFailure, SimCfgWithoutColonIsRefusedWithItsPosition) {
  const fs::path scenario =
      scratch_file("cfg-colon.yaml",
                   "engines: [sim]\nplatform: " + src("platforms/grisou.xml") +
                       "\nprocs: 2\nbytes: 1000\noperations: [bcast/binomial]\nsim:\n  cfg: [network/model=CM02]\n");
  expect_refused("run " + scenario.string(),
                 "collsim: " + scenario.string() + ":7:9: sim.cfg: 'network/model=CM02' is not KEY:VALUE");
}

// Where the files go: --out, else output.dir (relative to the current directory), else
// results/NAME with NAME the scenario's name, else its file name without .yaml. The name and
// description head the printed table and are kept in run.json.
TEST(RunOutput, NameDescriptionAndOutputFolder) {
  const fs::path cwd = scratch() / "cwd";
  fs::remove_all(cwd);
  fs::create_directories(cwd);
  const std::string body = "engines: [model]\nprocs: 2\nbytes: 1000\noperations: [bcast/binomial]\n";
  const fs::path named =
      scratch_file("named.yaml", "name: my-study\ndescription: what it is for\noutput:\n  dir: here/there\n" + body);
  Outcome o = collsim_in(cwd, "run " + named.string());
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(lines(o.out).at(0), "my-study: what it is for") << o.out;
  const std::string json = slurp(cwd / "here/there/run.json");
  EXPECT_EQ(json_string_field(json, "name"), "my-study") << json;
  EXPECT_EQ(json_string_field(json, "description"), "what it is for") << json;
  EXPECT_EQ(json_string_field(json, "status"), "complete") << json;
  EXPECT_EQ(lines(slurp(cwd / "here/there/results.csv")).at(1), kModelRow);

  o = collsim_in(cwd, "run " + named.string() + " --out elsewhere --quiet");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.err, "") << "--quiet";
  EXPECT_TRUE(fs::exists(cwd / "elsewhere/results.csv"));

  const fs::path plain = scratch_file("plain.yaml", "name: given-name\n" + body);
  o = collsim_in(cwd, "run " + plain.string());
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(lines(o.out).at(0), "given-name") << o.out;
  EXPECT_TRUE(fs::exists(cwd / "results/given-name/results.csv"));

  const fs::path anonymous = scratch_file("anonymous.yaml", body);
  o = collsim_in(cwd, "run " + anonymous.string());
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_TRUE(fs::exists(cwd / "results/anonymous/run.json"));
}

// The name names results/NAME: one that would reach outside results/ (or be results/ itself) is
// refused with its position, and nothing is written.
TEST(RunOutput, TheNameKeepsTheFolderInsideResults) {
  const fs::path cwd = scratch() / "name-cwd" / "deeper";
  fs::remove_all(cwd.parent_path());
  fs::create_directories(cwd);
  const std::string body = "engines: [model]\nprocs: 2\nbytes: 1000\noperations: [bcast/binomial]\n";
  const std::string why =
      " is not a plain name (it names the results folder results/NAME: not empty, not . or .., no /)";
  for (const auto& [name, shown] : std::vector<std::pair<std::string, std::string>>{
           {"../../evil-out", "../../evil-out"}, {"\"\"", ""}, {"..", ".."}, {"a/b", "a/b"}}) {
    const fs::path s = scratch_file("evil.yaml", "name: " + name + "\n" + body);
    const Outcome o = collsim_in(cwd, "run " + s.string());
    EXPECT_EQ(o.status, 2) << o.err;
    EXPECT_EQ(o.err, "collsim: " + s.string() + ":1:7: name: '" + shown + "'" + why + "\n");
    EXPECT_EQ(o.out, "");
  }
  EXPECT_FALSE(fs::exists(cwd.parent_path() / "evil-out"));
  EXPECT_FALSE(fs::exists(cwd / "results")) << "something was written";
}

}  // namespace

namespace {

// A coarray scenario (a `coarray:` block) runs through the same `collsim run`: a bad section is
// refused with its position and exit status 2; a good one writes its rows and the summary table.
TEST(RunCoarray, BadSectionIsRefusedWithItsPosition) {
  const fs::path scenario = scratch_file(
      "coarray-bad.yaml", "engines: [model]\nplatform: " + src("platforms/grisou.xml") +
                              "\ncoarray:\n  points:\n    - {local: \"1:11\", local_shape: \"10\", remote: \":\", "
                              "remote_shape: \"10\"}\n");
  expect_refused("run " + scenario.string(),
                 "collsim: " + scenario.string() +
                     ":5:15: local: section \"1:11\" of shape 10: dimension 1: upper bound 11 is outside 1:10 "
                     "(extent 10)");
}

TEST(RunCoarray, ModelAndSimRowsAndSummary) {
  const fs::path scenario = scratch_file(
      "coarray-good.yaml", "engines: [model, sim, mpi]\nplatform: " + src("platforms/grisou.xml") +
                               "\nmpi: {program: /nonexistent/collsim-mpi}\ncoarray:\n  points:\n"
                               "    - {sweep: s, local: \":\", local_shape: \"1000\", remote: \"1:2000:2\", "
                               "remote_shape: \"2000\", buffer: [800, 400000]}\n");
  const fs::path out = scratch() / "coarray-good-out";
  const Outcome o = collsim("run " + scenario.string() + " --out " + out.string());
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.err.find("collsim: mpi: skipped: /nonexistent/collsim-mpi is not built"), std::string::npos) << o.err;
  EXPECT_NE(o.out.find("model          sim"), std::string::npos) << o.out;
  std::ifstream csv(out / "results.csv");
  std::string line;
  int rows = 0;
  while (std::getline(csv, line))
    if (line.rfind("model,", 0) == 0 || line.rfind("sim,", 0) == 0) {
      ++rows;
      EXPECT_NE(line.find(",ok,s"), std::string::npos) << line;
    }
  EXPECT_EQ(rows, 4);
}

}  // namespace
