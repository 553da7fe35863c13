#include "comm/strided.hpp"

#include <algorithm>

namespace collsim {

std::size_t Strided::blocks() const {
  std::size_t n = 1;
  for (const StridedDim& d : dims) n *= d.count;
  return n;
}

std::int64_t Strided::block_offset(std::size_t index) const {
  std::int64_t at = first;
  for (const StridedDim& d : dims) {
    at += static_cast<std::int64_t>(index % d.count) * d.step;
    index /= d.count;
  }
  return at;
}

std::int64_t Strided::lowest() const {
  if (blocks() == 0) return first;
  std::int64_t at = first;
  for (const StridedDim& d : dims)
    if (d.step < 0) at += static_cast<std::int64_t>(d.count - 1) * d.step;
  return at;
}

std::int64_t Strided::end() const {
  if (blocks() == 0) return first;
  std::int64_t at = first + static_cast<std::int64_t>(block);
  for (const StridedDim& d : dims)
    if (d.step > 0) at += static_cast<std::int64_t>(d.count - 1) * d.step;
  return at;
}

std::string Strided::str() const {
  std::string s = std::to_string(blocks()) + " x " + std::to_string(block) + " B at " + std::to_string(first);
  for (std::size_t i = 0; i < dims.size(); ++i)
    s += (i == 0 ? ", steps " : " ") + std::to_string(dims[i].count) + "x" + std::to_string(dims[i].step);
  return s;
}

Strided normalized(Strided layout) {
  if (layout.blocks() == 0) return {layout.first, layout.block, {StridedDim{0, 0}}};
  std::vector<StridedDim> kept;
  for (const StridedDim& d : layout.dims) {
    if (d.count == 1) continue;
    if (kept.empty() && d.step == static_cast<std::int64_t>(layout.block)) {
      layout.block *= d.count;  // contiguous with the block: a longer block
      continue;
    }
    if (!kept.empty() && d.step == static_cast<std::int64_t>(kept.back().count) * kept.back().step) {
      kept.back().count *= d.count;  // continues the previous dimension's progression
      continue;
    }
    kept.push_back(d);
  }
  layout.dims = std::move(kept);
  return layout;
}

std::string strided_problem(const Strided& layout, std::size_t size, bool written) {
  const std::size_t n = layout.blocks();
  if (n == 0) return "";
  if (layout.lowest() < 0 || layout.end() > static_cast<std::int64_t>(size))
    return "blocks " + layout.str() + " reach bytes " + std::to_string(layout.lowest()) + " to " +
           std::to_string(layout.end()) + " of memory of " + std::to_string(size) + " bytes";
  if (!written || n == 1) return "";
  std::vector<std::int64_t> at(n);
  for (std::size_t i = 0; i < n; ++i) at[i] = layout.block_offset(i);
  std::sort(at.begin(), at.end());
  for (std::size_t i = 1; i < n; ++i)
    if (at[i] - at[i - 1] < static_cast<std::int64_t>(layout.block))
      return "blocks " + layout.str() + " overlap at byte " + std::to_string(at[i]) +
             " (MPI leaves overlapping writes of one put or get undefined)";
  return "";
}

std::size_t piece_count(const StridedTransfer& t) {
  std::size_t n = 0;
  for_each_piece(t, [&](std::size_t, std::size_t, std::size_t) { ++n; });
  return n;
}

}  // namespace collsim
