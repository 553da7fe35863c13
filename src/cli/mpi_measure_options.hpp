// The options of the mpi timing protocol (warm-up, stop rule), shared by collsim-mpi's commands
// and collsim-caf so that every measured engine reads them with the same words, defaults and
// checks. Apart from measure_options.hpp because MeasureOptions is the mpi engines' type: only
// programs that link MPI may include this.
#pragma once

#include <vector>

#include "cli/options.hpp"
#include "engines/mpi/measure.hpp"

namespace collsim::cli {

// --min-runs, --max-runs, --ci-target, --warmup, with these defaults in their help.
std::vector<OptionDef> stop_rule_options(int min_runs = 10, int max_runs = 200);

// --ci-target as a fraction: "0.025" or "2.5%" (default 2.5%); UsageError unless positive.
double read_ci_target(const ParsedOptions& options);
// The four options of stop_rule_options() read into MeasureOptions; UsageError for a bad number or
// --max-runs below --min-runs.
MeasureOptions read_measure_options(const ParsedOptions& options, int min_runs = 10, int max_runs = 200);

}  // namespace collsim::cli
