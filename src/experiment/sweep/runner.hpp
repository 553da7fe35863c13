// Runs a plan of measurements on every engine (model and formula in this process, sim in forked
// simulation processes, the mpi engines under mpirun) and hands each result over as soon as it
// exists, so writers can save it before the next one starts; and describes a scenario's plan as a
// Sweep (sweep.hpp), which `collsim run` runs in parallel, in shards or resumed.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "engines/formula/formula_engine.hpp"
#include "experiment/results/measurement.hpp"
#include "experiment/scenario/scenario.hpp"
#include "experiment/sweep/sweep.hpp"

namespace collsim {

// Refuses (InputError, one line naming `scenario_file` and the point) a plan whose largest point,
// or `jobs` largest points run at once, would not fit in memory (engines/run_memory.hpp): checked
// before the first point runs. The mpi engines' processes are mpirun's, not counted here.
void check_plan_memory(const std::vector<PlanPoint>& plan, int jobs, const std::string& scenario_file);

// Runs points of one plan with each point's own engine settings (PlanPoint::sim, model).
class PlanRunner {
 public:
  PlanRunner(const Scenario& scenario, const std::vector<PlanPoint>& plan) : scenario_(scenario), plan_(plan) {}
  // Runs the points `indices` (plan indices, in order) and calls on_row(index, row) for each, in
  // that order. Consecutive sim points with equal SimConfig run in one simulation. Throws
  // EngineError / InputError from the engines; rows delivered before the error stay delivered.
  void run(std::span<const std::size_t> indices, const std::function<void(std::size_t, const Measurement&)>& on_row);
  // With the scenario's `trace`: writes each model and sim point's events to DIR/KEY.EXT (the
  // point's key from `keys`, one per plan point), before its row is handed over.
  void trace_into(std::string dir, std::vector<std::string> keys) {
    trace_dir_ = std::move(dir);
    trace_keys_ = std::move(keys);
  }

 private:
  // Where point `index`'s trace file goes: TRACE_DIR/KEY.EXT.
  std::string trace_path(std::size_t index) const;
  void write_point_trace(std::size_t index, Engine engine, const RunSpec& spec, std::vector<TraceEvent> events) const;

  const FormulaConfig& formula(const PlanPoint& point);

  const Scenario& scenario_;
  const std::vector<PlanPoint>& plan_;
  std::map<std::string, FormulaConfig> formulas_;  // by engine and model, set up at their first point
  std::string trace_dir_;                          // empty: no traces
  std::vector<std::string> trace_keys_;
};

// Runs every point and calls on_row for each, in plan order (PlanRunner::run on the whole plan).
void run_plan(const Scenario& scenario, const std::vector<PlanPoint>& plan,
              const std::function<void(const Measurement&)>& on_row);

// The row for one engine result. Throws EngineError for a time that is negative or not finite
// (is_time): a fault of the engine, which no row may carry.
Measurement to_measurement(Engine engine, const RunSpec& spec, const RunResult& result);

// The scenario's plan as a sweep: one unit per point (each sim point in its own simulation, so its
// row does not depend on which points ran before it in the same simulation), the mpi engines'
// points exclusive. results.csv's columns: csv_header(), then the axes of the plan's points (in
// order of first appearance), then key. The sweep refers to `scenario` and `plan`, which must
// outlive it. With the scenario's `trace`, each point's trace goes to RESULTS_DIR/traces/KEY.EXT.
Sweep collective_sweep(const Scenario& scenario, const std::vector<PlanPoint>& plan,
                       const std::string& results_dir = "");

}  // namespace collsim
