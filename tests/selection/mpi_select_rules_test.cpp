// A rules file written by the `collsim select` command, run by a real Open MPI: the same check as
// mpi_rules_test.cpp, but end to end from a parameters file (tests/data/select_params.yaml) to
// the algorithm Open MPI runs, seen by its message monitoring (common/pml_monitoring.hpp).
//
// The parameters make binomial a hundred times cheaper than every other algorithm, and the
// selection is asked for unsegmented candidates only, so the table picks bcast/binomial and
// gather/binomial at every size, where Open MPI 4.1's fixed decision runs basic_linear (4
// processes, 100001 bytes). Open MPI's own collective is forced to the fixed decision's algorithm:
// only the file's rule (which takes precedence) makes it run binomial.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "common/every_algorithm.hpp"
#include "common/pml_monitoring.hpp"
#include "common/run_command.hpp"
#include "selection/decision.hpp"

namespace collsim::selection {
namespace {

namespace fs = std::filesystem;
using collsim_test::joined;
using collsim_test::monitored;
using collsim_test::Outcome;
using collsim_test::Report;

constexpr int kProcs = 4;
constexpr std::size_t kBytes = 100001;

class SelectRulesInOpenMpi : public ::testing::TestWithParam<Operation> {
 protected:
  void SetUp() override {
    rules_ = fs::temp_directory_path() / ("collsim-select-rules-" + std::to_string(::getpid()) + ".txt");
    const Outcome o = collsim_test::run_command(std::string(COLLSIM_BIN) + " select --op bcast,gather --procs " +
                                                std::to_string(kProcs) + " --params " + COLLSIM_SOURCE_DIR +
                                                "/tests/data/select_params.yaml --segments 0 --max-bytes 1MiB" +
                                                " --rules-out " + rules_.string());
    ASSERT_EQ(o.status, 0) << o.err;
    printed_ = o.out;
    ASSERT_TRUE(fs::exists(rules_));
  }
  void TearDown() override { fs::remove(rules_); }
  std::string mca() const {
    return "--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename " + rules_.string();
  }
  fs::path rules_;
  std::string printed_;
};

TEST_P(SelectRulesInOpenMpi, RunsTheSelectedAlgorithmNotTheFixedDecision) {
  REQUIRE_MONITORING();
  const Operation op = GetParam();
  const std::string chosen = std::string(to_string(op)) + "/binomial";
  // The table collsim select printed: one range from 0 bytes, binomial.
  const std::string line = "from 0            " + chosen + (op == Operation::bcast ? " segment 0" : "") + "\n";
  ASSERT_NE(printed_.find(line), std::string::npos) << printed_;
  const Choice fixed = ompi_fixed_decision(OmpiVersion::v4_1, op, kProcs, kBytes);
  ASSERT_NE(fixed.algorithm->name, chosen) << "the case must be one where the choice differs from Open MPI's";

  const std::string call = " --bytes " + std::to_string(kBytes) + " --root 1";
  const Report native = monitored(kProcs, "mpi-native", "--op " + std::string(fixed.algorithm->name) + call, mca());
  const Report ours = monitored(kProcs, "mpi", "--op " + chosen + call, mca());
  const Report other = monitored(kProcs, "mpi", "--op " + std::string(fixed.algorithm->name) + call, mca());
  for (const Report* r : {&native, &ours, &other}) {
    ASSERT_EQ(r->status, 0) << r->err;
    ASSERT_FALSE(r->sent.empty()) << r->err;
  }
  EXPECT_EQ(joined(native.sent), joined(ours.sent))
      << "Open MPI with collsim select's rules (left) against our " << chosen << " (right)";
  EXPECT_EQ(native.sent, ours.sent) << "same counts, other message sizes (histograms)";
  EXPECT_NE(joined(native.sent), joined(other.sent)) << "Open MPI ran its fixed decision, " << to_string(fixed);
}

INSTANTIATE_TEST_SUITE_P(Ops, SelectRulesInOpenMpi, ::testing::Values(Operation::bcast, Operation::gather),
                         collsim_test::operation_test_name);

}  // namespace
}  // namespace collsim::selection
