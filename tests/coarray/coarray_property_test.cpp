// The coarray property test on the model engine (issue 9 item 3): random points of
// common/random_points.hpp, run as CoarrayProgram under each model the engine has (Hockney,
// Hockney one-port, two-level with origin and target on one node and on two, LogGP), must leave
// the bytes of Fortran's assignment (data_error ""), every third point ended by sync memory,
// sync all and sync images in turn. Each model gets every Table 1 case and every boundary kind;
// the tally is printed so a run shows what it covered.
//
// And the check itself must be able to fail: a program that runs the point and then corrupts one
// byte (as a wrong engine would) must be caught, with the image and coarray named.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "common/corrupting_program.hpp"
#include "common/random_points.hpp"
#include "engines/model/model_engine.hpp"
#include "experiment/results/coarray_point.hpp"

namespace collsim::coarray {
namespace {

using namespace collsim_test;

constexpr int kPoints = 300;

// The model's parameters matter little here (the data is checked, not the time), but a copy
// bandwidth makes the buffer copies take time, so a copy that raced its put would show.
ModelConfig model(ModelConfig::Kind kind, bool one_port = false) {
  ModelConfig c;
  c.kind = kind;
  c.hockney = {1e-6, 1e-9};
  c.two_level = {{0.2e-6, 0.1e-9}, {2e-6, 1e-9}, models::block_placement(2), std::nullopt, std::nullopt, std::nullopt};
  c.one_port = one_port;
  c.copy_bandwidth = 2e9;
  return c;
}

// Runs kPoints points of `procs(i)` images each under `config` and checks every one.
template <class Procs>
Coverage check_model(const ModelConfig& config, std::uint64_t seed, Procs procs, int* same_node = nullptr,
                     int* other_node = nullptr) {
  Rng rng(seed);
  Coverage coverage;
  PointLimits limits;
  limits.max_array_bytes = 1 << 15;
  limits.max_transfers = 2048;
  for (int i = 0; i < kPoints; ++i) {
    const int images = procs(i);
    const CoarrayProgram program(ended_in_turn(random_point(rng, point_case(i), point_edge(i), images, limits), i));
    const CoarrayPoint& p = program.point();
    coverage.add(p);
    if (same_node) ++(config.two_level.same_node(p.origin, p.target) ? *same_node : *other_node);
    RunResult r;
    try {
      r = run_model(config, coarray_spec(program, images));
    } catch (const std::exception& e) {
      ADD_FAILURE() << "point " << i << ": " << program.describe(images) << ": " << e.what();
      continue;
    }
    EXPECT_EQ(r.data_error, "") << "point " << i << ": " << program.describe(images) << " (" << p.local.str() << " of "
                                << p.local.shape().str() << ", " << p.remote.str() << " of " << p.remote.shape().str()
                                << ", case " << p.scheme().table_case << ")";
    if (p.local.bytes() > 0) {  // an empty section moves nothing, in no time
      EXPECT_GT(r.time_s, 0) << "point " << i << ": " << program.describe(images);
    }
  }
  std::printf("%s\n", coverage.str().c_str());
  EXPECT_EQ(coverage.missing(5), "") << coverage.str();
  return coverage;
}

TEST(CoarrayProperty, ModelHockney) {
  check_model(model(ModelConfig::Kind::hockney), 91, [](int) { return 2; });
}

TEST(CoarrayProperty, ModelHockneyOnePort) {
  check_model(model(ModelConfig::Kind::hockney, true), 92, [](int i) { return 2 + i % 2; });
}

TEST(CoarrayProperty, ModelTwoLevel) {
  // Two images per node, 3 or 4 images: origin and target share a node or not.
  int same = 0, other = 0;
  check_model(
      model(ModelConfig::Kind::two_level), 93, [](int i) { return 3 + (i / 5) % 2; }, &same, &other);
  std::printf("origin and target on one node %d, on two %d\n", same, other);
  EXPECT_GE(same, 20);
  EXPECT_GE(other, 20);
}

TEST(CoarrayProperty, ModelLogGP) {
  check_model(model(ModelConfig::Kind::loggp), 94, [](int) { return 2; });
}

// --- the check can fail ---

RunResult run_corrupted(const CoarrayProgram& program, std::size_t coarray, std::size_t offset, bool flip = true) {
  const CorruptingProgram corrupting(program, coarray, offset, flip);
  RunSpec spec = coarray_spec(program, 2);
  spec.program = &corrupting;
  return run_model(model(ModelConfig::Kind::hockney), spec);
}

TEST(CoarrayProperty, CorruptedPutIsCaught) {
  for (const int table_case : {0, 2, 3}) {
    const CoarrayProgram program(hand_point(false, table_case));
    ASSERT_EQ(program.point().scheme().table_case, table_case);
    // The decorator alone (barriers, no flip) changes nothing; then a byte the PUT wrote (element
    // (1,2) of coarray 2: byte 80 + 3) and a byte it must have left alone (element (1,1) of
    // coarray 3) flipped.
    EXPECT_EQ(run_corrupted(program, 1, 83, false).data_error, "");
    const std::string written = run_corrupted(program, 1, 83).data_error;
    EXPECT_EQ(written.rfind("byte 83 of image 2's coarray 2 is 0x", 0), 0u) << written;
    EXPECT_NE(written.find(", expected 0x"), std::string::npos) << written;
    const std::string kept = run_corrupted(program, 2, 0).data_error;
    EXPECT_EQ(kept.rfind("byte 0 of image 2's coarray 3 is 0x", 0), 0u) << kept;
  }
}

TEST(CoarrayProperty, CorruptedGetIsCaught) {
  for (const int table_case : {0, 2, 3}) {
    const CoarrayProgram program(hand_point(true, table_case));
    ASSERT_EQ(program.point().scheme().table_case, table_case);
    // Element (1,2) of the target's coarray 2 goes to element (1,1) of the origin's array 2
    // (byte 3 of it); element (1,1) of coarray 3 is not in the section, so nothing shows.
    const std::string read = run_corrupted(program, 1, 83).data_error;
    EXPECT_EQ(read.rfind("byte 3 of image 1's local array 2 is 0x", 0), 0u) << read;
    EXPECT_EQ(run_corrupted(program, 2, 0).data_error, "");
    EXPECT_EQ(run_corrupted(program, 1, 83, false).data_error, "");
  }
}

}  // namespace
}  // namespace collsim::coarray
