// Coarray scenarios: a scenario file with a top-level `coarray:` block instead of `operations:`
// describes a study of coarray PUT/GET segments (experiment/results/coarray_point.hpp) rather than of
// collectives, and `collsim run FILE` runs it. The format is in scenarios/README.md ("Coarray
// scenarios"); like collective scenarios, the whole file is checked before anything runs and every
// problem is a ScenarioError "FILE:LINE:COLUMN: problem" (sections too).
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "engines/engine.hpp"
#include "engines/model/model_engine.hpp"
#include "engines/sim/sim_engine.hpp"
#include "experiment/results/coarray_point.hpp"
#include "experiment/sweep/mpi_launcher.hpp"

namespace collsim {

// One entry of `coarray.points:`: one statement (sides, op, element size) and the sweeps over
// its runtime and segment settings; every combination is a point.
struct CoarrayGroup {
  std::string label;  // `sweep:`, carried into the results so plots can group rows; default "group N"
  bool get = false;
  coarray::Section local, remote;
  std::vector<coarray::PutMode> modes{coarray::PutMode::blocking};
  std::vector<std::size_t> buffers{coarray::kDefaultBufferBytes};
  std::vector<std::size_t> statements{1};
  std::vector<bool> registered{false};
  std::vector<coarray::RegisterWhen> registrations{coarray::RegisterWhen::once};  // registered points only
  std::size_t heap_bytes = coarray::kDefaultHeapBytes;
  coarray::GetBehaviour get_behaviour = coarray::GetBehaviour::table1;
  std::vector<coarray::Packing> packings{coarray::Packing::table1};
  std::vector<coarray::SyncKind> syncs{coarray::SyncKind::memory};  // `sync:`, the segment's end
  std::vector<coarray::Pattern> patterns{coarray::Pattern::one};    // `pattern:` (pattern.hpp)
  std::vector<int> images;                                          // `images:`; default coarray.images
  coarray::Method scheme = coarray::Method::table1;                 // `scheme:` table1 or datatype
};

// The engines of coarray studies.
inline constexpr std::array<Engine, 4> kCoarrayEngines = {Engine::model, Engine::sim, Engine::mpi, Engine::caf_native};

struct CoarrayScenario {
  std::string file, name, description;
  std::vector<Engine> engines;  // of kCoarrayEngines, run in this order
  int images = 2;
  bool real_bytes = true;  // model and sim: move and check bytes; false: "unchecked" rows
  ModelConfig model;       // two-level Hockney from the platform, plus copy_bandwidth
  SimConfig sim;
  MpiLaunch mpi;            // mpi and caf-native: launcher, runs, timeout; program = collsim-mpi
  std::string caf_program;  // collsim-caf; empty: the one beside the running collsim
  std::vector<CoarrayGroup> groups;
  std::string out_dir;
};

// True when the YAML file at `path` has a top-level `coarray:` key (a coarray study); false for
// anything else, including files that do not parse (load_scenario reports those).
bool is_coarray_scenario(const std::string& path);
CoarrayScenario load_coarray_scenario(const std::string& path);

struct CoarrayPlanPoint {
  Engine engine = Engine::model;
  std::string group;  // the group's label
  std::size_t index;  // of the point within one engine's list (the same point on every engine)
  CoarrayPoint point;
};

// Engines outermost, then groups in file order, then mode, registered, buffer, packing, sync,
// statements, images and pattern as written (pattern innermost).
std::vector<CoarrayPlanPoint> expand_coarray_plan(const CoarrayScenario& scenario);

}  // namespace collsim
