// run.json, the description of a results folder: the pieces of it that depend on the kind of
// scenario (sweep.cpp writes the rest: status, counts, shard, plan keys). Each member is one line
// `  "name": value`, so the folder's tools read it back without a JSON library.
#pragma once

#include <string>
#include <vector>

#include "experiment/scenario/scenario.hpp"
#include "support/units.hpp"  // json_string

namespace collsim {

// The current time, "2026-12-01T11:50:00Z".
std::string utc_now();

// The members that open run.json: tool, kind, scenario (the file as given), name, description.
std::vector<std::string> run_json_head(const std::string& kind, const std::string& file, const std::string& name,
                                       const std::string& description);
// A collective scenario's settings: real_bytes, engines, model, sim, mpi, operations.
std::vector<std::string> run_json_settings(const Scenario& scenario);

}  // namespace collsim
