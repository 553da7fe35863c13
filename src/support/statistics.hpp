// Statistics of repeated measurements and the rule that decides when to stop repeating.
//
// A measured point is repeated until the 95% confidence interval of its mean is narrow relative
// to the mean (the interval assumes roughly normal run times, which the median is reported
// alongside to guard against), within a minimum and a maximum number of runs.
#pragma once

#include <cstddef>
#include <span>

namespace collsim {

struct Summary {
  std::size_t runs = 0;
  double mean = 0, median = 0, min = 0, max = 0;
  double stddev = 0;  // sample standard deviation (n - 1)
  double ci95 = 0;    // half-width of the 95% confidence interval of the mean; 0 for one run
};

Summary summarize(std::span<const double> samples);

// 97.5% quantile of Student's t distribution with `df` degrees of freedom (df >= 1): the factor
// of a two-sided 95% interval.
double student_t975(std::size_t df);

// The stop rule's defaults: the same for every command that measures on real MPI (collsim-mpi's
// measure, fidelity and coarray, collsim-caf, a scenario's mpi section, collsim calibrate on the
// mpi engines).
inline constexpr int kDefaultMinRuns = 10;
inline constexpr int kDefaultMaxRuns = 200;
inline constexpr double kDefaultCiTarget = 0.025;

struct StopRule {
  int min_runs = kDefaultMinRuns;
  int max_runs = kDefaultMaxRuns;
  double ci_target = kDefaultCiTarget;  // precise enough once ci95 <= ci_target * mean

  // True once `s` is precise enough (met) or has max_runs runs.
  bool done(const Summary& s) const;
  // True when `s` has min_runs runs (2 at least, for an interval) and its 95% confidence
  // half-width is within ci_target of its mean. False for a series stopped at max_runs with the
  // interval still wider: its mean is less certain than the target asked.
  bool met(const Summary& s) const;
};

}  // namespace collsim
