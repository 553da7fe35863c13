// The coarray property test on the mpi engine (issue 9 item 3; the model engine's is
// tests/coarray/coarray_property_test.cpp): random points of common/random_points.hpp, origin
// and target anywhere in MPI_COMM_WORLD, each run by run_mpi over real MPI-3 RMA and ended by sync
// memory, sync all and sync images in turn, must leave the bytes of Fortran's assignment. Every rank draws the same
// points (one seed), so they run the same collective calls in the same order.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "common/corrupting_program.hpp"
#include "common/mpi_test_util.hpp"
#include "common/random_points.hpp"
#include "engines/mpi/measure.hpp"
#include "experiment/results/coarray_point.hpp"

namespace collsim {
namespace {

using namespace collsim_test;

constexpr int kPoints = 80;

TEST(MpiCoarrayProperty, RandomPointsLeaveFortranAssignment) {
  const int images = collsim_test::world_size();
  if (images < 2) GTEST_SKIP() << "a coarray point needs two images";
  Rng rng(61);
  Coverage coverage;
  PointLimits limits;
  limits.max_array_bytes = 1 << 13;
  limits.max_transfers = 256;
  for (int i = 0; i < kPoints; ++i) {
    const CoarrayProgram program(ended_in_turn(random_point(rng, point_case(i), point_edge(i), images, limits), i));
    const CoarrayPoint& p = program.point();
    coverage.add(p);
    const RunResult r = run_mpi(MPI_COMM_WORLD, coarray_spec(program, images));
    EXPECT_EQ(r.data_error, "") << "point " << i << ": " << program.describe(images) << " (" << p.local.str() << " of "
                                << p.local.shape().str() << ", " << p.remote.str() << " of " << p.remote.shape().str()
                                << ", case " << p.scheme().table_case << ")";
  }
  if (collsim_test::world_rank() == 0) std::printf("%s\n", coverage.str().c_str());
  // 80 points: every case and boundary a few times, rank-7 arrays and every element size.
  EXPECT_EQ(coverage.missing(3), "") << coverage.str();
}

// The mpi engine's data check can fail (common/corrupting_program.hpp): a flipped byte of the
// target's coarrays in MPI window memory is caught and named, on every rank.
TEST(MpiCoarrayProperty, CorruptedBytesAreCaught) {
  const int images = collsim_test::world_size();
  if (images < 2) GTEST_SKIP() << "a coarray point needs two images";
  for (const bool get : {false, true}) {
    const CoarrayProgram program(hand_point(get, 3));
    for (const bool flip : {false, true}) {
      const CorruptingProgram corrupted(program, 1, 83, flip);
      RunSpec spec = coarray_spec(program, images);
      spec.program = &corrupted;
      const std::string e = run_mpi(MPI_COMM_WORLD, spec).data_error;
      if (!flip) {
        EXPECT_EQ(e, "");
      } else {
        EXPECT_EQ(e.rfind(get ? "byte 3 of image 1's local array 2 is 0x" : "byte 83 of image 2's coarray 2 is 0x", 0),
                  0u)
            << e;
      }
    }
  }
}

}  // namespace
}  // namespace collsim
