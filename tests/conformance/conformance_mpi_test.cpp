// The conformance suite on real MPI (the mpi engine's MpiComm), under mpirun: each case runs on
// the first 1..4 ranks of the world (the others wait), through the mpi engine's timing protocol.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <string>

#include "conformance/conformance_cases.hpp"
#include "conformance/conformance_run.hpp"
#include "engines/mpi/measure.hpp"

namespace collsim::conformance {
namespace {

class ConformanceMpi : public ::testing::TestWithParam<std::size_t> {};

TEST_P(ConformanceMpi, Case) {
  const Case& c = cases()[GetParam()];
  int world_rank = 0, world_size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  for (int procs = c.min_procs; procs <= std::min(c.max_procs, world_size); ++procs) {
    MPI_Comm sub = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank < procs ? 0 : MPI_UNDEFINED, world_rank, &sub);
    if (sub != MPI_COMM_NULL) {
      std::string error;
      try {
        const RunResult r = run_mpi(sub, spec_of(c, procs));
        EXPECT_EQ(r.data_error, "") << "on " << procs;
      } catch (const EngineError& e) {
        error = e.what();
      }
      EXPECT_EQ(verdict(c, procs, error), "") << "mpi on " << procs << " processes";
      MPI_Comm_free(&sub);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

std::string name_of(const ::testing::TestParamInfo<std::size_t>& info) {
  return std::string(cases()[info.param].algorithm.name.substr(12));
}

INSTANTIATE_TEST_SUITE_P(Mpi, ConformanceMpi, ::testing::Range<std::size_t>(0, cases().size()), name_of);

}  // namespace
}  // namespace collsim::conformance
