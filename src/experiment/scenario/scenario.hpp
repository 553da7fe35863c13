// Scenario files: a YAML description of an experiment (platform, engines, algorithms, sizes,
// process counts, outputs), loaded and checked in full before anything runs.
//
// Every problem is reported as ScenarioError with "FILE:LINE:COLUMN: what is wrong", so a user
// can jump to it. The format, with an example of every field, is in scenarios/README.md.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engines/engine.hpp"
#include "engines/model/model_engine.hpp"
#include "engines/run.hpp"
#include "engines/sim/sim_engine.hpp"
#include "experiment/scenario/cluster_sweep.hpp"
#include "experiment/scenario/scenario_error.hpp"
#include "experiment/sweep/mpi_launcher.hpp"
#include "experiment/trace/trace_files.hpp"

namespace YAML {
class Node;
}

namespace collsim {

// One entry of `operations:`: an algorithm and the grid of points to measure it on.
struct OperationSweep {
  const AlgorithmInfo* algorithm = nullptr;
  std::vector<int> procs;
  std::vector<std::size_t> bytes;
  std::vector<std::size_t> segments;  // {0} when not given
  std::vector<int> roots;             // {0} when not given; {0} for operations without a root
  // Reducing operations: the element types and operators, every pair measured ({float} and {sum}
  // when not given); {kDefaultReduction} for the others, which ignore it.
  std::vector<Datatype> datatypes{kDefaultReduction.type};
  std::vector<ReduceOp> reduce_ops{kDefaultReduction.op};
  int fanout = 4;
  int radix = 4;
  int max_requests = 0;
};

struct Scenario {
  std::string file;  // as given on the command line
  std::string name;
  std::string description;
  std::vector<std::string> engines;  // "formula", "model", "sim", "mpi", "mpi-native" (run in this order)
  bool real_bytes = false;           // allocate, move and check real bytes
  // results.csv gets the critical path's shares (cp_latency_s, ...; experiment/trace/critical_path.hpp)
  // for the points of engines that trace (model, sim); the other rows leave them empty.
  bool critical_path = false;
  ModelConfig model;  // with model.from_platform, its two-level parameters derived from the platform
  SimConfig sim;      // platform_file resolved against the scenario's folder
  MpiLaunch mpi;      // how the mpi engines are launched
  // The formula engine: which formulas (rows "formula-derived", "formula-textbook"), and the
  // calibrated parameters file, if any (else the costs of `model`, gamma measured in it).
  std::vector<std::string> formulas{"derived"};
  std::string params_file;  // resolved against the scenario's folder
  std::vector<OperationSweep> operations;
  // The clusters studied (cluster_sweep.hpp): one unless `platform` or `map_by` lists several;
  // each with its own platform file, placement and model, and its axes (results.csv columns).
  // `sim` and `model` above are the first one's.
  std::vector<ClusterVariant> clusters;
  std::string out_dir;  // resolved against the current directory; may be empty
  // `trace: json|paje|csv`: each model and sim point also writes its events to
  // traces/KEY.EXT in the results folder (trace_files.hpp); empty for none. Refused above
  // trace_limit bytes (`trace_limit: SIZE`).
  std::string trace;
  std::uint64_t trace_limit = kDefaultTraceLimit;
  // `timing: osu`: the model and sim points also report osu_bcast's times (engines/run.hpp,
  // Timing); the formula engines' rows leave those columns empty.
  Timing timing;
};

// Why the scenario's timing cannot be run ("osu applies only to ..."), or "" when it can: OSU
// timing needs an engine that runs ranks.
std::string timing_problem(const Scenario& sc);

Scenario load_scenario(const std::string& path);

class Reader;
// The scenario's `name:` (default: the file's name without its extension), which names its
// results folder results/NAME: a plain name (not empty, not . or .., no /), so that the folder is
// inside results/.
std::string read_scenario_name(const Reader& in, const YAML::Node& root, const std::string& path);
// Sets the model's two-level placement (and with from_platform its costs) from the platform and
// sim.map_by, or from `shape` (model.sockets and model.cores) when given; a model with a socket
// level needs a placement that knows the sockets. A problem fails at the scenario's platform (or
// its map_by), a bad platform file with its PlatformError (which names the place in that file).
void place_model(const Reader& in, const YAML::Node& root, const SimConfig& sim, bool from_platform, ModelConfig& model,
                 const models::NodeShape& shape = {});
// platform_size, its InputError as "SCENARIO: problem" (a PlatformError as it is).
PlatformSize platform_size_or_fail(const std::string& scenario_file, const SimConfig& sim);

// One measurement of the plan.
struct PlanPoint {
  Engine engine = Engine::model;
  RunSpec spec;
  // Extra columns of the point (name, value), written after results.csv's usual columns in this
  // order and part of the point's key (plan_keys.hpp); empty unless a scenario sweeps more axes.
  std::vector<std::pair<std::string, std::string>> axes;
  // The engines' settings for this point (the scenario's, unless a sweep varies them); the runner
  // uses these, never the scenario's.
  SimConfig sim;
  ModelConfig model;
};

// Every (engine, cluster, operation, procs, bytes, segment, root) point of the scenario, engines
// outermost, then clusters, then operations in file order, then procs, bytes, segment and root ascending as written.
// Points whose root is not a rank of P are skipped, and counted in `*skipped_roots` when given.
// The engine "formula" becomes one engine per formula kind ("formula-derived",
// "formula-textbook"); an algorithm without a formula of a kind has no points of that kind.
std::vector<PlanPoint> expand_plan(const Scenario& scenario, std::size_t* skipped_roots = nullptr);

}  // namespace collsim
