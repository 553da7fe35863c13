// Model-based selection: the smallest prediction wins, the first on a tie, candidates without a
// prediction or of another operation are passed over; and the registry formulas as a predictor.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "engines/run.hpp"
#include "selection/model_selection.hpp"

namespace collsim::selection {
namespace {

const AlgorithmInfo& algo(const char* name) { return *find_algorithm(name); }

Candidate cand(const char* name, std::size_t segment = 0) {
  Candidate c{&algo(name), {}};
  c.params.segment = segment;
  return c;
}

TEST(SelectByModel, TakesTheSmallestPrediction) {
  const std::vector<Candidate> cs{cand("bcast/binomial"), cand("bcast/pipeline", 8192), cand("bcast/pipeline", 1024)};
  // Pipelines get faster with more bytes per segment; binomial is 5 s flat.
  const Predictor predict = [](const AlgorithmInfo& a, const AlgorithmParams& p, int, std::size_t) {
    return a.name == "bcast/binomial" ? 5.0 : 10000.0 / static_cast<double>(p.segment);
  };
  const Choice c = select_by_model(Operation::bcast, 8, 1 << 20, predict, cs);
  EXPECT_EQ(to_string(c), "bcast/pipeline segment 8KiB");
}

TEST(SelectByModel, TieGoesToTheFirstCandidate) {
  const std::vector<Candidate> cs{cand("bcast/knomial"), cand("bcast/binomial"), cand("bcast/binary_tree")};
  const Predictor flat = [](const AlgorithmInfo&, const AlgorithmParams&, int, std::size_t) { return 1.0; };
  EXPECT_EQ(select_by_model(Operation::bcast, 4, 100, flat, cs).algorithm, &algo("bcast/knomial"));
}

TEST(SelectByModel, SkipsOtherOperationsAndMissingPredictions) {
  const std::vector<Candidate> cs{cand("gather/binomial"), cand("bcast/scatter_allgather"), cand("bcast/binomial")};
  const Predictor predict = [](const AlgorithmInfo& a, const AlgorithmParams&, int, std::size_t) {
    if (a.name == "bcast/scatter_allgather") return std::numeric_limits<double>::quiet_NaN();
    return a.op == Operation::gather ? 0.0 : 3.0;
  };
  EXPECT_EQ(select_by_model(Operation::bcast, 4, 100, predict, cs).algorithm, &algo("bcast/binomial"));
  const std::vector<Candidate> none{cand("bcast/scatter_allgather")};
  EXPECT_THROW(select_by_model(Operation::bcast, 4, 100, predict, none), InputError);
  EXPECT_THROW(select_by_model(Operation::gather, 4, 100, predict, std::vector<Candidate>{}), InputError);
}

// Open MPI refuses a two_proc algorithm beyond 2 processes, so it is no choice there however
// fast its model says it is.
TEST(SelectByModel, SkipsAlgorithmsOpenMpiDoesNotRunOnTheCommunicator) {
  const std::vector<Candidate> cs{cand("allgather/two_proc"), cand("allgather/ring")};
  const Predictor predict = [](const AlgorithmInfo& a, const AlgorithmParams&, int, std::size_t) {
    return a.name == "allgather/two_proc" ? 1.0 : 2.0;
  };
  EXPECT_EQ(select_by_model(Operation::allgather, 2, 100, predict, cs).algorithm, &algo("allgather/two_proc"));
  EXPECT_EQ(select_by_model(Operation::allgather, 3, 100, predict, cs).algorithm, &algo("allgather/ring"));
}

TEST(SelectByModel, PassesTheCallThrough) {
  int seen_procs = 0;
  std::size_t seen_bytes = 0;
  const Predictor predict = [&](const AlgorithmInfo&, const AlgorithmParams&, int p, std::size_t m) {
    seen_procs = p;
    seen_bytes = m;
    return 1.0;
  };
  const std::vector<Candidate> cs{cand("gather/basic_linear")};
  select_by_model(Operation::gather, 17, 4242, predict, cs);
  EXPECT_EQ(seen_procs, 17);
  EXPECT_EQ(seen_bytes, 4242u);
}

TEST(DefaultCandidates, EveryAlgorithmOncePerSegmentSizeItTakes) {
  // An algorithm with a segment once per default size (6), the others once.
  const auto expected = [](Operation op, std::size_t sizes) {
    std::size_t n = 0;
    for (const AlgorithmInfo& a : all_algorithms())
      if (a.op == op) n += a.takes(Knob::segment) ? sizes : 1;
    return n;
  };
  const auto bcast = default_candidates(Operation::bcast);
  EXPECT_EQ(bcast.size(), expected(Operation::bcast, 6));
  for (const char* name : {"bcast/pipeline", "bcast/basic_linear"})  // segmented or not, Open MPI's are there
    EXPECT_EQ(std::count_if(bcast.begin(), bcast.end(), [&](const Candidate& c) { return c.algorithm->name == name; }),
              find_algorithm(name)->takes(Knob::segment) ? 6 : 1)
        << name;
  const auto gather = default_candidates(Operation::gather);
  EXPECT_EQ(gather.size(), expected(Operation::gather, 6));  // linear_sync per first-segment size
  for (const auto& c : gather) EXPECT_EQ(c.algorithm->op, Operation::gather);
  const std::size_t segments[] = {4096};
  EXPECT_EQ(default_candidates(Operation::bcast, segments).size(), expected(Operation::bcast, 1));
  // The reduction rides along in every candidate's parameters.
  const Reduction r{Datatype::int64, ReduceOp::max};
  const auto reduce = default_candidates(Operation::reduce, segments, r);
  EXPECT_EQ(reduce.size(), expected(Operation::reduce, 1));
  for (const auto& c : reduce) {
    EXPECT_EQ(c.params.reduction.type, Datatype::int64);
    EXPECT_EQ(c.params.reduction.op, ReduceOp::max);
  }
}

TEST(FormulaPredictor, EvaluatesTheRegistryFormulas) {
  models::FormulaCosts costs;
  costs.hockney = {1e-5, 1e-9};
  const Predictor derived = formula_predictor(costs);
  const Predictor textbook = formula_predictor(costs, FormulaKind::textbook);
  models::FormulaInput in;
  in.procs = 8;
  in.bytes = 65536;
  in.costs = costs;
  const AlgorithmInfo& binomial = algo("bcast/binomial");
  EXPECT_DOUBLE_EQ(derived(binomial, {}, 8, 65536), binomial.derived(in));
  EXPECT_DOUBLE_EQ(textbook(binomial, {}, 8, 65536), binomial.textbook(in));
  // Binomial on 8 ranks, unsegmented: 3 steps of alpha + beta m.
  EXPECT_NEAR(derived(binomial, {}, 8, 65536), 3 * (1e-5 + 1e-9 * 65536), 1e-12);
  // No textbook formula for the chain: no prediction.
  EXPECT_TRUE(std::isnan(textbook(algo("bcast/chain"), {}, 8, 65536)));
}

TEST(FormulaPredictor, SelectsWithTheDerivedFormulas) {
  models::FormulaCosts costs;
  costs.hockney = {1e-5, 1e-9};
  const auto cs = default_candidates(Operation::bcast);
  // Contention-free (gamma = 1): the root's 63 sends arrive together, so the linear broadcast
  // costs one transfer and nothing beats it.
  EXPECT_EQ(select_by_model(Operation::bcast, 64, 8, formula_predictor(costs), cs).algorithm,
            &algo("bcast/basic_linear"));
  // gamma(p) = p - 1 (each send costs a transfer): a tree wins.
  costs.gamma = models::Gamma({1, 2});
  const Predictor p = formula_predictor(costs);
  const Choice small = select_by_model(Operation::bcast, 64, 8, p, cs);
  EXPECT_NE(small.algorithm, &algo("bcast/basic_linear"));
  // The choice is the minimum over all candidates.
  const double best = p(*small.algorithm, small.params, 64, 8);
  for (const auto& c : cs) EXPECT_LE(best, p(*c.algorithm, c.params, 64, 8)) << c.algorithm->name;
}

}  // namespace
}  // namespace collsim::selection
