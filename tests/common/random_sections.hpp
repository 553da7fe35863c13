// Random conformable pairs of sections for the coarray property tests: any section shape of
// rank 0 to 4 (counts up to 6, now and then 0), scalar subscripts mixed in, strides -2 to 3,
// extents from exactly the span to a little more, and an element-by-element enumeration of a
// section's offsets that does not share code with Section.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "algorithms/coarray/section.hpp"
#include "common/collsim_test.hpp"

namespace collsim_test {

using namespace collsim::coarray;

using Rng = std::mt19937_64;

inline std::size_t uniform(Rng& rng, std::size_t lo, std::size_t hi) {
  return std::uniform_int_distribution<std::size_t>(lo, hi)(rng);
}

// A section of the given section shape, with scalar subscripts mixed in, random strides (some
// negative), extents and positions.
inline Section random_section(Rng& rng, const std::vector<std::size_t>& counts, std::size_t element_bytes) {
  const std::size_t rank =
      uniform(rng, std::max<std::size_t>(1, counts.size()), std::min<std::size_t>(7, counts.size() + 2));
  std::vector<bool> is_scalar(rank, true);
  // Which positions carry the section's dimensions (in order): pick counts.size() of them.
  std::vector<std::size_t> positions(rank);
  for (std::size_t i = 0; i < rank; ++i) positions[i] = i;
  std::shuffle(positions.begin(), positions.end(), rng);
  for (std::size_t i = 0; i < counts.size(); ++i) is_scalar[positions[i]] = false;

  static constexpr std::array<std::int64_t, 8> strides = {1, 1, 1, 1, 2, 3, -1, -2};
  Shape shape{{}, element_bytes};
  std::vector<Triplet> dims;
  std::size_t next = 0;
  for (std::size_t d = 0; d < rank; ++d) {
    Triplet t;
    std::size_t extent;
    if (is_scalar[d]) {
      extent = uniform(rng, 1, 4);
      t.lower = t.upper = static_cast<std::int64_t>(uniform(rng, 1, extent));
      t.scalar = true;
    } else {
      const auto c = static_cast<std::int64_t>(counts[next++]);
      t.stride = strides[uniform(rng, 0, strides.size() - 1)];
      const std::int64_t s = t.stride, step = s > 0 ? s : -s;
      const std::int64_t span = c == 0 ? 1 : (c - 1) * step + 1;
      extent = static_cast<std::size_t>(span) + (uniform(rng, 0, 1) ? 0 : uniform(rng, 1, 3));
      const auto e = static_cast<std::int64_t>(extent);
      if (c == 0) {
        t.lower = static_cast<std::int64_t>(uniform(rng, 1, extent + 2));
        t.upper = t.lower - s;  // (u - l + s) / s = 0
      } else if (s > 0) {
        t.lower = static_cast<std::int64_t>(uniform(rng, 1, static_cast<std::size_t>(e - span + 1)));
        t.upper =
            t.lower + (c - 1) * s + static_cast<std::int64_t>(uniform(rng, 0, static_cast<std::size_t>(step - 1)));
      } else {
        t.lower = static_cast<std::int64_t>(uniform(rng, static_cast<std::size_t>(span), extent));
        t.upper =
            t.lower + (c - 1) * s - static_cast<std::int64_t>(uniform(rng, 0, static_cast<std::size_t>(step - 1)));
      }
    }
    shape.extents.push_back(extent);
    dims.push_back(t);
  }
  return Section(shape, dims);
}

// Byte offsets of every element, by an odometer over the subscripts, first dimension fastest.
inline std::vector<std::size_t> enumerate(const Section& s) {
  std::vector<std::size_t> offsets;
  const auto& dims = s.dims();
  for (const Triplet& t : dims)
    if (t.count() == 0) return offsets;
  std::vector<std::size_t> at(dims.size(), 0);
  for (;;) {
    std::size_t element = 0, stride = 1;
    for (std::size_t d = 0; d < dims.size(); ++d) {
      const std::int64_t subscript = dims[d].lower + static_cast<std::int64_t>(at[d]) * dims[d].stride;
      element += static_cast<std::size_t>(subscript - 1) * stride;
      stride *= s.shape().extents[d];
    }
    offsets.push_back(element * s.shape().element_bytes);
    std::size_t d = 0;
    while (d < dims.size() && ++at[d] == dims[d].count()) at[d++] = 0;
    if (d == dims.size()) return offsets;
  }
}

// Every byte, in order, of the elements at these offsets.
inline std::vector<std::size_t> bytes_of(const std::vector<std::size_t>& element_offsets, std::size_t element_bytes) {
  std::vector<std::size_t> bytes;
  for (std::size_t o : element_offsets)
    for (std::size_t b = 0; b < element_bytes; ++b) bytes.push_back(o + b);
  return bytes;
}

struct Pair {
  Section local, remote;
};

inline Pair random_pair(Rng& rng) {
  static constexpr std::array<std::size_t, 4> sizes = {1, 2, 4, 8};
  const std::size_t element_bytes = sizes[uniform(rng, 0, sizes.size() - 1)];
  std::vector<std::size_t> counts(uniform(rng, 0, 4));
  for (std::size_t& c : counts) c = uniform(rng, 0, 40) == 0 ? 0 : uniform(rng, 1, 6);
  return {random_section(rng, counts, element_bytes), random_section(rng, counts, element_bytes)};
}

}  // namespace collsim_test
