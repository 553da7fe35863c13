// The algorithm registry: lookups by name and by Open MPI ID, the one knob check, and that every
// entry carries what the rest of collsim reads from it.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "algorithms/registry.hpp"

namespace collsim {
namespace {

TEST(Registry, LooksUpByOperationAndOpenMpiId) {
  // Open MPI 4.1's numbering (coll_tuned_bcast_algorithm / coll_tuned_gather_algorithm).
  const std::pair<int, const char*> bcast[] = {
      {1, "bcast/basic_linear"},          {2, "bcast/chain"},    {3, "bcast/pipeline"}, {4, "bcast/split_binary_tree"},
      {5, "bcast/binary_tree"},           {6, "bcast/binomial"}, {7, "bcast/knomial"},  {8, "bcast/scatter_allgather"},
      {9, "bcast/scatter_allgather_ring"}};
  for (const auto& [id, name] : bcast) {
    ASSERT_NE(find_algorithm(Operation::bcast, id), nullptr) << id;
    EXPECT_EQ(find_algorithm(Operation::bcast, id)->name, name);
  }
  EXPECT_EQ(find_algorithm(Operation::gather, 1)->name, "gather/basic_linear");
  EXPECT_EQ(find_algorithm(Operation::gather, 2)->name, "gather/binomial");
  EXPECT_EQ(find_algorithm(Operation::gather, 3)->name, "gather/linear_sync");
  EXPECT_EQ(find_algorithm(Operation::bcast, 0), nullptr);  // 0 is Open MPI's "ignore"
  EXPECT_EQ(find_algorithm(Operation::bcast, 10), nullptr);
  EXPECT_EQ(find_algorithm(Operation::gather, 4), nullptr);
  // Open MPI's coll_tuned_reduce_algorithm values.
  const char* reduce_names[] = {"reduce/linear",   "reduce/chain",           "reduce/pipeline",    "reduce/binary",
                                "reduce/binomial", "reduce/in-order_binary", "reduce/rabenseifner"};
  for (int id = 1; id <= 7; ++id) EXPECT_EQ(find_algorithm(Operation::reduce, id)->name, reduce_names[id - 1]);
  EXPECT_EQ(find_algorithm(Operation::reduce, 8), nullptr);
}

TEST(Registry, EveryEntryHasATreeAndADerivedFormula) {
  std::set<std::string> textbook;
  for (const auto& a : all_algorithms()) {
    // Not yet for reduce: no formulas, and in-order_binary and rabenseifner have no tree rooted
    // at the root.
    if (a.op == Operation::reduce) continue;
    EXPECT_NE(a.tree, nullptr) << a.name;
    EXPECT_NE(a.derived, nullptr) << a.name;
    EXPECT_EQ(find_algorithm(a.name), &a);
    EXPECT_EQ(find_algorithm(a.op, a.ompi_id), &a);
    if (a.textbook) textbook.insert(std::string(a.name));
  }
  // The literature's formulas (models/formulas.hpp); the others have none.
  EXPECT_EQ(textbook,
            (std::set<std::string>{"bcast/basic_linear", "bcast/pipeline", "bcast/binary_tree", "bcast/binomial",
                                   "bcast/scatter_allgather", "bcast/scatter_allgather_ring", "gather/basic_linear",
                                   "gather/binomial"}));
}

TEST(Registry, ChecksKnobsOnce) {
  const AlgorithmInfo& chain = *find_algorithm("bcast/chain");
  const AlgorithmInfo& knomial = *find_algorithm("bcast/knomial");
  const AlgorithmInfo& linear = *find_algorithm("gather/basic_linear");
  EXPECT_EQ(knob_error(chain, Knob::fanout, 1), "");
  EXPECT_EQ(knob_error(chain, Knob::fanout, 32), "");
  EXPECT_EQ(knob_error(chain, Knob::fanout, 0), "fanout must be between 1 and 32, not 0");
  EXPECT_EQ(knob_error(chain, Knob::fanout, 33), "fanout must be between 1 and 32, not 33");
  EXPECT_EQ(knob_error(knomial, Knob::radix, 2), "");
  EXPECT_EQ(knob_error(knomial, Knob::radix, 1), "radix must be at least 2, not 1");
  EXPECT_EQ(knob_error(knomial, Knob::fanout, 2),
            "fanout does not apply to bcast/knomial (only to bcast/chain, reduce/chain)");
  EXPECT_EQ(knob_error(linear, Knob::segment, 8),
            "segment does not apply to gather/basic_linear (it takes no segment)");
  EXPECT_EQ(knob_error(*find_algorithm("gather/linear_sync"), Knob::segment, 8), "");
  const AlgorithmInfo& reduce_binary = *find_algorithm("reduce/binary");
  EXPECT_EQ(knob_error(reduce_binary, Knob::max_requests, 0), "");
  EXPECT_EQ(knob_error(reduce_binary, Knob::max_requests, 3), "");
  EXPECT_EQ(knob_error(reduce_binary, Knob::max_requests, -1), "max_requests must be at least 0, not -1");
  EXPECT_NE(knob_error(chain, Knob::max_requests, 3).find("max_requests does not apply to bcast/chain"),
            std::string::npos);
  EXPECT_EQ(knob_error(*find_algorithm("reduce/chain"), Knob::fanout, 2), "");

  AlgorithmParams p;
  for (const KnobInfo& k : all_knobs()) {
    EXPECT_EQ(get_knob(p, k.knob), k.fallback) << k.name;  // the defaults are Open MPI's
    set_knob(p, k.knob, k.min + 1);
    EXPECT_EQ(get_knob(p, k.knob), k.min + 1) << k.name;
  }
}

}  // namespace
}  // namespace collsim
