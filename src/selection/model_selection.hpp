// Model-based selection: the candidate with the smallest predicted time.
//
// The prediction is a plug-in (Predictor): the caller brings a cost model, typically the formula
// engine with parameters calibrated per algorithm; formula_predictor() is the plain one, a
// registry formula under one set of costs. Evaluating every candidate's model costs far more than
// an MPI library may spend per call, so a library would run a DecisionTable built from this
// selector (decision_table.hpp) instead; tools/bench/decision_cost measures both.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include "models/formula.hpp"
#include "selection/decision.hpp"

namespace collsim::selection {

// Predicted seconds of one call of `algorithm` with `params` on `procs` processes and `bytes`
// (bcast: the message; gather: each process's block). NaN or infinity: no prediction, the
// candidate is passed over.
using Predictor = std::function<double(const AlgorithmInfo&, const AlgorithmParams&, int procs, std::size_t bytes)>;

struct Candidate {
  const AlgorithmInfo* algorithm = nullptr;
  AlgorithmParams params;
};

// The segment sizes tried for algorithms that take one: Open MPI's own choices (3.1's fixed
// decision uses 1, 8, 16, 64 and 128 KiB) and unsegmented.
inline constexpr std::size_t kDefaultSegments[] = {0, 1024, 8192, 16384, 65536, 131072};

// Every registered algorithm of `op`, once per segment size if it takes a segment, with the
// default fanout and radix.
std::vector<Candidate> default_candidates(Operation op, std::span<const std::size_t> segments = kDefaultSegments);

// The candidate of operation `op` (others in the list, and those that do not run on `procs`, are
// skipped) with the smallest prediction; on a tie the first of them. Throws InputError when no
// candidate of `op` has a prediction.
Choice select_by_model(Operation op, int procs, std::size_t bytes, const Predictor& predict,
                       std::span<const Candidate> candidates);

// Which of an algorithm's registry formulas a formula_predictor evaluates.
enum class FormulaKind { derived, textbook };

// A Predictor that evaluates the registry's formula of each algorithm (models/formulas.hpp)
// under `costs`. An algorithm without that formula (textbook: the literature has none) gets no
// prediction. The derived formulas follow the implementation message by message, so their cost
// grows with processes and segments; the textbook ones are closed forms. A copy of the returned
// Predictor is for one thread at a time (it reuses one formula input between calls).
Predictor formula_predictor(models::FormulaCosts costs, FormulaKind kind = FormulaKind::derived);

}  // namespace collsim::selection
