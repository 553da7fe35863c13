#include "experiment/coarray_runner.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <set>
#include <stdexcept>

#include "engines/sim/protocol.hpp"
#include "experiment/measurement.hpp"
#include "experiment/units.hpp"

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

std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return b;
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
  // --nonblocking N is "a segment of N non-blocking PUTs": it replaces --statements.
  const bool nonblocking = runtime_options && !p.get && p.mode == coarray::PutMode::nonblocking;
  a.push_back(nonblocking ? "--nonblocking" : "--statements");
  a.push_back(std::to_string(p.statements));
  if (runtime_options) {
    a.push_back("--buffer");
    a.push_back(std::to_string(p.options.buffer_bytes));
    if (p.options.registered) a.push_back("--registered");
    if (p.get) {
      a.push_back("--get-behaviour");
      a.push_back(p.options.get == coarray::GetBehaviour::omni ? "omni" : "table1");
    }
  }
  for (auto [name, rank] : {std::pair{"--origin", p.origin}, std::pair{"--target", p.target}}) {
    a.push_back(name);
    a.push_back(std::to_string(rank + 1));
  }
  return a;
}

std::string coarray_engine_program(const CoarrayScenario& sc, const std::string& engine) {
  if (engine == "mpi") return mpi_program(sc.mpi);
  return sc.caf_program.empty() ? beside_self("collsim-caf") : sc.caf_program;
}

std::vector<std::string> coarray_mpi_command(const CoarrayScenario& sc, const std::string& engine,
                                             const CoarrayPoint& p) {
  std::vector<std::string> argv = launcher_command(sc.mpi);
  argv.push_back("-np");
  argv.push_back(std::to_string(sc.images));
  argv.push_back(coarray_engine_program(sc, engine));
  if (engine == "mpi") argv.push_back("coarray");
  // OpenCoarrays has none of Omni's runtime options: caf-native runs the statement as written.
  for (auto& a : coarray_point_arguments(p, engine == "mpi")) argv.push_back(std::move(a));
  const std::vector<std::string> runs = {
      "--min-runs",  std::to_string(sc.mpi.min_runs), "--max-runs", std::to_string(sc.mpi.max_runs),
      "--ci-target", format_real(sc.mpi.ci_target),   "--csv"};
  argv.insert(argv.end(), runs.begin(), runs.end());
  return argv;
}

std::string coarray_engine_unavailable(const CoarrayScenario& sc, const std::string& engine) {
  if (engine == "model" || engine == "sim") return "";
  const std::string program = coarray_engine_program(sc, engine);
  if (program.find('/') != std::string::npos && !fs::exists(program)) return program + " is not built";
  // Asked for help, without mpirun: a program from before the coarray-mpi branch has no
  // `coarray` command (collsim-mpi) or does not take the shared point options (collsim-caf).
  const Captured c =
      engine == "mpi" ? run_captured({program, "coarray", "--help"}, 30) : run_captured({program, "--help"}, 30);
  if (c.status == 127) return "cannot start " + program;
  if (engine == "mpi" && c.status != 0) return program + " has no `coarray` command (from the coarray-mpi branch)";
  if (engine == "caf-native" && (c.status != 0 || c.out.find("--remote-shape") == std::string::npos))
    return program + " does not take the coarray point options (--local, --remote-shape, ...)";
  return "";
}

CoarrayRow run_coarray_mpi_point(const CoarrayScenario& sc, const std::string& engine, const CoarrayPoint& p) {
  const std::vector<std::string> argv = coarray_mpi_command(sc, engine, p);
  const Captured c = run_captured(argv, sc.mpi.timeout_s);
  const std::string what = engine + " " + p.describe();
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
  row.engine = engine;
  row.point = p;
  return row;
}

