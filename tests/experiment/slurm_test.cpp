// Slurm job arrays without a Slurm: the shard a task reads from its environment (ids that do not
// start at 1, steps, missing variables, counts that do not fit), the requests sized from a plan
// (worked out by hand from the documented costs), and the job scripts against hand-written text.
// tests/slurm/ runs the same against a real Slurm.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "experiment/sweep/slurm_array.hpp"
#include "experiment/sweep/slurm_request.hpp"
#include "experiment/sweep/slurm_scripts.hpp"
#include "experiment/sweep/sweep.hpp"
#include "registry/registry.hpp"
#include "support/input_error.hpp"

namespace collsim {
namespace {

Environment env_of(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

std::map<std::string, std::string> array(const std::string& id, const std::string& min, const std::string& max,
                                         const std::string& count) {
  return {{"SLURM_ARRAY_TASK_ID", id},
          {"SLURM_ARRAY_TASK_MIN", min},
          {"SLURM_ARRAY_TASK_MAX", max},
          {"SLURM_ARRAY_TASK_COUNT", count}};
}

std::pair<int, int> shard_of(const std::map<std::string, std::string>& vars) {
  const auto s = slurm_array_shard(env_of(vars));
  EXPECT_TRUE(s.has_value());
  return s ? std::pair{s->shard, s->shards} : std::pair{0, 0};
}

// The message of the InputError `f` throws; "" when it throws none.
template <typename F>
std::string refusal(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(SlurmArray, TaskPlaceAmongTheArraysTasks) {
  EXPECT_EQ(shard_of(array("1", "1", "8", "8")), std::pair(1, 8));
  EXPECT_EQ(shard_of(array("8", "1", "8", "8")), std::pair(8, 8));
  // --array=0-2: ids from 0.
  EXPECT_EQ(shard_of(array("0", "0", "2", "3")), std::pair(1, 3));
  EXPECT_EQ(shard_of(array("2", "0", "2", "3")), std::pair(3, 3));
  // --array=5-9: the third task of five.
  EXPECT_EQ(shard_of(array("7", "5", "9", "5")), std::pair(3, 5));
  // --array=0-10:2 is 0, 2, 4, 6, 8, 10: task 6 is the fourth of six, with or without _STEP.
  EXPECT_EQ(shard_of(array("6", "0", "10", "6")), std::pair(4, 6));
  auto stepped = array("6", "0", "10", "6");
  stepped["SLURM_ARRAY_TASK_STEP"] = "2";
  EXPECT_EQ(shard_of(stepped), std::pair(4, 6));
  // One task: the whole plan.
  EXPECT_EQ(shard_of(array("4", "4", "4", "1")), std::pair(1, 1));
}

TEST(SlurmArray, OutsideAnArrayJobThereIsNoShard) {
  EXPECT_FALSE(slurm_array_shard(env_of({})).has_value());
  EXPECT_FALSE(slurm_array_shard(env_of({{"SLURM_JOB_ID", "12"}})).has_value());
}

TEST(SlurmArray, MissingOrBadVariablesAreRefusedByName) {
  auto no_count = array("1", "1", "3", "3");
  no_count.erase("SLURM_ARRAY_TASK_COUNT");
  EXPECT_EQ(refusal([&] { slurm_array_shard(env_of(no_count)); }),
            "--shard slurm: SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not (Slurm sets both in every "
            "task of an array job)");
  auto no_min = array("1", "1", "3", "3");
  no_min.erase("SLURM_ARRAY_TASK_MIN");
  EXPECT_NE(refusal([&] { slurm_array_shard(env_of(no_min)); }).find("SLURM_ARRAY_TASK_MIN is not"), std::string::npos);
  EXPECT_EQ(refusal([&] { slurm_array_shard(env_of(array("x1", "1", "3", "3"))); }),
            "--shard slurm: SLURM_ARRAY_TASK_ID='x1' is not a whole number");
  EXPECT_EQ(refusal([&] { slurm_array_shard(env_of(array("1", "1", "-3", "3"))); }),
            "--shard slurm: SLURM_ARRAY_TASK_MAX='-3' is not a whole number");
  EXPECT_EQ(refusal([&] { slurm_array_shard(env_of(array("9", "1", "3", "3"))); }),
            "--shard slurm: task 9 is not among the array's 3 tasks from 1 to 3");
}

TEST(SlurmArray, ACountThatDoesNotFitTheRangeIsRefused) {
  // --array=1,2,5: 3 tasks over 1..5 are not evenly spaced, so no task can tell its place.
  EXPECT_EQ(refusal([&] { slurm_array_shard(env_of(array("2", "1", "5", "3"))); }),
            "--shard slurm: task 2 is not one of the array's 3 tasks from 1 to 5, 2 apart (give the array as a "
            "range: --array=A-B or A-B:STEP)");
  EXPECT_EQ(refusal([&] { slurm_array_shard(env_of(array("2", "1", "5", "4"))); }),
            "--shard slurm: the array's 4 tasks from 1 to 5 are not evenly spaced (give the array as a range: "
            "--array=A-B or A-B:STEP)");
  EXPECT_NE(refusal([&] { slurm_array_shard(env_of(array("1", "1", "5", "1"))); }), "");
  auto wrong_step = array("3", "1", "5", "3");
  wrong_step["SLURM_ARRAY_TASK_STEP"] = "3";
  EXPECT_EQ(refusal([&] { slurm_array_shard(env_of(wrong_step)); }),
            "--shard slurm: SLURM_ARRAY_TASK_STEP is 3 but the array's 3 tasks from 1 to 5 are 2 apart (give the "
            "array as a range: --array=A-B or A-B:STEP)");
}

// --shard has one parser: K/N, slurm and auto.
TEST(SlurmArray, ShardOptionTakesSlurmAndAuto) {
  SweepOptions o;
  parse_shard("slurm", o, env_of(array("7", "5", "9", "5")));
  EXPECT_EQ(o.shard, 3);
  EXPECT_EQ(o.shards, 5);
  SweepOptions a;
  parse_shard("auto", a, env_of(array("7", "5", "9", "5")));
  EXPECT_EQ(a.shard, 3);
  EXPECT_EQ(a.shards, 5);
  SweepOptions whole;
  whole.shard = whole.shards = 7;
  parse_shard("auto", whole, env_of({}));
  EXPECT_EQ(whole.shard, 1);
  EXPECT_EQ(whole.shards, 1);
  SweepOptions outside;
  EXPECT_EQ(refusal([&] { parse_shard("slurm", outside, env_of({})); }),
            "--shard slurm: SLURM_ARRAY_TASK_ID is not set: this is not a task of a Slurm job array (sbatch --array; "
            "--shard auto runs the whole plan outside one)");
  EXPECT_EQ(refusal([&] { parse_shard("slurm ", outside, env_of({})); }),
            "--shard: 'slurm ' is not K/N with 1 <= K <= N (e.g. 2/8), slurm or auto");
  parse_shard("2/4", outside, env_of(array("7", "5", "9", "5")));  // K/N ignores the environment
  EXPECT_EQ(outside.shard, 2);
  EXPECT_EQ(outside.shards, 4);
}

PlanPoint point(Engine engine, const char* algorithm, int procs) {
  PlanPoint p;
  p.engine = engine;
  p.spec.algorithm = find_algorithm(algorithm);
  p.spec.procs = procs;
  p.spec.bytes = 1024;
  p.spec.real_bytes = false;
  return p;
}

std::vector<SweepUnit> one_unit_each(std::size_t points) {
  std::vector<SweepUnit> units(points);
  for (std::size_t i = 0; i < points; ++i) units[i].points = {i};
  return units;
}

// The costs below are slurm_request.hpp's constants, written out: a model point 0.01 s + 2 us a
// rank, a task 60 s to start, time twice the estimate in whole minutes; 64 MiB a process, and a
// model rank of allreduce/ring (which runs from time 0) 3 KiB.
TEST(SlurmRequest, SizedFromThePlanByHand) {
  ASSERT_FALSE(find_algorithm("allreduce/ring")->receives_first);
  const std::vector<PlanPoint> plan = {
      point(Engine::model, "allreduce/ring", 1000), point(Engine::model, "allreduce/ring", 2000),
      point(Engine::model, "allreduce/ring", 3000), point(Engine::model, "allreduce/ring", 4000)};
  // Two tasks of 1 CPU: task 1 has 1000 and 3000 ranks, 60 + 0.012 + 0.016 = 60.028 s; task 2 has
  // 2000 and 4000, 60 + 0.014 + 0.018 = 60.032 s; twice 60.032 s is 2.0011 minutes: 3.
  // Memory, task 2: the process and one worker, 128 MiB, and its larger point, 4000 x 3 KiB =
  // 12000 KiB: 143072 KiB = 139.7 MiB, asked as 140M.
  const SlurmRequest two = size_slurm_request(plan, one_unit_each(4), 2, 1);
  EXPECT_EQ(two.tasks, 2);
  EXPECT_EQ(two.cpus_per_task, 1);
  EXPECT_DOUBLE_EQ(two.estimate_s, 60.032);
  EXPECT_EQ(two.time, "0-00:03:00");
  EXPECT_DOUBLE_EQ(two.estimate_bytes, 143072.0 * 1024);
  EXPECT_EQ(two.memory, "140M");
  // Two CPUs: task 2's points run side by side, 60 + max(0.032 / 2, 0.018) = 60.018 s; memory the
  // process, two workers and both points: 192 MiB + 18000 KiB = 214608 KiB = 209.6 MiB.
  const SlurmRequest wide = size_slurm_request(plan, one_unit_each(4), 2, 2);
  EXPECT_DOUBLE_EQ(wide.estimate_s, 60.018);
  EXPECT_EQ(wide.memory, "210M");
  // Defaults: so little work is one task of 1 CPU, all four points: 60 + 0.06 s.
  const SlurmRequest fallback = size_slurm_request(plan, one_unit_each(4), std::nullopt, std::nullopt);
  EXPECT_EQ(fallback.tasks, 1);
  EXPECT_EQ(fallback.cpus_per_task, 1);
  EXPECT_DOUBLE_EQ(fallback.estimate_s, 60.06);
  EXPECT_EQ(refusal([&] { size_slurm_request(plan, one_unit_each(4), 5, 1); }),
            "--tasks 5: the plan runs in 4 units (one per point, or per shared measurement), so at most 4 tasks "
            "have work");
}

// Real MPI points ask for CPUs for their ranks and run alone: 15 s each; a sim point 0.1 s + 1.3 ms
// a rank. Work enough for more than an hour is split into tasks of about an hour.
TEST(SlurmRequest, RealMpiPointsAndLongPlans) {
  const std::vector<PlanPoint> plan = {point(Engine::mpi, "bcast/binomial", 4),
                                       point(Engine::sim, "bcast/binomial", 100),
                                       point(Engine::mpi, "bcast/binomial", 8)};
  // Defaults: 8 CPUs (the larger MPI run), one task: 60 + 0.23 + 15 + 15 s.
  const SlurmRequest r = size_slurm_request(plan, one_unit_each(3), std::nullopt, std::nullopt);
  EXPECT_EQ(r.cpus_per_task, 8);
  EXPECT_EQ(r.tasks, 1);
  EXPECT_DOUBLE_EQ(r.estimate_s, 90.23);
  EXPECT_EQ(r.time, "0-00:04:00");  // 180.46 s
  // 3000 sim points of 10000 ranks, 13.1 s each: 39300 s of work on 1 CPU, 11 tasks of about an hour.
  const std::vector<PlanPoint> big(3000, point(Engine::sim, "bcast/binomial", 10000));
  EXPECT_EQ(size_slurm_request(big, one_unit_each(3000), std::nullopt, std::nullopt).tasks, 11);
  // ... and 2 tasks on 8 CPUs (39300 / 8 = 4912.5 s).
  EXPECT_EQ(size_slurm_request(big, one_unit_each(3000), std::nullopt, 8).tasks, 2);
}

TEST(SlurmRequest, SlurmsFormats) {
  EXPECT_EQ(slurm_time(1), "0-00:01:00");
  EXPECT_EQ(slurm_time(60), "0-00:01:00");
  EXPECT_EQ(slurm_time(61), "0-00:02:00");
  EXPECT_EQ(slurm_time(25 * 3600 + 60), "1-01:01:00");
  EXPECT_EQ(slurm_memory(1), "1M");
  EXPECT_EQ(slurm_memory(1536.0 * 1024 * 1024), "1536M");
  for (const char* t : {"30", "30:00", "1:30:00", "2-0", "2-12:30", "2-12:30:00", "UNLIMITED", "INFINITE"})
    EXPECT_TRUE(is_slurm_time(t)) << t;
  for (const char* t : {"", "1h", "1:2:3:4", "2-", "-2", "2-1:2:3:4", "1::2", "1.5", "1-2-3"})
    EXPECT_FALSE(is_slurm_time(t)) << t;
  for (const char* m : {"4096", "500M", "16G", "1T", "64K", "0"}) EXPECT_TRUE(is_slurm_memory(m)) << m;
  for (const char* m : {"", "G", "16GB", "1.5G", "-1", "16g"}) EXPECT_FALSE(is_slurm_memory(m)) << m;
}

SlurmJob job() {
  SlurmJob j;
  j.name = "small sweep";
  j.collsim = "/opt/collsim/bin/collsim";
  j.scenario = "/home/u/s.yaml";
  j.dir = "/scratch/u/res";
  j.array.tasks = 3;
  j.array.cpus_per_task = 2;
  j.array.time = "0-00:05:00";
  j.array.memory = "200M";
  j.merge.time = "0-00:30:00";
  j.merge.memory = "65M";
  return j;
}

TEST(SlurmScripts, ArrayScriptRunsOneShardPerTaskAndResumes) {
  SlurmJob j = job();
  j.array.partition = "short";
  EXPECT_EQ(slurm_array_script(j),
            "#!/bin/sh\n"
            "# Written by collsim slurm: scenario small sweep in 3 shards, one per task of this array (collsim slurm "
            "--help).\n"
            "# A task requeued or pre-empted continues its shard (--resume); submit with\n"
            "# array=$(sbatch --parsable '/scratch/u/res/slurm/array.sh') && sbatch --parsable "
            "--dependency=afterok:\"${array%%;*}\" '/scratch/u/res/slurm/merge.sh'\n"
            "#SBATCH --array=1-3\n"
            "#SBATCH --job-name=collsim-small_sweep\n"
            "#SBATCH --ntasks=1\n"
            "#SBATCH --cpus-per-task=2\n"
            "#SBATCH --time=0-00:05:00\n"
            "#SBATCH --mem=200M\n"
            "#SBATCH --partition=short\n"
            "#SBATCH --output=/scratch/u/res/slurm/shard-%a.out\n"
            "#SBATCH --requeue\n"
            "exec '/opt/collsim/bin/collsim' run '/home/u/s.yaml' --shard slurm --jobs 2 --resume --out "
            "'/scratch/u/res/parts'/\"$SLURM_ARRAY_TASK_ID\"\n");
}

TEST(SlurmScripts, MergeScriptJoinsThePartsAndWritesTheReport) {
  SlurmJob j = job();
  j.report = true;
  EXPECT_EQ(slurm_merge_script(j),
            "#!/bin/sh\n"
            "# Written by collsim slurm: joins the 3 shards of scenario small sweep once every task of the array has "
            "ended well\n"
            "# (submitted with --dependency=afterok on the array job).\n"
            "#SBATCH --job-name=collsim-small_sweep-merge\n"
            "#SBATCH --ntasks=1\n"
            "#SBATCH --cpus-per-task=1\n"
            "#SBATCH --time=0-00:30:00\n"
            "#SBATCH --mem=65M\n"
            "#SBATCH --output=/scratch/u/res/slurm/merge.out\n"
            "exec '/opt/collsim/bin/collsim' merge '/scratch/u/res' '/scratch/u/res/parts'/* --report\n");
  EXPECT_EQ(slurm_submit_line("/d"),
            "array=$(sbatch --parsable '/d/slurm/array.sh') && sbatch --parsable --dependency=afterok:\"${array%%;*}\" "
            "'/d/slurm/merge.sh'");
}

TEST(SlurmScripts, PathsAnSbatchLineCannotHoldAreNamed) {
  EXPECT_EQ(sbatch_path_problem("/scratch/u/res-1_a.b"), "");
  EXPECT_NE(sbatch_path_problem("/scratch/my results"), "");
  EXPECT_NE(sbatch_path_problem("/scratch/100%"), "");
  EXPECT_NE(sbatch_path_problem("/scratch/$HOME"), "");
}

}  // namespace
}  // namespace collsim
