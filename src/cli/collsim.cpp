// collsim: runs collective algorithms on the simulated engines (sim: SimGrid, model: analytic,
// formula: closed forms), and dispatches calibrate, compare and select (cli/commands.hpp).
//
// Exit status: 0 success; 1 a run failed (wrong bytes, deadlock, engine failure); 2 bad input
// (options, scenario or platform files), always with one line on stderr naming the problem.
#include <algorithm>
#include <array>
#include <climits>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "cli/algorithms_table.hpp"
#include "cli/commands.hpp"
#include "cli/engine_options.hpp"
#include "cli/measure_options.hpp"
#include "cli/options.hpp"
#include "cli/plotting.hpp"
#include "cli/progress_line.hpp"
#include "engines/engine.hpp"
#include "engines/formula/formula_engine.hpp"
#include "engines/model/model_engine.hpp"
#include "engines/run_memory.hpp"
#include "engines/sim/protocol.hpp"
#include "engines/sim/sim_engine.hpp"
#include "experiment/analysis/calibration.hpp"
#include "experiment/analysis/parameters.hpp"
#include "experiment/results/summary_table.hpp"
#include "experiment/scenario/named_files.hpp"
#include "experiment/scenario/scenario.hpp"
#include "experiment/sweep/coarray_runner.hpp"
#include "experiment/sweep/runner.hpp"
#include "experiment/sweep/sweep.hpp"
#include "experiment/trace/trace_files.hpp"
#include "registry/algorithm_tree.hpp"
#include "support/units.hpp"