void run_coarray_plan(const CoarrayScenario& sc, const std::vector<CoarrayPlanPoint>& plan,
                      const std::function<void(const CoarrayPlanPoint&, const CoarrayRow&)>& on_row,
                      const std::function<void(const std::string&, const std::string&)>& on_skip) {
  std::map<std::string, std::string> unavailable;
  for (const auto& engine : sc.engines) {
    const std::string why = coarray_engine_unavailable(sc, engine);
    if (!why.empty()) {
      unavailable[engine] = why;
      on_skip(engine, why);
    }
  }
  std::map<std::vector<std::string>, CoarrayRow> caf_rows;
  std::size_t i = 0;
  while (i < plan.size()) {
    const std::string& engine = plan[i].engine;
    std::size_t end = i;
    while (end < plan.size() && plan[end].engine == engine) ++end;
    if (unavailable.count(engine)) {
      i = end;
      continue;
    }
    if (engine == "sim") {
      // One simulation for every point: SimGrid starts once. The programs must outlive the run
      // (RunSpec::program does not own them).
      std::vector<CoarrayProgram> programs;
      programs.reserve(end - i);
      std::vector<RunSpec> specs;
      for (std::size_t k = i; k < end; ++k) {
        programs.emplace_back(plan[k].point);
        specs.push_back(coarray_spec(programs.back(), sc.images));
      }
      run_sim(sc.sim, specs, [&](std::size_t k, const RunResult& r) {
        const CoarrayPlanPoint& at = plan[i + k];
        CoarrayRow row;
        row.engine = "sim";
        row.point = at.point;
        row.time_s = row.min_s = r.time_s;
        row.data = data_of(at.point, r);
        on_row(at, row);
      });
    } else {
      for (std::size_t k = i; k < end; ++k) {
        const CoarrayPlanPoint& at = plan[k];
        CoarrayRow row;
        if (engine == "model") {
          const CoarrayProgram program(at.point);
          const RunResult r = run_model(sc.model, coarray_spec(program, sc.images));
          row.engine = "model";
          row.point = at.point;
          row.time_s = row.min_s = r.time_s;
          row.data = data_of(at.point, r);
        } else if (engine == "caf-native") {
          // Points that differ only in Omni's runtime options (B, DMA, non-blocking) are one
          // OpenCoarrays statement: measured once, reported for each.
          const std::vector<std::string> key = coarray_mpi_command(sc, engine, at.point);
          auto it = caf_rows.find(key);
          if (it == caf_rows.end()) it = caf_rows.emplace(key, run_coarray_mpi_point(sc, engine, at.point)).first;
          row = it->second;
          row.point = at.point;
        } else {
          row = run_coarray_mpi_point(sc, engine, at.point);
        }
        on_row(at, row);
      }
    }
    i = end;
  }
}

std::string coarray_results_header() { return coarray_csv_header() + ",sweep"; }

std::string coarray_results_row(const CoarrayPlanPoint& at, const CoarrayRow& row) {
  return coarray_csv_row(row) + "," + csv_quoted(at.group);
}

std::string format_coarray_summary(const CoarrayScenario& sc, const std::vector<CoarrayPlanPoint>& plan,
                                   const std::vector<std::pair<CoarrayPlanPoint, CoarrayRow>>& rows) {
  std::vector<std::string> engines;
  for (const auto& [at, row] : rows)
    if (std::find(engines.begin(), engines.end(), at.engine) == engines.end()) engines.push_back(at.engine);
  std::map<std::pair<std::size_t, std::string>, const CoarrayRow*> by_point;
  for (const auto& [at, row] : rows) by_point[{at.index, at.engine}] = &row;
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-14s %-14s %4s %10s %10s %9s %5s %3s", "sweep", "op", "case", "NL", "NR", "B",
                "stmts", "reg");
  out += line;
  for (const auto& e : engines) {
    std::snprintf(line, sizeof line, " %12s", e.c_str());
    out += line;
  }
  out += "\n";
  std::set<std::size_t> seen;
  for (const auto& at : plan) {
    if (!seen.insert(at.index).second) continue;
    const CoarrayPoint& p = at.point;
    const coarray::Scheme s = p.scheme();
    std::snprintf(line, sizeof line, "%-14s %-14s %4d %10zu %10zu %9zu %5zu %3s", at.group.c_str(), p.op().c_str(),
                  s.table_case, s.nl, s.nr, p.options.buffer_bytes, p.statements, p.options.registered ? "yes" : "no");
    out += line;
    for (const auto& e : engines) {
      auto it = by_point.find({at.index, e});
      std::string cell = it == by_point.end() ? "-" : format_seconds(it->second->time_s);
      if (it != by_point.end() && it->second->data != "ok" && it->second->data != "unchecked") cell += " BAD";
      std::snprintf(line, sizeof line, " %12s", cell.c_str());
      out += line;
    }
    out += "\n";
  }
  (void)sc;
  return out;
}

