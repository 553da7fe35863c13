// The coarray property test on the sim engine (issue 9 item 3; the model engine's is
// tests/coarray/coarray_property_test.cpp): random points of common/random_points.hpp on
// star16, with the ideal protocol and with Open MPI's tcp+shm (two images a node, so origin and
// target share a node or not), ended by sync memory, sync all and sync images in turn, must
// leave the bytes of Fortran's assignment. All of a platform's
// points go in one run_sim call (one simulation process, not one per point); each platform gets
// every Table 1 case and every boundary kind.
#include <gtest/gtest.h>

#include <cstdio>
#include <deque>
#include <string>
#include <vector>

#include "common/corrupting_program.hpp"
#include "common/random_points.hpp"
#include "common/sim_test_util.hpp"
#include "experiment/results/coarray_point.hpp"

namespace collsim {
namespace {

using namespace collsim_test;

constexpr int kPoints = 200;

// Runs kPoints points of 2 to 4 images under `config`, in one run_sim call, and checks each.
void check_sim(const SimConfig& config, std::uint64_t seed) {
  Rng rng(seed);
  Coverage coverage;
  PointLimits limits;
  limits.max_array_bytes = 1 << 14;
  limits.max_transfers = 512;
  std::deque<CoarrayProgram> programs;  // specs point into them
  std::vector<RunSpec> specs;
  std::vector<int> images;
  for (int i = 0; i < kPoints; ++i) {
    images.push_back(2 + (i / 5) % 3);
    programs.emplace_back(ended_in_turn(random_point(rng, point_case(i), point_edge(i), images.back(), limits), i));
    coverage.add(programs.back().point());
    specs.push_back(coarray_spec(programs.back(), images.back()));
  }
  const std::vector<RunResult> results = collsim_test::run_all(config, specs);
  for (int i = 0; i < kPoints; ++i) {
    const CoarrayPoint& p = programs[static_cast<std::size_t>(i)].point();
    const RunResult& r = results[static_cast<std::size_t>(i)];
    EXPECT_EQ(r.data_error, "") << "point " << i << ": " << programs[static_cast<std::size_t>(i)].describe(images[i])
                                << " (" << p.local.str() << " of " << p.local.shape().str() << ", " << p.remote.str()
                                << " of " << p.remote.shape().str() << ", case " << p.scheme().table_case << ")";
    if (p.local.bytes() > 0) {  // an empty section moves nothing, in no time
      EXPECT_GT(r.time_s, 0) << "point " << i;
    }
  }
  const int per_node = config.map_by.per;  // the tests place ppr:K:node
  int same_node = 0;
  for (const CoarrayProgram& program : programs)
    if (program.point().origin / per_node == program.point().target / per_node) ++same_node;
  std::printf("%s; origin and target on one node %d, on two %d\n", coverage.str().c_str(), same_node,
              kPoints - same_node);
  EXPECT_EQ(coverage.missing(5), "") << coverage.str();
  if (per_node > 1) {
    EXPECT_GE(same_node, 20);
    EXPECT_GE(kPoints - same_node, 20);
  }
}

TEST(SimCoarrayProperty, Star16Ideal) { check_sim(collsim_test::exact("test/star16.xml"), 71); }

// Two images a node: shm between images of one node, tcp between nodes.
TEST(SimCoarrayProperty, Star16TcpShm) { check_sim(collsim_test::exact("test/star16.xml", 2, "tcp+shm"), 72); }

// The sim engine's data check can fail (common/corrupting_program.hpp): a flipped byte of the
// target's coarrays reaches the result, named, through the simulation process.
TEST(SimCoarrayProperty, CorruptedBytesAreCaught) {
  std::deque<CoarrayProgram> programs;
  std::deque<CorruptingProgram> corrupted;
  std::vector<RunSpec> specs;
  for (const bool get : {false, true}) {
    programs.emplace_back(hand_point(get, 3));
    for (const bool flip : {false, true}) {
      corrupted.emplace_back(programs.back(), 1, 83, flip);
      specs.push_back(coarray_spec(programs.back(), 2));
      specs.back().program = &corrupted.back();
    }
  }
  const std::vector<RunResult> r = collsim_test::run_all(collsim_test::exact("test/star16.xml", 1, "tcp+shm"), specs);
  EXPECT_EQ(r[0].data_error, "");
  EXPECT_EQ(r[1].data_error.rfind("byte 83 of image 2's coarray 2 is 0x", 0), 0u) << r[1].data_error;
  EXPECT_EQ(r[2].data_error, "");
  EXPECT_EQ(r[3].data_error.rfind("byte 3 of image 1's local array 2 is 0x", 0), 0u) << r[3].data_error;
}

}  // namespace
}  // namespace collsim
