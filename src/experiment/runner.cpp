#include "experiment/runner.hpp"

#include <algorithm>
#include <deque>
#include <filesystem>
#include <memory>
#include <numeric>
#include <optional>
#include <vector>

#include "experiment/calibration.hpp"
#include "experiment/critical_path.hpp"
#include "experiment/mpi_launcher.hpp"
#include "experiment/parameters.hpp"
#include "experiment/plan_keys.hpp"
#include "experiment/result_files.hpp"

namespace collsim {
namespace {

// The events of one point, for its critical path and its trace file, given up past a bound: a
// point of millions of ranks or thousands of segments would otherwise hold gigabytes of events
// (at ~56 bytes each).
class BoundedTrace final : public TraceSink {
 public:
  static constexpr std::size_t kMaxEvents = std::size_t{4} << 20;
  void record(const TraceEvent& e) override {
    if (overflow_) return;
    if (events_.size() == kMaxEvents) {
      overflow_ = true;
      events_ = {};
      return;
    }
    events_.push_back(e);
  }
  // The shares, when the whole trace was kept and holds a path; else nullopt (empty cells).
  std::optional<PathShares> shares() const {
    if (overflow_ || events_.empty()) return std::nullopt;
    const CriticalPath path = critical_path(events_);
    if (path.steps.empty()) return std::nullopt;
    return path.shares;
  }
  bool overflowed() const { return overflow_; }
  std::vector<TraceEvent> take() { return std::move(events_); }

