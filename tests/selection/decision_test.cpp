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

#include "algorithms/ompi41_decision.hpp"
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
  int procs_below;      // max(): the "else" row
  int procs_equal = 0;  // a "= N" row: N processes only
  std::vector<RefStep> steps;
};

std::size_t ref_bytes(std::string text) {
  if (text.ends_with("MiB")) return std::stoull(text.substr(0, text.size() - 3)) * 1024 * 1024;
  if (text.ends_with("M")) return std::stoull(text.substr(0, text.size() - 1)) * 1024 * 1024;
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
    if (p.find('=') != std::string::npos) band.procs_equal = std::stoi(p.substr(p.find('=') + 1));
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

// The other operations' 4.1 tables (../shared/reference/openmpi-collectives.md section 10; the
// non-commutative rules and the barrier's, written inline there, as table rows here).
const char* const kAllreduce41 = R"(
| < 4 | m<8:4; <4096:3; <8192:4; <16384:3; <65536:4; <262144:5; else 6 |
| < 8 | m<16:4; <8192:3; else 6 |
| < 16 | m<8192:3; else 6 |
| < 32 | m<64:5; <4096:3; else 6 |
| < 64 | m<128:5; else 6 |
| < 128 | m<262144:3; else 6 |
| < 256 | m<131072:2; <262144:3; else 6 |
| < 512 | m<4096:2; else 6 |
| < 2048 | m<2048:2; <16384:3; else 6 |
| < 4096 | m<2048:2; <4096:5; <16384:3; else 6 |
| else | m<2048:2; <16384:5; <32768:3; else 6 |
)";
const char* const kAllreduceNonCommutative41 = R"(
| < 4 | m<131072:3; else 1 |
| < 8 | 3 |
| < 16 | m<1M:3; else 2 |
| < 128 | 3 |
| < 256 | m<131072:2; <524288:3; else 2 |
| < 512 | m<4096:2; <524288:3; else 2 |
| else | m<2048:2; else 3 |
)";
const char* const kReduce41 = R"(
| < 4 | m<8:7; <16:4; <32:3; <262144:1; <524288:3; <1M:2; else 3 |
| < 8 | m<4096:4; <65536:2; <262144:5; <524288:1; <1M:5; else 1 |
| < 16 | m<8192:4; else 5 |
| < 32 | m<4096:4; else 5 |
| < 256 | 5 |
| < 512 | m<8192:5; <16384:6; else 5 |
| < 2048 | 5 |
| < 4096 | m<512:5; <1024:6; <8192:5; <16384:6; else 5 |
| else | m<16:5; <32:6; <1024:5; <2048:6; <8192:5; <16384:6; else 5 |
)";
const char* const kReduceNonCommutative41 = R"(
| < 4 | m<8:6; else 1 |
| < 8 | 1 |
| < 16 | m<1024:6; <8192:1; <16384:6; <262144:1; else 6 |
| < 128 | 6 |
| < 256 | m<512:6; <1024:1; else 6 |
| else | 6 |
)";
const char* const kReduceScatter41 = R"(
| < 4 | m<65536:3; <131072:4; else 3 |
| < 8 | m<8:1; <262144:2; else 3 |
| < 32 | m<262144:2; else 3 |
| < 64 | m<64:1; <2048:2; <524288:4; else 3 |
| < 128 | m<256:1; <512:2; <2048:4; <4096:2; else 4 |
| < 256 | m<256:1; <512:2; else 4 |
| < 512 | m<256:1; <1024:2; else 4 |
| < 1024 | m<512:1; <2048:2; <8192:4; <16384:2; else 4 |
| < 2048 | m<512:1; <4096:2; <16384:4; <32768:2; else 4 |
| < 4096 | m<512:1; <4096:2; else 4 |
| else | m<1024:1; <8192:2; else 4 |
)";
const char* const kReduceScatterNonCommutative41 = R"(
| else | 1 |
)";
const char* const kAllgather41 = R"(
| = 2 | 6 |
| < 32 | 3 |
| < 64 | m<1024:3; <65536:5; else 4 |
| < 128 | m<512:3; <65536:5; else 4 |
| < 256 | m<512:3; <131072:5; <524288:4; <1M:5; else 4 |
| < 512 | m<32:3; <128:2; <1024:3; <131072:5; <524288:4; <1M:5; else 4 |
| < 1024 | m<64:3; <256:2; <2048:3; else 5 |
| < 2048 | m<4:3; <8:2; <16:3; <32:2; <256:3; <512:2; <4096:3; else 5 |
| < 4096 | m<32:2; <128:3; <512:2; <4096:3; else 5 |
| else | m<2:3; <8:2; <16:3; <512:2; <4096:3; else 5 |
)";
const char* const kAlltoall41 = R"(
| = 2 | m<2:2; <4:5; <16:2; <64:5; <256:2; <4096:5; <32768:2; <262144:4; <1M:5; else 2 |
| < 8 | m<8192:4; <16384:1; <65536:4; <524288:1; <1M:2; else 1 |
| < 16 | m<262144:4; else 1 |
| < 32 | m<4:4; <512:3; <8192:4; <32768:1; <262144:4; <524288:1; else 4 |
| < 64 | m<512:3; <524288:1; else 4 |
| < 128 | m<1024:3; <2048:1; <4096:4; <262144:1; else 2 |
| < 256 | m<1024:3; <2048:4; <262144:1; else 2 |
| < 512 | m<1024:3; <8192:4; <32768:1; else 2 |
| < 1024 | m<512:3; <8192:4; <16384:1; <131072:4; <262144:1; else 2 |
| < 2048 | m<512:3; <1024:4; <2048:1; <16384:4; <262144:1; else 4 |
| < 4096 | m<1024:3; <4096:4; <8192:1; <131072:4; else 1 |
| else | m<2048:3; <8192:4; <16384:1; <32768:4; <65536:1; else 4 |
)";
const char* const kScatter41 = R"(
| < 4 | m<2:3; <131072:1; <262144:3; else 1 |
| < 8 | m<2048:2; <4096:1; <8192:2; <32768:1; <1M:3; else 1 |
| < 16 | m<16384:2; <1M:3; else 1 |
| < 32 | m<16384:2; <32768:1; else 3 |
| < 64 | m<512:2; <8192:3; <16384:2; else 3 |
| else | m<512:2; else 3 |
)";
const char* const kBarrier41 = R"(
| < 4 | 3 |
| < 8 | 1 |
| < 64 | 3 |
| < 256 | 4 |
| < 512 | 6 |
| < 1024 | 4 |
| < 4096 | 6 |
| else | 4 |
)";

