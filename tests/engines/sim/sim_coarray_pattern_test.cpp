// The many-image patterns (algorithms/coarray/pattern.hpp) on the sim engine: every image's data
// after each pattern on 2 to 4 images (star16, ideal and tcp+shm two images a node), and
// contention where images share a link: on star16 (a private 1.25 GBps split-duplex link per
// host to a crossbar) the N-1 puts of all-to-one share image 1's down link, so each image added
// costs one more put's wire time, while ring and halo share no link at a time.
#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <vector>

#include "common/pattern_points.hpp"
#include "common/sim_test_util.hpp"
#include "experiment/results/coarray_point.hpp"

namespace collsim {
namespace {

using namespace collsim_test;
using coarray::Pattern;

void check_data(const SimConfig& config) {
  std::deque<CoarrayProgram> programs;  // the specs point into them
  std::vector<RunSpec> specs;
  for (const int images : {2, 3, 4})
    for (const CoarrayPoint& p : pattern_points(images)) {
      programs.emplace_back(p);
      specs.push_back(coarray_spec(programs.back()));
    }
  const std::vector<RunResult> results = run_all(config, specs);
  for (std::size_t i = 0; i < specs.size(); ++i) {
    EXPECT_EQ(results[i].data_error, "") << pattern_point_name(programs[i].point());
    EXPECT_GT(results[i].time_s, 0) << pattern_point_name(programs[i].point());
  }
}

TEST(SimCoarrayPattern, EveryImagesDataStar16Ideal) { check_data(exact("test/star16.xml")); }
TEST(SimCoarrayPattern, EveryImagesDataStar16TcpShm) { check_data(exact("test/star16.xml", 2, "tcp+shm")); }

// a(1:156250)[t] = b(1:156250) of real(8), registered: one DMA put of 1.25 MB, 1 ms on a link
// alone (no copies to muddle the sum).
CoarrayPoint big_put(Pattern pattern, int images, std::size_t statements = 1) {
  CoarrayPoint p;
  p.local = coarray::parse_section(":", coarray::parse_shape("156250", 8));
  p.remote = coarray::parse_section(":", coarray::parse_shape("156250", 8));
  p.options.registered = true;
  p.pattern = pattern;
  p.images = images;
  p.statements = statements;
  p.real_bytes = false;
  return p;
}

// All-to-one: N-1 flows of 1.25 MB share image 1's down link at 1.25/(N-1) GBps each, so every
// one ends (N-2) ms later than a put alone: T(N) = T(2) + (N-2) x 1 ms. Ring: every flow has its
// own up and down links: the one-image time on any N. Halo: each image's put to its left, then
// to its right neighbour; a down link carries one of them at a time: the time of one image's two
// statements to one target, on any N.
TEST(SimCoarrayPattern, ContentionOnlyWhereALinkIsShared) {
  std::deque<CoarrayProgram> programs;
  std::vector<RunSpec> specs;
  auto add = [&](const CoarrayPoint& p) {
    programs.emplace_back(p);
    specs.push_back(coarray_spec(programs.back()));
  };
  add(big_put(Pattern::one, 2));
  add(big_put(Pattern::one, 2, 2));
  for (const int images : {2, 3, 4, 6}) add(big_put(Pattern::all_to_one, images));
  for (const int images : {2, 5}) add(big_put(Pattern::ring, images));
  for (const int images : {3, 5}) add(big_put(Pattern::halo, images));
  const std::vector<RunResult> r = run_all(exact("test/star16.xml"), specs);
  const double one = r[0].time_s, two_statements = r[1].time_s, wire = 1.25e6 / 1.25e9;
  EXPECT_NEAR(r[2].time_s, one, 1e-9);  // all-to-one on 2 images is one put
  EXPECT_NEAR(r[3].time_s, one + wire, 1e-9);
  EXPECT_NEAR(r[4].time_s, one + 2 * wire, 1e-9);
  EXPECT_NEAR(r[5].time_s, one + 4 * wire, 1e-9);
  EXPECT_NEAR(r[6].time_s, one, 1e-9);
  EXPECT_NEAR(r[7].time_s, one, 1e-9);
  EXPECT_NEAR(r[8].time_s, two_statements, 1e-9);
  EXPECT_NEAR(r[9].time_s, two_statements, 1e-9);
}

}  // namespace
}  // namespace collsim
