// The algorithms in the model engine against closed forms that are exact for our implementation
// (and Open MPI's call sequence) under Hockney without contention: a transfer of m bytes posted
// at t completes, on both sides, at t + alpha + beta*m, concurrent transfers do not slow each
// other, a receive completes at max(post, arrival), and local copies are free unless a copy rate
// is set. t(m) below is alpha + beta*m.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "common/run_specs.hpp"
#include "common/tree_heights.hpp"
#include "engines/model/model_engine.hpp"
#include "registry/registry.hpp"

namespace collsim {
namespace {

constexpr double kAlpha = 12e-6, kBeta = 1.0 / 3e9;

ModelConfig hockney() {
  ModelConfig c;
  c.hockney.alpha = kAlpha;
  c.hockney.beta = kBeta;
  return c;
}

double t(std::size_t bytes) { return kAlpha + kBeta * static_cast<double>(bytes); }

RunSpec spec(const char* name, int procs, std::size_t bytes, std::size_t segment = 0, int root = 0) {
  RunSpec s = collsim_test::named_spec(name, procs, bytes, segment, root);
  s.real_bytes = false;  // timing only; the data is checked in model_algorithms_test
  return s;
}

double model_time(const RunSpec& s, const ModelConfig& config = hockney()) { return run_model(config, s).time_s; }

#define EXPECT_TIME(actual, expected, what) EXPECT_NEAR(actual, expected, 1e-12 * (expected)) << what

// basic_linear: the root's p-1 isends run side by side and the receivers have their receives
// posted from the start, so every transfer ends at t(m).
TEST(ModelClosedForm, BasicLinearBcastIsOneTransfer) {
  for (int p : {2, 3, 17, 100})
    for (std::size_t m : {std::size_t{1}, std::size_t{1000}, std::size_t{1} << 20})
      EXPECT_TIME(model_time(spec("bcast/basic_linear", p, m, 0, p - 1)), t(m), "p=" << p << " m=" << m);
}

// Open MPI honours a segment size only below the message size (0 means unsegmented).
std::size_t segment_size(std::size_t m, std::size_t segment) { return segment >= 1 && segment < m ? segment : m; }

// The height of the tree each generic tree broadcast uses, from the trees' definitions.
int expected_height(const std::string& name, int p, int fanout, int radix) {
  using namespace collsim_test;
  if (name == "bcast/pipeline") return p - 1;
  if (name == "bcast/chain") return chain_height(p, fanout);
  if (name == "bcast/binary_tree") return floor_log2(p);
  if (name == "bcast/binomial") return binomial_height(p);
  if (name == "bcast/knomial") return knomial_height(p, radix);
  throw std::invalid_argument("no tree height for " + name);
}

// The generic segmented tree broadcast (chain, pipeline, binary, binomial, knomial) on a tree of
// height H with n segments of s bytes: (H + n - 1) * t(s), and with a short last segment of l
// bytes (n >= 2): (H + n - 2) * t(s) + t(l). Why exact: the root isends segment i to all its
// children at once and waits, so segment i leaves at i*t(s). By induction a rank at depth d holds
// segment i at (i + d)*t(s) (i < n-1): it receives it then, and its forward of segment i-1, begun
// at (i - 1 + d)*t(s), ends exactly then, so it forwards segment i at once and its children hold
// it at (i + d + 1)*t(s). The short last segment reaches depth 1 at (n-1)*t(s) + t(l), earlier
// than the end of the forward before it, so every level adds t(s) and the deepest leaf receives
// it at (n + H - 2)*t(s) + t(l); nobody finishes later (a rank's last forward ends when its
// children receive).
TEST(ModelClosedForm, GenericTreeBcastIsHeightPlusSegmentsSteps) {
  struct Variant {
    const char* name;
    int fanout = 4, radix = 4;
  };
  for (Variant v : {Variant{"bcast/pipeline"}, Variant{"bcast/chain"}, Variant{"bcast/chain", 2},
                    Variant{"bcast/chain", 7}, Variant{"bcast/binary_tree"}, Variant{"bcast/binomial"},
                    Variant{"bcast/knomial"}, Variant{"bcast/knomial", 4, 2}, Variant{"bcast/knomial", 4, 3}})
    for (int p : {2, 3, 5, 8, 13, 17, 33, 100})
      for (int root : {0, p / 2})
        for (std::size_t segment : {std::size_t{0}, std::size_t{1000}, std::size_t{8192}})
          for (std::size_t m : {std::size_t{64} << 10, std::size_t{100000}}) {
            RunSpec s = spec(v.name, p, m, segment, root);
            s.params.fanout = v.fanout;
            s.params.radix = v.radix;
            const int height = expected_height(v.name, p, v.fanout, v.radix);
            // n segments of `full` bytes, the last one holding what is left.
            const std::size_t full = segment_size(m, segment);
            const std::size_t count = (m + full - 1) / full, last = m - (count - 1) * full;
            const double n = static_cast<double>(count);
            const double expected = last == full ? (height + n - 1) * t(full) : (height + n - 2) * t(full) + t(last);
            EXPECT_TIME(model_time(s), expected,
                        describe(s) << " fanout " << v.fanout << " radix " << v.radix << " height " << height);
          }
}

// The formulas the brief names, spelled out: pipeline (p + n - 2) * t(s) for equal segments, a
// chain of fanout f is a pipeline as long as its longest chain, ceil((p-1)/f) + 1 ranks; an
// unsegmented binary tree takes floor(log2 p) transfers.
TEST(ModelClosedForm, PipelineChainAndBinaryTree) {
  const std::size_t s = 4096;
  for (int p : {2, 3, 10, 64})
    for (std::size_t n : {1, 7, 64}) {
      EXPECT_TIME(model_time(spec("bcast/pipeline", p, n * s, s)), (p + static_cast<double>(n) - 2) * t(s),
                  "p=" << p << " n=" << n);
      const double longest = std::ceil((p - 1) / 4.0);
      EXPECT_TIME(model_time(spec("bcast/chain", p, n * s, s)), (longest + static_cast<double>(n) - 1) * t(s),
                  "p=" << p << " n=" << n);
      EXPECT_TIME(model_time(spec("bcast/binary_tree", p, n * s)), std::floor(std::log2(p)) * t(n * s),
                  "p=" << p << " n=" << n);
    }
}

// split_binary_tree, unsegmented, even m, t = t(m/2). Two ranks: the root blocking-sends the left
// half to its only child, then (even p) the right half to the last rank, the same child: 2t.
// Three ranks: the root sends the left half to rank 1 (ends at t), then the right half to rank 2
// (ends at 2t); rank 1's half reaches rank 2 at 2t, but rank 2 can only send its half back once
// it has it, at 2t, so the swap ends at 3t.
TEST(ModelClosedForm, SplitBinaryOnTwoAndThreeRanks) {
  for (std::size_t m : {std::size_t{2}, std::size_t{1000}, std::size_t{1} << 20}) {
    EXPECT_TIME(model_time(spec("bcast/split_binary_tree", 2, m)), 2 * t(m / 2), "m=" << m);
    EXPECT_TIME(model_time(spec("bcast/split_binary_tree", 3, m, 0, 1)), 3 * t(m / 2), "m=" << m);
  }
}

// scatter_allgather on p = 2^k ranks with m = p*b bytes. Scatter: each odd vrank receives its
// block once every mask p/2, ..., 2, 1 has been served once along its path, and every inner rank
// ends its last blocking send at that moment too, so all ranks leave the scatter together at
// T = k*alpha + beta*b*(p-1). The recursive doubling then runs in lock step, step j moving 2^j
// blocks both ways: another k*alpha + beta*b*(p-1). The ring instead makes p-1 lock-step swaps
// of one block: T + (p-1)*t(b).
TEST(ModelClosedForm, ScatterAllgatherOnPowersOfTwo) {
  for (int k : {1, 2, 3, 5, 6})
    for (std::size_t b : {std::size_t{1}, std::size_t{1000}}) {
      const int p = 1 << k;
      const std::size_t m = static_cast<std::size_t>(p) * b;
      const double scatter = k * kAlpha + kBeta * static_cast<double>(b) * (p - 1);
      EXPECT_TIME(model_time(spec("bcast/scatter_allgather", p, m, 0, p / 2)), 2 * scatter, "p=" << p << " b=" << b);
      EXPECT_TIME(model_time(spec("bcast/scatter_allgather_ring", p, m, 0, p - 1)), scatter + (p - 1) * t(b),
                  "p=" << p << " b=" << b);
    }
}

// gather: basic_linear's p-1 sends all start at 0: t(m). Binomial on p = 2^k: a subtree of 2^j
// ranks is complete at j*alpha + (2^j - 1)*beta*m, since its root receives its children's
// subtrees (1, 2, ..., 2^(j-1) blocks) in that order and each arrives after the one before; so
// k*alpha + (p-1)*beta*m whatever the root (the rotation copies are free here).
TEST(ModelClosedForm, LinearAndBinomialGather) {
  for (int k : {1, 2, 4, 7})
    for (std::size_t m : {std::size_t{1}, std::size_t{4096}}) {
      const int p = 1 << k;
      EXPECT_TIME(model_time(spec("gather/basic_linear", p, m, 0, p - 1)), t(m), "p=" << p);
      for (int root : {0, 1, p - 1})
        EXPECT_TIME(model_time(spec("gather/binomial", p, m, 0, root)),
                    k * kAlpha + (p - 1) * kBeta * static_cast<double>(m), "p=" << p << " root=" << root);
    }
}

// The binomial gather's local copies, at a copy rate of c bytes/s, on two ranks: the root copies
// its block (m/c) while rank 1's block is on its way (t(m)); a root other than rank 0 also
// rotates the two blocks into place afterwards (2m/c).
TEST(ModelClosedForm, BinomialGatherChargesItsCopies) {
  ModelConfig c = hockney();
  c.copy_bandwidth = 2e9;
  for (std::size_t m : {std::size_t{1000}, std::size_t{1} << 20}) {
    const double copy = static_cast<double>(m) / c.copy_bandwidth;
    EXPECT_TIME(model_time(spec("gather/binomial", 2, m, 0, 0), c), std::max(copy, t(m)), "m=" << m);
    EXPECT_TIME(model_time(spec("gather/binomial", 2, m, 0, 1), c), std::max(copy, t(m)) + 2 * copy, "m=" << m);
  }
}

// linear_sync with a first segment of f bytes: for each rank in turn the root's zero-byte sync
// takes alpha to arrive, then the first segment t(f) comes back, and only then does the root
// move on: (p-1)*(2*alpha + beta*f). The last rank's second segment (m-f bytes, possibly zero)
// is sent right after its first: + t(m - f).
TEST(ModelClosedForm, LinearSyncGather) {
  for (int p : {2, 3, 9, 40})
    for (std::size_t segment : {std::size_t{0}, std::size_t{1024}, std::size_t{32768}}) {
      const std::size_t m = 20000;
      const std::size_t f = segment_size(m, segment);
      const double expected = (p - 1) * (2 * kAlpha + kBeta * static_cast<double>(f)) + t(m - f);
      EXPECT_TIME(model_time(spec("gather/linear_sync", p, m, segment, p / 2)), expected,
                  "p=" << p << " segment=" << segment);
    }
}

}  // namespace
}  // namespace collsim
