// The algorithm registry: lookups by name and by Open MPI ID, the one knob check, and that every
// entry carries what the rest of collsim reads from it.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

#include "registry/registry.hpp"

namespace collsim {
namespace {

// The registry's own shape: per operation, Open MPI's IDs 1..N with no gap or repeat (0 is its
// "ignore"), every name "<operation>/<algorithm>" once, and the lookups by name, by short name and
// by ID find the entry. That the IDs and names are Open MPI's is checked against Open MPI itself,
// through MPI_T (mpi_native_test: NativeSupport.OpenMpiRunsEveryRegisteredAlgorithmUnderItsOwnName),
// so no table here copies them.
TEST(Registry, OpenMpiIdsArePerOperationOneToNAndLookupsFindEveryEntry) {
  std::set<std::string> names;
  for (const OperationInfo& o : all_operations()) {
    int count = 0;  // Open MPI's; collsim's own (ID 0) have no number to check
    for (const auto& a : all_algorithms()) count += a.op == o.op && a.in_open_mpi();
    EXPECT_GT(count, 0) << o.name << " has no algorithm";
    for (int id = 1; id <= count; ++id) {
      const AlgorithmInfo* a = find_algorithm(o.op, id);
      ASSERT_NE(a, nullptr) << o.name << " has no ID " << id << " of its " << count;
      EXPECT_EQ(a->name.substr(0, o.name.size() + 1), std::string(o.name) + "/");
      EXPECT_TRUE(names.emplace(a->name).second) << a->name << " twice";
    }
    EXPECT_EQ(find_algorithm(o.op, 0), nullptr) << o.name;
    EXPECT_EQ(find_algorithm(o.op, count + 1), nullptr) << o.name;
  }
  for (const auto& a : all_algorithms()) {
    if (!a.in_open_mpi()) {
      EXPECT_TRUE(names.emplace(a.name).second) << a.name << " twice";
    }
  }
  EXPECT_EQ(names.size(), all_algorithms().size());
  EXPECT_EQ(find_algorithm("bcast/binary")->name, "bcast/binary_tree");  // a short name people use
  EXPECT_EQ(find_algorithm("bcast/nonesuch"), nullptr);
  EXPECT_EQ(find_algorithm(Operation::bcast, "binary_tree")->name, "bcast/binary_tree");
  EXPECT_EQ(find_algorithm(Operation::bcast, "tree"), nullptr);  // a suffix of a name is not a name
  EXPECT_EQ(find_algorithm(Operation::gather, "binary_tree"), nullptr);
  EXPECT_TRUE(find_algorithm("allreduce/segmented_ring")->takes(Knob::segment));
  EXPECT_FALSE(find_algorithm("allreduce/ring")->takes(Knob::segment));
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
    EXPECT_EQ(find_algorithm(a.op, a.ompi_id), a.in_open_mpi() ? &a : nullptr);
    EXPECT_EQ(find_algorithm(a.op, a.name.substr(a.name.find('/') + 1)), &a);
    if (a.textbook) textbook.insert(std::string(a.name));
  }
  // The literature's formulas (models/textbook_formulas.hpp); the others have none.
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
