// Reading the engines' settings from options, shared by `collsim measure`, `collsim calibrate`
// and `collsim select`: the model engine's cost model (--alpha, --beta, --intra, --loggp,
// --one-port, --copy-bandwidth) and the sim engine's platform and protocols.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "engines/model/model_engine.hpp"
#include "engines/sim/sim_engine.hpp"

namespace collsim::cli {

// The options of the model and sim engines (--platform ... --reduce-gamma), each defined once here
// for every command that runs points on them (measure, timeline, explain, calibrate, coarray),
// but those in `except` (options that mean nothing to the command); read by read_model and read_sim.
std::vector<OptionDef> engine_options(std::initializer_list<const char*> except = {});

// Options of one engine given to a run on the other, refused with one line naming them:
// check_model_options when running on the model engine under the name `engine` (model, formula):
// the sim's protocol options, and --ranks-per-node, --map-by and --cfg without the --intra or
// --platform that give them a meaning; check_sim_options: the model's cost options.
void check_model_options(const ParsedOptions& o, const std::string& engine);
void check_sim_options(const ParsedOptions& o, const std::string& engine);

// The platform used when none is given: Grisou (platforms/grisou.xml in the source tree).
std::string default_platform();

// The model engine: --alpha/--beta, --intra (two-level, placed by --map-by ppr:K:node or
// --ranks-per-node), --loggp, --one-port, --copy-bandwidth; or --platform, whose two-level
// Hockney (and placement, read_sim's) it takes instead of --alpha/--beta/--intra/--loggp.
ModelConfig read_model(const ParsedOptions& o);
// --ranks-per-node N (ppr:N:node) or --map-by POLICY; default ppr:1:node.
models::MapBy read_map_by(const ParsedOptions& o);
// The sim engine: --platform (default_platform()), --ranks-per-node / --map-by, --eager-limit,
// --cfg, --protocol, --protocol-option.
SimConfig read_sim(const ParsedOptions& o);
// UsageError when any of `names` was given: "--NAME does not apply to --engine ENGINE".
void reject_foreign(const ParsedOptions& o, const std::string& engine, std::initializer_list<const char*> names);

}  // namespace collsim::cli
