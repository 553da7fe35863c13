// Runs a plan of measurements on every engine (model in this process, sim in one simulation
// process, the mpi engines under mpirun) and hands each result over as soon as it exists, so
// writers can save it before the next one starts.
#pragma once

#include <functional>
#include <vector>

#include "experiment/measurement.hpp"
#include "experiment/scenario.hpp"

namespace collsim {

// Runs every point and calls on_row for each, in plan order. Throws EngineError / InputError from the
// engines; rows delivered before the error stay delivered.
void run_plan(const Scenario& scenario, const std::vector<PlanPoint>& plan,
              const std::function<void(const Measurement&)>& on_row);

// The row for one engine result.
Measurement to_measurement(const std::string& engine, const RunSpec& spec, const RunResult& result);

}  // namespace collsim
