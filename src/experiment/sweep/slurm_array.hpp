// Slurm job arrays: which shard of a sweep a task of an array job runs, read from the variables
// Slurm sets in every task (https://slurm.schedmd.com/job_array.html: SLURM_ARRAY_TASK_ID, _MIN,
// _MAX, _COUNT, _STEP), so that `collsim run --shard slurm` needs no K/N in the job script and a
// requeued task finds the same shard again.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace collsim {

// Looks up an environment variable: its value, or nullopt when it is not set. Tests give their
// own; process_environment() reads this process's.
using Environment = std::function<std::optional<std::string>(const std::string& name)>;
Environment process_environment();

struct ArrayShard {
  int shard = 1, shards = 1;  // 1 <= shard <= shards
};

// The shard of this task: the task's place among the array's SLURM_ARRAY_TASK_COUNT tasks, which
// run from SLURM_ARRAY_TASK_MIN to _MAX evenly spaced (ids need not start at 0 or 1; a step
// other than 1, as --array=0-10:2 gives, is inferred from the count and checked against _STEP
// when Slurm sets it). nullopt when SLURM_ARRAY_TASK_ID is not set (not in an array job).
// Throws InputError "--shard slurm: ..." naming the variable when one is missing or not a whole
// number, when the id is outside MIN..MAX, or when the tasks are not evenly spaced (an index list
// such as --array=1,2,5, whose shards the variables cannot tell).
std::optional<ArrayShard> slurm_array_shard(const Environment& env);

}  // namespace collsim
