// collsim slurm: a scenario as a Slurm job array of shards and a dependent merge job, written as
// scripts (experiment/sweep/slurm_scripts.hpp) and, with --submit, given to sbatch.
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "engines/run.hpp"
#include "engines/run_memory.hpp"
#include "experiment/scenario/coarray_scenario.hpp"
#include "experiment/scenario/named_files.hpp"
#include "experiment/scenario/scenario.hpp"
#include "experiment/sweep/runner.hpp"
#include "experiment/sweep/slurm_scripts.hpp"
#include "support/shell_quote.hpp"
#include "support/units.hpp"

namespace collsim::cli {
namespace {

namespace fs = std::filesystem;
using namespace slurm_costs;

std::string seconds_text(double s) { return format_seconds(s); }

std::string about() {
  return "Writes RESULTS_DIR/slurm/array.sh, a Slurm job array of N tasks each running one shard of\n"
         "the scenario (collsim run SCENARIO --shard slurm --jobs C --resume --out RESULTS_DIR/parts/ID:\n"
         "a task requeued or pre-empted continues its shard), and RESULTS_DIR/slurm/merge.sh, which joins\n"
         "the parts into RESULTS_DIR (collsim merge, with --report its results page) once every task\n"
         "has ended well: it is submitted with --dependency=afterok on the array. The scripts name this\n"
         "collsim and the scenario by absolute paths (the cluster's nodes must see them); logs go to\n"
         "RESULTS_DIR/slurm/. Without --submit it prints the line that submits both; with --submit it\n"
         "runs sbatch --parsable for both and prints the job ids.\n"
         "\n"
         "The requests come from the plan; each option overrides its own. A point is estimated at\n"
         "model " +
         seconds_text(kModelSecondsPerPoint) + " + " + seconds_text(kModelSecondsPerRank) + " a rank, sim " +
         seconds_text(kSimSecondsPerPoint) + " + " + seconds_text(kSimSecondsPerRank) + " a rank, formula " +
         seconds_text(kFormulaSecondsPerPoint) + ", real MPI " + seconds_text(kMeasuredSecondsPerPoint) +
         "\n(tools/bench/README.md); a task at " + seconds_text(kTaskStartSeconds) +
         " to start plus its points on C workers (real MPI points\nalone). --time: " + format_real(kTimeMargin) +
         " times the longest task's, in whole minutes. --mem: the largest task's,\n" + readable_bytes(kProcessBytes) +
         " a process plus its C largest points' memory (the estimate every run " +
         "checks;\nreal MPI: " + readable_bytes(kProcessBytes) +
         " a rank). --cpus-per-task: the largest process count of the real MPI points\n"
         "(their ranks need cores), else 1. --tasks: about " +
         seconds_text(kTargetTaskSeconds) + " of work each, at most one per\nunit of the plan and " +
         std::to_string(kMaxTasks) + ". The merge job asks for one CPU, " + slurm_time(kMergeSeconds) + " and " +
         readable_bytes(kProcessBytes) + " + " + readable_bytes(kMergeBytesPerPoint) +
         " a point.\n"
         "Collective scenarios only (a coarray scenario's shards run by hand: collsim run --shard K/N).";
}

std::vector<OptionDef> slurm_options() {
  return {{"tasks", "N", "the array's tasks, one shard each (default: from the plan, see above)"},
          {"cpus-per-task", "C", "CPUs of each task, and its --jobs (default: see above)"},
          {"time", "T", "each task's time limit in Slurm's format (M, H:M:S, D-H:M:S, ...)"},
          {"mem", "M", "each task's memory in Slurm's format (a number of MiB, or with K, M, G or T)"},
          {"partition", "P", "the partition of both jobs (default: the cluster's)"},
          {"out", "DIR", "results folder (default: the scenario's output.dir, else results/NAME)"},
          {"report", "", "the merge job also writes DIR/report.html (collsim merge --report; python3 with matplotlib)"},
          {"submit", "", "submit both jobs with sbatch and print their ids"}};
}

// Runs `command` through /bin/sh and returns its output; EngineError with its last line when it
// fails.
std::string run_captured(const std::string& command, const std::string& what) {
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) throw EngineError(what + ": cannot start /bin/sh");
  std::string out;
  char buffer[4096];
  while (const std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  const int status = ::pclose(pipe);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  if (status != 0) {
    const std::string last = out.substr(out.rfind('\n') == std::string::npos ? 0 : out.rfind('\n') + 1);
    throw EngineError(what + " failed (exit status " +
                      std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : status) + "): " + last);
  }
  return out;
}

// The job id sbatch --parsable printed: "ID" or "ID;CLUSTER".
std::string job_id(const std::string& printed, const std::string& what) {
  const std::string id = printed.substr(printed.rfind('\n') == std::string::npos ? 0 : printed.rfind('\n') + 1);
  const std::string number = id.substr(0, id.find(';'));
  if (!parse_integer(number)) throw EngineError(what + " printed '" + printed + "', not a job id");
  return number;
}

void write_script(const std::string& path, const std::string& text) {
  write_file_atomically(path, text, "job script");
  fs::permissions(path, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec, fs::perm_options::add);
}

int slurm(const ParsedOptions& o) {
  if (o.positional.size() != 1) throw UsageError("slurm takes one scenario file (collsim slurm SCENARIO.yaml)");
  const std::string file = o.positional[0];
  if (is_coarray_scenario(file))
    throw UsageError(file +
                     " is a coarray scenario: collsim slurm runs collective scenarios (run a coarray "
                     "scenario's shards with collsim run --shard K/N)");
  std::optional<int> tasks, cpus;
  if (o.has("tasks")) tasks = static_cast<int>(o.integer("tasks", 1, 1, kMaxShards));
  if (o.has("cpus-per-task")) cpus = static_cast<int>(o.integer("cpus-per-task", 1, 1, 4096));
  if (o.has("time") && !is_slurm_time(o.text("time")))
    throw UsageError("--time: '" + o.text("time") + "' is not a Slurm time limit (M, M:S, H:M:S, D-H, D-H:M, D-H:M:S)");
  if (o.has("mem") && !is_slurm_memory(o.text("mem")))
    throw UsageError("--mem: '" + o.text("mem") + "' is not a Slurm memory size (e.g. 4096, 500M, 16G)");
  const std::string partition = o.text("partition");
  if (o.has("partition") && (partition.empty() || !sbatch_path_problem(partition).empty() ||
                             partition.find_first_of("/#;&|<>(){}*?`") != std::string::npos))
    throw UsageError("--partition: '" + partition + "' is not a partition name");

  const Scenario sc = load_scenario(file);
  const std::vector<PlanPoint> plan = expand_plan(sc);
  const std::string out = o.has("out") ? o.text("out") : !sc.out_dir.empty() ? sc.out_dir : "results/" + sc.name;
  SlurmJob job;
  job.name = sc.name;
  job.collsim = fs::read_symlink("/proc/self/exe").string();
  job.scenario = fs::absolute(file).lexically_normal().string();
  job.dir = fs::absolute(out).lexically_normal().string();
  while (job.dir.size() > 1 && job.dir.back() == '/') job.dir.pop_back();
  for (const auto& [what, path] : {std::pair<std::string, std::string>{"--out", job.dir},
                                   {"the scenario " + file, job.scenario},
                                   {"the collsim program", job.collsim}})
    if (const std::string problem = sbatch_path_problem(path); !problem.empty())
      throw UsageError(what + ": " + path + ": " + problem);

  const Sweep sweep = collective_sweep(sc, plan, job.dir);
  job.array = size_slurm_request(plan, sweep.units, tasks, cpus);
  job.array.partition = partition;
  if (o.has("time")) job.array.time = o.text("time");
  if (o.has("mem")) job.array.memory = o.text("mem");
  job.merge = merge_request(plan.size(), partition);
  job.report = o.has("report");

  make_output_folder((fs::path(job.dir) / "slurm").string());
  const std::string array = slurm_array_path(job.dir), merge = slurm_merge_path(job.dir);
  write_script(array, slurm_array_script(job));
  write_script(merge, slurm_merge_script(job));
  std::cout << "collsim slurm: " << sc.name << ": " << plan.size() << " points in " << job.array.tasks
            << (job.array.tasks > 1 ? " tasks" : " task") << " of " << job.array.cpus_per_task << " CPU"
            << (job.array.cpus_per_task > 1 ? "s" : "") << ", --time " << job.array.time << " and --mem "
            << job.array.memory << " each (estimated " << fixed(job.array.estimate_s, 0) << " s"
            << " and " << readable_bytes(job.array.estimate_bytes) << " for the largest task)\n"
            << "wrote " << array << " and " << merge << "\n";
  if (!o.has("submit")) {
    std::cout << "submit both with:\n  " << slurm_submit_line(job.dir) << "\n";
    return 0;
  }
  const std::string array_id = job_id(run_captured("sbatch --parsable " + shell_quoted(array), "sbatch"), "sbatch");
  const std::string merge_id =
      job_id(run_captured("sbatch --parsable --dependency=afterok:" + array_id + " " + shell_quoted(merge), "sbatch"),
             "sbatch");
  std::cout << "submitted: array job " << array_id << ", merge job " << merge_id << " (after it)\n";
  return 0;
}

}  // namespace

Command slurm_command() {
  return {"slurm",
          "collsim slurm SCENARIO.yaml [--tasks N] [--cpus-per-task C] [--time T] [--mem M] [--partition P]\n"
          "                            [--out DIR] [--report] [--submit]",
          "a scenario as a Slurm job array of shards and a merge job: scripts, or submitted",
          about(),
          slurm_options(),
          slurm,
          true};
}

}  // namespace collsim::cli
