// The options of the mpi timing protocol (warm-up, stop rule), shared by collsim-mpi's commands
// and collsim-caf so that every measured engine reads them with the same words, defaults and
// checks. Apart from measure_options.hpp because MeasureOptions is the mpi engines' type: only
// programs that link MPI may include this.
#pragma once

#include <string>
#include <vector>

#include "cli/options.hpp"
#include "engines/mpi/measure.hpp"
#include "experiment/results/measurement.hpp"

namespace collsim::cli {

// --min-runs, --max-runs, --ci-target, --warmup, their defaults (StopRule's, MeasureOptions') in
// their help.
std::vector<OptionDef> stop_rule_options();

// --ci-target as a fraction: "0.025" or "2.5%" (default kDefaultCiTarget); UsageError unless
// positive.
double read_ci_target(const ParsedOptions& options);
// The four options of stop_rule_options() read into MeasureOptions; UsageError for a bad number or
// --max-runs below --min-runs.
MeasureOptions read_measure_options(const ParsedOptions& options);

// "2.5%" for 0.025 (three significant digits).
std::string percent(double fraction);
// Why a measured mean is less certain than the stop rule asked: "stopped at --max-runs 200 with
// the 95% CI at 4.1% of the mean, above --ci-target 2.5%"; empty when its runs met the target
// (Measurement::ci_met), or stopped at a wrong byte (which its data says).
std::string ci_missed(const Measurement& m, const StopRule& stop);

}  // namespace collsim::cli
