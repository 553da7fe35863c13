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

struct StopRule {
  int min_runs = 10;
  int max_runs = 200;
  double ci_target = 0.025;  // stop when ci95 <= ci_target * mean

  // True once `s` is precise enough (and has min_runs runs) or has max_runs runs.
  bool done(const Summary& s) const;
};

}  // namespace collsim
