#include "experiment/scenario/scenario.hpp"

#include "engines/sim/platform_file.hpp"
#include "engines/sim/protocol.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <climits>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>

#include "experiment/analysis/parameters.hpp"
#include "experiment/scenario/scenario_settings.hpp"
#include "experiment/scenario/yaml_reader.hpp"
#include "support/units.hpp"

namespace collsim {

namespace fs = std::filesystem;

namespace {

// Whether two operations measure the same points.
bool same_grid(const OperationSweep& a, const OperationSweep& b) {
  return a.algorithm == b.algorithm && a.procs == b.procs && a.bytes == b.bytes && a.segments == b.segments &&
         a.roots == b.roots && a.datatypes == b.datatypes && a.reduce_ops == b.reduce_ops && a.fanout == b.fanout &&
         a.radix == b.radix && a.max_requests == b.max_requests;
}

}  // namespace

std::string read_scenario_name(const Reader& in, const YAML::Node& root, const std::string& path) {
  const std::string name = root["name"] ? in.text(root["name"], "name") : fs::path(path).stem().string();
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
      name.find('\0') != std::string::npos) {
    const std::string why =
        "is not a plain name (it names the results folder results/NAME: not empty, not . or .., "
        "no /)";
    if (root["name"]) in.fail(root["name"], "name: '" + name + "' " + why);
    throw ScenarioError(path + ": the file's name gives the scenario the name '" + name + "', which " + why +
                        "; give it a name: key");
  }
  return name;
}

void place_model(const Reader& in, const YAML::Node& root, const SimConfig& sim, bool from_platform, ModelConfig& model,
                 const models::NodeShape& shape) {
  try {
    if (from_platform) {
      model.two_level = platform_hockney(sim);
      model.registration = platform_registration(sim);
      return;
    }
    // Without a socket level (or a shape given) the model only needs to know who shares a node.
    const bool sockets = model.two_level.cross_socket.has_value();
    std::string error;
    std::optional<models::Placement> p;
    if (!sockets || shape.sockets > 0) p = models::place(sim.map_by, shape, error);
    if (!p) {
      // A placement that depends on the cluster's shape (node, socket, ppr:K:socket, or the
      // sockets of a socket level) is resolved on the platform when there is one.
      if (sim.platform_file.empty())
        in.fail(root["map_by"],
                (error.empty() ? "the model's socket level" : error) + "; give the scenario a platform");
      p = platform_hockney(sim).placement;
    }
    if (sockets && p->sockets <= 1)
      in.fail(root["model"],
              "model.cross_socket needs nodes of two sockets or more (model.sockets and model.cores, "
              "or the platform's collsim/sockets)");
    model.two_level.placement = *p;
  } catch (const PlatformError&) {
    throw;  // it names its place in the platform file
  } catch (const InputError& e) {
    in.fail(root["platform"] ? root["platform"] : root, e.what());
  }
}

PlatformSize platform_size_or_fail(const std::string& scenario_file, const SimConfig& sim) {
  try {
    return platform_size(sim);
  } catch (const PlatformError&) {
    throw;  // it names its place in the platform file
  } catch (const InputError& e) {
    throw ScenarioError(scenario_file + ": " + e.what());
  }
}

