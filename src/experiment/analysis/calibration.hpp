// `collsim calibrate`: the seed's estimation of the model parameters (Nuriyev and Lastovetsky,
// Section V), on any engine.
//
// Experiments:
//  - gamma(p): a basic_linear broadcast of one segment to p-1 ranks, p = 2..N, until the last
//    receiver has it (the seed times repetitions separated by barriers); gamma(p) is its time over
//    the time for p = 2, kept as its non-decreasing fit >= 1, and a line is fitted to that for
//    process counts beyond N (fit_gamma);
// and, timed on the root (RunSpec::timed_on_root):
//  - per broadcast algorithm: the broadcast of m bytes in segments of m_s, then a linear gather of
//    m_s bytes from every rank (RunSpec::then_gather), so that the experiment ends on the root;
//  - per gather algorithm: the gather itself (it ends on the root), and likewise for every other
//    rooted operation; the operations without a root are timed to their last rank, a barrier at
//    size 0 (its model is alpha alone), a reducing operation with float sum on sizes that are
//    whole floats;
//  - when a reducing algorithm is calibrated, the local reduction: comm.reduce_local of each size
//    on one rank (the mpi engines: the same arithmetic timed in this process), whose slope is
//    the formulas' reduction gamma, taken out of the reducing experiments before their fits;
//  - the ping-pong: round trips between rank 0 and the first rank of another node, for the
//    textbook models' one (alpha, beta).
// The sim engine times every experiment to its last rank instead, a broadcast without its gather:
// its clock is global, and under tcp's eager hand-over a gather's messages leave while the
// broadcast runs, so the experiment would not be the sum of the two formulas. It also records the
// network's terms the derived formulas read (Parameters: eager_handover, node_ranks,
// fair_sharing).
// With gamma known, the derived model of every experiment is alpha*x1 + beta*x2 (x1, x2 read off
// the registry's derived formula, and the linear gather's, evaluated at (1, 0) and (0, 1)), so the
// experiments of one algorithm over many (P, m) are fitted by robust regression (Huber) or least
// squares. Message sizes should be multiples of the segment, where the formulas are linear in
// alpha and beta (a short last segment adds a max of differently weighted terms), and some below
// it: a segmented algorithm's experiments on multiples alone all cost multiples of
// alpha + beta*m_s, which cannot tell alpha from beta (the fit refuses them). A reducing
// algorithm's model also has the reduction's term, and which of its terms win the maxima depends
// on how alpha and beta compare with the reduction's gamma: its equations are taken at the fit's
// own estimate (the model's slopes there) and refitted until they settle.
// Where the engine's protocol switches (the sim engine: its profile between nodes, eager up to a
// limit, a rendezvous with its handshake above), each regime has its own (alpha, beta), fitted
// from its own experiments (fit_algorithm); the model engine sends every message eager and the mpi
// engines do not say, so they have one regime.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "experiment/analysis/parameters.hpp"
#include "experiment/analysis/regression.hpp"
#include "experiment/scenario/scenario.hpp"

