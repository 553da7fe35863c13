// The coarray property test on the mpi engine (issue 9 item 3; the model engine's is
// tests/coarray/coarray_property_test.cpp): random points of coarray/random_points.hpp, origin
// and target anywhere in MPI_COMM_WORLD, each run by run_mpi over real MPI-3 RMA, must leave the
// bytes of Fortran's assignment. Every rank draws the same points (one seed), so they run the
// same collective calls in the same order.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "coarray/random_points.hpp"
#include "engines/mpi/measure.hpp"
#include "experiment/coarray_point.hpp"
#include "mpi_test_util.hpp"

namespace collsim {
namespace {

using namespace coarray::test_sections;

constexpr int kPoints = 40;

TEST(MpiCoarrayProperty, RandomPointsLeaveFortranAssignment) {
  const int images = test::world_size();
  if (images < 2) GTEST_SKIP() << "a coarray point needs two images";
  Rng rng(61);
  Coverage coverage;
  PointLimits limits;
  limits.max_array_bytes = 1 << 13;
  limits.max_transfers = 256;
  for (int i = 0; i < kPoints; ++i) {
    const CoarrayProgram program(random_point(rng, i % 5, images, limits));
    const CoarrayPoint& p = program.point();
    coverage.add(p);
    const RunResult r = run_mpi(MPI_COMM_WORLD, coarray_spec(program, images));
    EXPECT_EQ(r.data_error, "") << "point " << i << ": " << program.describe(images) << " (" << p.local.str() << " of "
                                << p.local.shape().str() << ", " << p.remote.str() << " of " << p.remote.shape().str()
                                << ", case " << p.scheme().table_case << ")";
  }
  if (test::world_rank() == 0) std::printf("%s\n", coverage.str().c_str());
  // 40 points: every case and boundary twice at least; rank-7 arrays and every element size need more.
  EXPECT_EQ(coverage.missing(2, false), "") << coverage.str();
}

}  // namespace
}  // namespace collsim