namespace {

// The top level's procs, bytes, segment, root, datatype and reduce_op: every operation's unless
// it gives its own.
struct OperationDefaults {
  std::vector<int> procs;
  std::vector<std::size_t> bytes, segments{0};
  std::vector<int> roots{0};
  std::vector<Datatype> datatypes{kDefaultReduction.type};
  std::vector<ReduceOp> reduce_ops{kDefaultReduction.op};
};

std::vector<int> read_roots(const Reader& in, const YAML::Node& n) {
  return in.distinct(n, "root", in.list(n, "root", [&](const YAML::Node& x) {
    return static_cast<int>(in.integer(x, "root", 0, INT_MAX));
  }));
}

// A name or list of names of `key`, each parsed by `parse`, else one line with the choices.
template <class Parse>
auto read_named(const Reader& in, const YAML::Node& n, const std::string& key, Parse parse,
                const std::string& choices) {
  return in.distinct(n, key, in.list(n, key, [&](const YAML::Node& x) {
    const std::string v = in.text(x, key);
    const auto parsed = parse(v);
    if (!parsed) in.fail(x, key + ": '" + v + "' is not one of " + choices);
    return *parsed;
  }));
}
std::vector<Datatype> read_datatypes(const Reader& in, const YAML::Node& n) {
  return read_named(in, n, "datatype", parse_datatype, datatype_names());
}
std::vector<ReduceOp> read_reduce_ops(const Reader& in, const YAML::Node& n) {
  return read_named(in, n, "reduce_op", parse_reduce_op, reduce_op_names());
}

OperationDefaults read_operation_defaults(const Reader& in, const YAML::Node& root) {
  OperationDefaults d;
  if (root["procs"]) d.procs = in.procs(root["procs"]);
  if (root["bytes"]) d.bytes = in.sizes(root["bytes"], "bytes");
  if (root["segment"]) d.segments = in.sizes(root["segment"], "segment");
  if (root["root"]) d.roots = read_roots(in, root["root"]);
  if (root["datatype"]) d.datatypes = read_datatypes(in, root["datatype"]);
  if (root["reduce_op"]) d.reduce_ops = read_reduce_ops(in, root["reduce_op"]);
  return d;
}

// One item of `operations:`: a name, or a mapping with op and its own sizes, roots, knobs and
// reductions, checked against what its algorithm takes and its operation means.
OperationSweep read_operation(const Reader& in, const YAML::Node& item, const YAML::Node& root,
                              const OperationDefaults& d) {
  OperationSweep sweep;
  if (!item.IsScalar()) {
    in.only_keys(
        item, "an operation",
        {"op", "procs", "bytes", "segment", "root", "fanout", "radix", "max_requests", "datatype", "reduce_op"});
    if (!item["op"]) in.fail(item, "an operation needs 'op: <algorithm>'");
  }
  const YAML::Node name_node = item.IsScalar() ? item : item["op"];
  const std::string name = in.text(name_node, "op");
  sweep.algorithm = find_algorithm(name);
  if (!sweep.algorithm) in.fail(name_node, "unknown algorithm '" + name + "' (one of: " + algorithm_names() + ")");
  auto own = [&](const char* key) { return item.IsMap() && item[key]; };
  sweep.procs = own("procs") ? in.procs(item["procs"]) : d.procs;
  sweep.bytes = own("bytes") ? in.sizes(item["bytes"], "bytes") : d.bytes;
  sweep.segments = own("segment") ? in.sizes(item["segment"], "segment") : d.segments;
  sweep.roots = own("root") ? read_roots(in, item["root"]) : d.roots;
  for (Knob k : {Knob::fanout, Knob::radix, Knob::max_requests}) {
    const std::string key(knob_info(k).key);
    if (!own(key.c_str())) continue;
    const long long value = in.integer(item[key], key, LLONG_MIN, LLONG_MAX);
    const std::string problem = knob_error(*sweep.algorithm, k, value);
    if (!problem.empty()) in.fail(item[key], problem);
    (k == Knob::fanout ? sweep.fanout : k == Knob::radix ? sweep.radix : sweep.max_requests) = static_cast<int>(value);
  }
  if (sweep.procs.empty()) in.fail(name_node, "no 'procs' for " + name + " (give them at the top or in the operation)");
  if (sweep.bytes.empty()) in.fail(name_node, "no 'bytes' for " + name + " (give them at the top or in the operation)");
  if (own("segment"))
    for (std::size_t segment : sweep.segments) {
      const std::string problem = knob_error(*sweep.algorithm, Knob::segment, static_cast<long long>(segment));
      if (!problem.empty()) in.fail(item["segment"], problem);
    }
  if (!sweep.algorithm->takes(Knob::segment)) sweep.segments = {0};
  // What the operation's descriptor says about sizes, roots and reductions: the defaults at the
  // top apply where they make sense, the operation's own keys must.
  const OperationInfo& info = operation_info(sweep.algorithm->op);
  if (!info.rooted) {
    if (own("root")) in.fail(item["root"], "root: " + std::string(info.name) + " has no root");
    sweep.roots = {0};
  } else if (own("root") || root["root"]) {
    // A root is skipped for the process counts it is not a rank of; one that fits none would
    // leave nothing to measure, a slip rather than a choice.
    const int most = *std::max_element(sweep.procs.begin(), sweep.procs.end());
    const YAML::Node given = own("root") ? item["root"] : root["root"];
    for (std::size_t i = 0; i < sweep.roots.size(); ++i)
      if (sweep.roots[i] >= most)
        in.fail(given.IsSequence() ? given[i] : given,
                "root: " + std::to_string(sweep.roots[i]) + " is not a rank of any process count of " + name +
                    " (at most " + std::to_string(most) + " processes, ranks 0 to " + std::to_string(most - 1) + ")");
  }
  for (const char* key : {"datatype", "reduce_op"})
    if (own(key) && !info.reduces)
      in.fail(item[key], std::string(key) +
                             " applies to reducing operations (reduce, allreduce, reduce_scatter), not " +
                             std::string(info.name));
  if (info.reduces) {
    sweep.datatypes = own("datatype") ? read_datatypes(in, item["datatype"]) : d.datatypes;
    sweep.reduce_ops = own("reduce_op") ? read_reduce_ops(in, item["reduce_op"]) : d.reduce_ops;
  }
  if (!info.moves_data) {
    if (own("bytes"))
      for (std::size_t m : sweep.bytes)
        if (m != 0) in.fail(item["bytes"], "bytes: " + std::string(info.name) + " moves no data: its size must be 0");
    sweep.bytes = {0};
  }
  for (Datatype t : sweep.datatypes)
    for (ReduceOp o : sweep.reduce_ops)
      for (std::size_t m : sweep.bytes)
        if (std::string why = call_error(info, m, {t, o}); !why.empty())
          in.fail(own("bytes") || !own("datatype") ? name_node : item["datatype"],
                  std::string(sweep.algorithm->name) + " with " + std::to_string(m) + " bytes: " + why);
  return sweep;
}

// `formula:`: the kinds of formula run and the parameters file, read now (checked before
// anything runs) and returned.
std::optional<Parameters> read_formula_settings(const Reader& in, const YAML::Node& root, const std::string& path,
                                                Scenario& sc) {
  if (!root["formula"]) return std::nullopt;
  const YAML::Node f = root["formula"];
  in.only_keys(f, "formula", {"kinds", "params"});
  if (f["kinds"])
    sc.formulas =
        in.distinct(f["kinds"], "formula.kinds", in.list(f["kinds"], "formula.kinds", [&](const YAML::Node& x) {
          std::string k = in.text(x, "formula.kinds");
          if (k != "derived" && k != "textbook") in.fail(x, "formula.kinds: '" + k + "' is not derived or textbook");
          return k;
        }));
  if (!f["params"]) return std::nullopt;
  fs::path p(in.text(f["params"], "formula.params"));
  if (p.is_relative()) p = fs::path(path).parent_path() / p;
  if (!fs::exists(p))
    in.fail(f["params"], "parameters file '" + f["params"].Scalar() + "' not found (looked for " + p.string() + ")");
  sc.params_file = p.lexically_normal().string();
  try {
    return read_parameters(sc.params_file);
  } catch (const ScenarioError& e) {
    in.fail(f["params"], e.what());
  }
}

// `trace:` (json, paje or csv) and `trace_limit:`.
void read_trace_settings(const Reader& in, const YAML::Node& root, Scenario& sc) {
  if (root["trace"]) {
    sc.trace = in.text(root["trace"], "trace");
    if (sc.trace != "json" && sc.trace != "paje" && sc.trace != "csv")
      in.fail(root["trace"], "trace: '" + sc.trace + "' is not json, paje or csv");
  }
  if (root["trace_limit"]) {
    if (!root["trace"]) in.fail(root["trace_limit"], "trace_limit applies only with trace: json|paje|csv");
    const std::string v = in.text(root["trace_limit"], "trace_limit");
    const auto b = parse_bytes(v);
    if (!b || *b == 0) in.fail(root["trace_limit"], "trace_limit: '" + v + "' is not a size in bytes (e.g. 64MiB)");
    sc.trace_limit = *b;
  }
}

// Each cluster's model placed on it, and, for the sim, each process count checked to fit it.
void place_clusters(const Reader& in, const YAML::Node& root, const std::string& path, bool model_from_platform,
                    const models::NodeShape& model_shape, bool uses_sim, Scenario& sc) {
  for (ClusterVariant& cluster : sc.clusters) {
    place_model(in, root, cluster.sim, model_from_platform, cluster.model, model_shape);
    if (!uses_sim) continue;
    const PlatformSize size = platform_size_or_fail(path, cluster.sim);
    for (const auto& op : sc.operations)
      for (int p : op.procs)
        if (static_cast<std::size_t>(p) > size.capacity)
          throw ScenarioError(path + ": " + std::string(op.algorithm->name) + " asks for " + std::to_string(p) +
                              " processes, but platform " + cluster.sim.platform_file + " has " +
                              std::to_string(size.hosts) + " hosts, room for " + std::to_string(size.capacity) +
                              " ranks placed --map-by " + models::to_string(cluster.sim.map_by));
  }
}

}  // namespace

