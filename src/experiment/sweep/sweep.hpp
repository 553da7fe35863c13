// Sweeps: running a plan of keyed points into a results folder, in parallel worker processes,
// in shards, resumed after an interruption, and merged from shards; shared by collective and
// coarray scenarios, which describe their plan as a Sweep.
//
// What makes a row independent of how the sweep ran (--jobs, --shard, --resume): a point's row is
// computed by its unit alone (a unit is a fixed group of points that run together, decided from the
// plan only: one point, or the points that share one measurement), every row carries its point's
// key, and results.csv is rewritten in plan order when the run ends. The folder's format and the
// rules are in scenarios/README.md ("Large sweeps").
#pragma once

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "experiment/sweep/slurm_array.hpp"

namespace collsim {

struct SweepUnit {
  std::vector<std::size_t> points;  // plan indices, ascending
  bool exclusive = false;           // times real hardware: runs while nothing else runs
};

struct Sweep {
  std::string kind;               // run.json's "kind": "collective" or "coarray"
  std::string header;             // results.csv's columns before "key"
  std::vector<std::string> keys;  // one per plan point, plan order, all distinct (plan_keys.hpp)
  std::string fingerprint;        // plan_keys.hpp: runs share rows only when these are equal
  std::vector<SweepUnit> units;   // every point in exactly one unit, units in plan order
  std::vector<bool> skipped;      // per unit: not run here (its engine is unavailable); may be empty
  // run.json: the members that open it ("tool", "scenario", ...) and those that describe the
  // scenario's settings, each `  "name": value` without the separating comma.
  std::vector<std::string> json_head, json_settings;
  // Runs one unit (in a worker process) and hands over each of its rows: the plan index and the
  // row's text under `header`, without the key and the newline. Throws like the engines.
  std::function<void(const SweepUnit&, const std::function<void(std::size_t, const std::string&)>&)> run_unit;
};

struct SweepOptions {
  int jobs = 0;               // worker processes; 0: the cores this process may use
  int shard = 1, shards = 1;  // run the units u with u % shards == shard - 1
  bool resume = false;        // keep the folder's rows and run only the missing points
  bool force = false;         // replace an unfinished run's folder
  bool progress = true;       // a progress line on stderr, when it is a terminal
};

// The cores this process may run on (sched_getaffinity), at least 1.
int usable_cores();
// The most shards a sweep is split into.
inline constexpr long long kMaxShards = 1000000;
// --shard's value: "K/N" -> shard K of N (1 <= K <= N); "slurm" -> this task's shard of its Slurm
// job array (slurm_array.hpp; InputError outside an array job); "auto" -> the same inside an
// array job, else the whole plan (1/1). Throws InputError "--shard ..." otherwise.
void parse_shard(const std::string& text, SweepOptions& options, const Environment& env = process_environment());

// Runs the sweep's units of this shard whose points are not all in the folder yet, with
// options.jobs worker processes; each row is appended to DIR/results.csv and flushed as it
// arrives, and when the run ends (completely or not) the file is rewritten in plan order and
// DIR/run.json gets `status(rows)` (or "failed: <reason>"). Returns the folder's rows (key column
// included) in plan order. Throws InputError for a folder that cannot be used (an unfinished run
// without --resume or --force, another scenario's results with --resume) and whatever the units
// threw (InputError, EngineError, std::runtime_error), after saving what finished and calling
// `on_failure` (where a command shows what was measured; a refused folder has nothing to show and
// does not call it). `announce` (lines, each ending in a newline) goes to err once the folder is
// known to be usable, so that a refusal is the only line.
std::vector<std::string> run_sweep(const Sweep& sweep, const std::string& dir, const SweepOptions& options,
                                   const std::function<std::string(const std::vector<std::string>& rows)>& status,
                                   const std::string& announce, std::ostream& err,
                                   const std::function<void()>& on_failure);

// collsim merge: joins the results folders `parts` of one scenario (equal fingerprints) into
// `out`: rows by key in plan order; the same key with another row is an error, unless `fastest`
// (the parts are one scenario measured at different times: the row with the smallest time_s is
// kept), and so are points of the plan that no part has, unless `partial`. Returns a one-line
// summary; throws InputError.
std::string merge_results(const std::string& out, const std::vector<std::string>& parts, bool partial,
                          bool fastest = false);

}  // namespace collsim
