// Protocol regimes: formulas that price each message in the regime of its own size (eager, or a
// rendezvous with its handshake), calibration that fits each regime from its own experiments, and
// the parameters file that keeps them. Expected values are written out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/files.hpp"
#include "engines/sim/protocol.hpp"
#include "experiment/analysis/calibration.hpp"

namespace collsim {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) { return collsim_test::scratch_dir("regimes-test") / name; }

// tcp's switch (openmpi-p2p-protocols.md section 6): eager up to 65536 - 56 bytes; a rendezvous
// sends RNDV (8 + 32 bytes) and gets the PUT control (8 + 56) back before its data moves.
TEST(ProtocolSwitch, TcpProfileStatesItsEagerLimitAndHandshake) {
  const models::ProtocolSwitch s = default_profile("tcp")->protocol_switch();
  EXPECT_EQ(s.eager_max, 65480u);
  EXPECT_EQ(s.handshake_messages, 2);
  EXPECT_EQ(s.handshake_bytes, 104u);
  const models::ProtocolSwitch shm = default_profile("shm")->protocol_switch();
  EXPECT_EQ(shm.eager_max, 4040u);
  EXPECT_EQ(shm.handshake_messages, 1);
  EXPECT_EQ(default_profile("ideal")->protocol_switch().handshake_messages, 0);
}

// Eager 10 us + 1 ns/B up to 65480 bytes; rendezvous 20 us + 0.5 ns/B above, after tcp's two
// control messages (104 bytes) priced as eager ones.
models::FormulaCosts two_regimes() {
  models::FormulaCosts c;
  c.hockney = {10e-6, 1e-9};
  c.regimes = {models::Regime{65481, {20e-6, 0.5e-9}, 2, 104}};
  return c;
}

// bcast/binomial on 4 ranks, contention-free (gamma = 1): the root sends to ranks 1 and 2 at once,
// rank 2 then to rank 3, so the call takes two transfers of the message, each in its regime.
TEST(RegimeFormulas, BinomialBcastAcrossTheEagerLimitByHand) {
  const AlgorithmInfo& a = *find_algorithm("bcast/binomial");
  models::FormulaInput in{4, 65480, {}, two_regimes()};
  // Just below: 2 * (10 us + 65480 * 1 ns) = 2 * 75.48 us.
  EXPECT_NEAR(a.derived(in), 150.96e-6, 1e-15);
  // Just above: 2 * (20 us + 65481 * 0.5 ns + 2 * 10 us + 104 * 1 ns) = 2 * 72.8445 us.
  in.bytes = 65481;
  EXPECT_NEAR(a.derived(in), 145.689e-6, 1e-15);
  // Segmented, the segment decides: 1 MiB in 128 segments of 8 KiB, all eager, through a tree
  // of height 2: (2 + 128 - 1) * (10 us + 8192 * 1 ns) = 129 * 18.192 us.
  in.bytes = 1 << 20;
  in.params.segment = 8192;
  EXPECT_NEAR(a.derived(in), 2346.768e-6, 1e-14);
}

// With no regime, or a regime that repeats the one (alpha, beta) without handshake, every derived
// formula gives exactly the one-Hockney number.
TEST(RegimeFormulas, OneRegimeGivesExactlyTheOneHockneyNumbers) {
  models::FormulaCosts one;
  one.hockney = {7e-6, 0.9e-9};
  one.gamma = models::Gamma({1, 1.4, 1.9, 2.3});
  one.serial_receive = true;
  models::FormulaCosts same = one;
  same.regimes = {models::Regime{1000, one.hockney, 0, 0}};
  for (const auto& a : all_algorithms()) {
    if (!a.derived) continue;
    for (int p : {2, 3, 7}) {
      if (!runs_on(a, p)) continue;
      for (std::size_t m : {std::size_t{0}, std::size_t{64}, std::size_t{4096}, std::size_t{200000}}) {
        models::FormulaInput x{p, m, {}, one};
        if (a.takes(Knob::segment)) x.params.segment = 1024;
        if (!call_error(operation_info(a.op), m, kDefaultReduction).empty()) continue;
        models::FormulaInput y = x;
        y.costs = same;
        EXPECT_EQ(a.derived(x), a.derived(y)) << a.name << " P=" << p << " m=" << m;
      }
    }
  }
}

