// A rules file written by collsim, run by a real Open MPI: the algorithm Open MPI runs is the
// one our table chose, seen by Open MPI's message monitoring (common/pml_monitoring.hpp).
//
// Each case is a point where our table's choice differs from Open MPI 4.1's fixed decision, so
// the test cannot pass by Open MPI doing what it does anyway. Open MPI's own collective (engine
// mpi-native) is even forced to the fixed decision's algorithm: a file rule takes precedence over
// a forced algorithm (coll_tuned_decision_dynamic.c), so if the file were ignored or misread
// Open MPI would run the fixed decision's algorithm. Its messages are compared with those of our
// implementation of the table's choice (engine mpi; equal, message sizes included) and of the
// fixed decision's (different). Both engines run with the same rules file, so any other
// collective of collsim-mpi follows the same rules in both.
//
// Every operation has a case, all in one file (which also checks the collective IDs). The cases of
// operations whose tables are per process (gather, scatter, allgather, alltoall, reduce_scatter)
// also check the unit of the file's message sizes: Open MPI compares the total of all processes
// with them, and our table is per block. At 4 processes a gather block of 100001 bytes is below
// the table's 200000-byte boundary (binomial), while its total, 400004, is above it: a file written
// in blocks would make Open MPI run linear_sync.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "common/choices.hpp"
#include "common/every_algorithm.hpp"
#include "common/pml_monitoring.hpp"
#include "selection/rules_file.hpp"

namespace collsim::selection {
namespace {

namespace fs = std::filesystem;
using collsim_test::joined;
using collsim_test::monitored;
using collsim_test::Report;

constexpr int kProcs = 4;

using collsim_test::pick;

// One call and our table for its operation.
struct Case {
  Operation op;
  std::size_t bytes;
  DecisionTable table;
};

// bcast: 8 KiB pipeline segments from 64 KiB up. gather: binomial below 200000 bytes per process,
// linear_sync (1 KiB first segment) from there, in a row at the communicator size the test runs,
// where the file's total-byte boundaries are exact. 100001 bytes: no multiple of a segment.
// The other operations at 100000 bytes (whole floats): `ours` is the choice for the call; tables of
// per-process sizes switch to `other` at twice the call's size, so a file written per process would
// run `other`; tables of total sizes run `other` below half the call's size.
Case make_case(Operation op) {
  using Row = DecisionTable::Row;
  if (op == Operation::bcast)
    return {op, 100001,
            DecisionTable(
                op, std::vector<Row>{{1, {{0, pick("bcast/binomial")}, {64 * 1024, pick("bcast/pipeline", 8192)}}}})};
  if (op == Operation::gather)
    return {
        op, 100001,
        DecisionTable(op, std::vector<Row>{
                              {kProcs, {{0, pick("gather/binomial")}, {200000, pick("gather/linear_sync", 1024)}}}})};
  // Chosen where Open MPI 4.1's fixed decision on 4 processes runs something else, with other
  // messages (the test checks both).
  const char* ours = nullptr;
  const char* other = nullptr;
  switch (op) {
    case Operation::scatter: ours = "scatter/binomial", other = "scatter/basic_linear"; break;
    case Operation::reduce: ours = "reduce/linear", other = "reduce/binomial"; break;
    case Operation::allreduce: ours = "allreduce/ring", other = "allreduce/recursive_doubling"; break;
    case Operation::allgather: ours = "allgather/ring", other = "allgather/neighbor"; break;
    case Operation::alltoall: ours = "alltoall/modified_bruck", other = "alltoall/pairwise"; break;
    case Operation::barrier: ours = "barrier/bruck"; break;
    case Operation::reduce_scatter:
      ours = "reduce_scatter/recursive_halving", other = "reduce_scatter/non-overlapping";
      break;
    default: break;
  }
  const std::size_t bytes = 100000;
  if (other == nullptr) return {op, 0, DecisionTable(op, std::vector<Row>{{1, {{0, pick(ours)}}}})};
  if (operation_info(op).ompi_rules_size_per_process)
    return {op, bytes, DecisionTable(op, std::vector<Row>{{kProcs, {{0, pick(ours)}, {2 * bytes, pick(other)}}}})};
  return {op, bytes, DecisionTable(op, std::vector<Row>{{1, {{0, pick(other)}, {bytes / 2, pick(ours)}}}})};
}

// "--op NAME [--segment N]" for collsim-mpi.
std::string op_args(const Choice& c) {
  std::string out = "--op " + std::string(c.algorithm->name);
  if (c.algorithm->takes(Knob::segment)) out += " --segment " + std::to_string(c.params.segment);
  return out;
}

class RulesFileInOpenMpi : public ::testing::TestWithParam<Operation> {
 protected:
  void SetUp() override {
    rules_ = fs::temp_directory_path() / ("collsim-rules-" + std::to_string(::getpid()) + ".txt");
    // Every operation's table in one file, as collsim select --op all writes it.
    std::vector<DecisionTable> tables;
    for (const OperationInfo& info : all_operations()) tables.push_back(make_case(info.op).table);
    write_rules_file(rules_, tables);
  }
  void TearDown() override { fs::remove(rules_); }
  std::string mca() const {
    return "--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename " + rules_.string();
  }
  fs::path rules_;
};

TEST_P(RulesFileInOpenMpi, RunsTheTableChoiceNotTheFixedDecision) {
  REQUIRE_MONITORING();
  const Operation op = GetParam();
  const Case c = make_case(op);
  const Choice ours = c.table.lookup(kProcs, c.bytes);
  const Choice fixed = ompi_fixed_decision(OmpiVersion::v4_1, op, kProcs, c.bytes);
  ASSERT_FALSE(ours == fixed) << "the case must be one where our choice differs from Open MPI's";

  const std::string call = (c.bytes > 0 ? " --bytes " + std::to_string(c.bytes) : std::string()) +
                           (operation_info(op).rooted ? " --root 1" : "");
  const Report native = monitored(kProcs, "mpi-native", op_args(fixed) + call, mca());
  const Report chosen = monitored(kProcs, "mpi", op_args(ours) + call, mca());
  const Report other = monitored(kProcs, "mpi", op_args(fixed) + call, mca());
  for (const Report* r : {&native, &chosen, &other}) {
    ASSERT_EQ(r->status, 0) << r->err;
    ASSERT_FALSE(r->sent.empty()) << r->err;
  }
  EXPECT_EQ(joined(native.sent), joined(chosen.sent))
      << "Open MPI with our rules file (left) against our " << to_string(ours) << " (right)";
  EXPECT_EQ(native.sent, chosen.sent) << "same counts, other message sizes (histograms)";
  EXPECT_NE(joined(native.sent), joined(other.sent)) << "Open MPI ran its fixed decision, " << to_string(fixed);

  if (operation_info(op).ompi_rules_size_per_process) {
    // What a file with per-process message sizes would have made Open MPI run.
    const Choice misread = c.table.lookup(kProcs, c.bytes * kProcs);
    ASSERT_FALSE(misread == ours);
    const Report wrong = monitored(kProcs, "mpi", op_args(misread) + call, mca());
    ASSERT_EQ(wrong.status, 0) << wrong.err;
    EXPECT_NE(joined(native.sent), joined(wrong.sent)) << "Open MPI read the sizes as bytes per process";
  }
}

std::vector<Operation> every_operation() {
  std::vector<Operation> out;
  for (const OperationInfo& info : all_operations()) out.push_back(info.op);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Ops, RulesFileInOpenMpi, ::testing::ValuesIn(every_operation()),
                         collsim_test::operation_test_name);

}  // namespace
}  // namespace collsim::selection
