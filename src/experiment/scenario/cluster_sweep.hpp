// The clusters of a scenario: `platform:` names a SimGrid file, or describes generated clusters
// (`collsim platform`'s parameters, engines/sim/generated_platform.hpp) whose parameters may each
// list several values; `map_by:` / `ranks_per_node:` may list several placements. Every
// combination is one cluster of the study, and the parameters whose values differ between them
// are its axes: columns of results.csv, so one study can answer "how does the winner change as
// latency drops?".
//
// A generated cluster is written once to a file named by the hash of its XML in the platform
// cache (platform_cache_dir()), so that workers, shards and resumed runs load the same bytes.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "engines/model/model_engine.hpp"
#include "engines/sim/sim_engine.hpp"

namespace YAML {
class Node;
}

namespace collsim {

class Reader;

struct ClusterVariant {
  // (parameter, value as written) for each swept parameter; "map_by" for a swept placement.
  std::vector<std::pair<std::string, std::string>> axes;
  SimConfig sim;              // the scenario's sim settings with this cluster's platform file and placement
  ModelConfig model;          // the scenario's model; two-level from this cluster with from_platform
  std::string generated_xml;  // the platform's text when generated, else empty
};

// Reads `platform`, `map_by` and `ranks_per_node` of a scenario's root into its clusters (at
// least one; without a platform, one with an empty platform file). `base` carries the scenario's
// sim settings (protocol, cfg, ...), `model` its model settings. Fails with the position of the
// offending value (ScenarioError).
std::vector<ClusterVariant> read_clusters(const Reader& in, const YAML::Node& root, const std::string& scenario_path,
                                          const SimConfig& base, const ModelConfig& model);

// Where generated platforms are kept: $COLLSIM_PLATFORM_CACHE, else TMPDIR/collsim-platforms.
std::string platform_cache_dir();
// Writes `xml` to the cache under its hash (atomically, once) and returns the file's path.
std::string cached_platform_file(const std::string& xml);

}  // namespace collsim
