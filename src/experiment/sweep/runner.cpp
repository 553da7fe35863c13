#include "experiment/sweep/runner.hpp"

#include <algorithm>
#include <deque>
#include <filesystem>
#include <memory>
#include <numeric>
#include <optional>
#include <vector>

#include "engines/run_memory.hpp"
#include "experiment/analysis/calibration.hpp"
#include "experiment/analysis/parameters.hpp"
#include "experiment/results/result_files.hpp"
#include "experiment/scenario/plan_keys.hpp"
#include "experiment/sweep/mpi_launcher.hpp"
#include "experiment/trace/critical_path.hpp"

namespace collsim {
namespace {

// The events of one point, for its critical path and its trace file, kept up to a bound: a point
// of millions of ranks or thousands of segments would otherwise hold gigabytes of events.
constexpr std::size_t kMaxPointEvents = std::size_t{4} << 20;

// The critical path's shares, when the whole trace was kept and holds a path; else nullopt
// (empty cells).
std::optional<PathShares> shares_of(const TraceBuffer& trace) {
  if (trace.overflowed() || trace.events().empty()) return std::nullopt;
  const CriticalPath path = critical_path(trace.events());
  if (path.steps.empty()) return std::nullopt;
  return path.shares;
}

}  // namespace

void check_plan_memory(const std::vector<PlanPoint>& plan, int jobs, const std::string& scenario_file) {
  std::vector<std::pair<RunMemory, std::size_t>> needs;  // (estimate, plan index)
  for (std::size_t i = 0; i < plan.size(); ++i)
    if (records_traces(plan[i].engine))  // the engines that hold every rank here (model, sim)
      needs.push_back({estimate_run_memory(plan[i].engine, plan[i].spec), i});
  if (needs.empty()) return;
  std::sort(needs.begin(), needs.end(), [](const auto& a, const auto& b) { return a.first.total() > b.first.total(); });
  const PlanPoint& largest = plan[needs.front().second];
  const std::string what = scenario_file + ": the point " + describe(largest.spec) + " on engine " +
                           std::string(engine_name(largest.engine));
  check_memory(needs.front().first, what, largest.engine, 1, "real_bytes: false");
  // The largest points side by side, as `jobs` workers may run them: their mean, `jobs` times.
  const std::size_t together = std::min(static_cast<std::size_t>(std::max(jobs, 1)), needs.size());
  if (together < 2) return;
  RunMemory mean;
  for (std::size_t k = 0; k < together; ++k) {
    mean.payload += needs[k].first.payload / static_cast<double>(together);
    mean.engine += needs[k].first.engine / static_cast<double>(together);
  }
  check_memory(mean, what, largest.engine, static_cast<int>(together), "real_bytes: false");
}

Measurement to_measurement(Engine engine, const RunSpec& spec, const RunResult& result) {
  // Every engine's time passes here (the formula engine has refused its own with its parameters).
  const auto bad = std::find_if_not(result.osu_s.begin(), result.osu_s.end(), is_time);
  if (!is_time(result.time_s) || bad != result.osu_s.end())
    throw EngineError("the " + std::string(engine_name(engine)) + " engine timed " + describe(spec) + " at " +
                      format_real(is_time(result.time_s) ? *bad : result.time_s) + " s, which is not a time");
  std::string data = !spec.real_bytes ? "unchecked" : result.data_error.empty() ? "ok" : result.data_error;
  Measurement m = simulated_measurement(std::string(engine_name(engine)), spec, result.time_s, std::move(data));
  m.protocol = result.protocol;
  m.osu = osu_times(result.osu_s);
  m.interval = result.interval;
  return m;
}

const FormulaConfig& PlanRunner::formula(const PlanPoint& point) {
  // Per engine and model: a sweep may give its points other models, hence other costs.
  const std::string id = std::string(engine_name(point.engine)) + "|" + model_settings_text(point.model);
  auto it = formulas_.find(id);
  if (it != formulas_.end()) return it->second;
  const auto kind = formula_kind(point.engine);
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

std::string PlanRunner::trace_path(std::size_t index) const {
  return (std::filesystem::path(trace_dir_) / (trace_keys_[index] + "." + scenario_.trace)).string();
}

void PlanRunner::write_point_trace(std::size_t index, Engine engine, const RunSpec& spec,
                                   std::vector<TraceEvent> events) const {
  if (events.empty())
    throw EngineError("trace: the " + std::string(engine_name(engine)) + " engine recorded no events for point " +
                      trace_keys_[index] + " (it does not trace in this build)");
  std::error_code ignored;  // several workers may create the folder at once
  std::filesystem::create_directories(trace_dir_, ignored);
  const std::string path = trace_path(index);
  write_trace(path, {{std::string(engine_name(engine)), describe(spec), spec.procs, std::move(events)}},
              scenario_.trace_limit);
}

void PlanRunner::run(std::span<const std::size_t> indices,
                     const std::function<void(std::size_t, const Measurement&)>& on_row) {
  const bool traced = !trace_dir_.empty();
  const bool recorded = traced || scenario_.critical_path;  // model and sim points keep their events
  std::vector<std::size_t> sim_points;
  std::vector<RunSpec> sim_specs;
  std::deque<TraceBuffer> sim_traces;  // one per sim spec when recorded, at stable addresses
  // A point's row, with its critical path, and its trace file.
  auto finish = [&](std::size_t index, Engine engine, const RunSpec& spec, const RunResult& r, TraceBuffer* trace) {
    Measurement m = to_measurement(engine, spec, r);
    if (trace && scenario_.critical_path) m.critical_path = shares_of(*trace);
    if (trace && traced) {
      check_trace_kept(*trace, trace_path(index), "." + scenario_.trace, scenario_.trace_limit);
      write_point_trace(index, engine, spec, trace->take());
    }
    on_row(index, m);
  };
  auto flush_sim = [&] {
    if (sim_specs.empty()) return;
    // A sweep's points share a few platforms: each loaded once per worker.
    run_sim_reusing_platform(plan_[sim_points.front()].sim, sim_specs, [&](std::size_t i, const RunResult& r) {
      finish(sim_points[i], Engine::sim, sim_specs[i], r, recorded ? &sim_traces[i] : nullptr);
    });
    sim_points.clear();
    sim_specs.clear();
    sim_traces.clear();
  };
  // A trace file's events are held within its limit; a critical path's within a fixed bound.
  const std::size_t max_events =
      traced ? trace_event_limit("." + scenario_.trace, scenario_.trace_limit) : kMaxPointEvents;
  for (std::size_t index : indices) {
    const PlanPoint& point = plan_[index];
    if (point.engine == Engine::sim) {
      if (!sim_points.empty() && !(plan_[sim_points.front()].sim == point.sim)) flush_sim();
      sim_points.push_back(index);
      sim_specs.push_back(point.spec);
      if (recorded) sim_specs.back().trace = &sim_traces.emplace_back(max_events);
      continue;
    }
    flush_sim();  // keep the rows in order
    if (point.engine == Engine::model) {
      TraceBuffer trace(max_events);
      RunSpec spec = point.spec;
      if (recorded) spec.trace = &trace;
      finish(index, Engine::model, spec, run_model(point.model, spec), recorded ? &trace : nullptr);
    } else if (is_formula(point.engine)) {
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
  for (std::size_t i = 0; i < plan.size(); ++i) sw.units.push_back({{i}, is_measured(plan[i].engine)});
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