// Experiments of gather/basic_linear (one rank at a time into the root: (P-1) transfers of m)
// and of bcast/basic_linear followed by the calibration's gather of 8 KiB (contention-free:
// t(m) + (P-1)*t(8 KiB)), timed on a curve with known parameters per regime and +-0.4% of
// alternating noise.
struct Curve {
  double ae = 8e-6, be = 0.4e-9;   // eager
  double ar = 30e-6, br = 0.2e-9;  // rendezvous
  double eager(double m) const { return ae + be * m; }
  double rendezvous(double m) const { return ar + br * m + 2 * ae + 104 * be; }
  double t(double m) const { return m <= 65480 ? eager(m) : rendezvous(m); }
};

TEST(RegimeCalibration, SplitsATwoRegimeCurveAndRecoversEachWithinOnePercent) {
  const Curve c;
  models::FormulaCosts costs;
  costs.serial_receive = true;
  costs.regimes = models::regimes_of(default_profile("tcp")->protocol_switch(), {});
  for (const char* name : {"gather/basic_linear", "bcast/basic_linear"}) {
    const AlgorithmInfo* a = find_algorithm(name);
    const bool bcast = a->op == Operation::bcast;
    std::vector<RunSpec> specs;
    std::vector<double> times;
    int rendezvous = 0, k = 0;
    for (int p : {2, 4, 8, 16})
      for (double m : {1.0, 1024.0, 8192.0, 32768.0, 65480.0, 65481.0, 131072.0, 524288.0, 1048576.0}) {
        RunSpec s;
        s.algorithm = a;
        s.procs = p;
        s.bytes = static_cast<std::size_t>(m);
        s.then_gather = bcast ? 8192 : 0;
        specs.push_back(s);
        const double t = bcast ? c.t(m) + (p - 1) * c.eager(8192) : (p - 1) * c.t(m);
        times.push_back(t * (1 + (k++ % 2 ? 0.004 : -0.004)));
        rendezvous += m > 65480;
      }
    const RegimeSplit split = fit_algorithm(specs, times, costs, FitMethod::huber, true);
    EXPECT_NEAR(split.fit.alpha, c.ae, 0.01 * c.ae) << name;
    EXPECT_NEAR(split.fit.beta, c.be, 0.01 * c.be) << name;
    EXPECT_EQ(split.fit.points, 4 * 5) << name;
    ASSERT_EQ(split.above.size(), 1u) << name;
    const RegimeFit& r = split.above[0];
    EXPECT_EQ(r.from, 65481u);
    EXPECT_EQ(r.handshake_messages, 2);
    EXPECT_NEAR(r.fit.alpha, c.ar, 0.01 * c.ar) << name;
    EXPECT_NEAR(r.fit.beta, c.br, 0.01 * c.br) << name;
    EXPECT_EQ(r.fit.points, rendezvous) << name;
    EXPECT_EQ(r.fit.quality, "ok") << name;
    // The broadcast's rendezvous points have their gather's eager messages too.
    EXPECT_EQ(split.straddling, bcast ? rendezvous : 0) << name;
  }
}

// A segmented algorithm whose segments are all eager has no rendezvous experiment: that regime
// takes the eager one's (alpha, beta) and says so.
TEST(RegimeCalibration, ARegimeWithoutExperimentsTakesTheOneBelowAndSaysSo) {
  const Curve c;
  models::FormulaCosts costs;
  costs.serial_receive = true;
  costs.regimes = models::regimes_of(default_profile("tcp")->protocol_switch(), {});
  std::vector<RunSpec> specs;
  std::vector<double> times;
  for (int p : {2, 4})
    for (std::size_t m : {1024, 4096, 16384}) {
      RunSpec s;
      s.algorithm = find_algorithm("gather/basic_linear");
      s.procs = p;
      s.bytes = m;
      specs.push_back(s);
      times.push_back((p - 1) * c.eager(static_cast<double>(m)));
    }
  const RegimeSplit split = fit_algorithm(specs, times, costs, FitMethod::least_squares, true);
  ASSERT_EQ(split.above.size(), 1u);
  EXPECT_EQ(split.above[0].fit.alpha, split.fit.alpha);
  EXPECT_EQ(split.above[0].fit.beta, split.fit.beta);
  EXPECT_EQ(split.above[0].fit.points, 0);
  EXPECT_FALSE(split.above[0].fit.uncertainty);  // no experiment: no scatter, no residual
  EXPECT_EQ(split.above[0].fit.rms_residual_s, 0);
  EXPECT_EQ(split.above[0].fit.max_rel_residual, 0);
  EXPECT_EQ(split.above[0].fit.quality,
            "poor: 0 experiments in this regime; takes the (alpha, beta) of the regime below");
}

