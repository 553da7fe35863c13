// Point keys: a short, stable name for each point of a plan, computed from what defines the point
// (engine, operation, sizes, knobs, extra axes), so that resuming a run, running it in shards and
// merging the shards find every row by its key and never duplicate or lose one.
//
// A key is the 64-bit FNV-1a hash of the point's canonical text (collective_point_text,
// coarray_point_text), as 16 hex digits. The n-th repetition (n >= 2) of a text within one plan
// (a size listed twice) hashes "TEXT#n", so every point of a plan has its own key. The plan's
// fingerprint hashes every point's text with the settings its engine uses (platform file contents,
// model costs, protocol, ...): two runs can share rows only when their fingerprints are equal.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "experiment/scenario/coarray_scenario.hpp"
#include "experiment/scenario/scenario.hpp"

namespace collsim {

// 16 lowercase hex digits of the 64-bit FNV-1a hash of `text`.
std::string hash_hex(std::string_view text);

// The keys of points given by their canonical texts, in order. Throws std::logic_error when two
// distinct texts hash to one key (never seen; checked so that it cannot go unnoticed).
std::vector<std::string> keys_of(const std::vector<std::string>& texts);

// The settings of a model (costs, kind, ports, copies) as text: equal texts, equal models.
std::string model_settings_text(const ModelConfig& model);

// "engine=sim;op=bcast/binomial;procs=4;bytes=65536;segment=8192;root=0[;fanout=F][;radix=R]"
// (the knobs the algorithm takes) followed by ";NAME=VALUE" for each of the point's axes.
std::string collective_point_text(const PlanPoint& point);
// Everything the rows of `plan` depend on besides the code: each point's text and engine settings,
// and the scenario-wide ones (real bytes, formula kinds and parameters file, mpi runs settings).
// Paths are replaced by their file's contents, so runs started from other folders agree.
std::string collective_fingerprint(const Scenario& scenario, const std::vector<PlanPoint>& plan);

// "engine=sim;sweep=LABEL;op=coarray/put;local=...;local_shape=...;remote=...;remote_shape=...;
// elem=8;statements=1;buffer=400000;registered=0;get_behaviour=table1[;packing=omni][;scheme=datatype];images=2".
std::string coarray_point_text(const CoarrayScenario& scenario, const CoarrayPlanPoint& point);
std::string coarray_fingerprint(const CoarrayScenario& scenario, const std::vector<CoarrayPlanPoint>& plan);

}  // namespace collsim