// The Open MPI ID of a fixed choice (its name within the operation) from the registry; -1 when no
// entry has that name.
int ompi_id(Operation op, const FixedChoice& c) {
  const AlgorithmInfo* a = find_algorithm(op, c.algorithm);
  return a ? a->ompi_id : -1;
}

// Every band at its smallest and largest communicator size, every step at both sides of its
// limit: the ID of ompi41_fixed_choice for the decision size m (reduce_scatter: the whole vector).
void check_41_ids(Operation op, const char* reference, bool commutative) {
  const std::vector<RefBand> bands = parse_reference(reference);
  int procs_from = 1, checked = 0;
  for (std::size_t b = 0; b < bands.size(); ++b) {
    const RefBand& band = bands[b];
    std::vector<int> procs;
    if (band.procs_equal) {
      procs = {band.procs_equal};
    } else {
      const int last = band.procs_below == std::numeric_limits<int>::max() ? 1 << 20 : band.procs_below - 1;
      for (int p : {procs_from, last})
        // A "= N" row before this one takes N itself.
        if (b == 0 || !bands[b - 1].procs_equal || p != bands[b - 1].procs_equal) procs.push_back(p);
      procs_from = band.procs_below;
    }
    for (const int p : procs) {
      std::size_t from = 0;
      for (const RefStep& s : band.steps) {
        const std::size_t upper =
            s.below == std::numeric_limits<std::size_t>::max() ? std::size_t{1} << 40 : s.below - 1;
        for (const std::size_t m : {from, upper}) {
          const FixedChoice c = ompi41_fixed_choice(op, p, m, commutative);
          EXPECT_EQ(ompi_id(op, c), s.id)
              << to_string(op) << (commutative ? "" : " non-commutative") << " P=" << p << " m=" << m;
          EXPECT_EQ(c.params.segment, 0u);
          EXPECT_EQ(c.params.max_requests, 0);
          ++checked;
        }
        from = s.below;
      }
    }
  }
  EXPECT_GE(checked, 2 * static_cast<int>(bands.size()));
}

