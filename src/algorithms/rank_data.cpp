#include "algorithms/rank_data.hpp"

#include <cstdint>
#include <cstdio>
#include <span>

namespace collsim {

namespace {

// The 8 pattern bytes of word `word` (bytes 8*word .. 8*word+7) of rank `rank`: the SplitMix64
// finaliser, a bijection on 64 bits, applied to a different starting point per rank. Distinct
// words of one rank never repeat (no period below 2^64 words), and two ranks' streams share no
// alignment, so a block or segment of any size moved to the wrong place, or taken from the wrong
// rank, differs from the expected bytes.
std::uint64_t pattern_word(int rank, std::size_t word) {
  std::uint64_t x = static_cast<std::uint64_t>(word) + 0x9e3779b97f4a7c15ull * (static_cast<std::uint64_t>(rank) + 1);
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Calls f(k, pattern_byte(rank, first + k)) for k = 0..n-1 until f returns false; one hash per
// 8 bytes (the buffers checked are up to gigabytes in large runs).
template <class F>
void for_each_pattern_byte(int rank, std::size_t first, std::size_t n, F&& f) {
  std::size_t i = first;
  const std::size_t end = first + n;
  while (i < end) {
    const std::uint64_t w = pattern_word(rank, i >> 3);
    for (unsigned b = static_cast<unsigned>(i & 7); b < 8 && i < end; ++b, ++i)
      if (!f(i - first, static_cast<std::byte>((w >> (8 * b)) & 0xffu))) return;
  }
}

// Writes rank's pattern bytes [first, first + out.size()), complemented if asked.
void fill_pattern(std::span<std::byte> out, int rank, std::size_t first, bool complement) {
  const std::byte flip = complement ? std::byte{0xff} : std::byte{0};
  for_each_pattern_byte(rank, first, out.size(), [&](std::size_t k, std::byte b) {
    out[k] = b ^ flip;
    return true;
  });
}

std::string mismatch(int rank, const char* what, std::size_t index, std::byte got, std::byte want) {
  char line[160];
  std::snprintf(line, sizeof line, "rank %d: byte %zu of the %s is 0x%02x, expected 0x%02x", rank, index, what,
                static_cast<unsigned>(got), static_cast<unsigned>(want));
  return line;
}

// "" when `got` holds rank's pattern bytes [first, first + got.size()); else the first difference,
// reported at index `base` + its position in `got`.
std::string compare_pattern(std::span<const std::byte> got, int rank, std::size_t first, int reporter, const char* what,
                            std::size_t base) {
  std::string error;
  for_each_pattern_byte(rank, first, got.size(), [&](std::size_t k, std::byte want) {
    if (got[k] == want) return true;
    error = mismatch(reporter, what, base + k, got[k], want);
    return false;
  });
  return error;
}

}  // namespace

std::byte pattern_byte(int rank, std::size_t i) {
  return static_cast<std::byte>((pattern_word(rank, i >> 3) >> (8 * (i & 7))) & 0xffu);
}

RankBuffers RankData::virtual_buffers(Operation op, int rank, int size, int root, std::size_t bytes) {
  const bool gathers = op == Operation::gather && rank == root;
  return {Buffer::virtual_of(bytes), Buffer::virtual_of(gathers ? bytes * static_cast<std::size_t>(size) : 0)};
}

RankData::RankData(Operation op, int rank, int size, int root, std::size_t bytes, bool real)
    : op_(op), rank_(rank), size_(size), root_(root), bytes_(bytes), data_(bytes, real) {
  if (!real) {
    const RankBuffers virtual_ones = virtual_buffers(op, rank, size, root, bytes);
    gathered_ = Storage(virtual_ones.gathered.size(), false);
    return;
  }
  auto& d = data_.bytes();
  switch (op_) {
    case Operation::bcast: fill_pattern(d, root, 0, rank != root); break;
    case Operation::gather:
      fill_pattern(d, rank, 0, false);
      if (rank == root) {
        gathered_ = Storage(bytes * static_cast<std::size_t>(size), true);
        std::span<std::byte> g(gathered_.bytes());
        for (int r = 0; r < size; ++r) fill_pattern(g.subspan(static_cast<std::size_t>(r) * bytes, bytes), r, 0, true);
      }
      break;
  }
}

std::string RankData::check() const {
  if (data_.is_virtual()) return {};
  const std::span<const std::byte> d(data_.bytes());
  switch (op_) {
    case Operation::bcast: return compare_pattern(d, root_, 0, rank_, "broadcast buffer", 0);
    case Operation::gather: {
      std::string error = compare_pattern(d, rank_, 0, rank_, "send block (changed by the gather)", 0);
      if (!error.empty() || rank_ != root_) return error;
      const std::span<const std::byte> g(gathered_.bytes());
      for (int r = 0; r < size_ && error.empty(); ++r) {
        const std::size_t at = static_cast<std::size_t>(r) * bytes_;
        error = compare_pattern(g.subspan(at, bytes_), r, 0, rank_, "gathered buffer", at);
      }
      return error;
    }
  }
  return {};
}

}  // namespace collsim
