// The algorithm registry: lookups by name and by Open MPI ID, the one knob check, and that every
// entry carries what the rest of collsim reads from it.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

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
  // coll_tuned_allreduce_algorithm's values.
  const std::pair<int, const char*> allreduce[] = {{1, "allreduce/basic_linear"},       {2, "allreduce/nonoverlapping"},
                                                   {3, "allreduce/recursive_doubling"}, {4, "allreduce/ring"},
                                                   {5, "allreduce/segmented_ring"},     {6, "allreduce/rabenseifner"}};
  for (const auto& [id, name] : allreduce) {
    ASSERT_NE(find_algorithm(Operation::allreduce, id), nullptr) << id;
    EXPECT_EQ(find_algorithm(Operation::allreduce, id)->name, name);
  }
  EXPECT_EQ(find_algorithm(Operation::allreduce, 7), nullptr);
  EXPECT_TRUE(find_algorithm("allreduce/segmented_ring")->takes(Knob::segment));
  EXPECT_FALSE(find_algorithm("allreduce/ring")->takes(Knob::segment));
}

// Scatter's and barrier's names and IDs as Open MPI 4.1's coll_tuned_<op>_algorithm enumerations.
TEST(Registry, ScatterAndBarrierUnderOpenMpisNamesAndIds) {
  int id = 0;
  for (const char* name : {"scatter/basic_linear", "scatter/binomial", "scatter/linear_nb"}) {
    ASSERT_NE(find_algorithm(Operation::scatter, ++id), nullptr) << id;
    EXPECT_EQ(find_algorithm(Operation::scatter, id)->name, name);
  }
  EXPECT_EQ(find_algorithm(Operation::scatter, 4), nullptr);
  id = 0;
  for (const char* name : {"barrier/linear", "barrier/double_ring", "barrier/recursive_doubling", "barrier/bruck",
                           "barrier/two_proc", "barrier/tree"}) {
    ASSERT_NE(find_algorithm(Operation::barrier, ++id), nullptr) << id;
    EXPECT_EQ(find_algorithm(Operation::barrier, id)->name, name);
  }
  EXPECT_EQ(find_algorithm(Operation::barrier, 7), nullptr);
}

TEST(Registry, AllgatherAndAlltoallHaveOpenMpisNamesAndIds) {
  // Open MPI 4.1's coll_tuned_allgather_algorithm and coll_tuned_alltoall_algorithm enumerations.
  const std::pair<int, const char*> allgather[] = {
      {1, "allgather/linear"}, {2, "allgather/bruck"},    {3, "allgather/recursive_doubling"},
      {4, "allgather/ring"},   {5, "allgather/neighbor"}, {6, "allgather/two_proc"}};
  for (const auto& [id, name] : allgather) {
    ASSERT_NE(find_algorithm(Operation::allgather, id), nullptr) << id;
    EXPECT_EQ(find_algorithm(Operation::allgather, id)->name, name);
    EXPECT_EQ(find_algorithm(Operation::allgather, id)->knobs, 0u) << name;
  }
  const std::pair<int, const char*> alltoall[] = {{1, "alltoall/linear"},
                                                  {2, "alltoall/pairwise"},
                                                  {3, "alltoall/modified_bruck"},
                                                  {4, "alltoall/linear_sync"},
                                                  {5, "alltoall/two_proc"}};
  for (const auto& [id, name] : alltoall) {
    ASSERT_NE(find_algorithm(Operation::alltoall, id), nullptr) << id;
    EXPECT_EQ(find_algorithm(Operation::alltoall, id)->name, name);
  }
  EXPECT_EQ(find_algorithm(Operation::allgather, 7), nullptr);
  EXPECT_EQ(find_algorithm(Operation::alltoall, 6), nullptr);
  EXPECT_EQ(knob_error(*find_algorithm("alltoall/linear_sync"), Knob::segment, 8),
            "segment does not apply to alltoall/linear_sync (it takes no segment)");
}