// With one eager experiment, the eager regime cannot be fitted: the rendezvous experiments give
// one (alpha, beta) for both (their handshake priced with it too), which the eager regime takes.
// Times: (P-1)*(3*alpha + beta*(m + 104)) above the limit, alpha = 9 us, beta = 0.5 ns/B.
TEST(RegimeCalibration, AnEagerRegimeTooSmallToFitTakesTheOneFittedWithTheRegimeAbove) {
  models::FormulaCosts costs;
  costs.serial_receive = true;
  costs.regimes = models::regimes_of(default_profile("tcp")->protocol_switch(), {});
  std::vector<RunSpec> specs;
  std::vector<double> times;
  for (int p : {2, 4})
    for (double m : {1024.0, 131072.0, 1048576.0}) {
      if (m == 1024.0 && p == 4) continue;
      RunSpec s;
      s.algorithm = find_algorithm("gather/basic_linear");
      s.procs = p;
      s.bytes = static_cast<std::size_t>(m);
      specs.push_back(s);
      times.push_back((p - 1) * (m > 65480 ? 3 * 9e-6 + 0.5e-9 * (m + 104) : 9e-6 + 0.5e-9 * m));
    }
  const RegimeSplit split = fit_algorithm(specs, times, costs, FitMethod::least_squares, true);
  ASSERT_EQ(split.above.size(), 1u);
  EXPECT_NEAR(split.above[0].fit.alpha, 9e-6, 1e-6 * 9e-6);
  EXPECT_NEAR(split.above[0].fit.beta, 0.5e-9, 1e-6 * 0.5e-9);
  EXPECT_EQ(split.above[0].fit.points, 4);
  EXPECT_EQ(split.fit.alpha, split.above[0].fit.alpha);
  EXPECT_EQ(split.fit.points, 1);
  EXPECT_NEAR(split.fit.max_rel_residual, 0, 1e-9);  // its one experiment is on that line
  EXPECT_EQ(split.fit.quality,
            "poor: 1 experiment in this regime (a fit of two parameters needs at least two experiments, not 1); "
            "takes the (alpha, beta) fitted with the regime above");
}

// A file written before regimes (one fit per algorithm) reads as it did and predicts with one
// Hockney at every size: gather/basic_linear on 4 ranks, serial receives, 100000 bytes (above
// tcp's eager limit): 3 * (10 us + 100000 * 1 ns) = 330 us.
TEST(RegimeParameters, AnOldOneRegimeFileGivesTodaysPredictions) {
  const std::string file = scratch("old.yaml").string();
  std::ofstream(file) << "collsim: parameters\nengine: sim\nprotocol: \"tcp\"\nserial_receive: true\n"
                         "gamma:\n  values: [1, 1]\n  intercept: 1\n  slope: 0\n"
                         "algorithms:\n  gather/basic_linear: {alpha: 1e-5, beta: 1e-9, points: 6}\n";
  const Parameters p = read_parameters(file);
  EXPECT_TRUE(p.regimes.empty());
  const FormulaConfig f = formula_config(p, FormulaConfig::Kind::derived);
  EXPECT_TRUE(f.per_algorithm_regimes.empty());
  RunSpec s;
  s.algorithm = find_algorithm("gather/basic_linear");
  s.procs = 4;
  s.bytes = 100000;
  EXPECT_NEAR(run_formula(f, s).time_s, 330e-6, 1e-15);
}

