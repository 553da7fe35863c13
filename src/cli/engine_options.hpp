// The engines' settings on the command line, shared by `collsim measure`, `timeline`, `explain`,
// `calibrate` and `coarray`: the options, their help and their checks all come from the one
// settings table (experiment/scenario/engine_settings.hpp), which scenario files read too.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "experiment/scenario/engine_settings.hpp"

namespace collsim::cli {

// Which runs a command makes: coarray programs take the options marked so in the table.
enum class Runs { collectives, coarrays };

// The placement, sim and model options (--platform ... --reduce-gamma), in the table's order.
std::vector<OptionDef> engine_options(Runs runs = Runs::collectives);
// The mpi engines' launcher, run counts, statistic and timeout (--launcher ... --timeout).
std::vector<OptionDef> mpi_run_options(Runs runs = Runs::collectives);
// --timing, for the commands that measure a collective call (measure, run).
std::vector<OptionDef> timing_options();

// Refuses the first option given that means nothing to `engine` (the table's engines):
// "--NAME does not apply to --engine ENGINE".
void check_engine_options(const ParsedOptions& o, Engine engine);
// check_engine_options for the model or a formula engine, and the options that mean something to
// it only with another: --ranks-per-node and --map-by with --intra or --platform, --cfg with
// --platform.
void check_model_options(const ParsedOptions& o, Engine engine);
// UsageError when any of `names` (options outside the table) was given: "--NAME does not apply to
// --engine ENGINE".
void reject_foreign(const ParsedOptions& o, const std::string& engine, std::initializer_list<const char*> names);

// The platform used when none is given: Grisou (platforms/grisou.xml in the source tree).
std::string default_platform();

// The model engine's settings; with --platform, the platform's two-level Hockney (placed as
// read_sim places the ranks).
ModelConfig read_model(const ParsedOptions& o);
// The sim engine's: --platform (default_platform()), the placement, the protocols, --cfg.
SimConfig read_sim(const ParsedOptions& o);
// --ranks-per-node N (ppr:N:node) or --map-by POLICY; default ppr:1:node.
models::MapBy read_map_by(const ParsedOptions& o);
// The mpi engines' settings given by mpi_run_options, over the defaults.
MpiLaunch read_mpi_runs(const ParsedOptions& o);
// The value of option --NAME as a command line, split at blanks (--launcher "$TESTBED_MPIRUN");
// UsageError when it has no word.
std::vector<std::string> command_words(const ParsedOptions& o, const std::string& name);
// --timing (default collective).
Timing read_timing(const ParsedOptions& o);

}  // namespace collsim::cli
