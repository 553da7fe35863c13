// The formula engine's pieces: gamma(p) measured in the model engine, the Gamma table, the
// textbook formulas against hand values, and how run_formula picks parameters and refuses.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "engines/formula/formula_engine.hpp"

namespace collsim {
namespace {

constexpr double kAlpha = 10e-6, kBeta = 1e-9;

RunSpec spec(const char* name, int procs, std::size_t bytes, std::size_t segment = 0) {
  RunSpec s;
  s.algorithm = find_algorithm(name);
  s.procs = procs;
  s.bytes = bytes;
  s.params.segment = segment;
  s.real_bytes = false;
  return s;
}

FormulaConfig config(FormulaConfig::Kind kind) {
  FormulaConfig f;
  f.kind = kind;
  f.costs.hockney = {kAlpha, kBeta};
  return f;
}

double t(double m) { return kAlpha + kBeta * m; }

TEST(Gamma, OnePortIsOneTransferPerRankAndContentionFreeIsOne) {
  ModelConfig m;
  m.hockney = {kAlpha, kBeta};
  const models::Gamma free = gamma_in_model(m, 20, 8192);
  m.one_port = true;
  const models::Gamma port = gamma_in_model(m, 20, 8192);
  for (int p = 2; p <= 20; ++p) {
    EXPECT_DOUBLE_EQ(free(p), 1) << p;
    EXPECT_NEAR(port(p), p - 1, 1e-12 * p) << p;  // the root's p-1 sends one after the other
  }
  EXPECT_EQ(port(1), 0);
}

TEST(Gamma, IsNormalisedAndExtendsAlongItsLastTwoPoints) {
  const models::Gamma g({2.0, 3.0, 5.0});  // gamma(2..4), before dividing by gamma(2) = 2
  EXPECT_DOUBLE_EQ(g(2), 1);
  EXPECT_DOUBLE_EQ(g(3), 1.5);
  EXPECT_DOUBLE_EQ(g(4), 2.5);
  EXPECT_DOUBLE_EQ(g(6), 4.5);  // slope 1 per process past the table
  EXPECT_DOUBLE_EQ(g.sends(3), 2.5);
  EXPECT_DOUBLE_EQ(g.sends(0), 0);
  EXPECT_DOUBLE_EQ(models::Gamma()(100), 1);
  EXPECT_THROW(models::Gamma({0.0, 1.0}), std::invalid_argument);
}

TEST(Textbook, HandValues) {
  const FormulaConfig f = config(FormulaConfig::Kind::textbook);
  auto time = [&](const char* name, int p, std::size_t m, std::size_t seg = 0) {
    return run_formula(f, spec(name, p, m, seg)).time_s;
  };
  const double m = 1e6;
  EXPECT_DOUBLE_EQ(time("bcast/binomial", 8, 1000000), 3 * t(m));
  EXPECT_DOUBLE_EQ(time("bcast/binomial", 9, 1000000), 4 * t(m));
  EXPECT_DOUBLE_EQ(time("bcast/binary_tree", 7, 1000000), 4 * t(m));  // 2 * (log2 8 - 1)
  EXPECT_DOUBLE_EQ(time("bcast/binary_tree", 8, 1000000), 6 * t(m));  // 2 * (ceil(log2 9) - 1)
  EXPECT_DOUBLE_EQ(time("bcast/basic_linear", 5, 1000000), 4 * t(m));
  EXPECT_DOUBLE_EQ(time("bcast/pipeline", 5, 1000000, 250000), 7 * t(250000));  // P + n - 2
  EXPECT_DOUBLE_EQ(time("bcast/scatter_allgather", 8, 1000000), 6 * kAlpha + 2 * 7.0 / 8 * m * kBeta);
  EXPECT_DOUBLE_EQ(time("bcast/scatter_allgather_ring", 8, 1000000), 10 * kAlpha + 2 * 7.0 / 8 * m * kBeta);
  EXPECT_DOUBLE_EQ(time("gather/basic_linear", 5, 1000000), 4 * t(m));
  EXPECT_DOUBLE_EQ(time("gather/binomial", 5, 1000000), 3 * kAlpha + 4 * m * kBeta);
  EXPECT_EQ(time("bcast/binomial", 1, 1000000), 0);
  EXPECT_EQ(time("gather/binomial", 8, 0), 0);
}

TEST(FormulaEngine, RefusesWhatHasNoTextbookFormula) {
  try {
    run_formula(config(FormulaConfig::Kind::textbook), spec("bcast/chain", 4, 100));
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bcast/chain has no textbook formula (textbook formulas: bcast/basic_linear"),
              std::string::npos)
        << e.what();
  }
}

TEST(FormulaEngine, UsesAnAlgorithmsOwnParametersWhenItHasThem) {
  FormulaConfig f = config(FormulaConfig::Kind::derived);
  f.per_algorithm["bcast/binomial"] = {1e-3, 0};
  EXPECT_DOUBLE_EQ(run_formula(f, spec("bcast/binomial", 8, 100)).time_s, 3e-3);
  EXPECT_DOUBLE_EQ(run_formula(f, spec("bcast/basic_linear", 2, 100)).time_s, t(100));
}

TEST(FormulaEngine, LogGPBecomesTheHockneyOfOneMessage) {
  ModelConfig m;
  m.kind = ModelConfig::Kind::loggp;
  m.loggp = {5e-6, 1e-6, 2e-6, 1e-9};
  const models::FormulaCosts c = costs_from_model(m, 4, 1000);
  // One message of s bytes: 2o + L + (s-1)G = (2o + L - G) + s*G.
  EXPECT_DOUBLE_EQ(c.hockney.alpha, 2e-6 + 5e-6 - 1e-9);
  EXPECT_DOUBLE_EQ(c.hockney.beta, 1e-9);
  EXPECT_TRUE(c.serial_receive);
}

}  // namespace
}  // namespace collsim