namespace collsim::cli {
namespace {

std::vector<OptionDef> measure_options() {
  std::vector<OptionDef> defs = {
      {"engine", "sim|model|formula",
       "engine to run on (required); formula: the closed-form prediction of each algorithm's registry entry"}};
  for (auto& d : call_options(true)) defs.push_back(d);
  defs.push_back(payload_option());
  for (auto& d : engine_options()) defs.push_back(d);
  for (auto& d : timing_options()) defs.push_back(d);
  const std::vector<OptionDef> more = {
      {"formula", "textbook|derived",
       "formula: the textbook Hockney formula or the one derived from the implementation (default derived)"},
      {"params", "FILE",
       "formula: parameters from collsim calibrate (per-algorithm alpha, beta; gamma); without it the "
       "formula takes the model options or --platform, with gamma(p) measured in the model engine"},
      {"trace", "FILE",
       "model, sim: also write the run's events to FILE: .json (Perfetto, chrome://tracing), .paje (ViTE) or "
       ".csv; about " +
           std::to_string(trace_bytes_per_event(".json")) + ", " + std::to_string(trace_bytes_per_event(".paje")) +
           " and " + std::to_string(trace_bytes_per_event(".csv")) +
           " bytes per event (about 4 events per message, 2 per operation)"},
      {"trace-limit", "SIZE",
       "refuse a trace estimated larger than SIZE (default " + format_bytes(kDefaultTraceLimit) + ")"},
  };
  defs.insert(defs.end(), more.begin(), more.end());
  return defs;
}

int measure(const ParsedOptions& o) {
  if (!o.has("engine")) throw UsageError("missing --engine (sim, model or formula)");
  // The engines `--engine` chooses from: "formula" is both formulas, --formula says which.
  static constexpr std::array<Engine, 4> kMeasured = {Engine::sim, Engine::model, Engine::formula_textbook,
                                                      Engine::formula_derived};
  const std::string engine = o.text("engine");
  if (!is_engine_choice(engine, kMeasured))
    throw UsageError("--engine: " + not_an_engine(engine, kMeasured) + " (real MPI: collsim-mpi)");
  const bool formula = chooses(engine, Engine::formula_derived);
  // The engine of the row; a formula's kind is read with its other options below.
  Engine chosen = formula ? Engine::formula_derived : *parse_engine(engine);
  RunSpec spec = read_call(o);
  spec.real_bytes = read_payload(o) && !formula;  // a formula moves no bytes
  spec.timing = read_timing(o);

  // A bad trace name fails before anything runs.
  if (o.has("trace") && formula)
    throw UsageError("--trace: the formula engine has no events to trace (use --engine model or sim)");
  if (o.has("trace-limit") && !o.has("trace")) throw UsageError("--trace-limit applies only with --trace FILE");
  if (o.has("trace")) {
    trace_extension(o.text("trace"));
    check_output_file(o.text("trace"), "trace");
  }
  const std::uint64_t trace_limit = o.bytes("trace-limit", kDefaultTraceLimit);
  TraceBuffer trace(o.has("trace") ? trace_event_limit(trace_extension(o.text("trace")), trace_limit) : 0);
  if (o.has("trace")) spec.trace = &trace;
  check_run_memory(chosen, spec);

  RunResult result;
  if (chosen != Engine::sim) {
    if (chosen == Engine::model) reject_foreign(o, engine, {"formula", "params"});
    check_model_options(o, chosen);
    if (o.has("params"))
      for (const Setting& s : engine_setting_table())
        if (s.group == SettingGroup::placement || s.group == SettingGroup::model)
          if (!s.option.empty() && o.has(std::string(s.option)))
            throw UsageError("--params gives the formula its parameters: --" + std::string(s.option) +
                             " cannot be given too");
    const ModelConfig model = read_model(o);
    if (chosen == Engine::model) {
      result = run_model(model, spec);
    } else {
      const std::string kind = o.text("formula", "derived");
      if (kind != "textbook" && kind != "derived")
        throw UsageError("--formula: '" + kind + "' is not textbook or derived");
      const auto k = kind == "textbook" ? FormulaConfig::Kind::textbook : FormulaConfig::Kind::derived;
      chosen = formula_engine(k);
      FormulaConfig f;
      if (o.has("params")) {
        f = formula_config(read_parameters(o.text("params")), k);
      } else {
        // A platform's two levels are calibrated in the model engine: seconds at thousands of ranks.
        ProgressLine progress("collsim measure: calibrating the formula in the model engine", "experiments");
        f = formula_for_model(model, k, spec.procs, spec.params.segment ? spec.params.segment : 8192, {spec.algorithm},
                              [&](std::size_t done, std::size_t all) { progress.update(done, all); });
      }
      result = run_formula(f, spec);
    }
  } else {
    check_engine_options(o, Engine::sim);
    reject_foreign(o, engine, {"formula", "params"});
    const SimConfig sim = read_sim(o);
    run_sim(sim, std::span<const RunSpec>(&spec, 1), [&](std::size_t, const RunResult& r) { result = r; });
  }
  if (o.has("trace")) {
    check_trace_kept(trace, o.text("trace"), trace_extension(o.text("trace")), trace_limit);
    if (trace.events().empty())
      throw EngineError("--trace: the " + engine + " engine recorded no events (it does not trace in this build)");
    write_trace(o.text("trace"), {{std::string(engine_name(chosen)), describe(spec), spec.procs, trace.take()}},
                trace_limit);
  }
  const Measurement m = to_measurement(chosen, spec, result);
  if (o.has("csv")) {
    std::cout << csv_header() << "\n" << csv_row(m) << "\n";
  } else {
    std::cout << describe(spec) << " on engine " << engine_name(chosen) << "\n"
              << "time  " << format_seconds(m.time_s) << "  (" << format_real(m.time_s) << " s";
    if (!result.finish_s.empty()) {
      std::size_t last = 0;
      for (std::size_t r = 0; r < result.finish_s.size(); ++r)
        if (result.finish_s[r] > result.finish_s[last]) last = r;
      std::cout << (spec.timed_on_root ? "; timed on the root" : "; last to finish: rank " + std::to_string(last));
    }
    std::cout << ")\n";
    if (m.interval)
      std::cout << "interval  " << format_seconds(m.interval->low_s) << " to " << format_seconds(m.interval->high_s)
                << "  (" << fixed(100 * models::kPredictionLevel, 0)
                << "% prediction interval, from the scatter of the fit's experiments)\n";
    if (m.osu)
      std::cout << "osu   avg " << format_seconds(m.osu->avg_s) << "  min " << format_seconds(m.osu->min_s) << "  max "
                << format_seconds(m.osu->max_s) << "  (osu_bcast's: each rank's mean of " << spec.timing.iterations
                << " calls from its own entry, after " << spec.timing.skip << " untimed)\n";
    if (!formula) std::cout << "data  " << m.data << "\n";
    if (!m.protocol.empty()) std::cout << "protocol  " << m.protocol << "\n";
  }
  return m.data == "ok" || m.data == "unchecked" ? 0 : 1;
}

// --jobs, --shard, --resume and --force of collsim run (sweep.hpp).
SweepOptions sweep_options(const ParsedOptions& o) {
  SweepOptions so;
  so.jobs = static_cast<int>(o.integer("jobs", 0, 1, 4096));
  if (o.has("shard")) parse_shard(o.text("shard"), so);
  so.resume = o.has("resume");
  so.force = o.has("force");
  if (so.resume && so.force) throw UsageError("--resume and --force exclude each other (continue, or start over)");
  so.progress = !o.has("quiet");
  return so;
}

// What collsim run shows when it ends, and collsim merge once it has joined the parts: the
// folder's rows as tables, where they are, and with `report` the results page (write_report's
// status; 0 without).
int show_results(const std::string& dir, const std::vector<Measurement>& rows, bool report) {
  std::cout << format_results_table(rows) << engine_legend(rows) << format_fastest_table(rows)
            << "\nresults: " << (std::filesystem::path(dir) / "results.csv").string() << ", "
            << (std::filesystem::path(dir) / "run.json").string() << "\n";
  std::cout.flush();
  return report ? write_report(dir, "", false) : 0;
}

// --report needs Python with matplotlib: checked before the work, which may be long, not after it.
void check_report_possible(const ParsedOptions& o) {
  if (o.has("report") && !plotting_python())
    throw UsageError("--report needs python3 with matplotlib (Debian: apt-get install python3-matplotlib)");
}

std::vector<OptionDef> run_options() {
  return {{"out", "DIR", "output folder (default: the scenario's output.dir, else results/NAME)"},
          {"protocol", "NAME",
           "sim: point-to-point protocols instead of the scenario's sim.protocol (" + protocol_names() + ")"},
          {"timing", "HOW", "instead of the scenario's timing: collective or osu (collsim settings)"},
          {"launcher", "COMMAND",
           "mpi engines: the launcher line instead of the scenario's mpi.launcher, one value split at blanks, e.g. "
           "--launcher \"$TESTBED_MPIRUN\" (tools/testbed); not part of the plan, so --resume continues either way"},
          {"jobs", "N", "points run in N worker processes at once (default: the usable cores); mpi engines run alone"},
          {"shard", "K/N|slurm|auto",
           "run only the K-th of N disjoint parts of the plan (join the parts with collsim merge); slurm: K and N "
           "from this task of a Slurm job array (SLURM_ARRAY_TASK_ID, _MIN, _MAX, _COUNT; collsim slurm writes "
           "such arrays); auto: the same inside an array job, else the whole plan"},
          {"resume", "", "continue the run in the output folder: run only the points it has no row for"},
          {"force", "", "start over in an output folder that holds an unfinished run"},
          {"quiet", "", "print only the final table (no progress line)"},
          {"report", "", "then write the results folder's HTML page, DIR/report.html (collsim report --help)"}};
}

int run(const ParsedOptions& o) {
  if (o.positional.size() != 1) throw UsageError("run takes one scenario file (collsim run SCENARIO.yaml)");
  const SweepOptions so = sweep_options(o);
  const bool coarray = is_coarray_scenario(o.positional[0]);
  if (o.has("report") && coarray)
    throw UsageError("--report: " + o.positional[0] + " is a coarray scenario; tools/plot_coarray draws its results");
  check_report_possible(o);
  if (o.has("timing") && coarray)
    throw UsageError("--timing: " + o.positional[0] + " is a coarray scenario, whose statements are timed as programs");
  if (o.has("launcher") && coarray)
    throw UsageError("--launcher: " + o.positional[0] + " is a coarray scenario: give its mpi.launcher in the file");
  if (coarray)
    return run_coarray_scenario(o.positional[0], o.has("out") ? o.text("out") : "",
                                o.has("protocol") ? o.text("protocol") : "", o.has("quiet"), std::cout, std::cerr, so);
  Scenario sc = load_scenario(o.positional[0]);
  if (o.has("protocol")) {
    sc.sim.protocol = o.text("protocol");
    if (!is_protocol_name(sc.sim.protocol))
      throw UsageError("--protocol: '" + sc.sim.protocol + "' is not a protocol (" + protocol_names() + ")");
    if (const std::string problem = eager_limit_problem(sc.sim.protocol); sc.sim.eager_limit && !problem.empty())
      throw UsageError("--protocol " + sc.sim.protocol + ": " + sc.file + " sets sim.eager_limit, which " + problem);
  }
  if (o.has("timing")) {
    sc.timing = read_timing(o);
    if (const std::string problem = timing_problem(sc); !problem.empty()) throw UsageError("--timing: " + problem);
  }
  if (o.has("launcher")) {
    if (std::none_of(sc.engines.begin(), sc.engines.end(), [](const std::string& e) {
          const auto engine = parse_engine(e);
          return engine && is_measured(*engine);
        }))
      throw UsageError("--launcher: " + sc.file + " runs no mpi engine");
    sc.mpi.launcher = command_words(o, "launcher");
  }
  std::size_t skipped_roots = 0;
  auto plan = expand_plan(sc, &skipped_roots);
  if (o.has("protocol"))
    for (PlanPoint& p : plan) p.sim.protocol = sc.sim.protocol;
  check_plan_memory(plan, so.jobs > 0 ? so.jobs : usable_cores(), sc.file);
  const std::string dir = o.has("out") ? o.text("out") : !sc.out_dir.empty() ? sc.out_dir : "results/" + sc.name;
  const Sweep sweep = collective_sweep(sc, plan, dir);
  const std::string csv_path = (std::filesystem::path(dir) / "results.csv").string();
  std::string announce;
  if (!o.has("quiet")) {
    announce = "collsim: " + sc.name + ": " + std::to_string(plan.size()) + " measurements on " +
               std::to_string(sc.engines.size()) + " engine(s)" +
               (so.shards > 1 ? ", shard " + std::to_string(so.shard) + "/" + std::to_string(so.shards) : "") +
               ", writing " + csv_path + "\n";
    if (skipped_roots > 0)
      announce += "collsim: " + std::to_string(skipped_roots) +
                  " points skipped: their root is not a rank of their process count\n";
  }
  auto wrong_bytes = [](const std::vector<Measurement>& rows) {
    return std::any_of(rows.begin(), rows.end(),
                       [](const Measurement& m) { return m.data != "ok" && m.data != "unchecked"; });
  };
  run_sweep(
      sweep, dir, so,
      [&](const std::vector<std::string>&) {
        return wrong_bytes(read_results_csv(csv_path)) ? "complete, with wrong bytes" : "complete";
      },
      announce, std::cerr,
      // What was measured is still shown (the folder's rows, written in plan order).
      [&] { std::cout << format_results_table(read_results_csv(csv_path)); });
  const std::vector<Measurement> rows = read_results_csv(csv_path);
  std::cout << (sc.description.empty() ? sc.name : sc.name + ": " + sc.description) << "\n\n";
  const int report_status = show_results(dir, rows, o.has("report"));
  return wrong_bytes(rows) ? 1 : report_status;
}

int merge(const ParsedOptions& o) {
  if (o.positional.size() < 2)
    throw UsageError("merge takes an output folder and the folders to merge (collsim merge OUT DIR...)");
  const std::vector<std::string> parts(o.positional.begin() + 1, o.positional.end());
  check_report_possible(o);
  const std::string& out = o.positional[0];
  std::cout << merge_results(out, parts, o.has("partial"), o.has("fastest")) << "\n";
  // A coarray scenario's rows are not collective measurements: tools/plot_coarray draws them.
  std::ifstream json(std::filesystem::path(out) / "run.json");
  const std::string settings{std::istreambuf_iterator<char>(json), {}};
  if (settings.find("\"kind\": \"collective\"") == std::string::npos) {
    if (o.has("report")) throw UsageError("--report: " + out + " holds a coarray scenario's results");
    return 0;
  }
  std::cout << "\n";
  return show_results(out, read_results_csv((std::filesystem::path(out) / "results.csv").string()), o.has("report"));
}

std::vector<OptionDef> tree_options() {
  std::vector<OptionDef> defs = {{"procs", "P", "number of processes"}, {"root", "R", "root rank (default 0)"}};
  for (auto& d : knob_options({Knob::fanout, Knob::radix})) defs.push_back(d);
  defs.push_back({"dot", "", "print Graphviz DOT (pipe into `dot -Tpng`) instead of one line per parent"});
  return defs;
}

int tree(const ParsedOptions& o) {
  if (o.positional.size() != 1)
    throw UsageError("tree takes one algorithm name (collsim tree bcast/binomial --procs 8)");
  const AlgorithmInfo* algorithm = find_algorithm(o.positional[0]);
  if (!algorithm) throw UsageError("unknown algorithm '" + o.positional[0] + "' (one of: " + algorithm_names() + ")");
  if (!algorithm->tree) throw UsageError(std::string(algorithm->name) + " runs on no tree rooted at its root");
  if (!o.has("procs")) throw UsageError("missing --procs P");
  const int procs = static_cast<int>(o.integer("procs", 0, 1, 1 << 20));
  AlgorithmParams params;
  params.root = static_cast<int>(o.integer("root", 0, 0, INT_MAX));
  if (params.root >= procs)
    throw UsageError("--root " + std::to_string(params.root) + " is not a rank of " + std::to_string(procs) +
                     " processes");
  read_knobs(o, *algorithm, {Knob::fanout, Knob::radix}, params);
  std::cout << (o.has("dot") ? algorithm_tree_dot(*algorithm, procs, params)
                             : algorithm_tree_text(*algorithm, procs, params));
  return 0;
}

// The derived formulas per protocol regime, with each sim profile's switch (its one source:
// ProtocolProfile::protocol_switch).
std::string formula_regimes() {
  std::string text =
      "\nDerived formulas price each message of m bytes in its protocol regime (the sim engine's profiles;\n"
      "a segment is a message: the segment size decides, not the call's total): eager, m <= E,\n"
      "alpha + beta*m; rendezvous, m > E, alpha_r + beta_r*m + H*alpha + B*beta, the handshake being H\n"
      "control messages of B bytes in all sent as eager ones before the data. collsim calibrate on the\n"
      "sim engine fits (alpha, beta) and (alpha_r, beta_r) per algorithm; elsewhere one regime:\n";
  for (const char* name : {"ideal", "tcp", "shm", "ucx", "ucx_sm"}) {
    const models::ProtocolSwitch sw = default_profile(name)->protocol_switch();
    char line[160];
    std::snprintf(line, sizeof line, "  %-7s E = %zu B, H = %d, B = %zu B\n", name, sw.eager_max, sw.handshake_messages,
                  sw.handshake_bytes);
    text += line;
  }
  return text;
}

int algorithms(const ParsedOptions&) {
  std::cout << algorithms_table(formula_regimes());
  return 0;
}

Program collsim_program() {
  return {
      "collsim",
      "collsim: MPI collective algorithms on modelled clusters (SimGrid, analytic and formula engines)",
      {
          {"run",
           "collsim run SCENARIO.yaml [--out DIR] [--protocol NAME] [--jobs N] [--shard K/N|slurm|auto] "
           "[--resume | --force] "
           "[--report]",
           "run a scenario (in parallel, a part of it, or the rest of it): a table, CSV + JSON, an HTML page",
           "The scenario format is documented in scenarios/README.md.", run_options(), run, true},
          report_command(),
          {"merge",
           "collsim merge OUT DIR... [--partial] [--fastest] [--report]",
           "join the results folders of a scenario's shards, or of its repeated runs",
           "Joins the results folders of one scenario's shards (collsim run --shard K/N) into OUT,\n"
           "rows in plan order; refuses folders of other scenarios, conflicting rows and missing points.\n"
           "With --fastest the folders may be whole runs of the scenario made at different times: each\n"
           "point keeps its fastest row (on a machine whose speed drifts from one minute to the next).\n"
           "Then shows the rows as collsim run shows them when it ends.",
           {{"partial", "", "merge even when points of the plan are in no part (run.json's status says partial)"},
            {"fastest", "", "a point with different rows in several folders keeps the one with the smallest time_s"},
            {"report", "", "then write OUT's HTML page, OUT/report.html (collsim report --help)"}},
           merge,
           true},
          slurm_command(),
          {"measure", "collsim measure --engine sim|model|formula --op NAME --procs P --bytes M [options]",
           "one measurement", "", measure_options(), measure},
          timeline_command(),
          explain_command(),
          calibrate_command(),
          compare_command(),
          select_command(),
          coarray_command(),
          platform_command(),
          settings_command(),
          {"tree", "collsim tree NAME --procs P [--root R] [--dot]", "the virtual tree an algorithm uses",
           "Prints the virtual topology the algorithm NAME uses, as Open MPI builds it.", tree_options(), tree, true},
          {"algorithms",
           "collsim algorithms",
           "list the algorithms with Open MPI's IDs",
           "Lists the algorithms with Open MPI's IDs and their knobs, and what --bytes means per operation.",
           {},
           algorithms},
      },
      "Real MPI runs use collsim-mpi under mpirun (collsim-mpi --help).\n"
      "Scenario format: scenarios/README.md. Exit status: 0 ok, 1 a run failed, 2 bad input.\n"};
}

}  // namespace
}  // namespace collsim::cli

int main(int argc, char** argv) {
  using namespace collsim::cli;
  const std::span<char* const> args(argv + 1, static_cast<std::size_t>(argc > 1 ? argc - 1 : 0));
  return guarded_main("collsim", std::cerr, [&] { return run_program(collsim_program(), args, std::cout); });
}
