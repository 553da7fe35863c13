#include "experiment/sweep/slurm_scripts.hpp"

#include <cctype>
#include <filesystem>

#include "support/shell_quote.hpp"

namespace collsim {

namespace fs = std::filesystem;

std::string slurm_array_path(const std::string& dir) { return (fs::path(dir) / "slurm" / "array.sh").string(); }
std::string slurm_merge_path(const std::string& dir) { return (fs::path(dir) / "slurm" / "merge.sh").string(); }

std::string sbatch_path_problem(const std::string& path) {
  for (const char c : path)
    if (c == ' ' || c == '\t' || c == '\n' || c == '\'' || c == '"' || c == '%' || c == '\\' || c == '$')
      return "it holds '" + std::string(1, c) +
             "', which an #SBATCH line cannot hold (blanks, quotes, %, \\ and $ are not allowed)";
  return "";
}

namespace {

// A job name Slurm shows as given: the scenario's name with anything but letters, digits, '.',
// '_' and '-' made '_'.
std::string job_name(const std::string& name) {
  std::string out = "collsim-";
  for (const char c : name)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') ? c : '_';
  return out;
}

std::string requests(const SlurmRequest& r, const std::string& name, const std::string& log) {
  std::string s = "#SBATCH --job-name=" + name + "\n";
  s += "#SBATCH --ntasks=1\n";
  s += "#SBATCH --cpus-per-task=" + std::to_string(r.cpus_per_task) + "\n";
  s += "#SBATCH --time=" + r.time + "\n";
  s += "#SBATCH --mem=" + r.memory + "\n";
  if (!r.partition.empty()) s += "#SBATCH --partition=" + r.partition + "\n";
  return s + "#SBATCH --output=" + log + "\n";
}

}  // namespace

std::string slurm_array_script(const SlurmJob& job) {
  const std::string parts = (fs::path(job.dir) / "parts").string();
  const std::string n = std::to_string(job.array.tasks), c = std::to_string(job.array.cpus_per_task);
  return "#!/bin/sh\n"
         "# Written by collsim slurm: scenario " +
         job.name + " in " + n +
         " shards, one per task of this array (collsim slurm --help).\n"
         "# A task requeued or pre-empted continues its shard (--resume); submit with\n"
         "# " +
         slurm_submit_line(job.dir) + "\n" + "#SBATCH --array=1-" + n + "\n" +
         requests(job.array, job_name(job.name), (fs::path(job.dir) / "slurm" / "shard-%a.out").string()) +
         "#SBATCH --requeue\n" + "exec " + shell_quoted(job.collsim) + " run " + shell_quoted(job.scenario) +
         " --shard slurm --jobs " + c + " --resume --out " + shell_quoted(parts) + "/\"$SLURM_ARRAY_TASK_ID\"\n";
}

std::string slurm_merge_script(const SlurmJob& job) {
  const std::string parts = (fs::path(job.dir) / "parts").string();
  return "#!/bin/sh\n"
         "# Written by collsim slurm: joins the " +
         std::to_string(job.array.tasks) + " shards of scenario " + job.name +
         " once every task of the array has ended well\n"
         "# (submitted with --dependency=afterok on the array job).\n" +
         requests(job.merge, job_name(job.name) + "-merge", (fs::path(job.dir) / "slurm" / "merge.out").string()) +
         "exec " + shell_quoted(job.collsim) + " merge " + shell_quoted(job.dir) + " " + shell_quoted(parts) + "/*" +
         (job.report ? " --report" : "") + "\n";
}

std::string slurm_submit_line(const std::string& dir) {
  return "array=$(sbatch --parsable " + shell_quoted(slurm_array_path(dir)) +
         ") && sbatch --parsable --dependency=afterok:\"${array%%;*}\" " + shell_quoted(slurm_merge_path(dir));
}

}  // namespace collsim
