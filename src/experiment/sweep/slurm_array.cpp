#include "experiment/sweep/slurm_array.hpp"

#include <cstdlib>

#include "support/input_error.hpp"
#include "support/units.hpp"

namespace collsim {

Environment process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    return value ? std::optional<std::string>(value) : std::nullopt;
  };
}

std::optional<ArrayShard> slurm_array_shard(const Environment& env) {
  if (!env("SLURM_ARRAY_TASK_ID")) return std::nullopt;
  const auto number = [&](const std::string& name, bool required) -> std::optional<long long> {
    const std::optional<std::string> text = env(name);
    if (!text) {
      if (!required) return std::nullopt;
      throw InputError("--shard slurm: SLURM_ARRAY_TASK_ID is set but " + name +
                       " is not (Slurm sets both in every task of an array job)");
    }
    const std::optional<long long> n = parse_integer(*text);
    if (!n || *n < 0) throw InputError("--shard slurm: " + name + "='" + *text + "' is not a whole number");
    return n;
  };
  const long long id = *number("SLURM_ARRAY_TASK_ID", true), min = *number("SLURM_ARRAY_TASK_MIN", true),
                  max = *number("SLURM_ARRAY_TASK_MAX", true), count = *number("SLURM_ARRAY_TASK_COUNT", true);
  const std::optional<long long> step_given = number("SLURM_ARRAY_TASK_STEP", false);
  const std::string array =
      "the array's " + std::to_string(count) + " tasks from " + std::to_string(min) + " to " + std::to_string(max);
  if (count < 1 || min > max) throw InputError("--shard slurm: " + array + " are not an array");
  if (id < min || id > max) throw InputError("--shard slurm: task " + std::to_string(id) + " is not among " + array);
  if (count == 1) {
    if (min != max) throw InputError("--shard slurm: " + array + " are not an array");
    return ArrayShard{};
  }
  // Evenly spaced: the only arrays whose tasks know their place from these variables alone.
  const long long span = max - min;
  const char* const remedy = " (give the array as a range: --array=A-B or A-B:STEP)";
  if (span % (count - 1) != 0 || span == 0)
    throw InputError("--shard slurm: " + array + " are not evenly spaced" + remedy);
  const long long step = span / (count - 1);
  // Slurm 22.05 sets _STEP to 1 for an index list (--array=1,3,5: seen in tests/slurm's cluster),
  // so only another step contradicts the count.
  if (step_given && *step_given != step && *step_given != 1)
    throw InputError("--shard slurm: SLURM_ARRAY_TASK_STEP is " + std::to_string(*step_given) + " but " + array +
                     " are " + std::to_string(step) + " apart" + remedy);
  if ((id - min) % step != 0)
    throw InputError("--shard slurm: task " + std::to_string(id) + " is not one of " + array + ", " +
                     std::to_string(step) + " apart" + remedy);
  return ArrayShard{static_cast<int>((id - min) / step + 1), static_cast<int>(count)};
}

}  // namespace collsim
