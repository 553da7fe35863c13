// main() for the GoogleTest suites that run under mpirun: every rank runs every test (the tests
// are collective), rank 0 prints the usual report, the other ranks print only their failures,
// tagged with their rank, and every process exits non-zero if any rank failed. Like collsim-mpi,
// it lets Open MPI honour forced algorithms (for the mpi-native tests) before MPI_Init.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

#include "engines/mpi/mpi_t.hpp"
#include "engines/mpi/native_call.hpp"

namespace {

class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}
  // The name is kept here: asking UnitTest for the current test while a result is being
  // reported would take a lock that the reporting already holds.
  void OnTestStart(const ::testing::TestInfo& test) override {
    test_ = std::string(test.test_suite_name()) + "." + test.name();
  }
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed()) return;
    std::fprintf(stderr, "[rank %d] %s: %s:%d: Failure\n%s\n", rank_, test_.c_str(),
                 result.file_name() ? result.file_name() : "?", result.line_number(), result.summary());
    std::fflush(stderr);
  }

 private:
  int rank_;
  std::string test_;
};

}  // namespace

int main(int argc, char** argv) {
  collsim::enable_native_forcing();
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
  if (rank != 0) {
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailurePrinter(rank));
  }

  const int mine = RUN_ALL_TESTS();
  std::vector<int> all(static_cast<std::size_t>(size));
  MPI_Gather(&mine, 1, MPI_INT, all.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  int worst = mine;
  if (rank == 0) {
    std::string failed;
    for (int r = 0; r < size; ++r) {
      if (all[static_cast<std::size_t>(r)] != 0) {
        failed += ' ';
        failed += std::to_string(r);
      }
      worst = std::max(worst, all[static_cast<std::size_t>(r)]);
    }
    if (!failed.empty()) std::fprintf(stderr, "[mpi] tests failed on rank(s):%s\n", failed.c_str());
  }
  MPI_Bcast(&worst, 1, MPI_INT, 0, MPI_COMM_WORLD);
  collsim::mpi_t::finalise();
  MPI_Finalize();
  return worst;
}
