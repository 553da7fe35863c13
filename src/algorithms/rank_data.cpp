#include "algorithms/rank_data.hpp"

#include <cstdio>

namespace collsim {

std::byte pattern_byte(int rank, std::size_t i) {
  return static_cast<std::byte>((static_cast<std::size_t>(rank + 1) * 37u + i * 13u + (i >> 8) * 7u) & 0xffu);
}

RankData::RankData(Operation op, int rank, int size, int root, std::size_t bytes, bool real)
    : op_(op), rank_(rank), size_(size), root_(root), bytes_(bytes), data_(bytes, real) {
  if (!real) {
    if (op == Operation::gather && rank == root) gathered_ = Storage(bytes * static_cast<std::size_t>(size), false);
    return;
  }
  auto& d = data_.bytes();
  switch (op_) {
    case Operation::bcast:
      for (std::size_t i = 0; i < bytes; ++i) d[i] = rank == root ? pattern_byte(root, i) : ~pattern_byte(root, i);
      break;
    case Operation::gather:
      for (std::size_t i = 0; i < bytes; ++i) d[i] = pattern_byte(rank, i);
      if (rank == root) {
        gathered_ = Storage(bytes * static_cast<std::size_t>(size), true);
        auto& g = gathered_.bytes();
        for (std::size_t i = 0; i < g.size(); ++i) g[i] = ~pattern_byte(static_cast<int>(i / bytes), i % bytes);
      }
      break;
  }
}

namespace {
std::string mismatch(int rank, const char* what, std::size_t index, std::byte got, std::byte want) {
  char line[160];
  std::snprintf(line, sizeof line, "rank %d: byte %zu of the %s is 0x%02x, expected 0x%02x", rank, index, what,
                static_cast<unsigned>(got), static_cast<unsigned>(want));
  return line;
}
}  // namespace

std::string RankData::check() const {
  if (data_.is_virtual()) return {};
  const auto& d = data_.bytes();
  switch (op_) {
    case Operation::bcast:
      for (std::size_t i = 0; i < bytes_; ++i)
        if (d[i] != pattern_byte(root_, i)) return mismatch(rank_, "broadcast buffer", i, d[i], pattern_byte(root_, i));
      break;
    case Operation::gather: {
      for (std::size_t i = 0; i < bytes_; ++i)
        if (d[i] != pattern_byte(rank_, i))
          return mismatch(rank_, "send block (changed by the gather)", i, d[i], pattern_byte(rank_, i));
      if (rank_ != root_) break;
      const auto& g = gathered_.bytes();
      for (std::size_t i = 0; i < g.size(); ++i) {
        const std::byte want = pattern_byte(static_cast<int>(i / bytes_), i % bytes_);
        if (g[i] != want) return mismatch(rank_, "gathered buffer", i, g[i], want);
      }
      break;
    }
  }
  return {};
}

}  // namespace collsim