TEST(RegimeParameters, RegimesRoundTripAndPredictPerRegime) {
  Parameters p;
  p.engine = "sim";
  p.procs = {4};
  p.bytes = {100000};
  p.gamma = {1, 1};
  p.serial_receive = true;
  p.algorithms["gather/basic_linear"] = HockneyFit{10e-6, 1e-9, 20};
  p.algorithms["gather/basic_linear"].quality = "ok";
  RegimeFit r{65481, 2, 104, HockneyFit{20e-6, 0.5e-9, 16}};
  r.fit.quality = "poor: alpha at its bound 0";  // any quality text is kept as it is
  p.regimes["gather/basic_linear"] = {r};
  const std::string file = scratch("regimes.yaml").string();
  write_parameters(file, p);
  const Parameters q = read_parameters(file);
  ASSERT_EQ(q.regimes.at("gather/basic_linear").size(), 1u);
  const RegimeFit& back = q.regimes.at("gather/basic_linear")[0];
  EXPECT_EQ(back.from, 65481u);
  EXPECT_EQ(back.handshake_messages, 2);
  EXPECT_EQ(back.handshake_bytes, 104u);
  EXPECT_EQ(back.fit.alpha, 20e-6);
  EXPECT_EQ(back.fit.beta, 0.5e-9);
  EXPECT_EQ(back.fit.points, 16);
  EXPECT_EQ(back.fit.quality, r.fit.quality);
  RunSpec s;
  s.algorithm = find_algorithm("gather/basic_linear");
  s.procs = 4;
  s.bytes = 100000;
  // 3 * (20 us + 100000 * 0.5 ns + 2 * 10 us + 104 * 1 ns) = 3 * 90.104 us.
  EXPECT_NEAR(run_formula(formula_config(q, FormulaConfig::Kind::derived), s).time_s, 270.312e-6, 1e-14);
  // Textbook formulas keep one (alpha, beta) for every size.
  EXPECT_TRUE(formula_config(q, FormulaConfig::Kind::textbook).per_algorithm_regimes.empty());
}

TEST(RegimeParameters, MalformedRegimesGetOneLineNamingThePlace) {
  const std::string file = scratch("bad.yaml").string();
  auto expect = [&](const std::string& above, const std::string& message) {
    std::ofstream(file) << "collsim: parameters\nalgorithms:\n  gather/basic_linear: {alpha: 1e-6, beta: 1e-9, "
                           "above: "
                        << above << "}\n";
    try {
      read_parameters(file);
      FAIL() << "accepted: " << above;
    } catch (const ScenarioError& e) {
      EXPECT_EQ(std::string(e.what()), file + message);
    }
  };
  const std::string fit = "handshake_messages: 2, handshake_bytes: 104, alpha: 2e-6, beta: 1e-9";
  expect("{from: 100}",
         ":3:57: algorithms.gather/basic_linear.above must be a list of regimes: {from, "
         "handshake_messages, handshake_bytes, alpha, beta, ...}");
  expect("[{from: 0, " + fit + "}]",
         ":3:65: algorithms.gather/basic_linear.above[0].from: a regime above the first starts at 1 byte or more");
  expect("[{from: 100, alpha: 2e-6, beta: 1e-9}]",
         ":3:58: algorithms.gather/basic_linear.above[0] needs handshake_messages");
  expect("[{from: 100, " + fit + "}, {from: 50, " + fit + "}]",
         ":3:148: algorithms.gather/basic_linear.above[1].from: 50 is not above the previous regime's 100 (regimes "
         "ascend)");
  expect("[{from: 100, handshake_messages: 2, handshake_bytes: 104, alpha: -2e-6, beta: 1e-9}]",
         ":3:122: algorithms.gather/basic_linear.above[0].alpha: -2e-6 must be at least 0");
  expect("[{from: 100, " + fit + ", upto: 5}]",
         ":3:140: unknown key 'upto' in algorithms.gather/basic_linear.above[0] (expected one of: alpha, beta, "
         "points, rms_residual_s, max_rel_residual, quality, log_sd, var_alpha, cov_alpha_beta, var_beta, dof, "
         "from, handshake_messages, handshake_bytes)");
}

}  // namespace
}  // namespace collsim
