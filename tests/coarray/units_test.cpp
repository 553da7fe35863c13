// Properties over random conformable section pairs (fixed seed): one of NL, NR divides the
// other; the m-byte runs, and the units of every Table 1 case, cover exactly the elements of
// both sides in Fortran order, as an element-by-element enumeration written here lists them;
// the units' counts are the plan's.
#include "algorithms/coarray/units.hpp"

#include <gtest/gtest.h>

#include <array>
#include <random>
#include <vector>

namespace collsim::coarray {
namespace {

using Rng = std::mt19937_64;

std::size_t uniform(Rng& rng, std::size_t lo, std::size_t hi) {
  return std::uniform_int_distribution<std::size_t>(lo, hi)(rng);
}

// A section of the given section shape, with scalar subscripts mixed in, random strides (some
// negative), extents and positions.
Section random_section(Rng& rng, const std::vector<std::size_t>& counts, std::size_t element_bytes) {
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
std::vector<std::size_t> enumerate(const Section& s) {
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
std::vector<std::size_t> bytes_of(const std::vector<std::size_t>& element_offsets, std::size_t element_bytes) {
  std::vector<std::size_t> bytes;
  for (std::size_t o : element_offsets)
    for (std::size_t b = 0; b < element_bytes; ++b) bytes.push_back(o + b);
  return bytes;
}

struct Pair {
  Section local, remote;
};

Pair random_pair(Rng& rng) {
  static constexpr std::array<std::size_t, 4> sizes = {1, 2, 4, 8};
  const std::size_t element_bytes = sizes[uniform(rng, 0, sizes.size() - 1)];
  std::vector<std::size_t> counts(uniform(rng, 0, 4));
  for (std::size_t& c : counts) c = uniform(rng, 0, 40) == 0 ? 0 : uniform(rng, 1, 6);
  return {random_section(rng, counts, element_bytes), random_section(rng, counts, element_bytes)};
}

constexpr int kTrials = 3000;

TEST(Runs, ContiguousLengthsDivideOneAnother) {
  Rng rng(20261201);
  for (int i = 0; i < kTrials; ++i) {
    const Pair p = random_pair(rng);
    const std::size_t nl = p.local.contiguous_bytes(), nr = p.remote.contiguous_bytes();
    ASSERT_TRUE(nl % nr == 0 || nr % nl == 0) << p.local.str() << " / " << p.remote.str();
  }
}

TEST(Runs, SectionOffsetsMatchAnEnumerationAndParseBack) {
  Rng rng(7);
  for (int i = 0; i < kTrials; ++i) {
    const Pair p = random_pair(rng);
    for (const Section* s : {&p.local, &p.remote}) {
      ASSERT_EQ(s->element_offsets(), enumerate(*s)) << s->str() << " of " << s->shape().str();
      ASSERT_EQ(parse_section(s->str(), s->shape()).element_offsets(), enumerate(*s)) << s->str();
    }
  }
}

TEST(Runs, CoverTheElementsInFortranOrder) {
  Rng rng(42);
  for (int i = 0; i < kTrials; ++i) {
    const Pair p = random_pair(rng);
    const Runs runs(p.local, p.remote);
    const std::size_t eb = p.local.shape().element_bytes;
    EXPECT_EQ(runs.run_bytes(), std::min(p.local.contiguous_bytes(), p.remote.contiguous_bytes()));
    std::vector<std::size_t> local, remote;
    for (std::size_t r = 0; r < runs.count(); ++r)
      for (std::size_t b = 0; b < runs.run_bytes(); b += eb) {
        local.push_back(runs[r].local + b);
        remote.push_back(runs[r].remote + b);
      }
    ASSERT_EQ(local, enumerate(p.local)) << p.local.str() << " / " << p.remote.str();
    ASSERT_EQ(remote, enumerate(p.remote)) << p.local.str() << " / " << p.remote.str();
  }
}

TEST(Units, EveryCaseCoversTheElementsAndMatchesItsPlan) {
  Rng rng(1234);
  std::array<int, 5> seen{};
  for (int i = 0; i < kTrials; ++i) {
    const Pair p = random_pair(rng);
    const std::size_t nl = p.local.contiguous_bytes(), nr = p.remote.contiguous_bytes();
    const std::size_t b = uniform(rng, 1, 2 * std::max(nl, nr) + 1);
    const Scheme scheme = choose_scheme(p.local, p.remote, b, uniform(rng, 0, 5) == 0);
    ++seen[static_cast<std::size_t>(scheme.table_case)];
    const Runs runs(p.local, p.remote);
    std::vector<std::size_t> local, remote;
    std::size_t units = 0, pieces = 0;
    for (Units walk(scheme, runs); walk.next();) {
      const Unit& u = walk.unit();
      ++units;
      pieces += u.pieces.size();
      ASSERT_LE(u.bytes, scheme.unit);
      ASSERT_GT(u.bytes, 0u);
      std::size_t sum = 0;
      for (const Piece& piece : u.pieces) {
        for (std::size_t k = 0; k < piece.bytes; ++k) local.push_back(piece.local + k);
        sum += piece.bytes;
        if (scheme.table_case == 2 || scheme.table_case == 3) {
          ASSERT_EQ(piece.bytes, nl);
        }
      }
      ASSERT_EQ(sum, u.bytes);
      if (scheme.dma() || scheme.table_case == 1 || scheme.table_case == 4) {
        ASSERT_EQ(u.pieces.size(), 1u);
      }
      for (std::size_t k = 0; k < u.bytes; ++k) remote.push_back(u.remote + k);
    }
    const std::string what = p.local.str() + " / " + p.remote.str() + " B " + std::to_string(b);
    ASSERT_EQ(local, bytes_of(enumerate(p.local), p.local.shape().element_bytes)) << what;
    ASSERT_EQ(remote, bytes_of(enumerate(p.remote), p.remote.shape().element_bytes)) << what;
    const Plan plan = plan_put(scheme, p.local.bytes());
    ASSERT_EQ(units, plan.transfers) << what;
    ASSERT_EQ(scheme.dma() ? 0 : pieces, plan.copies) << what;
    ASSERT_EQ(plan_get(scheme, p.local.bytes(), GetBehaviour::omni).transfers,
              scheme.table_case == 2 || scheme.table_case == 3 ? pieces : units)
        << what;
  }
  for (int c = 0; c < 5; ++c) EXPECT_GT(seen[static_cast<std::size_t>(c)], 50) << "case " << c << " too rare";
}

}  // namespace
}  // namespace collsim::coarray
