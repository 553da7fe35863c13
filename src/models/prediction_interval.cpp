#include "models/prediction_interval.hpp"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>

namespace collsim::models {

double prediction_quantile(int dof) {
  return boost::math::quantile(boost::math::students_t(dof), 0.5 + kPredictionLevel / 2);
}

std::optional<TimeInterval> prediction_interval(const FitUncertainty& u, double t0, double x1, double x2) {
  if (u.dof < 1 || !std::isfinite(t0) || !(t0 > 0)) return std::nullopt;
  const double parameters = x1 * x1 * u.var_alpha + 2 * x1 * x2 * u.cov_alpha_beta + x2 * x2 * u.var_beta;
  // A covariance read from a file is positive semi-definite to its rounding: a negative sum is 0.
  const double spread = std::sqrt(u.log_sd * u.log_sd + std::max(parameters, 0.0) / (t0 * t0));
  const double factor = std::exp(prediction_quantile(u.dof) * spread);
  if (!std::isfinite(factor)) return std::nullopt;
  return TimeInterval{t0 / factor, t0 * factor};
}

std::array<double, 2> alpha_beta_coefficients(Formula formula, const FormulaInput& in, std::size_t regime) {
  auto at = [&](double alpha, double beta, double reduce_gamma) {
    FormulaInput x = in;
    x.costs.regime_costs(regime) = {alpha, beta};
    x.costs.reduce_gamma = reduce_gamma;
    return formula(x);
  };
  const Hockney& own = in.costs.regime_costs(regime);
  const double alpha = own.alpha, beta = own.beta, rg = in.costs.reduce_gamma;
  if (rg <= 0 || alpha <= 0 || beta <= 0) {
    // The other regimes' part (0 with one regime, which keeps today's numbers exactly).
    const double rest = in.costs.regimes.empty() ? 0 : at(0, 0, 0);
    return {at(1, 0, 0) - rest, at(0, 1, 0) - rest};
  }
  constexpr double h = 1e-7;  // the calibration's step
  const double t = at(alpha, beta, rg);
  return {(at(alpha * (1 + h), beta, rg) - t) / (alpha * h), (at(alpha, beta * (1 + h), rg) - t) / (beta * h)};
}

}  // namespace collsim::models