std::string timing_problem(const Scenario& sc) {
  if (sc.timing.kind == Timing::Kind::collective) return "";
  const EngineSet takes = engine_setting("timing").engines;
  for (const std::string& e : sc.engines)
    for (const EngineInfo& info : kEngines)
      if ((takes & engine_set(info.engine)) && chooses(e, info.engine)) return "";
  return std::string(to_string(sc.timing.kind)) + " applies only to the engines that run ranks (" +
         engines_text(takes) + "), and " + sc.file + " runs none of them";
}

Scenario load_scenario(const std::string& path) {
  Scenario sc;
  sc.file = path;
  const YAML::Node root = load_yaml_file(path, "scenario file");
  const Reader in(path);
  if (!root || root.IsNull()) throw ScenarioError(path + ": the scenario is empty");
  in.only_keys(root, "the scenario",
               {"name",       "description",   "platform",   "ranks_per_node", "map_by", "engines",     "model",
                "formula",    "sim",           "mpi",        "procs",          "bytes",  "segment",     "root",
                "real_bytes", "critical_path", "operations", "output",         "trace",  "trace_limit", "datatype",
                "reduce_op",  "timing"});
  auto required = [&](const char* key) {
    if (!root[key]) throw ScenarioError(path + ": missing required key '" + std::string(key) + "'");
    return root[key];
  };

  sc.name = read_scenario_name(in, root, path);
  if (root["description"]) sc.description = in.text(root["description"], "description");

  const YAML::Node engines = required("engines");
  sc.engines = in.distinct(engines, "engines", in.list(engines, "engines", [&](const YAML::Node& x) {
    std::string e = in.text(x, "engines");
    if (!is_engine_choice(e, kCollectiveEngines)) in.fail(x, not_an_engine(e, kCollectiveEngines));
    return e;
  }));
  // Whether the scenario runs engine `e` (a formula engine: whether it runs the formulas).
  auto runs = [&](Engine e) {
    return std::any_of(sc.engines.begin(), sc.engines.end(), [&](const std::string& x) { return chooses(x, e); });
  };
  const bool uses_sim = runs(Engine::sim);

  if (!root["platform"] && uses_sim)
    throw ScenarioError(path + ": the sim engine needs a 'platform' (a SimGrid platform file or a generated cluster)");
  const ScenarioSettings settings(in, root);
  EngineSettings engine_settings;
  read_settings(settings, SettingGroup::model, engine_settings);
  sc.model = engine_settings.model;
  const bool model_from_platform = engine_settings.model_from_platform;
  if (model_from_platform && !root["platform"])
    settings.fail(engine_setting("model.from_platform"), "model.from_platform needs the scenario's platform");
  if (root["formula"] && !runs(Engine::formula_derived))
    in.fail(root["formula"], "formula settings, but 'formula' is not among the engines");
  const std::optional<Parameters> params = read_formula_settings(in, root, path, sc);
  read_settings(settings, SettingGroup::sim, engine_settings);
  read_settings(settings, SettingGroup::mpi, engine_settings);
  read_settings(settings, SettingGroup::timing, engine_settings);
  sc.sim = engine_settings.sim;
  sc.mpi = engine_settings.mpi;
  sc.timing = engine_settings.timing;
  if (const std::string problem = timing_problem(sc); !problem.empty())
    settings.fail(engine_setting("timing"), settings.name("timing") + ": " + problem);
  sc.clusters = read_clusters(in, root, path, sc.sim, sc.model);
  // The first cluster stands for all where one platform is reported (run.json's settings).
  sc.sim.platform_file = sc.clusters.front().sim.platform_file;
  sc.sim.map_by = sc.clusters.front().sim.map_by;
  if (root["real_bytes"]) sc.real_bytes = in.boolean(root["real_bytes"], "real_bytes");
  if (root["critical_path"]) sc.critical_path = in.boolean(root["critical_path"], "critical_path");

  read_trace_settings(in, root, sc);
  if (!sc.trace.empty() && !runs(Engine::model) && !runs(Engine::sim))
    in.fail(root["trace"], "trace: only the model and sim engines record traces, and the scenario runs neither");
  if (root["output"]) {
    in.only_keys(root["output"], "output", {"dir"});
    if (root["output"]["dir"]) sc.out_dir = in.text(root["output"]["dir"], "output.dir");
  }

  const OperationDefaults defaults = read_operation_defaults(in, root);
  const YAML::Node ops = required("operations");
  if (!ops.IsSequence() || ops.size() == 0) in.fail(ops, "operations must be a non-empty list");
  for (const auto& item : ops) {
    OperationSweep sweep = read_operation(in, item, root, defaults);
    const YAML::Node name_node = item.IsScalar() ? item : item["op"];
    // The formula engine predicts only what the parameters file has costs for.
    for (const std::string& kind : params ? sc.formulas : std::vector<std::string>{}) {
      const bool textbook = kind == "textbook";
      const FormulaConfig f =
          formula_config(*params, textbook ? FormulaConfig::Kind::textbook : FormulaConfig::Kind::derived);
      const bool rows = textbook ? sweep.algorithm->textbook : sweep.algorithm->derived;
      if (rows && !has_fit(f, *sweep.algorithm))
        in.fail(name_node, missing_fits(f.fits_from, {std::string(sweep.algorithm->name)}));
    }
    for (std::size_t k = 0; k < sc.operations.size(); ++k)
      if (same_grid(sc.operations[k], sweep))
        in.fail(item, "this operation repeats operation " + std::to_string(k + 1) + " (" +
                          std::string(sweep.algorithm->name) +
                          " with the same settings): each of its points would run twice");
    sc.operations.push_back(std::move(sweep));
  }

  place_clusters(in, root, path, model_from_platform, engine_settings.model_shape(), uses_sim, sc);
  sc.model = sc.clusters.front().model;
  return sc;
}

