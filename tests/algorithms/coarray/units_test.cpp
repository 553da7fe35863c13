// Properties over random conformable section pairs (fixed seed): one of NL, NR divides the
// other; the m-byte runs, and the units of every Table 1 case, cover exactly the elements of
// both sides in Fortran order, as an element-by-element enumeration (random_sections.hpp) lists them;
// the units' counts are the plan's.
#include "algorithms/coarray/units.hpp"

#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "common/random_sections.hpp"

namespace collsim::coarray {
namespace {

using namespace collsim_test;

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
