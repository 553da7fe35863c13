#include "models/formula.hpp"

#include <stdexcept>

namespace collsim::models {

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

double Gamma::operator()(int p) const {
  if (p <= 1) return 0;
  if (values_.empty()) return 1;
  const auto i = static_cast<std::size_t>(p - 2);
  if (i < values_.size()) return values_[i];
  if (fitted_tail_) return intercept_ + slope_ * p;
  if (values_.size() == 1) return values_.back();
  const double last = values_.back(), slope = last - values_[values_.size() - 2];
  return last + slope * static_cast<double>(i - (values_.size() - 1));
}

}  // namespace collsim::models