std::vector<PlanPoint> expand_plan(const Scenario& sc, std::size_t* skipped_roots) {
  std::vector<PlanPoint> plan;
  // The engines each choice names, in order: "formula", those of the formula kinds asked for.
  std::vector<Engine> engines;
  for (const auto& choice : sc.engines)
    if (chooses(choice, Engine::formula_derived))
      for (const auto& kind : sc.formulas)
        engines.push_back(kind == "textbook" ? Engine::formula_textbook : Engine::formula_derived);
    else
      engines.push_back(*parse_engine(choice));
  for (const auto& engine : engines)
    for (const ClusterVariant& cluster : sc.clusters)
      for (const auto& op : sc.operations)
        for (int p : op.procs)
          for (std::size_t m : op.bytes)
            for (std::size_t seg : op.segments)
              for (int root : op.roots)
                for (Datatype type : op.datatypes)
                  for (ReduceOp reduce_op : op.reduce_ops) {
                    if (engine == Engine::formula_textbook && !op.algorithm->textbook) continue;
                    if (engine == Engine::formula_derived && !op.algorithm->derived) continue;
                    if (root >= p) {
                      if (skipped_roots) ++*skipped_roots;
                      continue;
                    }
                    PlanPoint point;
                    point.engine = engine;
                    point.spec.algorithm = op.algorithm;
                    point.spec.procs = p;
                    point.spec.bytes = m;
                    point.spec.params.segment = seg;
                    point.spec.params.root = root;
                    point.spec.params.fanout = op.fanout;
                    point.spec.params.radix = op.radix;
                    point.spec.params.max_requests = op.max_requests;
                    point.spec.params.reduction = {type, reduce_op};
                    point.spec.real_bytes = sc.real_bytes;
                    point.spec.timing = sc.timing;
                    point.axes = cluster.axes;
                    point.sim = cluster.sim;
                    point.model = cluster.model;
                    plan.push_back(std::move(point));
                  }
  return plan;
}

}  // namespace collsim
