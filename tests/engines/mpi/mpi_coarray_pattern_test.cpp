// The many-image patterns (algorithms/coarray/pattern.hpp) on the mpi engine, over real MPI-3 RMA:
// every image's window (and a GET's local arrays) holds Fortran's assignment after each pattern
// that means something on the world's 2 to 4 ranks (test_mpi runs at 2 and 3; more ranks: skipped,
// the patterns are the same code).
#include <gtest/gtest.h>

#include "common/mpi_test_util.hpp"
#include "common/pattern_points.hpp"
#include "engines/mpi/measure.hpp"
#include "experiment/results/coarray_point.hpp"

namespace collsim {
namespace {

using namespace collsim_test;

TEST(MpiCoarrayPattern, EveryImagesDataAfterEachPattern) {
  const int images = world_size();
  if (images < 2 || images > 4) GTEST_SKIP() << "patterns are checked on 2 to 4 images";
  for (const CoarrayPoint& p : pattern_points(images)) {
    const CoarrayProgram program(p);
    const RunResult r = run_mpi(MPI_COMM_WORLD, coarray_spec(program, images));
    EXPECT_EQ(r.data_error, "") << pattern_point_name(p);
  }
}

}  // namespace
}  // namespace collsim
