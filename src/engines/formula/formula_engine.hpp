// The formula engine: the closed-form predictions of the registry (src/registry/<operation>.cpp,
// models/textbook_formulas.hpp), run like an engine, one RunSpec in, one time out (no messages, no data).
//
// Its costs come from one of three places: the parameters a calibration wrote (per-algorithm
// alpha and beta, gamma(p); experiment/calibration), a point-to-point model given directly
// (Hockney, two-level, LogGP), or a platform through its two-level Hockney. For the last two,
// gamma(p) is measured by running the gamma experiment in the model engine under that very model
// (costs_from_model), so formula and model engine describe the same machine.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engines/engine.hpp"
#include "engines/model/model_engine.hpp"
#include "engines/run.hpp"
#include "models/formula.hpp"
#include "models/prediction_interval.hpp"

namespace collsim {

struct FormulaConfig {
  enum class Kind { textbook, derived };
  Kind kind = Kind::derived;
  models::FormulaCosts costs;
  // Calibrated (alpha, beta) by algorithm name, used instead of costs.hockney for that algorithm.
  std::map<std::string, models::Hockney, std::less<>> per_algorithm;
  // Non-empty: only the algorithms of per_algorithm have costs, and this names where their fits
  // come from (a parameters file). costs.hockney would be a guess for the others: they are refused.
  std::string fits_from;
  // Derived formulas: the uncertainty of each algorithm's fit, by name; a prediction of an
  // algorithm with one carries its interval (RunResult::interval, models/prediction_interval.hpp).
  std::map<std::string, models::FitUncertainty, std::less<>> uncertainty;
  // Calibrated per protocol regime: an algorithm's regimes above its per_algorithm (alpha, beta),
  // used instead of costs.regimes for it, and their fits' uncertainty (regime k at [k - 1]). A
  // prediction's interval is that of the highest regime its messages reach.
  std::map<std::string, std::vector<models::Regime>, std::less<>> per_algorithm_regimes;
  std::map<std::string, std::vector<std::optional<models::FitUncertainty>>, std::less<>> regime_uncertainty;
};

// Whether `config` has costs for `algorithm` (always, unless only fits count: fits_from).
bool has_fit(const FormulaConfig& config, const AlgorithmInfo& algorithm);
// The refusal of predictions without a fit: `source` has none for the algorithms `names`, and the
// command that calibrates them. One line.
std::string missing_fits(const std::string& source, const std::vector<std::string>& names);

// "textbook" or "derived".
const char* to_string(FormulaConfig::Kind kind);
// The engine of a kind of formula (formula-textbook, formula-derived), and back.
Engine formula_engine(FormulaConfig::Kind kind);
FormulaConfig::Kind formula_kind(Engine formula);

// The prediction for one call, with its interval when the config has its fit's uncertainty (a
// derived formula from a parameters file that records it). Throws InputError when the algorithm
// has no formula of that kind (textbook formulas exist only where the literature has one), no fit
// (has_fit), or when the formula gives a negative or non-finite time under these costs (one line
// naming the call and the costs).
RunResult run_formula(const FormulaConfig& config, const RunSpec& spec);

// gamma(p) for p = 2..max_procs, from the model engine: the root's time for a basic_linear
// broadcast of `segment` bytes to p-1 ranks, over the time for p = 2 (the seed's experiment, which
// the model engine answers exactly in one run). Each p is run when a formula first reads it.
models::Gamma gamma_in_model(const ModelConfig& model, int max_procs, std::size_t segment);

// The formula costs that describe the model engine's machine: its Hockney (two-level: the pair
// between nodes; LogGP: alpha = 2o + L - G, beta = G, the time of one message), gamma(p) from
// gamma_in_model, and serial receives under one port and under LogGP (whose receiver handles one
// message at a time).
models::FormulaCosts costs_from_model(const ModelConfig& model, int max_procs, std::size_t segment);

}  // namespace collsim
