// The job scripts `collsim slurm` writes: a Slurm job array whose every task runs one shard of a
// scenario (`collsim run --shard slurm --resume`, so a requeued or pre-empted task continues
// where it stopped), and a job that merges the shards once all of them have ended well
// (submitted with --dependency=afterok on the array), and the line that submits both.
//
// Layout under the results folder DIR: DIR/parts/ID (the shard of array task ID), the merged
// results in DIR itself, the scripts and the tasks' logs in DIR/slurm/.
#pragma once

#include <string>

#include "experiment/sweep/slurm_request.hpp"

namespace collsim {

struct SlurmJob {
  std::string name;      // the scenario's: the jobs' names
  std::string collsim;   // absolute path of the collsim program the tasks run
  std::string scenario;  // absolute path of the scenario file
  std::string dir;       // absolute path of the results folder
  SlurmRequest array, merge;
  bool report = false;  // the merge job also writes DIR/report.html (collsim merge --report)
};

// DIR/slurm/array.sh and DIR/slurm/merge.sh.
std::string slurm_array_path(const std::string& dir);
std::string slurm_merge_path(const std::string& dir);

// Why `path` cannot go into an #SBATCH line (sbatch reads them without shell quoting: blanks,
// quotes, '%', which it takes for a file name pattern, '\\' and '$'), or empty when it can.
std::string sbatch_path_problem(const std::string& path);

std::string slurm_array_script(const SlurmJob& job);
std::string slurm_merge_script(const SlurmJob& job);
// One shell line that submits the array, then the merge job depending on it:
// array=$(sbatch --parsable ARRAY.sh) && sbatch --parsable --dependency=afterok:${array%%;*} MERGE.sh
std::string slurm_submit_line(const std::string& dir);

}  // namespace collsim
