#include "experiment/sweep/coarray_runner.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "engines/run_memory.hpp"
#include "engines/sim/protocol.hpp"
#include "experiment/results/measurement.hpp"
#include "experiment/results/result_files.hpp"
#include "experiment/scenario/named_files.hpp"
#include "experiment/scenario/plan_keys.hpp"
#include "support/units.hpp"

namespace collsim {

namespace fs = std::filesystem;

namespace {

std::string beside_self(const std::string& name) {
  std::error_code ec;
  const auto self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? name : (self.parent_path() / name).string();
}

std::string data_of(const CoarrayPoint& p, const RunResult& r) {
  return !p.real_bytes ? "unchecked" : r.data_error.empty() ? "ok" : r.data_error;
}

}  // namespace

std::vector<std::string> coarray_point_arguments(const CoarrayPoint& p, bool runtime_options) {
  std::vector<std::string> a{p.get ? "--get" : "--put",
                             "--local",
                             p.local.str(),
                             "--local-shape",
                             p.local.shape().str(),
                             "--remote",
                             p.remote.str(),
                             "--remote-shape",
                             p.remote.shape().str(),
                             "--elem",
                             std::to_string(p.local.shape().element_bytes)};
  a.push_back("--statements");
  a.push_back(std::to_string(p.statements));
  if (p.sync != coarray::SyncKind::memory) {  // the default, left out as command lines before --sync had it
    a.push_back("--sync");
    a.push_back(coarray::to_string(p.sync));
  }
  if (p.pattern != coarray::Pattern::one) {  // likewise
    a.push_back("--pattern");
    a.push_back(coarray::to_string(p.pattern));
  }
  if (runtime_options && !p.get && coarray::is_nonblocking(p.mode)) {
    a.push_back("--nonblocking");
    a.push_back(coarray::to_string(p.mode));
  }
  if (runtime_options && p.options.scheme == coarray::Method::datatype) {
    a.push_back("--scheme");  // no buffer, nothing registered, no packing (cli/coarray_options.cpp)
    a.push_back("datatype");
  } else if (runtime_options) {
    a.push_back("--buffer");
    a.push_back(std::to_string(p.options.buffer_bytes));
    if (p.options.registered) a.push_back("--registered");
    // Only what differs from the defaults, as the older programs took the points without them.
    if (p.options.registered && p.options.registration != coarray::RegisterWhen::once) {
      a.push_back("--registration");
      a.push_back(coarray::to_string(p.options.registration));
    }
    if (p.options.registered && p.options.heap_bytes != coarray::kDefaultHeapBytes) {
      a.push_back("--heap");
      a.push_back(std::to_string(p.options.heap_bytes));
    }
    if (p.options.packing == coarray::Packing::omni) {
      a.push_back("--packing");
      a.push_back("omni");
    }
    if (p.get) {
      a.push_back("--get-behaviour");
      a.push_back(p.options.get == coarray::GetBehaviour::omni ? "omni" : "table1");
    }
  }
  if (p.pattern == coarray::Pattern::one)  // the others name their own images
    for (auto [name, rank] : {std::pair{"--origin", p.origin}, std::pair{"--target", p.target}}) {
      a.push_back(name);
      a.push_back(std::to_string(rank + 1));
    }
  return a;
}

std::string coarray_engine_program(const CoarrayScenario& sc, Engine engine) {
  if (engine == Engine::mpi) return mpi_program(sc.mpi);
  return sc.caf_program.empty() ? beside_self("collsim-caf") : sc.caf_program;
}

std::vector<std::string> coarray_mpi_command(const CoarrayScenario& sc, Engine engine, const CoarrayPoint& p) {
  std::vector<std::string> argv = launcher_command(sc.mpi);
  argv.push_back("-np");
  argv.push_back(std::to_string(p.images));
  argv.push_back(coarray_engine_program(sc, engine));
  if (engine == Engine::mpi) argv.push_back("coarray");
  // OpenCoarrays has none of Omni's runtime options: caf-native runs the statement as written.
  for (auto& a : coarray_point_arguments(p, engine == Engine::mpi)) argv.push_back(std::move(a));
  const std::vector<std::string> runs = {
      "--min-runs",  std::to_string(sc.mpi.min_runs), "--max-runs", std::to_string(sc.mpi.max_runs),
      "--ci-target", format_real(sc.mpi.ci_target),   "--csv"};
  argv.insert(argv.end(), runs.begin(), runs.end());
  return argv;
}

std::string coarray_engine_unavailable(const CoarrayScenario& sc, Engine engine) {
  if (!is_measured(engine)) return "";
  const std::string program = coarray_engine_program(sc, engine);
  if (program.find('/') != std::string::npos && !fs::exists(program)) return program + " is not built";
  // Asked for help, without mpirun: a program from before the coarray-mpi branch has no
  // `coarray` command (collsim-mpi) or does not take the shared point options (collsim-caf).
  const Captured c =
      engine == Engine::mpi ? run_captured({program, "coarray", "--help"}, 30) : run_captured({program, "--help"}, 30);
  if (c.status == 127) return "cannot start " + program;
  if (engine == Engine::mpi && c.status != 0)
    return program + " has no `coarray` command (from the coarray-mpi branch)";
  if (engine == Engine::caf_native && (c.status != 0 || c.out.find("--remote-shape") == std::string::npos))
    return program + " does not take the coarray point options (--local, --remote-shape, ...)";
  return "";
}

namespace {

CoarrayRow run_coarray_mpi_launch(const CoarrayScenario& sc, Engine engine, const CoarrayPoint& p) {
  const std::vector<std::string> argv = coarray_mpi_command(sc, engine, p);
  const Captured c = run_captured(argv, sc.mpi.timeout_s);
  const std::string what = std::string(engine_name(engine)) + " " + p.describe();
  if (c.timed_out)
    throw EngineError(what + ": timed out: no answer from " + argv[0] + " after " + format_real(sc.mpi.timeout_s) +
                      " s (mpi.timeout)");
  if (c.status == 2) throw InputError(what + ": " + first_message(c.err));
  if (c.status == 127) throw InputError(what + ": cannot start " + argv[0]);
  std::vector<CoarrayRow> rows;
  try {
    rows = parse_coarray_csv(c.out);
  } catch (const std::exception& e) {
    throw EngineError(what + ": unreadable output: " + e.what());
  }
  if (rows.empty() || (c.status != 0 && c.status != 1))
    throw EngineError(what + " failed (exit status " + std::to_string(c.status) +
                      "): " + first_message(c.err.empty() ? c.out : c.err));
  // The point is ours (the same one, rebuilt from the row's columns); the engine's name is the
  // scenario's, whatever the program calls itself.
  CoarrayRow row = rows.front();
  row.engine = engine_name(engine);
  row.point = p;
  if (sc.mpi.time_is_min) row.time_s = row.min_s;  // mpi.statistic: min, as for collectives
  return row;
}

}  // namespace

CoarrayRow run_coarray_mpi_point(const CoarrayScenario& sc, Engine engine, const CoarrayPoint& p) {
  std::vector<CoarrayRow> rows;
  for (int i = 0; i < std::max(1, sc.mpi.launches); ++i) rows.push_back(run_coarray_mpi_launch(sc, engine, p));
  return pick_launch(std::move(rows), sc.mpi.time_is_min, [](const CoarrayRow& r) { return r.time_s; });
}

namespace {

// A coarray scenario's units: one per point, except that caf-native points that differ only in
// Omni's runtime options (B, DMA, non-blocking) are one OpenCoarrays statement, measured once and
// reported for each: one unit. mpi and caf-native units time real hardware (exclusive).
std::vector<SweepUnit> coarray_units(const CoarrayScenario& sc, const std::vector<CoarrayPlanPoint>& plan) {
  std::vector<SweepUnit> units;
  std::map<std::vector<std::string>, std::size_t> caf_unit;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const Engine engine = plan[i].engine;
    if (engine == Engine::caf_native) {
      const auto [it, fresh] = caf_unit.emplace(coarray_mpi_command(sc, engine, plan[i].point), units.size());
      if (!fresh) {
        units[it->second].points.push_back(i);
        continue;
      }
    }
    units.push_back({{i}, is_measured(engine)});
  }
  return units;
}

CoarrayRow simulated_row(Engine engine, const CoarrayPoint& p, const RunResult& r) {
  CoarrayRow row;
  row.engine = engine_name(engine);
  row.point = p;
  row.time_s = row.min_s = r.time_s;
  row.data = data_of(p, r);
  return row;
}

// Runs one unit: each sim point in its own simulation, so its time does not depend on the points
// that would have run before it in a shared one.
void run_coarray_unit(const CoarrayScenario& sc, const std::vector<CoarrayPlanPoint>& plan, const SweepUnit& unit,
                      const std::function<void(std::size_t, const CoarrayRow&)>& on_row) {
  const Engine engine = plan[unit.points.front()].engine;
  if (engine == Engine::caf_native) {
    CoarrayRow measured = run_coarray_mpi_point(sc, engine, plan[unit.points.front()].point);
    for (std::size_t i : unit.points) {
      measured.point = plan[i].point;
      on_row(i, measured);
    }
    return;
  }
  for (std::size_t i : unit.points) {
    const CoarrayPlanPoint& at = plan[i];
    // The program must outlive the run (RunSpec::program does not own it).
    const CoarrayProgram program(at.point);
    if (engine == Engine::sim) {
      const RunSpec spec = coarray_spec(program);
      run_sim(sc.sim, std::span<const RunSpec>(&spec, 1),
              [&](std::size_t, const RunResult& r) { on_row(i, simulated_row(Engine::sim, at.point, r)); });
    } else if (engine == Engine::model) {
      on_row(i, simulated_row(Engine::model, at.point, run_model(sc.model, coarray_spec(program))));
    } else {
      on_row(i, run_coarray_mpi_point(sc, engine, at.point));
    }
  }
}

}  // namespace

