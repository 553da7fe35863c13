// The coarray property test on the sim engine (issue 9 item 3; the model engine's is
// tests/coarray/coarray_property_test.cpp): random points of coarray/random_points.hpp on
// star16, with the ideal protocol and with Open MPI's tcp+shm (two images a node, so origin and
// target share a node or not), must leave the bytes of Fortran's assignment. Fewer points than the
// model's, all in one run_sim call per platform, since every run is a simulation; each platform
// still gets every Table 1 case and every boundary kind.
#include <gtest/gtest.h>

#include <cstdio>
#include <deque>
#include <string>
#include <vector>

#include "coarray/random_points.hpp"
#include "experiment/coarray_point.hpp"
#include "sim_test_util.hpp"

namespace collsim {
namespace {

using namespace coarray::test_sections;

constexpr int kPoints = 60;

void check_sim(const SimConfig& config, std::uint64_t seed) {
  Rng rng(seed);
  Coverage coverage;
  PointLimits limits;
  limits.max_array_bytes = 1 << 13;
  limits.max_transfers = 256;
  std::deque<CoarrayProgram> programs;  // specs point into them
  std::vector<RunSpec> specs;
  std::vector<int> images;
  for (int i = 0; i < kPoints; ++i) {
    images.push_back(2 + (i / 5) % 3);
    programs.emplace_back(random_point(rng, i % 5, images.back(), limits));
    coverage.add(programs.back().point());
    specs.push_back(coarray_spec(programs.back(), images.back()));
  }
  const std::vector<RunResult> results = test::run_all(config, specs);
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
  std::printf("%s\n", coverage.str().c_str());
  // 60 points: every case and boundary a few times; rank-7 arrays and every element size need more.
  EXPECT_EQ(coverage.missing(3, false), "") << coverage.str();
}

TEST(SimCoarrayProperty, Star16Ideal) { check_sim(test::exact("test/star16.xml"), 71); }

TEST(SimCoarrayProperty, Star16TcpShm) { check_sim(test::exact("test/star16.xml", 2, "tcp+shm"), 72); }

}  // namespace
}  // namespace collsim
