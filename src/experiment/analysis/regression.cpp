#include "experiment/analysis/regression.hpp"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

namespace collsim {

const char* to_string(FitMethod m) { return m == FitMethod::huber ? "huber" : "least_squares"; }

namespace {

template <class T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using Matrix = std::unique_ptr<gsl_matrix, Deleter<gsl_matrix, gsl_matrix_free>>;
using Vector = std::unique_ptr<gsl_vector, Deleter<gsl_vector, gsl_vector_free>>;

// GSL aborts on errors by default; a bad fit is an exception here.
struct NoAbort {
  gsl_error_handler_t* previous = gsl_set_error_handler_off();
  ~NoAbort() { gsl_set_error_handler(previous); }
};

// The fit of y on the columns of x that `use` keeps (the others' coefficients are 0), each column
// divided by its `scale` and y by sy, with its residuals.
LinearFit2 solve(const std::vector<Observation>& obs, FitMethod method, std::array<double, 2> scale, double sy,
                 std::array<bool, 2> use) {
  const std::size_t n = obs.size();
  const std::size_t p = (use[0] ? 1 : 0) + (use[1] ? 1 : 0);
  LinearFit2 f;
  if (p > 0) {
    NoAbort guard;
    Matrix X(gsl_matrix_alloc(n, p));
    Vector y(gsl_vector_alloc(n)), c(gsl_vector_alloc(p));
    Matrix cov(gsl_matrix_alloc(p, p));
    for (std::size_t i = 0; i < n; ++i) {
      std::size_t j = 0;
      if (use[0]) gsl_matrix_set(X.get(), i, j++, obs[i].x1 / scale[0]);
      if (use[1]) gsl_matrix_set(X.get(), i, j, obs[i].x2 / scale[1]);
      gsl_vector_set(y.get(), i, obs[i].y / sy);
    }
    int status = 0;
    if (method == FitMethod::huber && n > p) {
      std::unique_ptr<gsl_multifit_robust_workspace, Deleter<gsl_multifit_robust_workspace, gsl_multifit_robust_free>>
          w(gsl_multifit_robust_alloc(gsl_multifit_robust_huber, n, p));
      gsl_multifit_robust_tune(1.35, w.get());
      status = gsl_multifit_robust(X.get(), y.get(), c.get(), cov.get(), w.get());
      // GSL_EMAXITER still leaves the last iterate, a usable estimate; anything else is a failure.
      if (status == GSL_EMAXITER) status = 0;
    } else {
      std::unique_ptr<gsl_multifit_linear_workspace, Deleter<gsl_multifit_linear_workspace, gsl_multifit_linear_free>>
          w(gsl_multifit_linear_alloc(n, p));
      double chisq = 0;
      status = gsl_multifit_linear(X.get(), y.get(), c.get(), cov.get(), &chisq, w.get());
    }
    if (status) throw std::invalid_argument(std::string("the fit failed: ") + gsl_strerror(status));
    std::size_t j = 0;
    if (use[0]) f.c1 = gsl_vector_get(c.get(), j++) * sy / scale[0];
    if (use[1]) f.c2 = gsl_vector_get(c.get(), j) * sy / scale[1];
  }
  double sq = 0;
  for (const auto& o : obs) {
    const double r = o.y - (f.c1 * o.x1 + f.c2 * o.x2);
    sq += r * r;
    if (o.y != 0) f.max_rel_residual = std::max(f.max_rel_residual, std::abs(r / o.y));
  }
  f.rms_residual = std::sqrt(sq / static_cast<double>(n));
  return f;
}

}  // namespace

LinearFit2 fit_through_origin(const std::vector<Observation>& obs, FitMethod method) {
  const std::size_t n = obs.size();
  if (n < 2)
    throw std::invalid_argument("a fit of two parameters needs at least two experiments, not " + std::to_string(n));
  // Columns scaled to comparable magnitudes (counts of messages vs bytes) for a well-conditioned fit.
  double s1 = 0, s2 = 0, sy = 0;
  for (const auto& o : obs) {
    s1 = std::max(s1, std::abs(o.x1));
    s2 = std::max(s2, std::abs(o.x2));
    sy = std::max(sy, std::abs(o.y));
  }
  if (s1 == 0 || s2 == 0 || sy == 0) throw std::invalid_argument("the experiments do not vary both terms of the model");
  // x2 proportional to x1 (every segmented experiment costs a multiple of alpha + beta*m_s) leaves
  // alpha and beta unidentifiable: any pair on one line fits.
  const double ratio = obs[0].x2 / obs[0].x1;
  if (std::all_of(obs.begin(), obs.end(),
                  [&](const Observation& o) { return std::abs(o.x2 - ratio * o.x1) <= 1e-9 * std::abs(o.x2); }))
    throw std::invalid_argument(
        "the experiments cannot tell alpha from beta (every one costs a multiple of the same alpha + beta*m): "
        "add message sizes below the segment size");
  return solve(obs, method, {s1, s2}, sy, {true, true});
}

LinearFit2 fit_through_origin_nonnegative(const std::vector<Observation>& obs, FitMethod method) {
  const LinearFit2 free = fit_through_origin(obs, method);
  if (free.c1 >= 0 && free.c2 >= 0) return free;
  // The best fit with both coefficients >= 0 then has one of them 0 (the optimum of a convex
  // loss over the quadrant lies on its boundary when the free one is outside): the better of the
  // two one-term fits, a term that comes out negative itself dropped too.
  double s1 = 0, s2 = 0, sy = 0;
  for (const auto& o : obs) {
    s1 = std::max(s1, std::abs(o.x1));
    s2 = std::max(s2, std::abs(o.x2));
    sy = std::max(sy, std::abs(o.y));
  }
  LinearFit2 best;
  bool have = false;
  for (const std::array<bool, 2> use : {std::array<bool, 2>{true, false}, std::array<bool, 2>{false, true}}) {
    LinearFit2 f = solve(obs, method, {s1, s2}, sy, use);
    if (f.c1 < 0 || f.c2 < 0) f = solve(obs, method, {s1, s2}, sy, {false, false});
    if (!have || f.rms_residual < best.rms_residual) best = f;
    have = true;
  }
  return best;
}

LinearFit2 fit_line_nonnegative(const std::vector<double>& x, const std::vector<double>& y, FitMethod method) {
  std::vector<Observation> obs;
  for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) obs.push_back({1, x[i], y[i]});
  return fit_through_origin_nonnegative(obs, method);
}

