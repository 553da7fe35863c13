#include "models/ring_paths.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <vector>

namespace collsim::models {

double ring_longest_path(std::span<const double> start, std::span<const double> cost, std::size_t n) {
  const std::size_t P = cost.size();
  if (start.size() != P || n == 0 || n >= P) throw std::invalid_argument("ring_longest_path: needs 0 < n < P");
  // The diagonals twice over, so that e, e-1, ..., e-k is one range [e+P-k, e+P].
  auto c = [&](std::size_t i) { return cost[i % P]; };
  std::vector<long double> sum(2 * P + 1, 0);  // sum[i]: c(0) + ... + c(i-1)
  for (std::size_t i = 0; i < 2 * P; ++i) sum[i + 1] = sum[i] + c(i);

  // below[d]: how far down from d the first dearer diagonal is (0: none is).
  std::vector<std::size_t> below(P, 0), stack;
  for (std::size_t i = 0; i < 2 * P; ++i) {
    while (!stack.empty() && c(stack.back()) <= c(i)) stack.pop_back();
    if (i >= P && !stack.empty()) below[i - P] = i - stack.back();
    stack.push_back(i);
  }

  long double best = -std::numeric_limits<long double>::infinity();
  for (std::size_t e = 0; e < P; ++e) {
    std::size_t k = 0, at = e;
    while (true) {
      const long double charged = sum[e + P + 1] - sum[e + P - k];
      best = std::max(best, start[e] + charged + static_cast<long double>(n - 1 - k) * cost[at]);
      if (below[at] == 0 || k + below[at] > n - 1) break;
      k += below[at];
      at = (e + P - k) % P;
    }
  }
  return static_cast<double>(best);
}

}  // namespace collsim::models
