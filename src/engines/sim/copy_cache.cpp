#include "engines/sim/copy_cache.hpp"

namespace collsim::sim {

std::size_t CopyCache::lines(std::uintptr_t address, std::size_t bytes) {
  if (bytes == 0) return 0;
  return (address + bytes - 1) / kLine - address / kLine + 1;
}

std::size_t CopyCache::touch(std::uintptr_t address, std::size_t bytes) {
  if (bytes == 0 || capacity_lines_ == 0) return 0;
  std::size_t hits = 0;
  for (std::uintptr_t line = address / kLine, last = (address + bytes - 1) / kLine; line <= last; ++line) {
    if (const auto it = where_.find(line); it != where_.end()) {
      ++hits;
      order_.splice(order_.begin(), order_, it->second);
      continue;
    }
    order_.push_front(line);
    where_.emplace(line, order_.begin());
    if (order_.size() > capacity_lines_) {
      where_.erase(order_.back());
      order_.pop_back();
    }
  }
  return hits;
}

double cache_factor(CopyCache& cache, double rate, double uncached_rate, std::span<const CopyPiece> pieces) {
  std::size_t lines = 0, hits = 0;
  for (const CopyPiece& p : pieces)
    for (const std::byte* at : {p.src, p.dst}) {
      if (!at || p.bytes == 0) continue;
      const auto address = reinterpret_cast<std::uintptr_t>(at);
      lines += CopyCache::lines(address, p.bytes);
      hits += cache.touch(address, p.bytes);
    }
  if (lines == 0 || uncached_rate <= 0 || rate <= 0) return 1;
  const double missed = static_cast<double>(lines - hits) / static_cast<double>(lines);
  return 1 + missed * (rate / uncached_rate - 1);
}

}  // namespace collsim::sim