void run_coarray_plan(const CoarrayScenario& sc, const std::vector<CoarrayPlanPoint>& plan,
                      const std::function<void(const CoarrayPlanPoint&, const CoarrayRow&)>& on_row,
                      const std::function<void(const std::string&, const std::string&)>& on_skip) {
  std::map<std::string, std::string> unavailable;
  for (const Engine engine : sc.engines) {
    const std::string why = coarray_engine_unavailable(sc, engine);
    if (!why.empty()) {
      unavailable[std::string(engine_name(engine))] = why;
      on_skip(std::string(engine_name(engine)), why);
    }
  }
  for (const SweepUnit& unit : coarray_units(sc, plan))
    if (!unavailable.count(std::string(engine_name(plan[unit.points.front()].engine))))
      run_coarray_unit(sc, plan, unit, [&](std::size_t i, const CoarrayRow& row) { on_row(plan[i], row); });
}

Sweep coarray_sweep(const CoarrayScenario& sc, const std::vector<CoarrayPlanPoint>& plan,
                    const std::map<std::string, std::string>& unavailable) {
  Sweep sw;
  sw.kind = "coarray";
  sw.header = coarray_results_header();
  std::vector<std::string> texts;
  texts.reserve(plan.size());
  for (const auto& at : plan) texts.push_back(coarray_point_text(sc, at));
  sw.keys = keys_of(texts);
  sw.fingerprint = coarray_fingerprint(sc, plan);
  sw.units = coarray_units(sc, plan);
  for (const SweepUnit& u : sw.units)
    sw.skipped.push_back(unavailable.count(std::string(engine_name(plan[u.points.front()].engine))) > 0);
  sw.json_head = run_json_head("coarray", sc.file, sc.name, sc.description);
  std::string skipped = "  \"engines_skipped\": {";
  for (const auto& [engine, why] : unavailable)
    skipped += (skipped.back() == '{' ? "" : ", ") + json_string(engine) + ": " + json_string(why);
  sw.json_settings = {"  \"images\": " + std::to_string(sc.images), skipped + "}"};
  sw.run_unit = [&sc, &plan](const SweepUnit& unit, const std::function<void(std::size_t, const std::string&)>& emit) {
    run_coarray_unit(sc, plan, unit,
                     [&](std::size_t i, const CoarrayRow& row) { emit(i, coarray_results_row(plan[i], row)); });
  };
  return sw;
}