std::vector<double> fit_nondecreasing(const std::vector<double>& y, const std::vector<double>& w, double floor) {
  if (y.size() != w.size()) throw std::invalid_argument("isotonic regression: as many weights as values are needed");
  struct Block {
    double mean, weight;
    std::size_t count;
  };
  std::vector<Block> blocks;
  for (std::size_t i = 0; i < y.size(); ++i) {
    if (!(w[i] > 0)) throw std::invalid_argument("isotonic regression: weights must be positive");
    blocks.push_back({y[i], w[i], 1});
    // Pooling may make the new block lower than the one before it: pool again.
    while (blocks.size() >= 2 && blocks[blocks.size() - 2].mean > blocks.back().mean) {
      const Block last = blocks.back();
      blocks.pop_back();
      Block& b = blocks.back();
      b.mean = (b.mean * b.weight + last.mean * last.weight) / (b.weight + last.weight);
      b.weight += last.weight;
      b.count += last.count;
    }
  }
  std::vector<double> g;
  g.reserve(y.size());
  for (const Block& b : blocks) g.insert(g.end(), b.count, std::max(b.mean, floor));
  return g;
}

std::optional<models::FitUncertainty> fit_uncertainty(const std::vector<Observation>& obs, double c1, double c2) {
  const double c[2] = {c1, c2};
  const std::size_t n = obs.size();
  // The free columns, each scaled by its largest value for a well-conditioned inverse.
  std::vector<std::size_t> free;
  std::array<double, 2> scale{0, 0};
  for (std::size_t j = 0; j < 2; ++j) {
    for (const Observation& o : obs) scale[j] = std::max(scale[j], std::abs(j == 0 ? o.x1 : o.x2));
    if (c[j] != 0 && scale[j] > 0) free.push_back(j);
  }
  const std::size_t k = free.size();
  if (k == 0 || n <= k) return std::nullopt;
  // The relative scatter, log(y / fit), is undefined where either is not positive.
  std::vector<double> fit(n);
  for (std::size_t i = 0; i < n; ++i) {
    fit[i] = c1 * obs[i].x1 + c2 * obs[i].x2;
    if (!(fit[i] > 0) || !(obs[i].y > 0)) return std::nullopt;
  }
  models::FitUncertainty u;
  u.dof = static_cast<int>(n - k);
  auto x = [&](std::size_t i, std::size_t col) { return (free[col] == 0 ? obs[i].x1 : obs[i].x2) / scale[free[col]]; };
  // A = (X'X)^-1: GSL's weighted least squares with unit weights returns exactly that as its
  // covariance (gsl_multifit_wlinear: cov = (X'WX)^-1).
  NoAbort guard;
  Matrix X(gsl_matrix_alloc(n, k)), A(gsl_matrix_alloc(k, k));
  Vector w(gsl_vector_alloc(n)), y(gsl_vector_alloc(n)), coef(gsl_vector_alloc(k));
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t col = 0; col < k; ++col) gsl_matrix_set(X.get(), i, col, x(i, col));
    gsl_vector_set(w.get(), i, 1);
    gsl_vector_set(y.get(), i, obs[i].y);
  }
  std::unique_ptr<gsl_multifit_linear_workspace, Deleter<gsl_multifit_linear_workspace, gsl_multifit_linear_free>> ws(
      gsl_multifit_linear_alloc(n, k));
  double chisq = 0;
  if (gsl_multifit_wlinear(X.get(), w.get(), y.get(), coef.get(), A.get(), &chisq, ws.get())) return std::nullopt;
  // s from the residuals of the weighted refit (weights 1 / fit_i^2, the efficient fit under
  // relative noise), not the fit's own: a fit on T is off at small T by its own error there, and
  // n - k degrees of freedom would not correct for it (3.5x the variance on the test's grid).
  Matrix B(gsl_matrix_alloc(k, k));
  for (std::size_t i = 0; i < n; ++i) gsl_vector_set(w.get(), i, 1 / (fit[i] * fit[i]));
  if (gsl_multifit_wlinear(X.get(), w.get(), y.get(), coef.get(), B.get(), &chisq, ws.get())) return std::nullopt;
  double refit_squares = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double refit = 0;
    for (std::size_t col = 0; col < k; ++col) refit += x(i, col) * gsl_vector_get(coef.get(), col);
    if (!(refit > 0)) return std::nullopt;
    const double r = std::log(obs[i].y / refit);
    refit_squares += r * r;
  }
  u.log_sd = std::sqrt(refit_squares / u.dof);
  // M = X' diag((s fit_i)^2) X, then the sandwich A M A.
  double M[2][2] = {{0, 0}, {0, 0}};
  for (std::size_t i = 0; i < n; ++i) {
    const double v = u.log_sd * u.log_sd * fit[i] * fit[i];
    for (std::size_t a = 0; a < k; ++a)
      for (std::size_t b = 0; b < k; ++b) M[a][b] += v * x(i, a) * x(i, b);
  }
  double C[2][2] = {{0, 0}, {0, 0}};
  for (std::size_t a = 0; a < k; ++a)
    for (std::size_t b = 0; b < k; ++b)
      for (std::size_t p = 0; p < k; ++p)
        for (std::size_t q = 0; q < k; ++q)
          C[a][b] += gsl_matrix_get(A.get(), a, p) * M[p][q] * gsl_matrix_get(A.get(), q, b);
  // Back to the unscaled coefficients, in the full (alpha, beta) layout.
  double full[2][2] = {{0, 0}, {0, 0}};
  for (std::size_t a = 0; a < k; ++a)
    for (std::size_t b = 0; b < k; ++b) full[free[a]][free[b]] = C[a][b] / (scale[free[a]] * scale[free[b]]);
  u.var_alpha = full[0][0];
  u.cov_alpha_beta = full[0][1];
  u.var_beta = full[1][1];
  return u;
}

}  // namespace collsim
