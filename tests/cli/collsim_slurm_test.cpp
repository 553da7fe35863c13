// collsim run --shard slurm|auto and collsim slurm as a user runs them, without a Slurm: the
// array task's variables set by hand, sbatch replaced by a script that records its arguments.
// tests/slurm/ runs the same against a real Slurm.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "common/cli_test_util.hpp"

namespace {

using namespace collsim_test;

// 8 model points (2 operations x 2 process counts x 2 sizes).
fs::path small_scenario() {
  return scratch_file("slurm-small.yaml", "name: slurm-small\nplatform: " + src("platforms/grisou.xml") +
                                              "\nranks_per_node: 2\nengines: [model]\n"
                                              "model: {kind: two_level, from_platform: true}\nprocs: [2, 8]\n"
                                              "bytes: [1KiB, 64KiB]\noperations:\n  - bcast/binomial\n"
                                              "  - gather/binomial\n");
}

// collsim with the array variables of task `id` of --array=5-9:2 (5, 7, 9), or none at all.
Outcome collsim_in_task(const std::string& id, const std::string& args) {
  const std::string env = id.empty() ? "env -u SLURM_ARRAY_TASK_ID "
                                     : "env SLURM_ARRAY_TASK_ID=" + id +
                                           " SLURM_ARRAY_TASK_MIN=5 SLURM_ARRAY_TASK_MAX=9 "
                                           "SLURM_ARRAY_TASK_COUNT=3 SLURM_ARRAY_TASK_STEP=2 ";
  return run_command(env + COLLSIM_BIN + " " + args);
}

TEST(SlurmCli, ShardSlurmRunsTheTasksShard) {
  const fs::path s = small_scenario();
  const fs::path by_hand = scratch() / "slurm-by-hand", by_task = scratch() / "slurm-by-task";
  ASSERT_EQ(collsim("run " + s.string() + " --quiet --shard 2/3 --out " + by_hand.string()).status, 0);
  // Task 7 is the second of 5, 7, 9.
  const Outcome o = collsim_in_task("7", "run " + s.string() + " --shard slurm --out " + by_task.string());
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.err.find(", shard 2/3,"), std::string::npos) << o.err;
  EXPECT_EQ(slurp(by_task / "results.csv"), slurp(by_hand / "results.csv"));
  EXPECT_EQ(lines(slurp(by_task / "results.csv")).size(), 1u + 3u);  // points 2, 5 and 8 of 8
  EXPECT_NE(slurp(by_task / "run.json").find("\"shard\": \"2/3\""), std::string::npos);
  // Merged with the other two, the rows are shown as collsim run shows them when it ends.
  std::string parts = " " + by_task.string();
  for (const std::string k : {"1", "3"}) {
    const fs::path part = scratch() / ("slurm-part" + k);
    ASSERT_EQ(collsim("run " + s.string() + " --quiet --shard " + k + "/3 --out " + part.string()).status, 0);
    parts += " " + part.string();
  }
  const fs::path merged = scratch() / "slurm-merged";
  const Outcome m = collsim("merge " + merged.string() + parts);
  ASSERT_EQ(m.status, 0) << m.err;
  EXPECT_NE(m.out.find("merged 3 folder(s): 8 of 8 points, complete"), std::string::npos) << m.out;
  EXPECT_NE(m.out.find("gather/binomial"), std::string::npos) << m.out;
  EXPECT_NE(m.out.find("\nresults: " + (merged / "results.csv").string() + ", " + (merged / "run.json").string()),
            std::string::npos)
      << m.out;
  // auto is the same inside an array job.
  const fs::path by_auto = scratch() / "slurm-by-auto";
  ASSERT_EQ(collsim_in_task("7", "run " + s.string() + " --quiet --shard auto --out " + by_auto.string()).status, 0);
  EXPECT_EQ(slurp(by_auto / "results.csv"), slurp(by_hand / "results.csv"));
}

TEST(SlurmCli, OutsideAnArrayJob) {
  const fs::path s = small_scenario();
  const Outcome refused = collsim_in_task("", "run " + s.string() + " --shard slurm");
  EXPECT_EQ(refused.status, 2);
  EXPECT_EQ(refused.err,
            "collsim: --shard slurm: SLURM_ARRAY_TASK_ID is not set: this is not a task of a Slurm job array (sbatch "
            "--array; --shard auto runs the whole plan outside one)\n");
  // auto: the whole plan, as without --shard.
  const fs::path whole = scratch() / "slurm-whole", plain = scratch() / "slurm-plain";
  ASSERT_EQ(collsim_in_task("", "run " + s.string() + " --quiet --shard auto --out " + whole.string()).status, 0);
  ASSERT_EQ(collsim("run " + s.string() + " --quiet --out " + plain.string()).status, 0);
  EXPECT_EQ(slurp(whole / "results.csv"), slurp(plain / "results.csv"));
  EXPECT_EQ(lines(slurp(whole / "results.csv")).size(), 1u + 8u);
}