std::string coarray_results_header() { return coarray_csv_header() + ",sweep"; }

std::string coarray_results_row(const CoarrayPlanPoint& at, const CoarrayRow& row) {
  return coarray_csv_row(row) + "," + csv_quoted(at.group);
}

std::string format_coarray_summary(const CoarrayScenario& sc, const std::vector<CoarrayPlanPoint>& plan,
                                   const std::vector<std::pair<CoarrayPlanPoint, CoarrayRow>>& rows) {
  std::vector<Engine> engines;
  for (const auto& [at, row] : rows)
    if (std::find(engines.begin(), engines.end(), at.engine) == engines.end()) engines.push_back(at.engine);
  std::map<std::pair<std::size_t, Engine>, const CoarrayRow*> by_point;
  for (const auto& [at, row] : rows) by_point[{at.index, at.engine}] = &row;
  std::string out;
  char line[512];
  // rule: how the runtime fills its buffer (--packing); a GET under Omni's behaviour gets each
  // piece, so its packing does not apply. reg: registered once (yes), per statement (stm), or not.
  std::snprintf(line, sizeof line, "%-14s %-14s %4s %10s %10s %9s %8s %5s %3s", "sweep", "op", "case", "NL", "NR", "B",
                "rule", "stmts", "reg");
  out += line;
  // The segment's end, once a point ends otherwise than by sync memory (tables of older studies
  // stay as they were).
  const bool syncs = std::any_of(plan.begin(), plan.end(),
                                 [](const CoarrayPlanPoint& at) { return at.point.sync != coarray::SyncKind::memory; });
  if (syncs) out += "   sync";
  // Likewise the pattern and images, once a point has a pattern other than one or more images.
  const bool many = std::any_of(plan.begin(), plan.end(), [](const CoarrayPlanPoint& at) {
    return at.point.pattern != coarray::Pattern::one || at.point.images != 2;
  });
  if (many) out += "    pattern  N";
  for (const auto& e : engines) {
    std::snprintf(line, sizeof line, " %12s", std::string(engine_name(e)).c_str());
    out += line;
  }
  out += "\n";
  std::set<std::size_t> seen;
  bool wide = false;  // a measured time stopped at max_runs with its CI above the target
  for (const auto& at : plan) {
    if (!seen.insert(at.index).second) continue;
    const CoarrayPoint& p = at.point;
    const coarray::Scheme s = p.scheme();
    const char* rule = p.get && p.options.get == coarray::GetBehaviour::omni ? "omni-get"
                       : p.options.packing == coarray::Packing::omni         ? "omni"
                                                                             : "table1";
    std::snprintf(line, sizeof line, "%-14s %-14s %4d %10zu %10zu %9zu %8s %5zu %3s", at.group.c_str(), p.op().c_str(),
                  s.table_case, s.nl, s.nr, p.options.buffer_bytes, rule, p.statements,
                  !p.options.registered                                            ? "no"
                  : p.options.registration == coarray::RegisterWhen::per_statement ? "stm"
                                                                                   : "yes");
    out += line;
    if (syncs) {
      std::snprintf(line, sizeof line, " %6s", coarray::to_string(p.sync));
      out += line;
    }
    if (many) {
      std::snprintf(line, sizeof line, " %10s %2d", coarray::to_string(p.pattern), p.images);
      out += line;
    }
    for (const auto& e : engines) {
      auto it = by_point.find({at.index, e});
      std::string cell = it == by_point.end() ? "-" : format_seconds(it->second->time_s);
      if (it != by_point.end() && it->second->data != "ok" && it->second->data != "unchecked") cell += " BAD";
      if (it != by_point.end() && it->second->ci_met == false) {
        cell += " *";
        wide = true;
      }
      std::snprintf(line, sizeof line, " %12s", cell.c_str());
      out += line;
    }
    out += "\n";
  }
  if (wide) out += kCiMissedNote;
  (void)sc;
  return out;
}