// max_requests: Open MPI's coll_tuned_<op>_algorithm_max_requests, default 0, taken by the
// algorithms that read it.
TEST(Registry, MaxRequestsIsTakenByTheAlgorithmsThatReadIt) {
  std::set<std::string> takers;
  for (const auto& a : all_algorithms())
    if (a.takes(Knob::max_requests)) takers.emplace(a.name);
  EXPECT_EQ(takers,
            (std::set<std::string>{"scatter/linear_nb", "alltoall/linear_sync", "reduce/chain", "reduce/pipeline",
                                   "reduce/binary", "reduce/binomial", "reduce/in-order_binary"}));
  EXPECT_EQ(knob_info(Knob::max_requests).fallback, 0);
  EXPECT_EQ(knob_info(Knob::max_requests).name, "max-requests");
  EXPECT_EQ(knob_info(Knob::max_requests).key, "max_requests");
  for (const std::string& name : takers) {
    const AlgorithmInfo& a = *find_algorithm(name);
    EXPECT_EQ(knob_error(a, Knob::max_requests, 0), "");
    EXPECT_EQ(knob_error(a, Knob::max_requests, 1000), "");
    EXPECT_EQ(knob_error(a, Knob::max_requests, -1), "max-requests must be at least 0, not -1");
  }
  EXPECT_EQ(knob_error(*find_algorithm("scatter/basic_linear"), Knob::max_requests, 4),
            "max-requests does not apply to scatter/basic_linear (it takes no max-requests)");
  AlgorithmParams params;
  EXPECT_EQ(get_knob(params, Knob::max_requests), 0);
  set_knob(params, Knob::max_requests, 7);
  EXPECT_EQ(params.max_requests, 7);
}

TEST(Registry, TwoProcAlgorithmsRunOnTwoProcessesOnly) {
  for (const char* name : {"allgather/two_proc", "alltoall/two_proc", "barrier/two_proc"}) {
    const AlgorithmInfo& a = *find_algorithm(name);
    EXPECT_TRUE(runs_on(a, 1)) << name;
    EXPECT_TRUE(runs_on(a, 2)) << name;
    EXPECT_FALSE(runs_on(a, 3)) << name;
  }
  EXPECT_TRUE(runs_on(*find_algorithm("allgather/ring"), 3));
}

// Every rooted algorithm runs on a tree, and every algorithm has its derived formula.
TEST(Registry, EveryEntryHasATreeAndADerivedFormula) {
  std::set<std::string> textbook;
  for (const auto& a : all_algorithms()) {
    // Rooted algorithms run on trees, except reduce's two whose tree is not rooted at the root.
    if (operation_info(a.op).rooted && a.name != "reduce/in-order_binary" && a.name != "reduce/rabenseifner") {
      EXPECT_NE(a.tree, nullptr) << a.name;
    }
    EXPECT_NE(a.derived, nullptr) << a.name;
    EXPECT_EQ(find_algorithm(a.name), &a);
    EXPECT_EQ(find_algorithm(a.op, a.ompi_id), &a);
    if (a.textbook) textbook.insert(std::string(a.name));
  }
  // The literature's formulas (models/formulas.hpp); the others have none.
  EXPECT_EQ(textbook, (std::set<std::string>{"bcast/basic_linear",
                                             "bcast/pipeline",
                                             "bcast/binary_tree",
                                             "bcast/binomial",
                                             "bcast/scatter_allgather",
                                             "bcast/scatter_allgather_ring",
                                             "gather/basic_linear",
                                             "gather/binomial",
                                             "scatter/basic_linear",
                                             "scatter/binomial",
                                             "reduce/binomial",
                                             "reduce/rabenseifner",
                                             "allgather/bruck",
                                             "allgather/recursive_doubling",
                                             "allgather/ring",
                                             "alltoall/pairwise",
                                             "alltoall/modified_bruck",
                                             "barrier/recursive_doubling",
                                             "barrier/bruck",
                                             "allreduce/recursive_doubling",
                                             "allreduce/ring",
                                             "allreduce/rabenseifner",
                                             "reduce_scatter/recursive_halving",
                                             "reduce_scatter/ring"}));
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
  EXPECT_EQ(knob_error(reduce_binary, Knob::max_requests, -1), "max-requests must be at least 0, not -1");
  EXPECT_NE(knob_error(chain, Knob::max_requests, 3).find("max-requests does not apply to bcast/chain"),
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
