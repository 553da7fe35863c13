// The many-image patterns (algorithms/coarray/pattern.hpp) on the model engine: who puts to whom
// (written out for 2 to 4 images), the time by hand (contention at a target's port), the engine
// against coarray_pattern_time, and every image's data after each pattern on 2 to 4 images.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "algorithms/coarray/pattern.hpp"
#include "common/pattern_points.hpp"
#include "engines/model/model_engine.hpp"
#include "experiment/results/coarray_point.hpp"
#include "models/coarray_cost.hpp"

namespace collsim::coarray {
namespace {

using V = std::vector<int>;

// Ranks (image - 1). all-to-one: images 2..N to image 1; ring: i to i+1; halo (periodic): i to
// i-1, then i+1, a target keeping its left neighbour's copies in slot 0 and its right one's in 1.
TEST(CoarrayPattern, WhoPutsToWhom) {
  const Traffic all{Pattern::all_to_one, 4, 0, 1};
  EXPECT_EQ(all.targets(0), V{});
  EXPECT_EQ(all.targets(2), V{0});
  EXPECT_EQ(all.sources(0), (V{1, 2, 3}));
  EXPECT_EQ(all.sources(1), V{});
  EXPECT_EQ(all.slots(), 3);
  EXPECT_EQ(all.slot(0, 3), 2);
  EXPECT_EQ(all.partners(0), (V{1, 2, 3}));
  EXPECT_EQ(all.partners(3), V{0});

  const Traffic ring{Pattern::ring, 3, 0, 1};
  EXPECT_EQ(ring.targets(2), V{0});
  EXPECT_EQ(ring.sources(0), V{2});
  EXPECT_EQ(ring.slots(), 1);
  EXPECT_EQ(ring.partners(1), (V{0, 2}));
  const Traffic ring2{Pattern::ring, 2, 0, 1};
  EXPECT_EQ(ring2.partners(0), V{1});  // its target and its source are one image

  const Traffic halo{Pattern::halo, 4, 0, 1};
  EXPECT_EQ(halo.targets(0), (V{3, 1}));
  EXPECT_EQ(halo.sources(0), (V{3, 1}));
  EXPECT_EQ(halo.slot(1, 0), 0);  // image 1 is image 2's left neighbour
  EXPECT_EQ(halo.slot(3, 0), 1);  // and image 4's right one (periodic)
  EXPECT_EQ(halo.slots(), 2);
  EXPECT_EQ(halo.partners(2), (V{1, 3}));

  const Traffic one{Pattern::one, 4, 2, 0};
  EXPECT_EQ(one.targets(2), V{0});
  EXPECT_EQ(one.targets(0), V{});
  EXPECT_EQ(one.sources(0), V{2});
  EXPECT_EQ(one.partners(1), V{});

  EXPECT_EQ(pattern_problem(Pattern::halo, 3), "");
  EXPECT_NE(pattern_problem(Pattern::halo, 2), "");
  EXPECT_EQ(pattern_problem(Pattern::ring, 2), "");
  EXPECT_EQ(parse_pattern("all-to-one"), Pattern::all_to_one);
  EXPECT_EQ(parse_pattern("alltoone"), std::nullopt);
}

// remote(1:1000)[t] = local(1:1000) of real(8): one put of 8000 B out of the buffer (case 1).
CoarrayPoint whole(Pattern pattern, int images, bool get = false) {
  CoarrayPoint p;
  p.get = get;
  p.local = parse_section("1:1000", parse_shape("1000", 8));
  p.remote = parse_section("1:1000", parse_shape("1000", 8));
  p.pattern = pattern;
  p.images = images;
  return p;
}

// Hockney alpha = 2 us, beta = 1 ns/B, free copies, o = 1 us per operation whatever its size.
ModelConfig hand_model() {
  ModelConfig c;
  c.hockney = {2e-6, 1e-9};
  c.send_overhead = models::Overhead{{{0, 1e-6, 0}}};
  return c;
}

RunResult run_point(const CoarrayPoint& p, const ModelConfig& config = hand_model()) {
  const CoarrayProgram program(p);
  return run_model(config, coarray_spec(program));
}

// Written out, a blocking PUT of 8000 B ended by sync memory:
//  - one (and ring, every image at once, no port shared): o 0-1, 8 us on the wire from 1,
//    arrives 1 + 2 + 8 = 11; the flush's o and acknowledgement: 14; sync memory's o: 15 us.
//  - all-to-one on 3 images: images 2 and 3 are both ready at 1; image 2's put holds image 1's
//    port 1-9 and arrives at 11 (15 us for image 2); image 3's starts at 9, arrives at 19, then
//    o, alpha, o: 23 us. On 4 images, image 4's starts at 17: 31 us. Each image more adds 8 us.
//  - halo on 3 images: each image's put to its left neighbour as above (flushed at 14), then its
//    put to its right one: o 14-15, arrives 25, flushed 28, sync memory 29 us (its target's port
//    took the other neighbour's put at 1-9, long free).
//  - all-to-one of 2 statements (k = 2 puts an image; a cycle of o, 8 us on the wire, 2 alpha
//    and the flush's o: C = 1 + 8 + 4 + 1 = 14 us): on 2 images 2 x 14 + 1 = 29 us. On 3 images
//    images 2 and 3 are ready at 1; image 2 holds image 1's port 1-9, flushed at 14, ready again
//    at 15; image 3 holds it 9-17, flushed 22, ready 23; image 2's second waits for the port,
//    17-25, arrives 27, flushed 30, sync memory 31; image 3's second 25-33, arrives 35, flushed
//    38, sync memory 39 us: the port never idles once 2 x 8 us > C. On 4 images it passes
//    3 x 2 puts back to back from 1, 48 us, then the last's alpha, flush and sync memory: 1 + 48
//    + 2 + 1 + 2 + 1 = 55 us.
//  - GET, all-to-one on 3 images: both requests reach image 1 at 1 + 2 = 3; the first reply
//    leaves its port 3-11 and arrives 13, the second leaves 11-19 and arrives 21; sync memory's
//    o: 22 us (one image alone: 14 us).
TEST(CoarrayPattern, ContentionAtTheTargetByHand) {
  const struct {
    Pattern pattern;
    int images;
    bool get;
    double want_s;
  } cases[] = {
      {Pattern::one, 3, false, 15e-6},        {Pattern::ring, 3, false, 15e-6},
      {Pattern::ring, 2, false, 15e-6},       {Pattern::all_to_one, 2, false, 15e-6},
      {Pattern::all_to_one, 3, false, 23e-6}, {Pattern::all_to_one, 4, false, 31e-6},
      {Pattern::halo, 3, false, 29e-6},       {Pattern::halo, 4, false, 29e-6},
      {Pattern::one, 3, true, 14e-6},         {Pattern::all_to_one, 3, true, 22e-6},
  };
  for (const auto& c : cases) {
    const RunResult r = run_point(whole(c.pattern, c.images, c.get));
    EXPECT_NEAR(r.time_s, c.want_s, 1e-12) << to_string(c.pattern) << " on " << c.images << (c.get ? " GET" : " PUT");
    EXPECT_EQ(r.data_error, "");
  }
  const ModelConfig config = hand_model();
  const models::CoarrayCosts costs{config.hockney, 0, config.send_overhead};
  for (const auto& [images, want_s] : {std::pair{2, 29e-6}, {3, 39e-6}, {4, 55e-6}}) {
    CoarrayPoint p = whole(Pattern::all_to_one, images);
    p.statements = 2;
    EXPECT_NEAR(run_point(p).time_s, want_s, 1e-12) << "2 statements on " << images;
    const auto t = models::coarray_pattern_time(p.pattern, images, p.plan(), costs, p.mode, false);
    ASSERT_TRUE(t.has_value());
    EXPECT_NEAR(*t, want_s, 1e-12) << "2 statements on " << images;
  }
}

// The engine's time is coarray_pattern_time wherever that has one: ring and halo on 2 to 5
// images for a strided section (50 puts of one 8-byte element per statement, buffered or DMA),
// every mode, all-to-one of one transfer per image on 2 to 6 images, and of blocking PUTs of
// that section; each without and with a copy's per-call cost (0.2 us) and win_sync's (0.7 us).
TEST(CoarrayPattern, EngineEqualsTheCostModel) {
  const ModelConfig config = hand_model();
  const models::CoarrayCosts costs{config.hockney, 2e9, config.send_overhead};
  ModelConfig copying = config;
  copying.copy_bandwidth = 2e9;
  ModelConfig calls = copying;
  calls.copy_overhead = 0.2e-6, calls.sync_overhead = 0.7e-6;
  const models::CoarrayCosts calls_costs{config.hockney, 2e9, config.send_overhead, {}, 0, 0.2e-6, 0.7e-6};
  auto check = [&](const CoarrayPoint& p) {
    for (const auto& [model, closed] : {std::pair{&copying, &costs}, std::pair{&calls, &calls_costs}}) {
      const RunResult r = run_model(*model, coarray_spec(CoarrayProgram(p)));
      const auto t = models::coarray_pattern_time(p.pattern, p.images, p.plan(), *closed, p.mode, p.get);
      ASSERT_TRUE(t.has_value()) << p.describe();
      EXPECT_NEAR(r.time_s, *t, 1e-12) << p.describe() << " on " << p.images << " images, c0 " << closed->copy_overhead;
      EXPECT_EQ(r.data_error, "") << p.describe();
    }
  };
  for (const int images : {2, 3, 4, 5})
    for (const Pattern pattern : {Pattern::ring, Pattern::halo}) {
      if (!pattern_problem(pattern, images).empty()) continue;
      for (const bool registered : {false, true})
        for (const PutMode mode :
             {PutMode::blocking, PutMode::nonblocking, PutMode::double_buffered, PutMode::nowait}) {
          CoarrayPoint p;
          p.local = parse_section("1:25,1:2", parse_shape("25,2", 8));
          p.remote = parse_section("1:50:2,1:2", parse_shape("50,2", 8));
          p.options.registered = registered;
          p.mode = mode;
          p.statements = 2;
          p.pattern = pattern;
          p.images = images;
          check(p);
          if (mode == PutMode::blocking) {
            p.get = true;
            check(p);
          }
        }
    }
  for (int images = 2; images <= 6; ++images) {
    for (const bool get : {false, true}) check(whole(Pattern::all_to_one, images, get));
    // Blocking PUTs of many units of one size, buffered or DMA: 2 statements of the 8000 B put
    // (the target's port never idles from 4 images on, buffered: (N-1) x 8 us > a cycle of 4 us
    // of copy + 14 us; from 3 DMA), and the strided section's 2 x 50 puts of 8 B (it always idles).
    for (const bool registered : {false, true}) {
      CoarrayPoint w = whole(Pattern::all_to_one, images);
      w.options.registered = registered;
      w.statements = 2;
      check(w);
      CoarrayPoint p;
      p.local = parse_section("1:25,1:2", parse_shape("25,2", 8));
      p.remote = parse_section("1:50:2,1:2", parse_shape("50,2", 8));
      p.options.registered = registered;
      p.statements = 2;
      p.pattern = Pattern::all_to_one;
      p.images = images;
      check(p);
    }
  }
  // More than one transfer into one target, non-blocking or GET, has no closed form here.
  CoarrayPoint two = whole(Pattern::all_to_one, 3);
  two.statements = 2;
  EXPECT_FALSE(
      models::coarray_pattern_time(two.pattern, 3, two.plan(), costs, PutMode::nonblocking, false).has_value());
  EXPECT_FALSE(models::coarray_pattern_time(two.pattern, 3, two.plan(), costs, two.mode, true).has_value());
}

// Every image's window (PUT) or local arrays (GET) hold Fortran's assignment after each pattern,
// every mode and segment end, on 2 to 4 images.
TEST(CoarrayPattern, EveryImagesDataOnTheModel) {
  for (const int images : {2, 3, 4})
    for (const CoarrayPoint& p : collsim_test::pattern_points(images)) {
      const RunResult r = run_point(p);
      EXPECT_EQ(r.data_error, "") << collsim_test::pattern_point_name(p);
      EXPECT_GT(r.time_s, 0) << collsim_test::pattern_point_name(p);
    }
}

}  // namespace
}  // namespace collsim::coarray
