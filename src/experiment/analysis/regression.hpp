// The calibration's regressions. Linear regression through the origin: y = c1*x1 + c2*x2, fitted
// by GSL's robust regression (Huber weights, gsl_multifit_robust) or by ordinary least squares
// (gsl_multifit_linear). Every experiment of the seed's Section V is one such equation in alpha
// and beta, with x1 and x2 the coefficients of alpha and beta in the algorithm's model. And the
// isotonic regression that keeps gamma(p) non-decreasing.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "models/prediction_interval.hpp"

namespace collsim {

enum class FitMethod { huber, least_squares };
const char* to_string(FitMethod m);

struct Observation {
  double x1, x2, y;
};

struct LinearFit2 {
  double c1 = 0, c2 = 0;
  double rms_residual = 0;      // of y - fit, in y's unit
  double max_rel_residual = 0;  // largest |y - fit| / y
};

// Huber's tuning constant 1.35, as the seed's authors used (scikit-learn's HuberRegressor
// epsilon). Throws std::invalid_argument with fewer than two observations or a degenerate design.
LinearFit2 fit_through_origin(const std::vector<Observation>& obs, FitMethod method);

// The same with c1 >= 0 and c2 >= 0, for coefficients that cannot be negative (a latency, a time per
// byte): the free fit when it is inside, else the better of the fits with one coefficient 0.
LinearFit2 fit_through_origin_nonnegative(const std::vector<Observation>& obs, FitMethod method);

// What the prediction intervals of the fit y = c1*x1 + c2*x2 need (models/prediction_interval.hpp
// has the model): the scale of log(y / fit) (from the refit weighted by 1 / fit^2) and the
// covariance of (c1, c2) of the least-squares estimator under that relative noise. A coefficient of exactly 0, or whose
// column is 0 in every observation, is taken as pinned (a bound of the constrained fit, or no term): no variance.
// nullopt when the observations leave no degree of freedom or an observation or its fit is not positive (no relative
// scatter to speak of). Uses GSL for (X'X)^-1.
std::optional<models::FitUncertainty> fit_uncertainty(const std::vector<Observation>& obs, double c1, double c2);

// y = c1 + c2*x with c1 >= 0 and c2 >= 0: fit_through_origin_nonnegative with x1 = 1.
LinearFit2 fit_line_nonnegative(const std::vector<double>& x, const std::vector<double>& y, FitMethod method);

// The non-decreasing sequence nearest to `y` in weighted least squares, sum w[i]*(g[i] - y[i])^2
// (isotonic regression by pooling adjacent violators: a run that decreases is replaced by its
// weighted mean, until none does), then raised to `floor` where it is below: with a constant
// lower bound the bounded fit is the unbounded one clipped (Robertson, Wright and Dykstra, Order
// Restricted Statistical Inference, 1988). Throws std::invalid_argument unless y and w have the
// same size and every weight is positive.
std::vector<double> fit_nondecreasing(const std::vector<double>& y, const std::vector<double>& w, double floor);

}  // namespace collsim
