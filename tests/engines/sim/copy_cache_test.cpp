// The node's cache of the sim engine (engines/sim/copy_cache.hpp) against hand counts: LRU over
// 64-byte lines, and the factor a copy's missed lines cost.
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <vector>

#include "engines/sim/copy_cache.hpp"

namespace collsim::sim {
namespace {

TEST(CopyCache, CountsTheLinesARangeSpans) {
  EXPECT_EQ(CopyCache::lines(0, 0), 0u);
  EXPECT_EQ(CopyCache::lines(0, 64), 1u);
  EXPECT_EQ(CopyCache::lines(0, 65), 2u);
  EXPECT_EQ(CopyCache::lines(63, 2), 2u);  // straddles a boundary
  EXPECT_EQ(CopyCache::lines(128, 640), 10u);
}

// 4 lines of capacity: the least recently touched line leaves first.
TEST(CopyCache, KeepsTheLinesTouchedLast) {
  CopyCache cache(4 * 64);
  EXPECT_EQ(cache.touch(0, 128), 0u);    // lines 0, 1: cold
  EXPECT_EQ(cache.touch(0, 128), 2u);    // both cached
  EXPECT_EQ(cache.touch(256, 128), 0u);  // lines 4, 5: the cache is full (0, 1, 4, 5)
  EXPECT_EQ(cache.touch(0, 64), 1u);     // line 0 becomes the most recent: 1, 4, 5, 0
  EXPECT_EQ(cache.touch(512, 64), 0u);   // line 8 evicts line 1, the least recent
  EXPECT_EQ(cache.touch(64, 64), 0u);    // line 1 is gone (and now evicts line 4): 1, 8, 0, 5
  EXPECT_EQ(cache.touch(320, 64), 1u);   // line 5 is still there
  EXPECT_EQ(cache.touch(256, 64), 0u);   // line 4 is not
  // A pattern cycling over more lines than the capacity never hits (LRU).
  CopyCache small(4 * 64);
  small.touch(0, 5 * 64);
  EXPECT_EQ(small.touch(0, 5 * 64), 0u);
  // No capacity: nothing is ever cached.
  CopyCache none(0);
  none.touch(0, 64);
  EXPECT_EQ(none.touch(0, 64), 0u);
}

// A copy of 256 B whose source (4 lines) was cached and whose destination (4 lines) was not:
// half its lines missed; at rate 2 GB/s with misses at 0.5 GB/s it takes 1 + 0.5 x (4 - 1) = 2.5
// times as long. Again at once: every line cached, 1. A virtual destination (null) counts for
// nothing: the source alone decides.
TEST(CopyCache, AMissedLineCostsTheUncachedRate) {
  alignas(64) std::array<std::byte, 1024> memory{};
  CopyCache cache(1024 * 1024);
  cache.touch(reinterpret_cast<std::uintptr_t>(memory.data()), 256);
  const std::vector<CopyPiece> copy = {{memory.data(), memory.data() + 512, 256}};
  EXPECT_DOUBLE_EQ(cache_factor(cache, 2e9, 0.5e9, copy), 2.5);
  EXPECT_DOUBLE_EQ(cache_factor(cache, 2e9, 0.5e9, copy), 1.0);
  const std::vector<CopyPiece> to_virtual = {{memory.data() + 768, nullptr, 256}};
  EXPECT_DOUBLE_EQ(cache_factor(cache, 2e9, 0.5e9, to_virtual), 4.0);
  const std::vector<CopyPiece> all_virtual = {{nullptr, nullptr, 256}};
  EXPECT_DOUBLE_EQ(cache_factor(cache, 2e9, 0.5e9, all_virtual), 1.0);
}

}  // namespace
}  // namespace collsim::sim
