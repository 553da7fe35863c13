// What a Slurm job array that runs a scenario's plan in shards asks for: how many tasks, CPUs,
// time and memory each task needs, estimated from the plan's points (their engines and process
// counts) with costs measured by the benchmarks (tools/bench/README.md); `collsim slurm` writes
// the request into its job scripts (slurm_scripts.hpp), and the user's options override it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "experiment/scenario/scenario.hpp"
#include "experiment/sweep/sweep.hpp"

namespace collsim {

// The estimate's constants, stated in `collsim slurm --help` and the README.
namespace slurm_costs {
// A task's own start: the program, its platforms loaded, a formula engine's calibration in the
// model engine (seconds at thousands of ranks).
inline constexpr double kTaskStartSeconds = 60;
// A model point: 2^20 ranks of bcast/binomial took 1.0-2.1 s ("Scale: model engine").
inline constexpr double kModelSecondsPerPoint = 0.01, kModelSecondsPerRank = 2e-6;
// A sim point: about 80 ms set-up and run on Grisou ("Per-point set-up"); 2^16 ranks under the
// tcp protocol took 86 s, 1.3 ms a rank ("Scale: sim engine").
inline constexpr double kSimSecondsPerPoint = 0.1, kSimSecondsPerRank = 1.3e-3;
inline constexpr double kFormulaSecondsPerPoint = 0.001;
// A real MPI point, repeated until its confidence interval is tight: 415 rows took half an hour
// to hours on 4 ranks ("Fidelity"), up to 15 s a row.
inline constexpr double kMeasuredSecondsPerPoint = 15;
// Time asked for: the estimate twice over (a shared node, a slower processor), in whole minutes.
inline constexpr double kTimeMargin = 2;
// A collsim process (or an MPI rank) besides its points: a 2-rank run peaks at 36 MB ("Memory
// per rank"); each point's own memory is estimate_run_memory's.
inline constexpr double kProcessBytes = 64.0 * 1024 * 1024;
// Without --tasks, tasks of about this much work each (with their CPUs), at most one per unit
// and at most kMaxTasks (Slurm's default MaxArraySize is 1001).
inline constexpr double kTargetTaskSeconds = 3600;
inline constexpr int kMaxTasks = 1000;
// The merge job reads every part's rows and writes them again (a million rows take seconds; a
// report page, minutes): half an hour, a process and 4 KiB a point.
inline constexpr double kMergeSeconds = 1800, kMergeBytesPerPoint = 4096;
}  // namespace slurm_costs

struct SlurmRequest {
  int tasks = 1;
  int cpus_per_task = 1;      // also each task's --jobs
  std::string time;           // Slurm's D-HH:MM:SS
  std::string memory;         // Slurm's --mem: MiB with the suffix M
  std::string partition;      // empty: the cluster's default
  double estimate_s = 0;      // the longest task's estimated run time, before the margin
  double estimate_bytes = 0;  // the largest task's estimated memory
};

// The estimated run time of one point, in seconds, by its engine and process count.
double estimated_point_seconds(const PlanPoint& point);

// The request for running `units` of `plan` (Sweep::units: a shard runs units u with u % tasks
// == shard - 1) in `tasks` tasks of `cpus` CPUs, each given here or chosen: tasks from the
// total work (kTargetTaskSeconds a task, at most one per unit and kMaxTasks), CPUs the largest
// process count of the real MPI points (their ranks need cores), else 1. Time and memory are
// the largest task's: its points run on `cpus` workers (the real MPI ones alone), plus the
// task's start, with kTimeMargin; memory for the workers and the largest points they may hold
// at once, or for the largest real MPI run. Throws InputError for more tasks than units.
SlurmRequest size_slurm_request(const std::vector<PlanPoint>& plan, const std::vector<SweepUnit>& units,
                                std::optional<int> tasks, std::optional<int> cpus);

// The merge job's request: one CPU for kMergeTime, memory for the rows of `points` points.
SlurmRequest merge_request(std::size_t points, const std::string& partition);

// Seconds as Slurm's time limit, rounded up to whole minutes (at least one): "0-01:05:00".
std::string slurm_time(double seconds);
// Bytes as Slurm's --mem, rounded up to MiB: "1536M".
std::string slurm_memory(double bytes);
// Whether `text` is a time limit sbatch takes: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S (numbers of
// digits), UNLIMITED or INFINITE.
bool is_slurm_time(const std::string& text);
// Whether `text` is a --mem sbatch takes: a whole number with an optional K, M, G or T.
bool is_slurm_memory(const std::string& text);

}  // namespace collsim
