// Open MPI's fixed decisions, branch by branch and at both sides of every boundary.
//
// The 4.1 tables are checked against the text of ../shared/reference/openmpi-algorithms.md
// (copied below as written there, parsed here), so the test does not share the implementation's
// own data; the 3.1 boundaries of the fitted lines p < a*m + b are the first integer sizes where
// each comparison turns, computed once in double precision as Open MPI computes them.
#include <gtest/gtest.h>

#include <cstddef>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "engines/run.hpp"
#include "selection/decision.hpp"

namespace collsim::selection {
namespace {

constexpr std::size_t KiB = 1024;

std::string fixed(OmpiVersion v, Operation op, int procs, std::size_t bytes) {
  return to_string(ompi_fixed_decision(v, op, procs, bytes));
}

struct Case {
  int procs;
  std::size_t bytes;
  const char* expected;
};

void check(OmpiVersion v, Operation op, std::initializer_list<Case> cases) {
  for (const Case& c : cases)
    EXPECT_EQ(fixed(v, op, c.procs, c.bytes), c.expected) << "P=" << c.procs << " m=" << c.bytes;
}

TEST(FixedDecision31, BcastBySizeThenFittedLines) {
  check(OmpiVersion::v3_1, Operation::bcast,
        {
            {1, 0, "bcast/binomial segment 0"},
            {64, 2047, "bcast/binomial segment 0"},
            {64, 2048, "bcast/split_binary_tree segment 1KiB"},
            {2, 370727, "bcast/split_binary_tree segment 1KiB"},
            {1000, 370727, "bcast/split_binary_tree segment 1KiB"},
            // p < 1.6134e-6 m + 2.1102: always for 2 processes past 370728 bytes.
            {2, 370728, "bcast/pipeline segment 128KiB"},
            {1, 370728, "bcast/pipeline segment 128KiB"},
            {3, 551506, "bcast/split_binary_tree segment 8KiB"},
            {3, 551507, "bcast/pipeline segment 128KiB"},
            // p < 13: split binary with 8 KiB segments.
            {12, 6129788, "bcast/split_binary_tree segment 8KiB"},
            {12, 6129789, "bcast/pipeline segment 128KiB"},
            // 13 processes and more: the three lines in turn, else 8 KiB segments.
            {13, 370728, "bcast/pipeline segment 8KiB"},
            {13, 1309670, "bcast/pipeline segment 8KiB"},
            {13, 1309671, "bcast/pipeline segment 16KiB"},
            {13, 4992313, "bcast/pipeline segment 16KiB"},
            {13, 4992314, "bcast/pipeline segment 64KiB"},
            {13, 6749597, "bcast/pipeline segment 64KiB"},
            {13, 6749598, "bcast/pipeline segment 128KiB"},
            {100, 28397285, "bcast/pipeline segment 8KiB"},
            {100, 28397286, "bcast/pipeline segment 16KiB"},
            {100, 41733730, "bcast/pipeline segment 16KiB"},
            {100, 41733731, "bcast/pipeline segment 64KiB"},
            {100, 60672988, "bcast/pipeline segment 64KiB"},
            {100, 60672989, "bcast/pipeline segment 128KiB"},
        });
}

TEST(FixedDecision31, GatherByBlockThenCommunicatorSize) {
  check(OmpiVersion::v3_1, Operation::gather,
        {
            {2, 92161, "gather/linear_sync segment 32KiB"},
            {1000, 92161, "gather/linear_sync segment 32KiB"},
            {2, 92160, "gather/linear_sync segment 1KiB"},
            {2, 6001, "gather/linear_sync segment 1KiB"},
            {1000, 6001, "gather/linear_sync segment 1KiB"},
            // b <= 6000: binomial above 60 processes, or above 10 with blocks under 1 KiB.
            {61, 6000, "gather/binomial"},
            {60, 6000, "gather/basic_linear"},
            {60, 1024, "gather/basic_linear"},
            {60, 1023, "gather/binomial"},
            {11, 1023, "gather/binomial"},
            {11, 0, "gather/binomial"},
            {11, 1024, "gather/basic_linear"},
            {10, 1023, "gather/basic_linear"},
            {10, 0, "gather/basic_linear"},
            {1, 0, "gather/basic_linear"},
        });
}

// The reference's 4.1 tables, as written there: "| p | rule |" rows.
const char* const kBcast41 = R"(
| < 4 | m<32:3; <256:5; <512:3; <1024:7; <32768:1; <131072:5; <262144:2; <524288:1; <1MiB:6; else 5 |
| < 8 | m<64:5; <128:6; <2048:5; <8192:6; <1MiB:1; else 2 |
| < 16 | m<8:7; <64:5; <4096:7; <16384:5; <32768:6; else 1 |
| < 32 | m<4096:7; <1MiB:6; else 8 |
| < 64 | m<2048:6; else 7 |
| < 128 | 7 |
| < 256 | m<2:6; <16384:5; <32768:1; <65536:5; else 7 |
| < 1024 | m<16384:7; <32768:4; else 7 |
| < 2048 | m<524288:7; else 8 |
| < 4096 | m<262144:7; else 8 |
| else | m<8192:7; <16384:5; <262144:7; else 8 |
)";

const char* const kGather41 = R"(
| < 4 | m<2:3; <4:1; <32768:2; <65536:1; <131072:2; else 3 |
| < 8 | m<1024:2; <8192:1; <32768:2; <262144:1; else 3 |
| < 256 | 2 |
| < 512 | m<2048:2; <8192:1; else 2 |
| else | 2 |
)";

struct RefStep {
  std::size_t below;  // max(): the "else"
  int id;
};
struct RefBand {
  int procs_below;  // max(): the "else" row
  std::vector<RefStep> steps;
};

