#include "support/statistics.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

namespace collsim {

double student_t975(std::size_t df) {
  static constexpr std::array<double, 30> kTable{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                                 2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                                 2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (df == 0) return kTable[0];
  if (df <= kTable.size()) return kTable[df - 1];
  // Cornish-Fisher expansion around the normal quantile; within 1e-4 of the exact value past 30.
  const double z = 1.959963985, v = static_cast<double>(df);
  const double z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z;
  return z + (z3 + z) / (4 * v) + (5 * z5 + 16 * z3 + 3 * z) / (96 * v * v) +
         (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * v * v * v);
}

Summary summarize(std::span<const double> samples) {
  Summary s;
  s.runs = samples.size();
  if (samples.empty()) return s;
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  s.min = sorted.front();
  s.max = sorted.back();
  s.median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  double sum = 0;
  for (double x : sorted) sum += x;
  s.mean = sum / static_cast<double>(n);
  if (n > 1) {
    double squares = 0;
    for (double x : sorted) squares += (x - s.mean) * (x - s.mean);
    s.stddev = std::sqrt(squares / static_cast<double>(n - 1));
    s.ci95 = student_t975(n - 1) * s.stddev / std::sqrt(static_cast<double>(n));
  }
  return s;
}

bool StopRule::met(const Summary& s) const {
  const auto n = static_cast<long long>(s.runs);
  if (n < min_runs || n < 2) return false;
  return s.ci95 <= ci_target * s.mean;
}

bool StopRule::done(const Summary& s) const { return static_cast<long long>(s.runs) >= max_runs || met(s); }

}  // namespace collsim
