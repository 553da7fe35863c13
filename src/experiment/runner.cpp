#include "experiment/runner.hpp"

#include <algorithm>
#include <map>

#include "engines/formula/formula_engine.hpp"
#include "experiment/calibration.hpp"
#include "experiment/mpi_launcher.hpp"
#include "experiment/parameters.hpp"

namespace collsim {

Measurement to_measurement(const std::string& engine, const RunSpec& spec, const RunResult& result) {
  std::string data = !spec.real_bytes ? "unchecked" : result.data_error.empty() ? "ok" : result.data_error;
  Measurement m = simulated_measurement(engine, std::string(spec.algorithm->name), spec.procs, spec.bytes,
                                        spec.algorithm->takes(Knob::segment) ? spec.params.segment : 0,
                                        spec.params.root, result.time_s, std::move(data));
  m.protocol = result.protocol;
  return m;
}

void run_plan(const Scenario& scenario, const std::vector<PlanPoint>& plan,
              const std::function<void(const Measurement&)>& on_row) {
  std::map<std::string, FormulaConfig> formulas;  // by engine name, set up at their first point
  auto formula = [&](const std::string& engine) -> const FormulaConfig& {
    auto it = formulas.find(engine);
    if (it != formulas.end()) return it->second;
    const auto kind = engine == "formula-textbook" ? FormulaConfig::Kind::textbook : FormulaConfig::Kind::derived;
    FormulaConfig f;
    if (!scenario.params_file.empty()) {
      f = formula_config(read_parameters(scenario.params_file), kind);
    } else {
      int procs = 2;
      for (const PlanPoint& p : plan) procs = std::max(procs, p.spec.procs);
      f = formula_for_model(scenario.model, kind, procs, 8192);
    }
    return formulas.emplace(engine, std::move(f)).first->second;
  };
  std::vector<RunSpec> sim_specs;
  auto flush_sim = [&] {
    if (sim_specs.empty()) return;
    run_sim(scenario.sim, sim_specs,
            [&](std::size_t i, const RunResult& r) { on_row(to_measurement("sim", sim_specs[i], r)); });
    sim_specs.clear();
  };
  for (const PlanPoint& point : plan) {
    if (point.engine == "sim") {
      sim_specs.push_back(point.spec);
      continue;
    }
    flush_sim();  // keep the rows in plan order
    if (point.engine == "model") {
      on_row(to_measurement("model", point.spec, run_model(scenario.model, point.spec)));
    } else if (point.engine.rfind("formula-", 0) == 0) {
      RunSpec spec = point.spec;
      spec.real_bytes = false;  // a formula moves no bytes
      on_row(to_measurement(point.engine, spec, run_formula(formula(point.engine), spec)));
    } else {
      on_row(run_mpi_point(scenario.mpi, point.engine, point.spec));
    }
  }
  flush_sim();
}

}  // namespace collsim