 private:
  std::vector<TraceEvent> events_;
  bool overflow_ = false;
};

}  // namespace

Measurement to_measurement(const std::string& engine, const RunSpec& spec, const RunResult& result) {
  std::string data = !spec.real_bytes ? "unchecked" : result.data_error.empty() ? "ok" : result.data_error;
  Measurement m = simulated_measurement(engine, spec, result.time_s, std::move(data));
  m.protocol = result.protocol;
  return m;
}

const FormulaConfig& PlanRunner::formula(const PlanPoint& point) {
  // Per engine and model: a sweep may give its points other models, hence other costs.
  const std::string id = point.engine + "|" + model_settings_text(point.model);
  auto it = formulas_.find(id);
  if (it != formulas_.end()) return it->second;
  const auto kind = point.engine == "formula-textbook" ? FormulaConfig::Kind::textbook : FormulaConfig::Kind::derived;
  FormulaConfig f;
  if (!scenario_.params_file.empty()) {
    f = formula_config(read_parameters(scenario_.params_file), kind);
  } else {
    // gamma(p) up to the largest P of the whole plan, whichever points run here; the algorithms of
    // this engine and model in the whole plan.
    int procs = 2;
    std::vector<const AlgorithmInfo*> algorithms;
    for (const PlanPoint& p : plan_) {
      procs = std::max(procs, p.spec.procs);
      if (p.engine == point.engine && model_settings_text(p.model) == model_settings_text(point.model) &&
          std::find(algorithms.begin(), algorithms.end(), p.spec.algorithm) == algorithms.end())
        algorithms.push_back(p.spec.algorithm);
    }
    f = formula_for_model(point.model, kind, procs, 8192, algorithms);
  }
  return formulas_.emplace(id, std::move(f)).first->second;
}

void PlanRunner::write_point_trace(std::size_t index, const std::string& engine, const RunSpec& spec,
                                   std::vector<TraceEvent> events) const {
  if (events.empty())
    throw EngineError("trace: the " + engine + " engine recorded no events for point " + trace_keys_[index] +
                      " (it does not trace in this build)");
  std::error_code ignored;  // several workers may create the folder at once
  std::filesystem::create_directories(trace_dir_, ignored);
  const std::string path = (std::filesystem::path(trace_dir_) / (trace_keys_[index] + "." + scenario_.trace)).string();
  write_trace(path, {{engine, describe(spec), spec.procs, std::move(events)}}, scenario_.trace_limit);
}

void PlanRunner::run(std::span<const std::size_t> indices,
                     const std::function<void(std::size_t, const Measurement&)>& on_row) {
  const bool traced = !trace_dir_.empty();
  const bool recorded = traced || scenario_.critical_path;  // model and sim points keep their events
  std::vector<std::size_t> sim_points;
  std::vector<RunSpec> sim_specs;
  std::deque<BoundedTrace> sim_traces;  // one per sim spec when recorded, at stable addresses
  // A point's row, with its critical path, and its trace file.
  auto finish = [&](std::size_t index, const std::string& engine, const RunSpec& spec, const RunResult& r,
                    BoundedTrace* trace) {
    Measurement m = to_measurement(engine, spec, r);
    if (trace && scenario_.critical_path) m.critical_path = trace->shares();
    if (trace && traced) {
      if (trace->overflowed())
        throw EngineError("trace: point " + trace_keys_[index] + " recorded more than " +
                          std::to_string(BoundedTrace::kMaxEvents) + " events, too many to keep");
      write_point_trace(index, engine, spec, trace->take());
    }
    on_row(index, m);
  };
  auto flush_sim = [&] {
    if (sim_specs.empty()) return;
    run_sim(plan_[sim_points.front()].sim, sim_specs, [&](std::size_t i, const RunResult& r) {
      finish(sim_points[i], "sim", sim_specs[i], r, recorded ? &sim_traces[i] : nullptr);
    });
    sim_points.clear();
    sim_specs.clear();
    sim_traces.clear();
  };
  for (std::size_t index : indices) {
    const PlanPoint& point = plan_[index];
    if (point.engine == "sim") {
      if (!sim_points.empty() && !(plan_[sim_points.front()].sim == point.sim)) flush_sim();
      sim_points.push_back(index);
      sim_specs.push_back(point.spec);
      if (recorded) sim_specs.back().trace = &sim_traces.emplace_back();
      continue;
    }
    flush_sim();  // keep the rows in order
    if (point.engine == "model") {
      BoundedTrace trace;
      RunSpec spec = point.spec;
      if (recorded) spec.trace = &trace;
      finish(index, "model", spec, run_model(point.model, spec), recorded ? &trace : nullptr);
    } else if (point.engine.rfind("formula-", 0) == 0) {
      RunSpec spec = point.spec;
      spec.real_bytes = false;  // a formula moves no bytes
      on_row(index, to_measurement(point.engine, spec, run_formula(formula(point), spec)));
    } else {
      on_row(index, run_mpi_point(scenario_.mpi, point.engine, point.spec));
    }
  }
  flush_sim();
}

void run_plan(const Scenario& scenario, const std::vector<PlanPoint>& plan,
              const std::function<void(const Measurement&)>& on_row) {
  std::vector<std::size_t> all(plan.size());
  std::iota(all.begin(), all.end(), std::size_t{0});
  PlanRunner(scenario, plan).run(all, [&](std::size_t, const Measurement& m) { on_row(m); });
}

Sweep collective_sweep(const Scenario& sc, const std::vector<PlanPoint>& plan, const std::string& results_dir) {
  Sweep sw;
  sw.kind = "collective";
  std::vector<std::string> axes;
  for (const PlanPoint& p : plan)
    for (const auto& [name, value] : p.axes)
      if (std::find(axes.begin(), axes.end(), name) == axes.end()) axes.push_back(name);
  sw.header = csv_header();
  for (const auto& a : axes) {
    sw.header += ',';
    sw.header += csv_quoted(a);
  }
  if (sc.critical_path) {
    sw.header += ',';
    sw.header += critical_path_header();
  }
  std::vector<std::string> texts;
  texts.reserve(plan.size());
  for (const PlanPoint& p : plan) texts.push_back(collective_point_text(p));
  sw.keys = keys_of(texts);
  sw.fingerprint = collective_fingerprint(sc, plan);
  for (std::size_t i = 0; i < plan.size(); ++i)
    sw.units.push_back({{i}, plan[i].engine == "mpi" || plan[i].engine == "mpi-native"});
  sw.json_head = run_json_head("collective", sc.file, sc.name, sc.description);
  sw.json_settings = run_json_settings(sc);
  auto runner = std::make_shared<PlanRunner>(sc, plan);
  if (!sc.trace.empty() && !results_dir.empty())
    runner->trace_into((std::filesystem::path(results_dir) / "traces").string(), sw.keys);
  sw.run_unit = [runner, &plan, axes, with_path = sc.critical_path](
                    const SweepUnit& unit, const std::function<void(std::size_t, const std::string&)>& emit) {
    runner->run(unit.points, [&](std::size_t index, const Measurement& m) {
      std::string row = csv_row(m);
      for (const auto& a : axes) {
        const auto& given = plan[index].axes;
        const auto it = std::find_if(given.begin(), given.end(), [&](const auto& x) { return x.first == a; });
        row += ',';
        if (it != given.end()) row += csv_quoted(it->second);
      }
      if (with_path) {
        row += ',';
        row += critical_path_cells(m);
      }
      emit(index, row);
    });
  };
  return sw;
}

}  // namespace collsim
