// The prediction interval of a calibrated formula: the range in which the time of a call lies, at
// kPredictionLevel, given how one algorithm's calibration experiments scattered around its fit and
// how well they pinned down its alpha and beta. The calibration computes what the interval needs
// (FitUncertainty, experiment/analysis/regression.hpp), the parameters file stores it, and the
// formula engine gives every derived prediction its interval (engines/formula/formula_engine.hpp).
//
// The statistical model. A calibration fits T = alpha*x1 + beta*x2 over one algorithm's
// experiments (x1, x2 the formula's coefficients of alpha and beta at each one). Their scatter is
// relative, not absolute: a 100 ms run misses its formula by milliseconds where a 50 us one misses
// by microseconds, so a single absolute residual scale would give bands far too wide for small
// messages and too narrow for large ones. The noise is therefore taken as multiplicative,
// T = (alpha*x1 + beta*x2) * exp(e), e of mean 0 and deviation sigma, and the interval is built on
// log T (rather than by weighting the fit by 1/T, which would change the fit itself; the fit is
// the calibration's, whatever its estimator):
//  - sigma is estimated by s, the root mean square of log(T_i / refit_i) over the n experiments
//    with n - k degrees of freedom (k the parameters the fit left free), refit the fit weighted by
//    1 / fit_i^2, which is efficient under this noise (the fit's own residuals on T overstate the
//    scatter at small T, by its error there);
//  - C, the covariance of (alpha, beta), is that of least squares on T under that noise,
//    Var(T_i) = (s * fit_i)^2: the sandwich (X'X)^-1 X' diag((s fit_i)^2) X (X'X)^-1. It is exact
//    for `calibrate --method least_squares`; Huber's fit (the default) downweights the largest
//    times, is the more precise, and its interval errs wide (tests/experiment/prediction_interval_
//    test.cpp measures 0.968 inside the grid and 0.996 at an extrapolated P for 95%, against
//    0.958 and 0.957 under least squares). A parameter the constrained fit pinned to its bound
//    (0) is no estimate and has no variance; the free one's is that of the one-parameter fit;
//  - at a call with coefficients x0 and prediction T0 = x0'(alpha, beta), log T0 has a variance of
//    about x0'C x0 / T0^2 (the delta method), so log T - log T0 has s^2 + x0'C x0 / T0^2, and the
//    interval is T0 * exp(-/+ t * sqrt(s^2 + x0'C x0 / T0^2)), t Student's two-sided quantile at
//    the level with n - k degrees of freedom.
// On the log scale the interval never reaches 0 (no time below 0 leaves the engine) and is wider
// above T0 than below it, as measured times are. Away from the experiments (an extrapolated P or
// size, where x0 points along a direction the experiments did not sample) x0'C x0 / T0^2 grows,
// and the band with it. Not in it: the uncertainty of gamma(p) and of a reduction's gamma (fitted
// apart and held fixed), and a formula whose shape is wrong where no experiment looked.
#pragma once

#include <array>
#include <optional>

#include "models/formula.hpp"

namespace collsim::models {

// The level of every prediction interval: 95%, the level of the measured engines' confidence
// intervals (ci95_s, support/statistics.hpp), so that a formula's band and a measurement's
// interval are read alike; it is also what a reader assumes of an unlabelled error bar.
inline constexpr double kPredictionLevel = 0.95;

// What a fit leaves for its prediction intervals (the model above).
struct FitUncertainty {
  double log_sd = 0;                                       // s: root mean square of log(T_i / fit_i)
  double var_alpha = 0, cov_alpha_beta = 0, var_beta = 0;  // C, in s^2, s^2/B and s^2/B^2
  int dof = 0;                                             // experiments less free parameters, >= 1
};

struct TimeInterval {
  double low_s = 0, high_s = 0;
};

// Student's t quantile of a two-sided interval at kPredictionLevel, `dof` >= 1 degrees of freedom.
double prediction_quantile(int dof);

// The interval around the prediction `t0` at coefficients (x1, x2); nullopt when there is none to
// give (t0 not a positive finite time, or u.dof < 1).
std::optional<TimeInterval> prediction_interval(const FitUncertainty& u, double t0, double x1, double x2);

// The coefficients (x1, x2) of regime k's alpha and beta (0: costs.hockney; FormulaCosts) in `formula`
// at the call `in`, every other cost held, as the calibration reads them off it
// (experiment/analysis/calibration.cpp, equation()): without a reduction to charge, the formula at
// regime k's (alpha, beta) = (1, 0) and (0, 1) less the formula at (0, 0); with one, and both of
// regime k's costs positive, its slopes at regime k's (alpha, beta), where the terms that win its
// maxima are those of the call.
std::array<double, 2> alpha_beta_coefficients(Formula formula, const FormulaInput& in, std::size_t regime = 0);

}  // namespace collsim::models
