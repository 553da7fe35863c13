#include "cli/mpi_measure_options.hpp"

#include <string>

#include "experiment/units.hpp"

namespace collsim::cli {

std::vector<OptionDef> stop_rule_options(int min_runs, int max_runs) {
  return {
      {"min-runs", "N", "timed runs at least (default " + std::to_string(min_runs) + ")"},
      {"max-runs", "N", "timed runs at most (default " + std::to_string(max_runs) + ")"},
      {"ci-target", "F", "stop once the 95% CI half-width is under F times the mean: 0.025 or 2.5% (default 2.5%)"},
      {"warmup", "N", "untimed calls before the timed ones (default 2)"},
  };
}

double read_ci_target(const ParsedOptions& options) {
  if (!options.has("ci-target")) return 0.025;
  const auto value = parse_fraction(options.text("ci-target"));
  if (!value || *value <= 0)
    throw UsageError("--ci-target: '" + options.text("ci-target") +
                     "' is not a positive fraction (e.g. 0.025 or 2.5%)");
  return *value;
}

MeasureOptions read_measure_options(const ParsedOptions& options, int min_runs, int max_runs) {
  MeasureOptions m;
  m.stop.min_runs = static_cast<int>(options.integer("min-runs", min_runs, 1, 1'000'000));
  m.stop.max_runs = static_cast<int>(options.integer("max-runs", max_runs, 1, 1'000'000));
  if (m.stop.max_runs < m.stop.min_runs)
    throw UsageError("--max-runs " + std::to_string(m.stop.max_runs) + " is below --min-runs " +
                     std::to_string(m.stop.min_runs));
  m.stop.ci_target = read_ci_target(options);
  m.warmup = static_cast<int>(options.integer("warmup", 2, 0, 1'000'000));
  return m;
}

}  // namespace collsim::cli
