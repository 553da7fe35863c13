// Calibration (the seed's Section V) run in the model engine, where the answer is known: under a
// contention-free Hockney model every derived formula is exact, so the fits must give back the
// model's alpha and beta for every algorithm; and the regression, the parameters file and the
// formula engine's reading of it.
#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/files.hpp"
#include "experiment/analysis/calibration.hpp"
#include "experiment/sweep/runner.hpp"

namespace collsim {
namespace {

namespace fs = std::filesystem;

constexpr double kAlpha = 12e-6, kBeta = 0.7e-9;

CalibrationSetup model_setup(bool one_port) {
  CalibrationSetup s;
  s.engine = Engine::model;
  s.env.model.hockney = {kAlpha, kBeta};
  s.env.model.one_port = one_port;
  s.procs = {2, 3, 5, 8, 13};
  s.bytes = {1024, 4096, 8192, 3 * 8192, 16 * 8192};
  s.gamma_max_procs = 13;
  s.pingpong_bytes = {1, 1000, 100000};
  return s;
}

TEST(Calibration, RecoversTheModelsAlphaAndBetaForEveryAlgorithm) {
  const Parameters p = calibrate(model_setup(false));
  std::size_t with_formula = 0;  // the fits are of the derived formulas
  for (const auto& a : all_algorithms()) with_formula += a.derived != nullptr;
  ASSERT_EQ(p.algorithms.size(), with_formula);
  for (const auto& [name, fit] : p.algorithms) {
    const AlgorithmInfo& a = *find_algorithm(name);
    // scatter_allgather's time is a max over steps whose blocks differ in size when P does not
    // divide m, so it is not one line in (alpha, beta) (calibration.hpp): a few of its experiments
    // (P = 3, 5, 13) are off the fitted plane and the robust fit is close, not exact.
    const double tol = name == "bcast/scatter_allgather" ? 1e-3 : 1e-9;
    EXPECT_NEAR(fit.alpha, kAlpha, tol * kAlpha) << name;
    // A barrier moves no bytes: alpha alone is fitted, at each process count.
    const bool data = operation_info(a.op).moves_data;
    EXPECT_NEAR(fit.beta, data ? kBeta : 0, tol * kBeta) << name;
    // two_proc algorithms run on 2 of the 5 process counts only.
    const int procs = name.ends_with("/two_proc") ? 1 : 5;
    EXPECT_EQ(fit.points, procs * (data ? 5 : 1)) << name;
    EXPECT_LT(fit.max_rel_residual, name == "bcast/scatter_allgather" ? 0.1 : 1e-9) << name;
  }
  EXPECT_EQ(p.reduce_gamma, 0);  // the model's reductions are free
  ASSERT_TRUE(p.pingpong);
  EXPECT_NEAR(p.pingpong->alpha, kAlpha, 1e-9 * kAlpha);
  EXPECT_NEAR(p.pingpong->beta, kBeta, 1e-9 * kBeta);
  ASSERT_EQ(p.gamma.size(), 12u);  // p = 2..13
  for (double g : p.gamma) EXPECT_DOUBLE_EQ(g, 1);
  EXPECT_FALSE(p.serial_receive);  // the contention-free model engine takes arrivals side by side
}

TEST(Calibration, GammaUnderOnePortIsOneTransferPerReceiver) {
  const Parameters p = calibrate(model_setup(true));
  for (std::size_t i = 0; i < p.gamma.size(); ++i) EXPECT_NEAR(p.gamma[i], static_cast<double>(i + 1), 1e-12) << i;
  EXPECT_NEAR(p.gamma_slope, 1, 1e-9);
  EXPECT_NEAR(p.gamma_intercept, -1, 1e-9);
  // The gathers' experiments are the gathers themselves, exact under one port.
  for (const char* name : {"gather/basic_linear", "gather/binomial", "gather/linear_sync"}) {
    EXPECT_NEAR(p.algorithms.at(name).alpha, kAlpha, 1e-9 * kAlpha) << name;
    EXPECT_NEAR(p.algorithms.at(name).beta, kBeta, 1e-9 * kBeta) << name;
  }
  EXPECT_TRUE(p.serial_receive);
}

// In the model engine gamma(p) for every p comes from one run on the largest p: the same values,
// to the bit, as a run of the experiment (a basic_linear broadcast of one segment, until the last
// receiver has it) per p, under every kind of model and port; two-level with two ranks per node,
// where calibration measures gamma one rank per node.
TEST(Calibration, GammaFromOneModelRunEqualsARunPerProcessCount) {
  ModelConfig two_level;
  two_level.kind = ModelConfig::Kind::two_level;
  two_level.two_level = {{1e-6, 0.2e-9}, {kAlpha, kBeta}, models::block_placement(2),
                         std::nullopt,   std::nullopt,    std::nullopt};
  two_level.one_port = true;
  ModelConfig loggp;
  loggp.kind = ModelConfig::Kind::loggp;
  loggp.loggp = {5e-6, 1.5e-6, 2e-6, 1e-9};
  ModelConfig loggp_gap = loggp;  // sends paced by o rather than g + (s-1)G
  loggp_gap.loggp = {5e-6, 3e-5, 2e-6, 1e-9};
  for (int kind = 0; kind < 5; ++kind) {
    CalibrationSetup s = model_setup(kind == 1);
    if (kind == 2) s.env.model = two_level;
    if (kind == 3) s.env.model = loggp;
    if (kind == 4) s.env.model = loggp_gap;
    s.algorithms = {find_algorithm("bcast/binomial")};
    s.gamma_max_procs = 40;
    const Parameters p = calibrate(s);
    ModelConfig per_p = s.env.model;
    per_p.two_level.placement = models::block_placement(1);
    RunSpec spec;
    spec.algorithm = find_algorithm("bcast/basic_linear");
    spec.bytes = s.segment;
    spec.real_bytes = false;
    std::vector<double> times;
    for (spec.procs = 2; spec.procs <= 40; ++spec.procs) times.push_back(run_model(per_p, spec).time_s);
    ASSERT_EQ(p.gamma_measured.size(), times.size()) << kind;
    for (std::size_t i = 0; i < times.size(); ++i)
      EXPECT_EQ(p.gamma_measured[i], times[i] / times[0]) << kind << " p " << i + 2;
    EXPECT_GT(p.gamma_measured.back(), kind == 0 ? 0.99 : 5) << kind;  // contention shows (but not contention-free)
  }
}

// With reductions that cost something, the local reduction's experiment gives back their gamma,
// and the reducing algorithms' fits, which take it out of their times, still give back alpha and
// beta exactly.
TEST(Calibration, RecoversTheReductionsGammaAndTakesItOut) {
  CalibrationSetup s = model_setup(false);
  s.env.model.reduce_gamma = 2.5e-10;
  for (const AlgorithmInfo& a : all_algorithms())
    if (operation_info(a.op).reduces && a.derived) s.algorithms.push_back(&a);
  ASSERT_GE(s.algorithms.size(), 7u);
  const Parameters p = calibrate(s);
  EXPECT_NEAR(p.reduce_gamma, 2.5e-10, 1e-9 * 2.5e-10);
  for (const auto& [name, fit] : p.algorithms) {
    EXPECT_NEAR(fit.alpha, kAlpha, 1e-9 * kAlpha) << name;
    EXPECT_NEAR(fit.beta, kBeta, 1e-9 * kBeta) << name;
  }
  // Written and read back with the parameters, and given to the formulas.
  const fs::path file = fs::temp_directory_path() / "collsim-calibration-reduce-gamma.yaml";
  write_parameters(file.string(), p);
  const Parameters back = read_parameters(file.string());
  fs::remove(file);
  EXPECT_EQ(back.reduce_gamma, p.reduce_gamma);
  EXPECT_EQ(formula_config(back, FormulaConfig::Kind::derived).costs.reduce_gamma, p.reduce_gamma);
}

TEST(Calibration, RefusesExperimentsThatCannotTellAlphaFromBeta) {
  CalibrationSetup s = model_setup(false);
  s.bytes = {8192, 4 * 8192};  // multiples of the segment only
  s.algorithms = {find_algorithm("bcast/binomial")};
  try {
    calibrate(s);
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("calibrate bcast/binomial: the experiments cannot tell alpha from beta"),
              std::string::npos)
        << e.what();
  }
}

TEST(Regression, HuberResistsAnOutlierThatLeastSquaresFollows) {
  std::vector<Observation> obs;
  for (int i = 1; i <= 20; ++i) obs.push_back({1, 1000.0 * i, 2e-6 + 1e-9 * 1000 * i});
  obs[7].y *= 5;  // one run disturbed by something else on the machine
  const LinearFit2 huber = fit_through_origin(obs, FitMethod::huber);
  const LinearFit2 ls = fit_through_origin(obs, FitMethod::least_squares);
  EXPECT_NEAR(huber.c2, 1e-9, 0.02e-9);
  EXPECT_GT(std::abs(ls.c2 - 1e-9), 5 * std::abs(huber.c2 - 1e-9));
  EXPECT_THROW(fit_through_origin({{1, 1, 1}}, FitMethod::huber), std::invalid_argument);
}

// Data that a free fit meets with a negative beta: y = 1*x1 - 0.5*x2 exactly. Least squares
// with beta >= 0 is then the fit of alpha alone, sum(x1 y) / sum(x1^2) = (1 + 0.5 + 4) / (1 + 1 + 4),
// with residuals (0.0833, -0.4167, 0.1667) (the fit of beta alone, 0.5, leaves 1 and 2).
TEST(Regression, NonNegativeFitPutsANegativeTermAtZeroAndRefitsTheOther) {
  const std::vector<Observation> obs{{1, 0, 1}, {1, 1, 0.5}, {2, 0, 2}};
  const LinearFit2 free = fit_through_origin(obs, FitMethod::least_squares);
  EXPECT_NEAR(free.c1, 1, 1e-12);
  EXPECT_NEAR(free.c2, -0.5, 1e-12);
  const LinearFit2 f = fit_through_origin_nonnegative(obs, FitMethod::least_squares);
  EXPECT_NEAR(f.c1, 5.5 / 6, 1e-12);
  EXPECT_EQ(f.c2, 0);
  const double r1 = 1 - 5.5 / 6, r2 = 0.5 - 5.5 / 6, r3 = 2 - 11.0 / 6;
  EXPECT_NEAR(f.rms_residual, std::sqrt((r1 * r1 + r2 * r2 + r3 * r3) / 3), 1e-12);
  // Inside the quadrant it is the free fit.
  const std::vector<Observation> inside{{1, 0, 1}, {1, 1, 1.5}, {2, 3, 3.5}};
  const LinearFit2 in = fit_through_origin_nonnegative(inside, FitMethod::huber);
  EXPECT_NEAR(in.c1, 1, 1e-9);
  EXPECT_NEAR(in.c2, 0.5, 1e-9);
}

// Synthetic experiments of known alpha and beta (a tree's message counts and bytes), each time
// off by up to +-0.5% (a fixed pattern, no random source): both fits give them back within 1%.
TEST(Regression, NonNegativeFitRecoversKnownParametersWithinOnePercent) {
  constexpr double alpha = 8e-6, beta = 0.4e-9;
  std::vector<Observation> obs;
  int k = 0;
  for (double messages : {1.0, 2.0, 3.0, 5.0, 7.0})
    for (double bytes : {1024.0, 8192.0, 65536.0, 524288.0}) {
      const double noise = 0.005 * ((k++ % 5) - 2) / 2;  // -0.5%, -0.25%, 0, +0.25%, +0.5%
      obs.push_back({messages, messages * bytes, (alpha * messages + beta * messages * bytes) * (1 + noise)});
    }
  for (const FitMethod method : {FitMethod::huber, FitMethod::least_squares}) {
    const LinearFit2 f = fit_through_origin_nonnegative(obs, method);
    EXPECT_NEAR(f.c1, alpha, 0.01 * alpha) << to_string(method);
    EXPECT_NEAR(f.c2, beta, 0.01 * beta) << to_string(method);
    EXPECT_EQ(fit_quality({f.c1, f.c2, 20, f.rms_residual, f.max_rel_residual}, true), "ok") << to_string(method);
  }
}

// Times that grow faster than the bytes (y = -1 + 2*x2): the free fit's alpha is -1. With
// alpha >= 0 the least-squares optimum is beta alone, sum(x2 y) / sum(x2^2) = (1 + 6 + 15) / 14
// = 11/7, residuals (-4/7, -1/7, 2/7), and the fit is poor twice over: alpha at its bound and
// a worst relative residual of 4/7.
TEST(Regression, NegativeAlphaGoesToItsBoundAtTheConstrainedOptimum) {
  const std::vector<Observation> obs{{1, 1, 1}, {1, 2, 3}, {1, 3, 5}};
  const LinearFit2 free = fit_through_origin(obs, FitMethod::least_squares);
  EXPECT_NEAR(free.c1, -1, 1e-12);
  EXPECT_NEAR(free.c2, 2, 1e-12);
  const LinearFit2 f = fit_through_origin_nonnegative(obs, FitMethod::least_squares);
  EXPECT_EQ(f.c1, 0);
  EXPECT_NEAR(f.c2, 11.0 / 7, 1e-12);
  EXPECT_NEAR(f.rms_residual, std::sqrt((16.0 + 1 + 4) / 49 / 3), 1e-12);
  EXPECT_NEAR(f.max_rel_residual, 4.0 / 7, 1e-12);
  EXPECT_EQ(fit_quality({f.c1, f.c2, 3, f.rms_residual, f.max_rel_residual}, true),
            "poor: alpha at its bound 0; worst relative residual 57.1% > 25%");
  // A barrier's beta is 0 by design; a data-moving fit's is at its bound.
  EXPECT_EQ(fit_quality({1e-6, 0, 4, 0, 0.1}, false), "ok");
  EXPECT_EQ(fit_quality({1e-6, 0, 4, 0, 0.1}, true), "poor: beta at its bound 0");
}

// Pool adjacent violators by hand: (1.3, 1.2) pool to 1.25 and (1.6, 1.5, 1.4) to 1.5; in
// (1, 3, 2, 0), (3, 2) pool to 2.5, which 0 then violates: (3 + 2 + 0) / 3; weights pool to the
// weighted mean, (2*1 + 1*3) / 4; and values below the floor are raised to it.
TEST(Regression, IsotonicFitPoolsAdjacentViolators) {
  const auto expect = [](const std::vector<double>& got, const std::vector<double>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << i;
  };
  const std::vector<double> noisy{1, 1.3, 1.2, 1.6, 1.5, 1.4, 2.0};
  expect(fit_nondecreasing(noisy, std::vector<double>(7, 1), 1), {1, 1.25, 1.25, 1.5, 1.5, 1.5, 2.0});
  expect(fit_nondecreasing({1, 3, 2, 0}, {1, 1, 1, 1}, 0), {1, 5.0 / 3, 5.0 / 3, 5.0 / 3});
  expect(fit_nondecreasing({2, 1}, {1, 3}, 0), {1.25, 1.25});
  expect(fit_nondecreasing({1, 0.8, 0.9, 1.4}, {1, 1, 1, 1}, 1), {1, 1, 1, 1.4});
  EXPECT_THROW(fit_nondecreasing({1, 2}, {1, 0}, 1), std::invalid_argument);
}

// gamma(p) of the noisy sequence for p = 2..8: the kept values above, and the least-squares line
// through them, slope sum((p-5)(g-10/7)) / sum((p-5)^2) = 3.75 / 28, intercept 10/7 - 5*slope. A
// measured gamma that falls below 1 keeps 1, and a line over ones is the constant 1.
TEST(Calibration, GammaIsKeptNonDecreasingWithALineThatDoesNotFall) {
  const GammaFit g = fit_gamma({1, 1.3, 1.2, 1.6, 1.5, 1.4, 2.0}, FitMethod::least_squares);
  const std::vector<double> kept{1, 1.25, 1.25, 1.5, 1.5, 1.5, 2.0};
  ASSERT_EQ(g.values.size(), kept.size());
  for (std::size_t i = 0; i < kept.size(); ++i) EXPECT_NEAR(g.values[i], kept[i], 1e-12) << i;
  EXPECT_NEAR(g.slope, 3.75 / 28, 1e-12);
  EXPECT_NEAR(g.intercept, 10.0 / 7 - 5 * 3.75 / 28, 1e-12);
  const GammaFit flat = fit_gamma({1, 0.97, 0.99, 0.98}, FitMethod::huber);
  EXPECT_EQ(flat.values, std::vector<double>(4, 1.0));
  EXPECT_EQ(flat.intercept, 1);
  EXPECT_EQ(flat.slope, 0);
}

// A formula given costs no parameters file may hold (a negative latency, set here directly) gives
// a negative time: refused in one line naming the call and the costs, not returned.
TEST(FormulaEngine, RefusesATimeThatIsNegativeOrNotFinite) {
  FormulaConfig f;
  f.costs.hockney = {-1e-3, 1e-9};
  RunSpec s;
  s.algorithm = find_algorithm("bcast/binomial");
  s.procs = 4;
  s.bytes = 1000;
  try {
    run_formula(f, s);
    FAIL() << "accepted";
  } catch (const InputError& e) {
    // binomial on 4: the latest of its leaves, rank 1 after one transfer t = alpha + beta*m and
    // rank 3 after two (gamma 1: the root's two sends cost one), max(t, 2t) = t with t < 0.
    EXPECT_EQ(std::string(e.what()),
              "formula-derived: bcast/binomial on 4 processes (root 0, 1000 bytes) gives -0.000999 s, not a time, "
              "from alpha -0.001 s, beta 1e-09 s/B, gamma(4) = 1 (the model's costs): these parameters do not "
              "describe this call");
  }
  f.costs.hockney = {1e-6, 1e305};
  s.bytes = 1 << 20;
  EXPECT_THROW(run_formula(f, s), InputError);  // 1e305 * 2^20 overflows to inf
}

// A row never carries a time that is not one, whichever engine gave it.
TEST(FormulaEngine, NoRowCarriesANegativeOrNonFiniteTime) {
  RunSpec s;
  s.algorithm = find_algorithm("bcast/binomial");
  s.procs = 4;
  s.bytes = 1000;
  RunResult r;
  r.time_s = 2e-6;
  EXPECT_EQ(to_measurement(Engine::model, s, r).time_s, 2e-6);
  for (const double bad : {-1e-9, std::nan(""), HUGE_VAL}) {
    r.time_s = bad;
    EXPECT_THROW(to_measurement(Engine::model, s, r), EngineError) << bad;
  }
  r.time_s = 2e-6;
  r.osu_s = {1e-6, -1e-6};
  EXPECT_THROW(to_measurement(Engine::sim, s, r), EngineError);
}

// A two-level cluster fitted with the derived formulas' one level: under map-by node on 2 nodes
// of 4 ranks, with one port, the free fit of bcast/binomial's beta is negative and its formula
// then predicts negative times (1 MiB); the fit keeps both terms >= 0, so no prediction is negative.
TEST(Calibration, FitsOfATwoLevelModelAreNeverNegative) {
  ModelConfig m;
  m.kind = ModelConfig::Kind::two_level;
  m.two_level.intra = {0.5e-6, 1 / 6e9};
  m.two_level.inter = {2e-6, 1 / 12.5e9};
  m.two_level.placement = models::Placement{1, 2, 1, false, 0};  // map-by node on 2 nodes
  m.one_port = true;
  const std::vector<const AlgorithmInfo*> ops{find_algorithm("bcast/binomial"), find_algorithm("bcast/binary_tree"),
                                              find_algorithm("bcast/chain"), find_algorithm("bcast/pipeline")};
  const Parameters p = calibrate_in_model(m, 48, 8192, ops);
  const FormulaConfig f = formula_config(p, FormulaConfig::Kind::derived);
  for (const auto& [name, fit] : p.algorithms) {
    EXPECT_GE(fit.alpha, 0) << name;
    EXPECT_GE(fit.beta, 0) << name;
    EXPECT_GT(fit.alpha + fit.beta, 0) << name;
    for (int P : {2, 12, 48})
      for (std::size_t bytes : {std::size_t{1}, std::size_t{1} << 20}) {
        RunSpec s;
        s.algorithm = find_algorithm(name);
        s.procs = P;
        s.bytes = bytes;
        EXPECT_GT(run_formula(f, s).time_s, 0) << name << " P " << P << " bytes " << bytes;
      }
  }
}

// Every formula, textbook and derived, of a two-level model (map-by node on 2 nodes, the
// derived ones fitted in the model engine as formula_for_model does) with and without one port,
// over process counts and sizes (one byte short of a segment among them): none is negative.
TEST(Calibration, NoFormulaOfAFittedTwoLevelModelIsNegative) {
  std::vector<const AlgorithmInfo*> derived;
  for (const AlgorithmInfo& a : all_algorithms())
    if (a.derived) derived.push_back(&a);
  for (bool one_port : {false, true}) {
    ModelConfig m;
    m.kind = ModelConfig::Kind::two_level;
    m.two_level.intra = {0.5e-6, 1 / 6e9};
    m.two_level.inter = {2e-6, 1 / 12.5e9};
    m.two_level.placement = models::Placement{1, 2, 1, false, 0};
    m.one_port = one_port;
    for (const FormulaConfig::Kind kind : {FormulaConfig::Kind::derived, FormulaConfig::Kind::textbook}) {
      const FormulaConfig f = formula_for_model(m, kind, 64, 8192, derived);
      for (const AlgorithmInfo& a : all_algorithms()) {
        if (!(kind == FormulaConfig::Kind::derived ? a.derived : a.textbook) || !has_fit(f, a)) continue;
        for (int P : {1, 2, 3, 5, 8, 12, 17, 64}) {
          if (!runs_on(a, P)) continue;
          for (std::size_t bytes : {std::size_t{0}, std::size_t{1}, std::size_t{8191}, std::size_t{1} << 20}) {
            if (!call_error(operation_info(a.op), bytes, kDefaultReduction).empty()) continue;
            RunSpec s;
            s.algorithm = &a;
            s.procs = P;
            s.bytes = bytes;
            s.params.segment = a.takes(Knob::segment) ? 8192 : 0;
            EXPECT_GE(run_formula(f, s).time_s, 0) << describe(s) << (one_port ? " one port " : " ") << to_string(kind);
          }
        }
      }
    }
  }
}

fs::path scratch(const std::string& name) { return collsim_test::scratch_dir("calibration-test") / name; }

// Messages inside a node priced apart (FormulaCosts::intra) count in a formula only where their
// path wins a maximum. gather/basic_linear, 2 ranks per node: rank 1 sends over the root's node
// (5 us + 0.33 ns/B), the P-2 others over its link, handed over one after another: by hand
// alpha + (P-2)*beta*m, which the sim engine gives on Grisou (20 us, 0.8 ns/B: 32 ranks of 32 KiB,
// 807 us = 20 + 30 * 32768 * 0.8 ns). Rank 1's message ends first at every point. Taken out of the
// times as if it were added, it put alpha near 13.8 us.
TEST(Calibration, AMessageInsideANodeThatEndsFirstDoesNotBendTheFit) {
  models::FormulaCosts costs;
  costs.serial_receive = true;
  costs.eager_handover = true;
  costs.node_ranks = 2;
  costs.intra = models::Hockney{5e-6, 0.33e-9};
  std::vector<RunSpec> specs;
  std::vector<double> times;
  for (int p : {4, 8, 16, 32})
    for (std::size_t m : {1024, 4096, 8192, 32768}) {
      RunSpec s;
      s.algorithm = find_algorithm("gather/basic_linear");
      s.procs = p;
      s.bytes = m;
      specs.push_back(s);
      times.push_back(20e-6 + (p - 2) * 0.8e-9 * static_cast<double>(m));
    }
  const RegimeSplit split = fit_algorithm(specs, times, costs, FitMethod::huber, true);
  EXPECT_NEAR(split.fit.alpha, 20e-6, 0.01 * 20e-6);
  EXPECT_NEAR(split.fit.beta, 0.8e-9, 0.01 * 0.8e-9);
}

TEST(ParametersFile, RoundTripsAtFullPrecision) {
  const Parameters p = calibrate(model_setup(true));
  const std::string file = scratch("params.yaml").string();
  write_parameters(file, p);
  const Parameters q = read_parameters(file);
  EXPECT_EQ(q.engine, "model");
  EXPECT_EQ(q.serial_receive, p.serial_receive);
  EXPECT_EQ(q.gamma, p.gamma);
  EXPECT_EQ(q.gamma_measured, p.gamma_measured);
  EXPECT_EQ(q.gamma_slope, p.gamma_slope);
  ASSERT_EQ(q.algorithms.size(), p.algorithms.size());
  for (const auto& [name, fit] : p.algorithms) {
    EXPECT_EQ(q.algorithms.at(name).alpha, fit.alpha) << name;
    EXPECT_EQ(q.algorithms.at(name).beta, fit.beta) << name;
    EXPECT_EQ(q.algorithms.at(name).quality, fit.quality) << name;
  }
  EXPECT_EQ(q.pingpong->beta, p.pingpong->beta);
  EXPECT_EQ(q.pingpong->quality, "ok");
}

// A file written before the quality entry (and the measured gamma) reads, its fits judged by the
// same rule as calibrate's.
TEST(ParametersFile, OlderFilesWithoutQualityAreJudgedOnReading) {
  const std::string file = scratch("old.yaml").string();
  std::ofstream(file) << "collsim: parameters\ngamma:\n  values: [1, 1.5]\n  intercept: 0.5\n  slope: 0.5\n"
                         "algorithms:\n"
                         "  bcast/binomial: {alpha: 0, beta: 2e-9, points: 6, max_rel_residual: 0.1}\n"
                         "  bcast/chain: {alpha: 1e-6, beta: 2e-9, points: 6, max_rel_residual: 0.3}\n"
                         "  barrier/tree: {alpha: 1e-6, beta: 0, points: 2, max_rel_residual: 0}\n";
  const Parameters p = read_parameters(file);
  EXPECT_EQ(p.algorithms.at("bcast/binomial").quality, "poor: alpha at its bound 0");
  EXPECT_EQ(p.algorithms.at("bcast/chain").quality, "poor: worst relative residual 30% > 25%");
  EXPECT_EQ(p.algorithms.at("barrier/tree").quality, "ok");
  EXPECT_TRUE(p.gamma_measured.empty());
}

TEST(ParametersFile, BadFilesGetOneLineNamingThePlace) {
  const std::string file = scratch("bad.yaml").string();
  auto expect = [&](const std::string& text, const std::string& message) {
    std::ofstream(file) << text;
    try {
      read_parameters(file);
      FAIL() << "accepted: " << text;
    } catch (const ScenarioError& e) {
      EXPECT_EQ(std::string(e.what()), file + message);
    }
  };
  expect("engine: sim\n",
         ": not a collsim parameters file (it has no 'collsim: parameters'; collsim calibrate writes them)");
  expect("collsim: parameters\nalgorithms:\n  bcast/warp: {alpha: 1, beta: 2}\n",
         ":3:3: unknown algorithm 'bcast/warp' (one of: " + algorithm_names() + ")");
  expect("collsim: parameters\nalgorithms:\n  bcast/binomial: {alpha: fast, beta: 2}\n",
         ":3:27: algorithms.bcast/binomial.alpha: 'fast' is not a number");
  // Values no cost can have: a negative latency or time per byte, gamma(p) below 1 or falling,
  // a line past the table that falls or starts below 1, a number that is not finite.
  expect("collsim: parameters\nalgorithms:\n  bcast/binomial: {alpha: -1e-6, beta: 2e-9}\n",
         ":3:27: algorithms.bcast/binomial.alpha: -1e-6 must be at least 0");
  expect("collsim: parameters\npingpong: {alpha: 1e-6, beta: -2e-9}\n",
         ":2:31: pingpong.beta: -2e-9 must be at least 0");
  expect("collsim: parameters\nalgorithms:\n  bcast/binomial: {alpha: .nan, beta: 2e-9}\n",
         ":3:27: algorithms.bcast/binomial.alpha: '.nan' is not a number");
  expect("collsim: parameters\nalgorithms:\n  bcast/binomial: {alpha: 1e-6, beta: 1e999}\n",
         ":3:39: algorithms.bcast/binomial.beta: '1e999' is not a number");
  const std::string fit = "algorithms:\n  bcast/binomial: {alpha: 1e-6, beta: 2e-9}\n";
  expect("collsim: parameters\ngamma:\n  values: [1, 0.9]\n" + fit, ":3:15: gamma.values: 0.9 must be at least 1");
  expect("collsim: parameters\ngamma:\n  values: [1, 2, 1.5]\n" + fit,
         ":3:18: gamma.values: gamma(4) = 1.5 is below gamma(3) = 2: sends to more ranks cannot take less time");
  expect("collsim: parameters\ngamma:\n  values: [1, 2]\n  slope: -0.5\n" + fit,
         ":4:10: gamma.slope: -0.5 must be at least 0");
  expect("collsim: parameters\ngamma:\n  values: [1, 2]\n  intercept: -1\n  slope: 0.25\n" + fit,
         ":4:14: gamma.intercept: the line -1 + 0.25 p gives gamma(4) = 0, below 1");
  expect("collsim: parameters\ngamma:\n  values: [1, 2]\n  measured: [1]\n" + fit,
         ":4:13: gamma.measured has 1 values and gamma.values 2: one per p, in both");
  expect("collsim: parameters\nalgorithms:\n  bcast/binomial: {alpha: 1e-6, beta: 2e-9, quality: fine}\n",
         ":3:54: algorithms.bcast/binomial.quality: 'fine' is not ok or poor: REASONS");
  expect("collsim: parameters\nsegmnet: 8\n",
         ":2:1: unknown key 'segmnet' in the parameters file (expected one of: "
         "collsim, engine, platform, protocol, ranks_per_node, segment, method, "
         "serial_receive, eager_handover, node_ranks, fair_sharing, procs, bytes, gamma, reduce_gamma, pingpong, "
         "intra_pingpong, algorithms)");
  expect("collsim: parameters\neager_handover: sometimes\n" + fit,
         ":2:17: eager_handover: 'sometimes' is not true or false");
  expect("collsim: parameters\nnode_ranks: 0\n" + fit, ":2:13: node_ranks: 0 is out of range [1, 1048576]");
  expect("collsim: parameters\nfair_sharing: [true]\n" + fit, ":2:15: fair_sharing must be a single value");
  expect("collsim: parameters\nintra_pingpong: {alpha: -1e-6, beta: 1e-10}\n" + fit,
         ":2:25: intra_pingpong.alpha: -1e-6 must be at least 0");
}

// The network's terms (eager_handover, node_ranks, fair_sharing): absent, a file means neither (files
// written before them); written by calibrate and read back, the same; the derived formulas take
// them and the textbook ones, which read every send as blocking on its own link, do not.
TEST(ParametersFile, HandOverAndNodeRanksReadBack) {
  const std::string old_file = scratch("without-protocol-terms.yaml").string();
  std::ofstream(old_file) << "collsim: parameters\npingpong: {alpha: 1e-6, beta: 1e-9}\n"
                             "algorithms:\n  bcast/binomial: {alpha: 2e-6, beta: 3e-9}\n";
  const Parameters old = read_parameters(old_file);
  EXPECT_FALSE(old.eager_handover);
  EXPECT_EQ(old.node_ranks, 1);
  EXPECT_FALSE(old.fair_sharing);
  EXPECT_FALSE(formula_config(old, FormulaConfig::Kind::derived).costs.eager_handover);
  EXPECT_EQ(formula_config(old, FormulaConfig::Kind::derived).costs.node_ranks, 1);

  Parameters p = old;
  p.eager_handover = true;
  p.node_ranks = 24;
  p.fair_sharing = true;
  p.engine = "sim";
  p.procs = {4, 8};
  p.bytes = {1024, 8192};
  p.gamma = {1, 1.5};
  const std::string file = scratch("with-protocol-terms.yaml").string();
  write_parameters(file, p);
  const Parameters q = read_parameters(file);
  EXPECT_TRUE(q.eager_handover);
  EXPECT_EQ(q.node_ranks, 24);
  EXPECT_TRUE(q.fair_sharing);
  const FormulaConfig d = formula_config(q, FormulaConfig::Kind::derived);
  EXPECT_TRUE(d.costs.eager_handover);
  EXPECT_EQ(d.costs.node_ranks, 24);
  EXPECT_TRUE(d.costs.fair_sharing);
  const FormulaConfig t = formula_config(q, FormulaConfig::Kind::textbook);
  EXPECT_FALSE(t.costs.eager_handover);
  EXPECT_EQ(t.costs.node_ranks, 1);
  EXPECT_FALSE(t.costs.fair_sharing);
}

// The ping-pong inside a node: absent, a message inside a node costs what one between nodes does
// (no FormulaCosts::intra); written and read back, the derived formulas take it where ranks share
// a node (node_ranks > 1), the textbook ones never.
TEST(ParametersFile, IntraNodePingPongReadBack) {
  Parameters p;
  p.engine = "sim";
  p.procs = {4, 8};
  p.bytes = {1024, 8192};
  p.gamma = {1, 1.5};
  p.algorithms["bcast/binomial"] = HockneyFit{2e-6, 3e-9};
  p.node_ranks = 2;
  EXPECT_FALSE(formula_config(p, FormulaConfig::Kind::derived).costs.intra);
  p.intra_pingpong = HockneyFit{5e-6, 3.3e-10};
  const std::string file = scratch("with-intra.yaml").string();
  write_parameters(file, p);
  const Parameters q = read_parameters(file);
  ASSERT_TRUE(q.intra_pingpong);
  EXPECT_EQ(q.intra_pingpong->alpha, 5e-6);
  EXPECT_EQ(q.intra_pingpong->beta, 3.3e-10);
  const FormulaConfig d = formula_config(q, FormulaConfig::Kind::derived);
  ASSERT_TRUE(d.costs.intra);
  EXPECT_EQ(d.costs.intra->alpha, 5e-6);
  EXPECT_EQ(d.costs.intra->beta, 3.3e-10);
  EXPECT_FALSE(formula_config(q, FormulaConfig::Kind::textbook).costs.intra);
  Parameters one = q;
  one.node_ranks = 1;
  EXPECT_FALSE(formula_config(one, FormulaConfig::Kind::derived).costs.intra);
}

TEST(ParametersFile, TextbookFormulasTakeThePingPongAndDerivedOnesTheirOwn) {
  Parameters p;
  p.pingpong = HockneyFit{1e-6, 1e-9};
  p.algorithms["bcast/binomial"] = {2e-6, 3e-9};
  const FormulaConfig t = formula_config(p, FormulaConfig::Kind::textbook);
  const FormulaConfig d = formula_config(p, FormulaConfig::Kind::derived);
  EXPECT_TRUE(t.per_algorithm.empty());
  EXPECT_EQ(t.costs.hockney.alpha, 1e-6);
  EXPECT_EQ(d.per_algorithm.at("bcast/binomial").beta, 3e-9);
}

}  // namespace
}  // namespace collsim
