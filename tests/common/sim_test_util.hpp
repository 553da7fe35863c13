// Helpers shared by the sim engine tests: platform paths, exact-timing configuration, and
// running a list of specs to a vector of results.
#pragma once

#include <string>
#include <vector>

#include "common/collsim_test.hpp"
#include "engines/run.hpp"
#include "engines/sim/sim_engine.hpp"

namespace collsim_test {

inline std::string platform(const std::string& relative) {
  return std::string(COLLSIM_SOURCE_DIR) + "/platforms/" + relative;
}

// CM02 without cross traffic and with an unbounded TCP window: an idle route costs exactly
// latency + size / bandwidth, so times can be checked by hand. The protocol is the textbook one
// (ideal) unless asked otherwise.
inline SimConfig exact(const std::string& relative_platform, int ranks_per_node = 1,
                       const std::string& protocol = "ideal") {
  SimConfig c;
  c.platform_file = platform(relative_platform);
  c.map_by = {models::MapBy::Policy::ppr_node, ranks_per_node};
  c.cfg = {"network/model:CM02", "network/crosstraffic:0", "network/TCP-gamma:1e15"};
  c.protocol = protocol;
  return c;
}

inline std::vector<RunResult> run_all(const SimConfig& config, const std::vector<RunSpec>& specs) {
  std::vector<RunResult> out(specs.size());
  std::vector<bool> seen(specs.size(), false);
  run_sim(config, specs, [&](std::size_t i, const RunResult& r) {
    out.at(i) = r;
    seen.at(i) = true;
  });
  for (std::size_t i = 0; i < specs.size(); ++i)
    if (!seen[i]) throw std::logic_error("no result for run " + std::to_string(i));
  return out;
}

inline RunResult run_one(const SimConfig& config, const RunSpec& spec) { return run_all(config, {spec}).front(); }

}  // namespace collsim_test