TEST(FixedDecision41, OtherOperationsMatchTheReferenceTablesAtEveryBoundary) {
  check_41_ids(Operation::allreduce, kAllreduce41, true);
  check_41_ids(Operation::allreduce, kAllreduceNonCommutative41, false);
  check_41_ids(Operation::reduce, kReduce41, true);
  check_41_ids(Operation::reduce, kReduceNonCommutative41, false);
  check_41_ids(Operation::reduce_scatter, kReduceScatter41, true);
  check_41_ids(Operation::reduce_scatter, kReduceScatterNonCommutative41, false);
  check_41_ids(Operation::allgather, kAllgather41, true);
  check_41_ids(Operation::alltoall, kAlltoall41, true);
  check_41_ids(Operation::scatter, kScatter41, true);
  check_41_ids(Operation::barrier, kBarrier41, true);
}

TEST(FixedDecision41, ReduceScatterDecidesOnTheWholeVector) {
  // On 3 processes ring runs below a 64 KiB vector, butterfly from it: blocks of 21845 and 21846
  // bytes fall on either side, where the block alone would not.
  EXPECT_EQ(ompi41_decision_bytes(Operation::reduce_scatter, 3, 21845), 65535u);
  EXPECT_EQ(ompi41_decision_bytes(Operation::reduce_scatter, 3, 21846), 65538u);
  EXPECT_EQ(ompi41_decision_bytes(Operation::allgather, 3, 21846), 21846u);
  EXPECT_EQ(ompi41_fixed_choice(Operation::reduce_scatter, 3, 65535).algorithm, "ring");
  EXPECT_EQ(ompi41_fixed_choice(Operation::reduce_scatter, 3, 65538).algorithm, "butterfly");
}

TEST(FixedDecision41, SpotChecksOfTheOtherOperations) {
  // Through the selection interface, with the registry's entries and their knobs.
  check(OmpiVersion::v4_1, Operation::scatter,
        {{2, 1, "scatter/linear_nb max-requests 0"}, {5, 2048, "scatter/basic_linear"}, {100, 1, "scatter/binomial"}});
  check(OmpiVersion::v4_1, Operation::reduce,
        {{2, 4, "reduce/rabenseifner"},
         {2, 1000, "reduce/linear"},
         {3, 300000, "reduce/pipeline segment 0 max-requests 0"},
         {3, 600000, "reduce/chain segment 0 fanout 1 max-requests 0"},
         {300, 10000, "reduce/in-order_binary segment 0 max-requests 0"}});
  check(OmpiVersion::v4_1, Operation::allgather,
        {{2, 100, "allgather/two_proc"}, {3, 100, "allgather/recursive_doubling"}, {40, 100000, "allgather/ring"}});
  check(OmpiVersion::v4_1, Operation::alltoall,
        {{2, 2, "alltoall/two_proc"},
         {4, 100, "alltoall/linear_sync max-requests 0"},
         {40, 100, "alltoall/modified_bruck"}});
  check(OmpiVersion::v4_1, Operation::barrier, {{2, 0, "barrier/recursive_doubling"}, {5, 0, "barrier/linear"}});
  // A non-commutative operator has tables of its own.
  EXPECT_EQ(to_string(ompi_fixed_decision(OmpiVersion::v4_1, Operation::reduce, 8, 100, false)),
            "reduce/in-order_binary segment 0 max-requests 0");
  EXPECT_EQ(to_string(ompi_fixed_decision(OmpiVersion::v4_1, Operation::reduce, 8, 100, true)),
            "reduce/binary segment 0 max-requests 0");
}

TEST(FixedDecision31, OnlyBcastAndGatherAreWritten) {
  EXPECT_THROW(ompi_fixed_decision(OmpiVersion::v3_1, Operation::reduce, 4, 100), InputError);
}

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
