#include "models/formula.hpp"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <stdexcept>

namespace collsim::models {

struct Gamma::Measured {
  Experiment experiment;
  std::mutex lock;            // copies of one Gamma may be read from several threads
  std::vector<double> times;  // experiment(i + 2), NaN until measured
};

Gamma::Gamma(std::vector<double> values) : values_(std::move(values)) {
  if (values_.empty()) return;
  const double two = values_.front();
  if (!(two > 0)) throw std::invalid_argument("gamma(2) must be positive");
  for (double& v : values_) v /= two;
}

Gamma::Gamma(std::vector<double> values, double intercept, double slope) : Gamma(std::move(values)) {
  fitted_tail_ = true;
  intercept_ = intercept;
  slope_ = slope;
}

Gamma::Gamma(int max_procs, Experiment experiment) : measured_(std::make_shared<Measured>()) {
  measured_->experiment = std::move(experiment);
  measured_->times.assign(static_cast<std::size_t>(std::max(max_procs, 2) - 1), std::nan(""));
  if (!(value(0) > 0)) throw std::invalid_argument("gamma(2) must be positive");
}

std::size_t Gamma::size() const { return measured_ ? measured_->times.size() : values_.size(); }

double Gamma::value(std::size_t i) const {
  if (!measured_) return values_[i];
  Measured& m = *measured_;
  const std::scoped_lock hold(m.lock);
  for (const std::size_t k : {std::size_t{0}, i})
    if (std::isnan(m.times[k])) m.times[k] = m.experiment(static_cast<int>(k + 2));
  // As Gamma(values) divides the table: the same quotient, hence the same value.
  return m.times[i] / m.times[0];
}

double Gamma::operator()(int p) const {
  if (p <= 1) return 0;
  const std::size_t n = size();
  if (n == 0) return 1;
  const auto i = static_cast<std::size_t>(p - 2);
  if (i < n) return value(i);
  if (fitted_tail_) return intercept_ + slope_ * p;
  if (n == 1) return value(0);
  const double last = value(n - 1), slope = last - value(n - 2);
  return last + slope * static_cast<double>(i - (n - 1));
}

std::size_t FormulaCosts::regime_of(double bytes) const {
  for (std::size_t k = regimes.size(); k > 0; --k)
    if (bytes >= static_cast<double>(regimes[k - 1].from)) return k;
  return 0;
}

std::vector<bool> regimes_used(Formula formula, const FormulaInput& in) {
  std::vector<bool> used(in.costs.regimes.size() + 1, false);
  FormulaInput probe = in;
  probe.costs.reduce_gamma = 0;
  for (Regime& r : probe.costs.regimes) r.handshake_messages = 0, r.handshake_bytes = 0;
  if (probe.costs.intra) probe.costs.intra = Hockney{0, 0};  // messages inside a node are in no regime
  for (std::size_t k = 0; k < used.size(); ++k) {
    for (std::size_t j = 0; j < used.size(); ++j) probe.costs.regime_costs(j) = j == k ? Hockney{1, 1} : Hockney{0, 0};
    used[k] = formula(probe) > 0;
  }
  return used;
}

std::size_t top_regime(Formula formula, const FormulaInput& in) {
  if (in.costs.regimes.empty()) return 0;
  const std::vector<bool> used = regimes_used(formula, in);
  for (std::size_t k = used.size(); k > 0; --k)
    if (used[k - 1]) return k - 1;
  return 0;
}

}  // namespace collsim::models