namespace collsim {

// The engines calibrate() runs its experiments on.
inline constexpr std::array<Engine, 4> kCalibrationEngines = {Engine::model, Engine::sim, Engine::mpi,
                                                              Engine::mpi_native};

struct CalibrationSetup {
  Engine engine = Engine::sim;  // one of kCalibrationEngines
  // How to run the engine: its model, sim and mpi settings (engines and operations are ignored).
  Scenario env;
  std::vector<const AlgorithmInfo*> algorithms;  // empty: default_calibration_algorithms(procs)
  std::vector<int> procs;                        // the per-algorithm experiments' process counts
  std::vector<std::size_t> bytes;                // and sizes (as each operation means them)
  std::size_t segment = 8192;                    // m_s
  int gamma_max_procs = 0;                       // gamma(p) for p = 2..this; 0: the largest of procs
  std::vector<std::size_t> pingpong_bytes;       // empty: no ping-pong
  FitMethod method = FitMethod::huber;
  // Where the protocol switches, for fits per regime; nullopt: the engine's (the sim engine's
  // profile between nodes; one regime on the others).
  std::optional<models::ProtocolSwitch> protocol_switch = std::nullopt;
};

// One algorithm's fits: `fit` for every size, or for the first regime and `above` for the others.
struct RegimeSplit {
  HockneyFit fit;
  std::vector<RegimeFit> above;
  int straddling = 0;  // experiments with messages in two regimes or more (fitted in the highest)
};
// Fits one algorithm's experiments `specs`, timed `times`, under `costs` (gamma(p), serial
// receives, the reduction's gamma; its regimes, whose (alpha, beta) are not read, say where the
// protocol switches), each regime from its own experiments: an experiment goes to the highest
// regime its messages reach (models::regimes_used), the lower regimes fitted first and held at
// their fits for the messages it has there (a broadcast of 1 MiB then its gather of one segment:
// a rendezvous point whose gather is eager). A regime with too few experiments (or ones that
// cannot tell alpha from beta) takes the (alpha, beta) of the regime below, or, the eager regime,
// the one fitted with the regime above's experiments; its quality says so (poor). Throws
// std::invalid_argument when no regime can be fitted.
RegimeSplit fit_algorithm(const std::vector<RunSpec>& specs, const std::vector<double>& times,
                          const models::FormulaCosts& costs, FitMethod method, bool moves_data);

// The algorithms calibrated when none are named: every one with a derived formula that runs on
// one of `procs` (runs_on: a two_proc algorithm only on 2); the others with a formula in
// `left_out`, if given.
std::vector<const AlgorithmInfo*> default_calibration_algorithms(const std::vector<int>& procs,
                                                                 std::vector<const AlgorithmInfo*>* left_out = nullptr);

// gamma(p) for p = 2..measured.size()+1 from the measured ratios time(p) / time(2): `values`, the
// non-decreasing fit >= 1 of `measured` (equal weights: one experiment per p), and the line
// intercept + slope*p fitted to them (by `method` from four values on, least squares below) for
// the process counts past them, with slope >= 0 and at least 1 at the first of those.
struct GammaFit {
  std::vector<double> values;
  double intercept = 1, slope = 0;
};
GammaFit fit_gamma(const std::vector<double>& measured, FitMethod method);

// Runs every experiment on setup.engine and fits. `progress(done, total)` is called after each
// experiment, `measured` with its row (on the mpi engines, whether its runs met the stop rule's
// CI target). Throws InputError on a setup that cannot be fitted (fewer than two experiments for
// an algorithm, P < 2) and EngineError when a run fails.
Parameters calibrate(const CalibrationSetup& setup, const std::function<void(std::size_t, std::size_t)>& progress = {},
                     const std::function<void(const Measurement&)>& measured = {});

// The formula engine's costs for a platform without a calibration file: calibrate() run in the
// model engine on `model` (typically the two-level Hockney of a platform), for process counts up
// to `max_procs` and a few multiples of `segment`, of `algorithms` (each fit is its algorithm's own
// experiments': calibrating fewer changes none of them). This is how `--engine formula --platform`
// and scenarios without formula.params get per-algorithm parameters of the same cluster.
Parameters calibrate_in_model(const ModelConfig& model, int max_procs, std::size_t segment,
                              std::vector<const AlgorithmInfo*> algorithms,
                              const std::function<void(std::size_t, std::size_t)>& progress = {});

// The formula engine for a machine given as a model engine configuration, when no calibration
// file is given. A one-level model (Hockney, LogGP) is what the formulas are written in: its own
// costs, gamma(p) measured in it (costs_from_model; derived formulas then equal the model engine,
// tests/registry/formula_agreement_test.cpp). A two-level Hockney (a platform's) is not: its
// parameters are estimated as the seed does, by calibrate_in_model, for `algorithms` (those the
// caller will predict; the others are then refused), with `progress` as calibrate() calls it.
FormulaConfig formula_for_model(const ModelConfig& model, FormulaConfig::Kind kind, int max_procs, std::size_t segment,
                                const std::vector<const AlgorithmInfo*>& algorithms,
                                const std::function<void(std::size_t, std::size_t)>& progress = {});

}  // namespace collsim
