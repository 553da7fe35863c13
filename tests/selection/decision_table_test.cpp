// DecisionTable: built from a selector at sampled sizes, merged, checked, and looked up with Open
// MPI's "largest boundary at or below" rule in both dimensions.
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "common/choices.hpp"
#include "engines/run.hpp"
#include "selection/decision_table.hpp"
#include "selection/model_selection.hpp"

namespace collsim::selection {
namespace {

using collsim_test::pick;

TEST(SampleSizes, PowersOfTwoAndMidpoints) {
  EXPECT_EQ(sample_sizes(0), std::vector<std::size_t>{});
  EXPECT_EQ(sample_sizes(1), std::vector<std::size_t>{1});
  EXPECT_EQ(sample_sizes(20), (std::vector<std::size_t>{1, 2, 3, 4, 6, 8, 12, 16}));
  EXPECT_EQ(sample_sizes(24), (std::vector<std::size_t>{1, 2, 3, 4, 6, 8, 12, 16, 24}));
  const auto all = sample_sizes(std::numeric_limits<std::size_t>::max());
  EXPECT_EQ(all.size(), 64u + 63u);  // 2^0..2^63 and 3*2^0..3*2^62, no overflow
  EXPECT_TRUE(std::is_sorted(all.begin(), all.end()));
}

TEST(DecisionTable, LookupFollowsRowsAndRanges) {
  const DecisionTable t(
      Operation::bcast,
      {{2, {{0, pick("bcast/binomial")}, {4096, pick("bcast/pipeline", 8192)}}},
       {16,
        {{0, pick("bcast/knomial")}, {100, pick("bcast/binary_tree")}, {1 << 20, pick("bcast/scatter_allgather")}}}});
  // Below the first row: the first row (as Open MPI does).
  EXPECT_EQ(t.lookup(1, 0), pick("bcast/binomial"));
  EXPECT_EQ(t.lookup(2, 4095), pick("bcast/binomial"));
  EXPECT_EQ(t.lookup(2, 4096), pick("bcast/pipeline", 8192));
  EXPECT_EQ(t.lookup(15, std::numeric_limits<std::size_t>::max()), pick("bcast/pipeline", 8192));
  EXPECT_EQ(t.lookup(16, 0), pick("bcast/knomial"));
  EXPECT_EQ(t.lookup(16, 99), pick("bcast/knomial"));
  EXPECT_EQ(t.lookup(1000, 100), pick("bcast/binary_tree"));
  EXPECT_EQ(t.lookup(std::numeric_limits<int>::max(), (1 << 20) - 1), pick("bcast/binary_tree"));
  EXPECT_EQ(t.lookup(17, 1 << 20), pick("bcast/scatter_allgather"));
}

TEST(DecisionTable, MergesEqualNeighbouringRangesNotRows) {
  const DecisionTable t(Operation::gather, {{1, {{0, pick("gather/binomial")}, {10, pick("gather/binomial")}}},
                                            {4, {{0, pick("gather/binomial")}}},
                                            {8, {{0, pick("gather/binomial")}, {64, pick("gather/basic_linear")}}}});
  ASSERT_EQ(t.rows().size(), 3u);
  EXPECT_EQ(t.rows()[0].ranges.size(), 1u);
  EXPECT_EQ(t.rows()[1].from_procs, 4);
  EXPECT_EQ(t.lookup(7, 1000), pick("gather/binomial"));
  EXPECT_EQ(t.lookup(8, 1000), pick("gather/basic_linear"));
  EXPECT_EQ(to_string(t),
            "procs >= 1: 0 gather/binomial\nprocs >= 4: 0 gather/binomial\n"
            "procs >= 8: 0 gather/binomial | 64 gather/basic_linear\n");
}

TEST(DecisionTable, RefusesMalformedRows) {
  const Choice b = pick("bcast/binomial");
  using Rows = std::vector<DecisionTable::Row>;
  EXPECT_THROW(DecisionTable(Operation::bcast, Rows{}), InputError);
  EXPECT_THROW(DecisionTable(Operation::bcast, Rows{{0, {{0, b}}}}), InputError);
  EXPECT_THROW(DecisionTable(Operation::bcast, Rows{{4, {{0, b}}}, {4, {{0, b}}}}), InputError);
  EXPECT_THROW(DecisionTable(Operation::bcast, Rows{{4, {}}}), InputError);
  EXPECT_THROW(DecisionTable(Operation::bcast, Rows{{4, {{1, b}}}}), InputError);
  EXPECT_THROW(DecisionTable(Operation::bcast, Rows{{4, {{0, b}, {8, b}, {8, b}}}}), InputError);
  EXPECT_THROW(DecisionTable(Operation::bcast, Rows{{4, {{0, Choice{}}}}}), InputError);
  EXPECT_THROW(DecisionTable(Operation::gather, Rows{{4, {{0, b}}}}), InputError);
}

TEST(DecisionTable, BuildSamplesTheSelector) {
  const std::vector<int> procs{2, 8, 64};
  const auto sizes = sample_sizes(1 << 20);
  int calls = 0;
  const Selector select = [&](int p, std::size_t m) {
    ++calls;
    return m >= 4096 && p >= 8 ? pick("bcast/pipeline", 8192) : pick("bcast/binomial");
  };
  const DecisionTable t = DecisionTable::build(Operation::bcast, procs, sizes, select);
  EXPECT_EQ(calls, static_cast<int>(procs.size() * sizes.size()));
  // Row 2 is binomial throughout; rows 8 and 64 switch to the pipeline at 4 KiB.
  ASSERT_EQ(t.rows().size(), 3u);
  EXPECT_EQ(t.rows()[0].ranges.size(), 1u);
  EXPECT_EQ(t.rows()[1].from_procs, 8);
  ASSERT_EQ(t.rows()[1].ranges.size(), 2u);
  EXPECT_EQ(t.rows()[1].ranges[1].from_bytes, 4096u);
  EXPECT_EQ(t.lookup(100, 4095), pick("bcast/binomial"));
  EXPECT_EQ(t.lookup(100, 4096), pick("bcast/pipeline", 8192));
  EXPECT_EQ(t.lookup(7, 1 << 30), pick("bcast/binomial"));
  const std::vector<std::size_t> unsorted{4, 2};
  EXPECT_THROW(DecisionTable::build(Operation::bcast, procs, unsorted, select), InputError);
  EXPECT_THROW(DecisionTable::build(Operation::bcast, procs, std::vector<std::size_t>{}, select), InputError);
}

TEST(DecisionTable, ReproducesOpenMpi41AtItsOwnBoundaries) {
  // 4.1's fixed decision changes at powers of two of both sizes, which the samples contain, so a
  // table built from it at those sizes is the decision itself.
  std::vector<int> procs;
  for (int p = 1; p <= 8192; p *= 2) procs.push_back(p);
  const auto sizes = sample_sizes(std::size_t{1} << 24);
  for (const Operation op : {Operation::bcast, Operation::gather}) {
    const DecisionTable t = DecisionTable::build(
        op, procs, sizes, [op](int p, std::size_t m) { return ompi_fixed_decision(OmpiVersion::v4_1, op, p, m); });
    for (int p = 1; p <= 10000; p = p * 3 / 2 + 1)
      for (std::size_t m = 0; m < (std::size_t{1} << 25); m = m * 5 / 4 + 1)
        ASSERT_EQ(t.lookup(p, m), ompi_fixed_decision(OmpiVersion::v4_1, op, p, m))
            << to_string(op) << " P=" << p << " m=" << m;
  }
}

TEST(DecisionTable, FromModelSelection) {
  models::FormulaCosts costs;
  costs.hockney = {1e-5, 1e-9};
  const auto candidates = default_candidates(Operation::gather);
  const Predictor predict = formula_predictor(costs);
  const std::vector<int> procs{2, 4, 8, 16};
  const auto sizes = sample_sizes(1 << 20);
  const DecisionTable t = DecisionTable::build(Operation::gather, procs, sizes, [&](int p, std::size_t m) {
    return select_by_model(Operation::gather, p, m, predict, candidates);
  });
  // At the sampled points the table answers what the selector answers.
  for (const int p : procs)
    for (const std::size_t m : sizes)
      EXPECT_EQ(t.lookup(p, m), select_by_model(Operation::gather, p, m, predict, candidates));
}

}  // namespace
}  // namespace collsim::selection