std::size_t ref_bytes(std::string text) {
  if (text.ends_with("MiB")) return std::stoull(text.substr(0, text.size() - 3)) * 1024 * 1024;
  return std::stoull(text);
}

std::vector<RefBand> parse_reference(const char* text) {
  std::vector<RefBand> bands;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    const auto bar2 = line.find('|', 1);
    std::string p = line.substr(1, bar2 - 1), rule = line.substr(bar2 + 1, line.rfind('|') - bar2 - 1);
    RefBand band;
    band.procs_below =
        p.find('<') == std::string::npos ? std::numeric_limits<int>::max() : std::stoi(p.substr(p.find('<') + 1));
    std::istringstream steps(rule);
    for (std::string step; std::getline(steps, step, ';');) {
      const auto colon = step.find(':');
      if (colon == std::string::npos) {  // "else 5" or a lone "7"
        const auto digits = step.find_first_of("0123456789");
        band.steps.push_back({std::numeric_limits<std::size_t>::max(), std::stoi(step.substr(digits))});
        continue;
      }
      const std::string limit = step.substr(step.find('<') + 1, colon - step.find('<') - 1);
      band.steps.push_back({ref_bytes(limit), std::stoi(step.substr(colon + 1))});
    }
    bands.push_back(band);
  }
  return bands;
}

// Every band at its smallest and largest communicator size, every step at both sides of its
// limit (and at 0 bytes).
void check_41(Operation op, const char* reference, int bands_expected) {
  const std::vector<RefBand> bands = parse_reference(reference);
  ASSERT_EQ(static_cast<int>(bands.size()), bands_expected);
  int procs_from = 1;
  int checked = 0;
  for (const RefBand& band : bands) {
    const int last = band.procs_below == std::numeric_limits<int>::max() ? 1 << 20 : band.procs_below - 1;
    for (const int procs : {procs_from, last}) {
      std::size_t from = 0;
      for (const RefStep& s : band.steps) {
        const AlgorithmInfo* expected = find_algorithm(op, s.id);
        ASSERT_NE(expected, nullptr) << s.id;
        std::vector<std::size_t> sizes{from};
        if (s.below != std::numeric_limits<std::size_t>::max())
          sizes.push_back(s.below - 1);
        else
          sizes.push_back(std::size_t{1} << 40);
        for (const std::size_t m : sizes) {
          const Choice c = ompi_fixed_decision(OmpiVersion::v4_1, op, procs, m);
          EXPECT_EQ(c.algorithm, expected) << to_string(op) << " P=" << procs << " m=" << m << ": got " << to_string(c)
                                           << ", reference " << expected->name;
          // 4.1 never segments; its chain runs with fanout 0, raised to 1 by Open MPI.
          EXPECT_EQ(c.params.segment, 0u);
          if (c.algorithm->takes(Knob::fanout)) {
            EXPECT_EQ(c.params.fanout, 1);
          }
          if (c.algorithm->takes(Knob::radix)) {
            EXPECT_EQ(c.params.radix, 4);
          }
          ++checked;
        }
        from = s.below;
      }
    }
    procs_from = band.procs_below;
  }
  EXPECT_GT(checked, 2 * bands_expected);
}

TEST(FixedDecision41, BcastMatchesTheReferenceTableAtEveryBoundary) { check_41(Operation::bcast, kBcast41, 11); }

TEST(FixedDecision41, GatherMatchesTheReferenceTableAtEveryBoundary) { check_41(Operation::gather, kGather41, 5); }

TEST(FixedDecision41, SpotChecks) {
  // A few cells written out, so that a misreading of the reference by the parser above shows.
  check(OmpiVersion::v4_1, Operation::bcast,
        {
            {4, 100001, "bcast/basic_linear"},
            {4, 1024 * KiB, "bcast/chain segment 0 fanout 1"},
            {3, 200000, "bcast/chain segment 0 fanout 1"},
            {16, 1, "bcast/knomial segment 0 radix 4"},
            {200, 1, "bcast/binomial segment 0"},
            {512, 20000, "bcast/split_binary_tree segment 0"},
            {5000, 10000, "bcast/binary_tree segment 0"},
            {5000, 1 << 20, "bcast/scatter_allgather"},
        });
  check(OmpiVersion::v4_1, Operation::gather,
        {
            {2, 1, "gather/linear_sync segment 0"},
            {3, 2, "gather/basic_linear"},
            {4, 300000, "gather/linear_sync segment 0"},
            {300, 4096, "gather/basic_linear"},
            {100000, 4096, "gather/binomial"},
        });
}

TEST(FixedDecision, RefusesAnEmptyCommunicator) {
  EXPECT_THROW(ompi_fixed_decision(OmpiVersion::v4_1, Operation::bcast, 0, 1), InputError);
  EXPECT_THROW(ompi_fixed_decision(OmpiVersion::v3_1, Operation::gather, -1, 1), InputError);
}

TEST(Choice, EqualityLooksAtTheKnobsTheAlgorithmTakes) {
  Choice a{find_algorithm("bcast/basic_linear"), {}}, b = a;
  b.params.segment = 8192;  // basic_linear takes no segment
  b.params.fanout = 7;
  EXPECT_EQ(a, b);
  Choice p{find_algorithm("bcast/pipeline"), {}}, q = p;
  q.params.segment = 8192;
  EXPECT_FALSE(p == q);
  q.params.segment = 0;
  q.params.radix = 9;  // pipeline takes no radix
  EXPECT_EQ(p, q);
  EXPECT_FALSE(a == p);
  EXPECT_EQ(to_string(Choice{}), "(none)");
}

}  // namespace
}  // namespace collsim::selection