TEST(SlurmCli, WritesTheScriptsWithAbsolutePaths) {
  const fs::path s = small_scenario();
  const fs::path out = scratch() / "slurm-scripts";
  const Outcome o =
      collsim("slurm " + s.string() + " --tasks 2 --time 10 --mem 2G --partition short --out " + out.string());
  ASSERT_EQ(o.status, 0) << o.err;
  const std::string collsim_path = fs::canonical(COLLSIM_BIN).string();
  const std::string array = slurp(out / "slurm" / "array.sh"), merge = slurp(out / "slurm" / "merge.sh");
  for (const std::string& line :
       {std::string("#SBATCH --array=1-2\n"), std::string("#SBATCH --time=10\n"), std::string("#SBATCH --mem=2G\n"),
        std::string("#SBATCH --partition=short\n"), std::string("#SBATCH --cpus-per-task=1\n"),
        "exec '" + collsim_path + "' run '" + s.string() + "' --shard slurm --jobs 1 --resume --out '" + out.string() +
            "/parts'/\"$SLURM_ARRAY_TASK_ID\"\n"})
    EXPECT_NE(array.find(line), std::string::npos) << line << "\nnot in:\n" << array;
  EXPECT_NE(merge.find("exec '" + collsim_path + "' merge '" + out.string() + "' '" + out.string() + "/parts'/*\n"),
            std::string::npos)
      << merge;
  EXPECT_NE(merge.find("#SBATCH --partition=short\n"), std::string::npos) << merge;
  EXPECT_EQ(merge.find("--report"), std::string::npos) << merge;  // only with --report
  EXPECT_NE(o.out.find("8 points in 2 tasks of 1 CPU"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("submit both with:\n  array=$(sbatch --parsable '" + out.string() + "/slurm/array.sh')"),
            std::string::npos)
      << o.out;
  EXPECT_NE(fs::status(out / "slurm" / "array.sh").permissions() & fs::perms::owner_exec, fs::perms::none);
  EXPECT_NE(fs::status(out / "slurm" / "merge.sh").permissions() & fs::perms::owner_exec, fs::perms::none);
}

// --submit runs sbatch twice: the array, then the merge after it (a stand-in sbatch records them).
TEST(SlurmCli, SubmitsTheMergeAfterTheArray) {
  const fs::path s = small_scenario();
  const fs::path bin = scratch() / "fake-sbatch", out = scratch() / "slurm-submitted";
  fs::create_directories(bin);
  const fs::path log = bin / "calls";
  write_file(bin / "sbatch", "#!/bin/sh\necho \"$*\" >> '" + log.string() + "'\nif [ -f '" + log.string() +
                                 ".once' ]; then echo 124; else touch '" + log.string() +
                                 ".once'; echo '123;cluster'; fi\n");
  fs::permissions(bin / "sbatch", fs::perms::owner_all);
  const Outcome o = run_command("PATH=" + bin.string() + ":$PATH " + COLLSIM_BIN + " slurm " + s.string() +
                                " --tasks 2 --submit --out " + out.string());
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.out.find("submitted: array job 123, merge job 124 (after it)\n"), std::string::npos) << o.out;
  EXPECT_EQ(slurp(log), "--parsable " + out.string() + "/slurm/array.sh\n--parsable --dependency=afterok:123 " +
                            out.string() + "/slurm/merge.sh\n");
  // sbatch refusing the job: its own last line, exit status 1.
  write_file(bin / "sbatch", "#!/bin/sh\necho 'sbatch: error: invalid partition specified: nope' >&2\nexit 1\n");
  const Outcome refused = run_command("PATH=" + bin.string() + ":$PATH " + COLLSIM_BIN + " slurm " + s.string() +
                                      " --partition nope --submit --out " + out.string());
  EXPECT_EQ(refused.status, 1);
  EXPECT_EQ(refused.err, "collsim: sbatch failed (exit status 1): sbatch: error: invalid partition specified: nope\n");
}

TEST(SlurmCli, BadInputIsOneLine) {
  const std::string s = small_scenario().string();
  expect_bad_input("slurm " + s + " --tasks 0", "--tasks: 0 is out of range");
  expect_bad_input("slurm " + s + " --tasks 9", "--tasks 9: the plan runs in 8 units");
  expect_bad_input("slurm " + s + " --cpus-per-task 0", "--cpus-per-task: 0 is out of range");
  expect_bad_input("slurm " + s + " --time 1h", "--time: '1h' is not a Slurm time limit");
  expect_bad_input("slurm " + s + " --mem 16GB", "--mem: '16GB' is not a Slurm memory size");
  expect_bad_input("slurm " + s + " --partition 'a b'", "--partition: 'a b' is not a partition name");
  expect_bad_input("slurm " + s + " --out '" + (scratch() / "my results").string() + "'",
                   "which an #SBATCH line cannot hold");
  expect_bad_input("slurm", "slurm takes one scenario file");
  expect_bad_input("slurm " + (scratch() / "no-such.yaml").string(), "no-such.yaml");
  expect_bad_input("slurm " + src("scenarios/coarray-cases.yaml"), "is a coarray scenario");
}

}  // namespace
