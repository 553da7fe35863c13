#include "engines/formula/formula_engine.hpp"

#include <algorithm>
#include <cmath>

#include "support/units.hpp"

namespace collsim {

const char* to_string(FormulaConfig::Kind kind) {
  return kind == FormulaConfig::Kind::textbook ? "textbook" : "derived";
}

Engine formula_engine(FormulaConfig::Kind kind) {
  return kind == FormulaConfig::Kind::textbook ? Engine::formula_textbook : Engine::formula_derived;
}

FormulaConfig::Kind formula_kind(Engine formula) {
  return formula == Engine::formula_textbook ? FormulaConfig::Kind::textbook : FormulaConfig::Kind::derived;
}

bool has_fit(const FormulaConfig& config, const AlgorithmInfo& algorithm) {
  return config.fits_from.empty() || config.per_algorithm.count(algorithm.name) > 0;
}

std::string missing_fits(const std::string& source, const std::vector<std::string>& names) {
  std::string list, ops;
  for (const std::string& n : names) {
    list += (list.empty() ? "" : ", ") + n;
    ops += (ops.empty() ? "" : ",") + n;
  }
  return source + " has no fit for " + list + " (collsim calibrate --ops " + ops + " ... writes " +
         (names.size() == 1 ? "one" : "them") + ")";
}

RunResult run_formula(const FormulaConfig& config, const RunSpec& spec) {
  const AlgorithmInfo& a = *spec.algorithm;
  const models::Formula f = config.kind == FormulaConfig::Kind::textbook ? a.textbook : a.derived;
  if (!f) {
    std::string have;
    for (const auto& other : all_algorithms())
      if ((config.kind == FormulaConfig::Kind::textbook ? other.textbook : other.derived) != nullptr)
        have += (have.empty() ? "" : ", ") + std::string(other.name);
    throw InputError(std::string(a.name) + " has no " + to_string(config.kind) + " formula (" + to_string(config.kind) +
                     " formulas: " + have + ")");
  }
  if (!has_fit(config, a)) throw InputError(missing_fits(config.fits_from, {std::string(a.name)}));
  models::FormulaInput in{spec.procs, spec.bytes, spec.params, config.costs};
  if (auto it = config.per_algorithm.find(a.name); it != config.per_algorithm.end()) in.costs.hockney = it->second;
  if (auto it = config.per_algorithm_regimes.find(a.name); it != config.per_algorithm_regimes.end())
    in.costs.regimes = it->second;
  RunResult r;
  r.time_s = f(in);
  // Parameters a formula's shape cannot hold (a hand-written file, a fit out of its grid) may
  // give no time at all: an error naming them, never a clamped number.
  if (!is_time(r.time_s)) {
    std::string costs = "alpha " + format_real(in.costs.hockney.alpha) + " s, beta " +
                        format_real(in.costs.hockney.beta) + " s/B, gamma(" + std::to_string(spec.procs) +
                        ") = " + format_real(in.costs.gamma(spec.procs));
    if (in.costs.reduce_gamma > 0) costs += ", reduce_gamma " + format_real(in.costs.reduce_gamma) + " s/B";
    throw InputError(std::string(engine_name(formula_engine(config.kind))) + ": " + describe(spec) + " gives " +
                     (std::isnan(r.time_s) ? std::string("NaN") : format_real(r.time_s) + " s") +
                     ", not a time, from " + costs + " (" +
                     (config.fits_from.empty() ? std::string("the model's costs") : config.fits_from) +
                     "): these parameters do not describe this call");
  }
  if (config.kind == FormulaConfig::Kind::derived) {
    // The uncertainty of the regime of the call's largest messages (with one regime: the fit's).
    const std::size_t k = models::top_regime(f, in);
    std::optional<models::FitUncertainty> u;
    if (k == 0) {
      if (auto it = config.uncertainty.find(a.name); it != config.uncertainty.end()) u = it->second;
    } else if (auto it = config.regime_uncertainty.find(a.name);
               it != config.regime_uncertainty.end() && k - 1 < it->second.size()) {
      u = it->second[k - 1];
    }
    if (u) {
      const auto [x1, x2] = models::alpha_beta_coefficients(f, in, k);
      r.interval = models::prediction_interval(*u, r.time_s, x1, x2);
    }
  }
  return r;
}

models::Gamma gamma_in_model(const ModelConfig& model, int max_procs, std::size_t segment) {
  RunSpec spec;
  spec.algorithm = find_algorithm("bcast/basic_linear");
  spec.bytes = std::max<std::size_t>(segment, 1);
  spec.real_bytes = false;
  return models::Gamma(max_procs, [model, spec](int p) mutable {
    spec.procs = p;
    return run_model(model, spec).finish_s[0];
  });
}

models::FormulaCosts costs_from_model(const ModelConfig& model, int max_procs, std::size_t segment) {
  models::FormulaCosts c;
  switch (model.kind) {
    case ModelConfig::Kind::hockney: c.hockney = model.hockney; break;
    case ModelConfig::Kind::two_level: c.hockney = model.two_level.inter; break;
    case ModelConfig::Kind::loggp:
      c.hockney = {2 * model.loggp.o + model.loggp.L - model.loggp.G, model.loggp.G};
      break;
  }
  c.gamma = gamma_in_model(model, max_procs, segment);
  c.serial_receive = model.one_port || model.kind == ModelConfig::Kind::loggp;
  c.reduce_gamma = model.reduce_gamma;
  return c;
}

}  // namespace collsim