int run_coarray_scenario(const std::string& path, const std::string& out_dir, const std::string& protocol, bool quiet,
                         std::ostream& out, std::ostream& err, const SweepOptions& options) {
  CoarrayScenario sc = load_coarray_scenario(path);
  if (!protocol.empty()) {
    if (!is_protocol_name(protocol))
      throw InputError("--protocol: '" + protocol + "' is not a protocol (" + protocol_names() + ")");
    sc.sim.protocol = protocol;
  }
  const auto plan = expand_coarray_plan(sc);
  // The largest program the simulated engines would run (its arrays and windows): refused first.
  for (const CoarrayPlanPoint& p : plan) {
    if (!records_traces(p.engine)) continue;  // the engines that hold every image here (model, sim)
    const CoarrayProgram program(p.point);
    const RunSpec spec = coarray_spec(program);
    check_memory(
        estimate_run_memory(p.engine, spec),
        path + ": the point " + program.describe(p.point.images) + " on engine " + std::string(engine_name(p.engine)),
        p.engine, options.jobs > 0 ? options.jobs : usable_cores(), "coarray.payload: virtual");
  }
  const std::string dir = !out_dir.empty() ? out_dir : !sc.out_dir.empty() ? sc.out_dir : "results/" + sc.name;
  const std::string csv_path = (fs::path(dir) / "results.csv").string(),
                    json_path = (fs::path(dir) / "run.json").string();
  std::string announce = quiet ? ""
                               : "collsim: " + sc.name + ": " + std::to_string(plan.size()) + " coarray points on " +
                                     std::to_string(sc.engines.size()) + " engine(s), writing " + csv_path + "\n";
  std::map<std::string, std::string> unavailable;
  for (const Engine engine : sc.engines) {
    const std::string why = coarray_engine_unavailable(sc, engine);
    if (why.empty()) continue;
    const std::string name(engine_name(engine));
    unavailable[name] = why;
    announce += "collsim: " + name + ": skipped: " + why + "\n";
  }
  const Sweep sweep = coarray_sweep(sc, plan, unavailable);
  // The folder's rows (in plan order) with the plan points they belong to, for the summary.
  auto rows_of = [&](const std::vector<std::string>& lines) {
    std::map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < sweep.keys.size(); ++i) index[sweep.keys[i]] = i;
    std::string text = sweep.header + ",key\n";
    for (const auto& l : lines) text += l + "\n";
    const std::vector<CoarrayRow> parsed = parse_coarray_csv(text);
    std::vector<std::pair<CoarrayPlanPoint, CoarrayRow>> rows;
    for (std::size_t k = 0; k < parsed.size(); ++k)
      rows.emplace_back(plan[index.at(lines[k].substr(lines[k].rfind(',') + 1))], parsed[k]);
    return rows;
  };
  auto wrong = [](const std::vector<std::pair<CoarrayPlanPoint, CoarrayRow>>& rows) {
    return std::any_of(rows.begin(), rows.end(),
                       [](const auto& r) { return r.second.data != "ok" && r.second.data != "unchecked"; });
  };
  SweepOptions o = options;
  o.progress = o.progress && !quiet;
  const std::vector<std::string> lines = run_sweep(
      sweep, dir, o,
      [&](const std::vector<std::string>& l) { return wrong(rows_of(l)) ? "complete, with wrong bytes" : "complete"; },
      announce, err,
      [&] {
        // What was measured is still shown (the folder's rows, written in plan order).
        std::istringstream in(read_input_file(csv_path, "results file"));
        std::vector<std::string> kept;
        std::string line;
        std::getline(in, line);
        while (std::getline(in, line))
          if (!line.empty()) kept.push_back(line);
        out << format_coarray_summary(sc, plan, rows_of(kept));
      });
  const auto rows = rows_of(lines);
  out << (sc.description.empty() ? sc.name : sc.name + ": " + sc.description) << "\n\n"
      << format_coarray_summary(sc, plan, rows) << "\nresults: " << csv_path << ", " << json_path << "\n";
  return wrong(rows) ? 1 : 0;
}

}  // namespace collsim