int run_coarray_scenario(const std::string& path, const std::string& out_dir, const std::string& protocol, bool quiet,
                         std::ostream& out, std::ostream& err) {
  CoarrayScenario sc = load_coarray_scenario(path);
  if (!protocol.empty()) {
    if (!is_protocol_name(protocol))
      throw InputError("--protocol: '" + protocol + "' is not a protocol (" + protocol_names() + ")");
    sc.sim.protocol = protocol;
  }
  const auto plan = expand_coarray_plan(sc);
  const std::string dir = !out_dir.empty() ? out_dir : !sc.out_dir.empty() ? sc.out_dir : "results/" + sc.name;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error(dir + ": cannot create the output folder: " + ec.message());
  const std::string csv_path = (fs::path(dir) / "results.csv").string(),
                    json_path = (fs::path(dir) / "run.json").string();
  std::ofstream csv(csv_path, std::ios::trunc);
  if (!csv) throw std::runtime_error(csv_path + ": cannot write");
  csv << coarray_results_header() << '\n' << std::flush;
  const std::string started = utc_now();
  std::size_t written = 0, planned = plan.size();
  std::string skipped;  // JSON members "engine": "why"
  auto json_text = [](std::string t) {
    for (char& ch : t)
      if (ch == '"' || ch == '\\' || ch == '\n') ch = ' ';
    return t;
  };
  auto write_json = [&](const std::string& status) {
    std::ofstream j(json_path, std::ios::trunc);
    j << "{\n  \"tool\": \"collsim\",\n  \"kind\": \"coarray\",\n  \"scenario\": \"" << sc.file << "\",\n  \"name\": \""
      << sc.name << "\",\n  \"status\": \"" << status << "\",\n  \"started\": \"" << started << "\",\n  \"updated\": \""
      << utc_now() << "\",\n  \"rows_planned\": " << planned << ",\n  \"rows_written\": " << written
      << ",\n  \"engines_skipped\": {" << skipped << "},\n  \"results_csv\": \"results.csv\"\n}\n";
  };
  write_json("running");
  if (!quiet)
    err << "collsim: " << sc.name << ": " << plan.size() << " coarray points on " << sc.engines.size()
        << " engine(s), writing " << csv_path << "\n";
  std::vector<std::pair<CoarrayPlanPoint, CoarrayRow>> rows;
  bool wrong = false;
  try {
    run_coarray_plan(
        sc, plan,
        [&](const CoarrayPlanPoint& at, const CoarrayRow& row) {
          // Written and flushed before the next point starts: an interrupted run keeps every row.
          csv << coarray_results_row(at, row) << '\n' << std::flush;
          ++written;
          rows.emplace_back(at, row);
          wrong |= row.data != "ok" && row.data != "unchecked";
        },
        [&](const std::string& engine, const std::string& why) {
          err << "collsim: " << engine << ": skipped: " << why << "\n";
          // A skipped engine's rows are not planned any more: run.json counts what can come.
          planned -= static_cast<std::size_t>(
              std::count_if(plan.begin(), plan.end(), [&](const CoarrayPlanPoint& p) { return p.engine == engine; }));
          skipped += std::string(skipped.empty() ? "" : ", ") + "\"" + engine + "\": \"" + json_text(why) + "\"";
        });
  } catch (const std::exception& e) {
    write_json("failed: " + json_text(e.what()));
    out << format_coarray_summary(sc, plan, rows);
    throw;
  }
  write_json(wrong ? "complete, with wrong bytes" : "complete");
  out << (sc.description.empty() ? sc.name : sc.name + ": " + sc.description) << "\n\n"
      << format_coarray_summary(sc, plan, rows) << "\nresults: " << csv_path << ", " << json_path << "\n";
  return wrong ? 1 : 0;
}

}  // namespace collsim
