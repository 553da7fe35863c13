#include "selection/model_selection.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "support/input_error.hpp"

namespace collsim::selection {

std::vector<Candidate> default_candidates(Operation op, std::span<const std::size_t> segments, Reduction reduction) {
  std::vector<Candidate> out;
  for (const AlgorithmInfo& a : all_algorithms()) {
    if (a.op != op) continue;
    Candidate c{&a, AlgorithmParams{}};
    c.params.reduction = reduction;
    if (!a.takes(Knob::segment)) {
      out.push_back(c);
      continue;
    }
    for (const std::size_t s : segments) {
      c.params.segment = s;
      out.push_back(c);
    }
  }
  return out;
}

Choice select_by_model(Operation op, int procs, std::size_t bytes, const Predictor& predict,
                       std::span<const Candidate> candidates) {
  const Candidate* best = nullptr;
  double best_time = 0;
  for (const Candidate& c : candidates) {
    if (c.algorithm == nullptr || c.algorithm->op != op || !runs_on(*c.algorithm, procs)) continue;
    const double t = predict(*c.algorithm, c.params, procs, bytes);
    if (!std::isfinite(t)) continue;
    // Strictly smaller: the first of equal predictions stays.
    if (best == nullptr || t < best_time) {
      best = &c;
      best_time = t;
    }
  }
  if (best == nullptr)
    throw InputError("no " + std::string(to_string(op)) + " candidate has a prediction for " + std::to_string(procs) +
                     " processes and " + std::to_string(bytes) + " bytes");
  return Choice{best->algorithm, best->params};
}

Predictor formula_predictor(models::FormulaCosts costs, FormulaKind kind) {
  // One input kept in the predictor and updated per call: a fresh FormulaInput would copy the
  // gamma values (a vector) at every prediction.
  models::FormulaInput in;
  in.costs = std::move(costs);
  return [in, kind](const AlgorithmInfo& a, const AlgorithmParams& params, int procs, std::size_t bytes) mutable {
    const models::Formula f = kind == FormulaKind::derived ? a.derived : a.textbook;
    if (f == nullptr) return std::numeric_limits<double>::quiet_NaN();
    in.procs = procs;
    in.bytes = bytes;
    in.params = params;
    return f(in);
  };
}

}  // namespace collsim::selection
