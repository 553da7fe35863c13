// Table 1: the five conditions partition every (NL, NR, B) the runtime can meet, and the plans
// (units, transfers, copies) on hand examples, boundaries included.
#include "algorithms/coarray/scheme.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <tuple>
#include <vector>

namespace collsim::coarray {
namespace {

// Table 1's buffered conditions, written out independently of choose_scheme.
std::vector<int> cases_that_hold(std::size_t nl, std::size_t nr, std::size_t b) {
  std::vector<int> hold;
  if (nr <= b && nr <= nl) hold.push_back(1);
  if (nl < nr && nr <= b) hold.push_back(2);
  if (nl < b && b < nr) hold.push_back(3);
  if (b < nr && b <= nl) hold.push_back(4);
  return hold;
}

TEST(Scheme, BufferedConditionsPartitionEveryDivisiblePair) {
  for (std::size_t b = 1; b <= 30; ++b)
    for (std::size_t nl = 1; nl <= 70; ++nl)
      for (std::size_t nr = 1; nr <= 70; ++nr) {
        if (nl % nr != 0 && nr % nl != 0) continue;
        const std::vector<int> hold = cases_that_hold(nl, nr, b);
        ASSERT_EQ(hold.size(), 1u) << "NL " << nl << " NR " << nr << " B " << b;
        EXPECT_EQ(choose_scheme(nl, nr, b, false).table_case, hold[0]) << "NL " << nl << " NR " << nr << " B " << b;
        EXPECT_EQ(choose_scheme(nl, nr, b, true).table_case, 0);
      }
}

TEST(Scheme, Boundaries) {
  const std::size_t b = 400000;
  struct Row {
    std::size_t nl, nr;
    int table_case;
    std::size_t unit;
  };
  const std::vector<Row> rows = {
      {b, b, 1, b},                    // NR = NL = B
      {2 * b, b, 1, b},                // NR = B < NL
      {b / 2, b, 2, b},                // NL < NR = B
      {8, 8, 1, 8},                    // NR = NL, small
      {b - 1, b - 1, 1, b - 1},        // NR = NL = B-1
      {1, b - 1, 2, b - 1},            // NL < NR = B-1
      {b - 1, 2 * (b - 1), 3, b - 1},  // NL = B-1 < B < NR: one piece per unit
      {1, b + 1, 3, b},                // NR = B+1, NL 1: units of B
      {b + 1, b + 1, 4, b},            // B < NR = NL = B+1
      {b, 2 * b, 4, b},                // NL = B < NR
      {2 * b, 2 * b, 4, b},            // B < NR = NL
      {4 * b, 2 * b, 4, b},            // B < NR < NL
      {8, 2 * b, 3, b},                // NL < B < NR: floor(B/8)*8 = B
      {3000, 1200000, 3, 399000},      // floor(400000/3000)*3000
  };
  for (const Row& r : rows) {
    const Scheme s = choose_scheme(r.nl, r.nr, b, false);
    EXPECT_EQ(s.table_case, r.table_case) << r.nl << " " << r.nr;
    EXPECT_EQ(s.unit, r.unit) << r.nl << " " << r.nr;
  }
  // DMA: the unit is min(NL, NR) whatever B.
  EXPECT_EQ(choose_scheme(8, 8000, 4, true).unit, 8u);
  EXPECT_EQ(choose_scheme(8000, 8, 4, true).unit, 8u);
}

TEST(Scheme, RejectsLengthsNoSectionGives) {
  EXPECT_THROW(choose_scheme(6, 4, 100, false), std::invalid_argument);
  EXPECT_THROW(choose_scheme(0, 4, 100, false), std::invalid_argument);
  EXPECT_THROW(choose_scheme(4, 4, 0, false), std::invalid_argument);
}

struct Counts {
  int table_case;
  std::size_t unit, transfers, copies, bytes_copied;
};

Counts counts(const Plan& p) { return {p.scheme.table_case, p.unit(), p.transfers, p.copies, p.bytes_copied}; }

void expect(const Plan& p, Counts want) {
  const Counts got = counts(p);
  EXPECT_EQ(got.table_case, want.table_case);
  EXPECT_EQ(got.unit, want.unit);
  EXPECT_EQ(got.transfers, want.transfers);
  EXPECT_EQ(got.copies, want.copies);
  EXPECT_EQ(got.bytes_copied, want.bytes_copied);
}

TEST(Plan, PerCaseOnHandExamples) {
  const std::size_t b = 400000, s = 800000;  // a(1000,100) of real(8) moved whole, or a section of that size
  // Case 0: NL 8 (strided local), NR 4000: 100000 puts of 8 bytes.
  expect(plan_put(choose_scheme(8, 4000, b, true), s), {0, 8, 100000, 0, 0});
  // Case 1: columns both sides.
  expect(plan_put(choose_scheme(8000, 8000, b, false), s), {1, 8000, 100, 100, s});
  expect(plan_put(choose_scheme(8000, 8, b, false), s), {1, 8, 100000, 100000, s});
  expect(plan_put(choose_scheme(b, b, b, false), s), {1, b, 2, 2, s});      // NR = NL = B
  expect(plan_put(choose_scheme(2 * b, b, b, false), s), {1, b, 2, 2, s});  // NR = B < NL
  // Case 2: a(1:1000:2, :)-like local (NL 8) into whole columns (NR 8000): NR/NL copies per put.
  expect(plan_put(choose_scheme(8, 8000, b, false), s), {2, 8000, 100, 100000, s});
  expect(plan_put(choose_scheme(8, b, b, false), s), {2, b, 2, 100000, s});  // NR = B
  // Case 3: NR = 2B, NL 8: two units of B per remote run.
  expect(plan_put(choose_scheme(8, 2 * b, b, false), 2 * s), {3, b, 4, 200000, 2 * s});
  // NL 3000, NR 1200000: units of 399000, 399000, 399000, 3000 per run.
  expect(plan_put(choose_scheme(3000, 1200000, b, false), 2400000), {3, 399000, 8, 800, 2400000});
  // NL = B-1, NR = 2(B-1): one piece per unit.
  expect(plan_put(choose_scheme(b - 1, 2 * (b - 1), b, false), 4 * (b - 1)), {3, b - 1, 4, 4, 4 * (b - 1)});
  // Case 4: B < NR = NL: two units per run.
  expect(plan_put(choose_scheme(s, s, b, false), s), {4, b, 2, 2, s});
  expect(plan_put(choose_scheme(b, 2 * b, b, false), 2 * s), {4, b, 4, 4, 2 * s});  // NL = B: one unit per run
  // Runs of 500000 (NR < NL): units of 400000 and 100000.
  expect(plan_put(choose_scheme(1000000, 500000, b, false), 2000000), {4, b, 8, 8, 2000000});
  // Empty section: nothing moves.
  expect(plan_put(choose_scheme(8, 8000, b, false), 0), {2, 8000, 0, 0, 0});
}

// Omni XcalableMP's PUT of a section with local runs of NL bytes and remote runs of NR bytes,
// replayed as libxmp/src/xmpco_put.c runs it (omni-compiler 14f1b66), independently of
// choose_scheme: B rounded up to 4 bytes; Buffer-RDMA (a unit of min(NL, NR) bytes at a time)
// when the remote side is not contiguous beyond the unit (NR <= NL) or 2 x unit > B, else packing
// per remote run; _push_localBuf flushes first when used + bytes >= B, cuts a piece over B into
// B-byte puts, and _flush_localBuf puts what the buffer holds, if anything.
struct OmniCounts {
  std::size_t puts = 0, copies = 0;
};
OmniCounts omni_put(std::size_t nl, std::size_t nr, std::size_t b, std::size_t bytes) {
  b = (b + 3) / 4 * 4;
  OmniCounts n;
  std::size_t used = 0;
  const auto flush = [&] {
    if (used > 0) ++n.puts;
    used = 0;
  };
  const auto push = [&](std::size_t piece) {
    if (used + piece >= b) {
      flush();
      for (; piece > b; piece -= b) ++n.copies, ++n.puts;  // a B-byte memcpy, then its flush
    }
    if (piece > 0) ++n.copies, used += piece;
  };
  const std::size_t unit = std::min(nl, nr);
  if (nr <= nl || 2 * unit > b) {
    for (std::size_t at = 0; at < bytes; at += unit) {
      push(unit);
      flush();
    }
  } else {
    for (std::size_t run = 0; run < bytes; run += nr) {
      for (std::size_t piece = 0; piece < nr; piece += nl) push(nl);
      flush();
    }
  }
  return n;
}

TEST(Plan, OmniPackingCountsWhatOmnisRuntimeDoes) {
  for (std::size_t b = 1; b <= 40; ++b)
    for (std::size_t nl = 1; nl <= 48; ++nl)
      for (std::size_t nr = 1; nr <= 48; ++nr) {
        if (nl % nr != 0 && nr % nl != 0) continue;
        const std::size_t bytes = 2 * std::max(nl, nr);
        const OmniCounts want = omni_put(nl, nr, b, bytes);
        const Plan got = plan_put(choose_scheme(nl, nr, b, false, Packing::omni), bytes);
        ASSERT_EQ(got.transfers, want.puts) << "NL " << nl << " NR " << nr << " B " << b;
        ASSERT_EQ(got.copies, want.copies) << "NL " << nl << " NR " << nr << " B " << b;
      }
}

TEST(Plan, OmniPackingOnTheIssuesRows) {
  // NL 8000 B into NR 80000 B runs, 1.6 MB (scenarios/coarray-cases.yaml, sweep c-buffer).
  const std::size_t s = 1600000;
  struct Row {
    std::size_t b, table1, omni;
  };
  for (const Row& r : {Row{16000, 100, 200}, Row{40000, 40, 60}, Row{80000, 20, 40}, Row{80001, 20, 20},
                       Row{16001, 100, 100}})  // 16001 is 16004 to Omni: two pieces fit below it
  {
    EXPECT_EQ(plan_put(choose_scheme(8000, 80000, r.b, false), s).transfers, r.table1) << "B " << r.b;
    EXPECT_EQ(plan_put(choose_scheme(8000, 80000, r.b, false, Packing::omni), s).transfers, r.omni) << "B " << r.b;
  }
  // NR = B: one put per run for Table 1 (case 2), two for Omni (case 3).
  EXPECT_EQ(choose_scheme(8000, 80000, 80000, false).table_case, 2);
  EXPECT_EQ(choose_scheme(8000, 80000, 80000, false, Packing::omni).table_case, 3);
  EXPECT_EQ(choose_scheme(8000, 80000, 80000, false, Packing::omni).unit, 72000u);
  EXPECT_EQ(buffer_capacity(16001, Packing::omni), 16004u);
  EXPECT_EQ(buffer_capacity(16001, Packing::table1), 16001u);
  // Cases 0, 1 and 4 do not pack: the same under both.
  for (const auto& [nl, nr, b, reg] : {std::tuple{8, 4000, 400000, true}, std::tuple{8000, 8000, 400000, false},
                                       std::tuple{800000, 800000, 400000, false}}) {
    const Scheme t = choose_scheme(nl, nr, b, reg), o = choose_scheme(nl, nr, b, reg, Packing::omni);
    EXPECT_EQ(t.table_case, o.table_case);
    EXPECT_EQ(t.unit, o.unit);
  }
}

TEST(Plan, StatementsMultiply) {
  const Plan p = plan_put(choose_scheme(8, 8000, 400000, false), 800000, 5);
  expect(p, {2, 8000, 500, 500000, 4000000});
  EXPECT_EQ(p.bytes, 4000000u);
  EXPECT_EQ(p.statements, 5u);
}

TEST(Plan, GetFollowsTable1OrOmni) {
  const std::size_t b = 400000, s = 800000;
  const Scheme case2 = choose_scheme(8, 8000, b, false);
  expect(plan_get(case2, s), {2, 8000, 100, 100000, s});                         // get a unit, copy NL pieces out
  expect(plan_get(case2, s, GetBehaviour::omni), {2, 8000, 100000, 100000, s});  // get each NL piece
  const Scheme case3 = choose_scheme(8, 2 * b, b, false);
  expect(plan_get(case3, 2 * s, GetBehaviour::omni, 3), {3, b, 600000, 600000, 6 * s});
  // Elsewhere Omni gets per unit, as Table 1 does.
  for (const Scheme& sc :
       {choose_scheme(8000, 8000, b, false), choose_scheme(s, s, b, false), choose_scheme(8, 8000, b, true)})
    EXPECT_EQ(counts(plan_get(sc, s, GetBehaviour::omni)).transfers, counts(plan_put(sc, s)).transfers);
}

}  // namespace
}  // namespace collsim::coarray
