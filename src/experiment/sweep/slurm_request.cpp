#include "experiment/sweep/slurm_request.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <functional>

#include "engines/run_memory.hpp"
#include "support/input_error.hpp"

namespace collsim {

using namespace slurm_costs;

double estimated_point_seconds(const PlanPoint& point) {
  const double ranks = point.spec.procs;
  switch (engine_info(point.engine).kind) {
    case EngineKind::formula: return kFormulaSecondsPerPoint;
    case EngineKind::simulated:
      return point.engine == Engine::sim ? kSimSecondsPerPoint + kSimSecondsPerRank * ranks
                                         : kModelSecondsPerPoint + kModelSecondsPerRank * ranks;
    case EngineKind::measured: break;
  }
  return kMeasuredSecondsPerPoint;
}

namespace {

// What one task (one shard) holds: its points' time and memory.
struct TaskLoad {
  double parallel_s = 0, longest_parallel_s = 0, exclusive_s = 0;
  std::vector<double> parallel_bytes;  // each simulated point's estimate
  double exclusive_bytes = 0;          // the largest real MPI run, its ranks' processes included

  double seconds(int cpus) const {
    return kTaskStartSeconds + std::max(parallel_s / cpus, longest_parallel_s) + exclusive_s;
  }
  double bytes(int cpus) {
    const std::size_t together = std::min(parallel_bytes.size(), static_cast<std::size_t>(cpus));
    std::partial_sort(parallel_bytes.begin(), parallel_bytes.begin() + static_cast<long>(together),
                      parallel_bytes.end(), std::greater<>());
    double workers = 0;
    for (std::size_t i = 0; i < together; ++i) workers += kProcessBytes + parallel_bytes[i];
    return kProcessBytes + std::max(workers, exclusive_bytes);
  }
};

}  // namespace

SlurmRequest size_slurm_request(const std::vector<PlanPoint>& plan, const std::vector<SweepUnit>& units,
                                std::optional<int> tasks, std::optional<int> cpus) {
  SlurmRequest r;
  int mpi_ranks = 0;
  double parallel_s = 0, exclusive_s = 0;
  for (const PlanPoint& p : plan) {
    if (is_measured(p.engine)) {
      mpi_ranks = std::max(mpi_ranks, p.spec.procs);
      exclusive_s += estimated_point_seconds(p);
    } else {
      parallel_s += estimated_point_seconds(p);
    }
  }
  r.cpus_per_task = cpus ? *cpus : std::max(1, mpi_ranks);
  const int most = static_cast<int>(std::min<std::size_t>(std::max<std::size_t>(units.size(), 1), kMaxTasks));
  if (tasks && *tasks > static_cast<int>(std::max<std::size_t>(units.size(), 1)))
    throw InputError("--tasks " + std::to_string(*tasks) + ": the plan runs in " + std::to_string(units.size()) +
                     " units (one per point, or per shared measurement), so at most " + std::to_string(units.size()) +
                     " tasks have work");
  const double work = parallel_s / r.cpus_per_task + exclusive_s;
  r.tasks = tasks ? *tasks : std::clamp(static_cast<int>(std::ceil(work / kTargetTaskSeconds)), 1, most);

  std::vector<TaskLoad> loads(static_cast<std::size_t>(r.tasks));
  for (std::size_t u = 0; u < units.size(); ++u) {
    TaskLoad& load = loads[u % loads.size()];
    for (const std::size_t i : units[u].points) {
      const PlanPoint& p = plan[i];
      const double s = estimated_point_seconds(p);
      const double bytes = estimate_run_memory(p.engine, p.spec).total();
      if (is_measured(p.engine)) {
        load.exclusive_s += s;
        load.exclusive_bytes = std::max(load.exclusive_bytes, bytes + p.spec.procs * kProcessBytes);
      } else {
        load.parallel_s += s;
        load.longest_parallel_s = std::max(load.longest_parallel_s, s);
        load.parallel_bytes.push_back(bytes);
      }
    }
  }
  for (TaskLoad& load : loads) {
    r.estimate_s = std::max(r.estimate_s, load.seconds(r.cpus_per_task));
    r.estimate_bytes = std::max(r.estimate_bytes, load.bytes(r.cpus_per_task));
  }
  r.time = slurm_time(kTimeMargin * r.estimate_s);
  r.memory = slurm_memory(r.estimate_bytes);
  return r;
}

SlurmRequest merge_request(std::size_t points, const std::string& partition) {
  SlurmRequest r;
  r.partition = partition;
  r.estimate_s = kMergeSeconds;
  r.estimate_bytes = kProcessBytes + kMergeBytesPerPoint * static_cast<double>(points);
  r.time = slurm_time(r.estimate_s);
  r.memory = slurm_memory(r.estimate_bytes);
  return r;
}

std::string slurm_time(double seconds) {
  const long long minutes = std::max(1LL, static_cast<long long>(std::ceil(seconds / 60 - 1e-9)));
  char out[48];
  std::snprintf(out, sizeof out, "%lld-%02lld:%02lld:00", minutes / 1440, minutes / 60 % 24, minutes % 60);
  return out;
}

std::string slurm_memory(double bytes) {
  return std::to_string(std::max(1LL, static_cast<long long>(std::ceil(bytes / (1024.0 * 1024) - 1e-9)))) + "M";
}

namespace {

// The text split at `separator` into parts of digits only, at most `most` of them.
bool digit_groups(const std::string& text, char separator, std::size_t most) {
  std::size_t groups = 1, digits = 0;
  for (const char c : text) {
    if (c == separator) {
      if (digits == 0 || ++groups > most) return false;
      digits = 0;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      ++digits;
    } else {
      return false;
    }
  }
  return digits > 0;
}

}  // namespace

bool is_slurm_time(const std::string& text) {
  if (text == "UNLIMITED" || text == "INFINITE") return true;
  const auto dash = text.find('-');
  if (dash == std::string::npos) return digit_groups(text, ':', 3);
  return digit_groups(text.substr(0, dash), ':', 1) && digit_groups(text.substr(dash + 1), ':', 3);
}

bool is_slurm_memory(const std::string& text) {
  if (text.empty()) return false;
  const std::string digits =
      std::string("KMGT").find(text.back()) != std::string::npos ? text.substr(0, text.size() - 1) : text;
  return digit_groups(digits, ':', 1);
}

}  // namespace collsim
