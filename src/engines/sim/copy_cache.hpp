// A node's last-level cache as its copies see it (internal to the sim engine). A copy moves at the
// node's copy rate only while its lines are in the cache; a copy of lines that are not runs at the
// memory's rate: a segment whose puts and copies touch more than the cache holds runs at the
// second (validation/coarray-cases.md, finding 20, has this machine's figures).
//
// The cache is least-recently-used over 64-byte lines, shared by every rank of the node. A copy
// touches its source's lines and its destination's; the share of them found in the cache moves at
// the copy rate, the rest at `uncached_rate`, and all of them are then the most recent. Real last
// level caches are not strictly LRU (a pattern cycling over more than their capacity keeps some
// lines), so a working set just above the capacity is slower here than measured; well above it,
// or well below, the two agree.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <span>
#include <unordered_map>

namespace collsim::sim {

class CopyCache {
 public:
  static constexpr std::size_t kLine = 64;

  explicit CopyCache(double capacity_bytes) : capacity_lines_(static_cast<std::size_t>(capacity_bytes) / kLine) {}

  // Touches the lines of [address, address + bytes) and returns how many of them were in the
  // cache; they are all in it afterwards (as far as it holds them), the most recent last touched.
  std::size_t touch(std::uintptr_t address, std::size_t bytes);
  // The lines [address, address + bytes) spans.
  static std::size_t lines(std::uintptr_t address, std::size_t bytes);

 private:
  std::size_t capacity_lines_;
  std::list<std::uintptr_t> order_;  // most recent first
  std::unordered_map<std::uintptr_t, std::list<std::uintptr_t>::iterator> where_;
};

// A piece of a copy: `bytes` from `src` to `dst`; a null address (a virtual buffer) touches
// nothing.
struct CopyPiece {
  const std::byte* src = nullptr;
  const std::byte* dst = nullptr;
  std::size_t bytes = 0;
};

// How many times longer a copy of `pieces` takes than at `rate` (the cached copy rate) when the
// lines it misses move at `uncached_rate`: 1 when every line of its sources and destinations was
// in `cache` (or none was touched), rate / uncached_rate when none was. Touches them all, each
// piece's source, then its destination.
double cache_factor(CopyCache& cache, double rate, double uncached_rate, std::span<const CopyPiece> pieces);

}  // namespace collsim::sim
