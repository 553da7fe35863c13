#include "cli/mpi_measure_options.hpp"

#include <cstdio>
#include <string>

#include "support/units.hpp"

namespace collsim::cli {

std::vector<OptionDef> stop_rule_options() {
  const MeasureOptions defaults;
  return {
      {"min-runs", "N", "timed runs at least (default " + std::to_string(defaults.stop.min_runs) + ")"},
      {"max-runs", "N",
       "timed runs at most (default " + std::to_string(defaults.stop.max_runs) +
           "); a run that stops here with the CI above --ci-target says so (ci_target_met 0 in CSV)"},
      {"ci-target", "F",
       "stop once the 95% CI half-width is under F times the mean: 0.025 or 2.5% (default " +
           percent(defaults.stop.ci_target) + ")"},
      {"warmup", "N", "untimed calls before the timed ones (default " + std::to_string(defaults.warmup) + ")"},
  };
}

double read_ci_target(const ParsedOptions& options) {
  if (!options.has("ci-target")) return kDefaultCiTarget;
  const auto value = parse_fraction(options.text("ci-target"));
  if (!value || *value <= 0)
    throw UsageError("--ci-target: '" + options.text("ci-target") +
                     "' is not a positive fraction (e.g. 0.025 or 2.5%)");
  return *value;
}

MeasureOptions read_measure_options(const ParsedOptions& options) {
  MeasureOptions m;
  m.stop.min_runs = static_cast<int>(options.integer("min-runs", m.stop.min_runs, 1, 1'000'000));
  m.stop.max_runs = static_cast<int>(options.integer("max-runs", m.stop.max_runs, 1, 1'000'000));
  if (m.stop.max_runs < m.stop.min_runs)
    throw UsageError("--max-runs " + std::to_string(m.stop.max_runs) + " is below --min-runs " +
                     std::to_string(m.stop.min_runs));
  m.stop.ci_target = read_ci_target(options);
  m.warmup = static_cast<int>(options.integer("warmup", m.warmup, 0, 1'000'000));
  return m;
}

std::string percent(double fraction) {
  char text[48];
  const double percent = 100 * fraction;
  std::snprintf(text, sizeof text, percent >= 1000 ? "%.0f%%" : "%.3g%%", percent);
  return text;
}

std::string ci_missed(const Measurement& m, const StopRule& stop) {
  if (m.data != "ok" || m.ci_met.value_or(true)) return "";
  return "stopped at --max-runs " + std::to_string(stop.max_runs) + " with the 95% CI at " +
         percent(m.mean_s > 0 ? m.ci95_s / m.mean_s : 0) + " of the mean, above --ci-target " + percent(stop.ci_target);
}

}  // namespace collsim::cli
