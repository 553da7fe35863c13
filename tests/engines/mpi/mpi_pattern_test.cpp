// Message patterns: each algorithm of ours against Open MPI's own forced to it (engine
// mpi-native), seen by Open MPI's message monitoring (pml monitoring), which counts at MPI_Finalize
// the messages and bytes each rank sent to each other rank, with a histogram of their sizes.
//
// `collsim-mpi run` makes one call and otherwise sends the same messages for both engines (one
// communicator duplication, a barrier, a reduction), so equal reports mean that the two sent the
// same number of messages of the same sizes between the same ranks. This is what shows that the
// forcing works (an unforced Open MPI picks another algorithm; a wrong segment size, fanout or
// radix changes the counts, see the controls below) and that our algorithms move the bytes as
// Open MPI's do.
//
// Whether monitoring exists is asked of Open MPI itself (ompi_info): only an Open MPI built
// without the pml monitoring component skips these tests. Where it exists, a run that fails or
// reports nothing fails its test, since nothing else shows that our algorithms send what Open
// MPI's send.
#include <gtest/gtest.h>

#include <cctype>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "common/pml_monitoring.hpp"
#include "registry/registry.hpp"

namespace {

using collsim_test::monitored;
using collsim_test::Report;

struct Case {
  int procs;
  std::string args;
};

void PrintTo(const Case& c, std::ostream* os) { *os << "-np " << c.procs << " " << c.args; }

class Pattern : public ::testing::TestWithParam<Case> {};

TEST_P(Pattern, OursSendsWhatOpenMpiSends) {
  REQUIRE_MONITORING();
  const Case& c = GetParam();
  const Report ours = monitored(c.procs, "mpi", c.args);
  const Report native = monitored(c.procs, "mpi-native", c.args);
  ASSERT_EQ(ours.status, 0) << ours.err;
  ASSERT_EQ(native.status, 0) << native.err;
  ASSERT_FALSE(ours.sent.empty()) << ours.err;
  ASSERT_FALSE(native.sent.empty()) << native.err;
  EXPECT_EQ(collsim_test::joined(ours.sent), collsim_test::joined(native.sent)) << "ours left, Open MPI's right";
  EXPECT_EQ(ours.sent, native.sent) << "same counts, other message sizes (histograms)";
}

// One case per registered algorithm, from its entry (4 processes as in the fidelity benchmark, 2
// for two_proc; root 1; 100001 bytes, no multiple of a segment, or 100000 bytes of doubles for a
// reducing operation; 8 KiB segments where it takes them; a barrier moves 0 bytes), so a new
// algorithm has its case without a line here. Then other sizes of communicator, roots and knobs,
// and the fallbacks of split_binary_tree and of allreduce (ring below p elements, rabenseifner
// below p').
std::vector<Case> registry_cases() {
  std::vector<Case> out;
  for (const collsim::AlgorithmInfo& a : collsim::all_algorithms()) {
    if (!a.in_open_mpi()) continue;  // no Open MPI pattern to compare with
    const collsim::OperationInfo& o = collsim::operation_info(a.op);
    std::string args = "--op " + std::string(a.name);
    args += !o.moves_data ? " --bytes 0" : o.reduces ? " --bytes 100000 --datatype double" : " --bytes 100001";
    if (a.takes(collsim::Knob::segment)) args += " --segment 8KiB";
    if (o.rooted) args += " --root 1";
    out.push_back({a.max_procs > 0 ? a.max_procs : 4, args});
  }
  return out;
}

const Case kMoreCases[] = {
    {4, "--op gather/linear_sync --bytes 100001 --segment 1KiB --root 1"},
    {8, "--op bcast/chain --bytes 100001 --segment 8KiB --fanout 3 --root 5"},
    {8, "--op bcast/knomial --bytes 100001 --segment 4KiB --radix 3 --root 2"},
    {5, "--op bcast/knomial --bytes 30000 --segment 1KiB --radix 2 --root 4"},
    {5, "--op bcast/split_binary_tree --bytes 100001 --segment 8KiB --root 3"},
    {8, "--op bcast/split_binary_tree --bytes 8KiB --segment 8KiB --root 6"},
    {5, "--op bcast/binary_tree --bytes 65539 --segment 8KiB --root 4"},
    {5, "--op bcast/scatter_allgather --bytes 100001 --root 1"},
    {6, "--op bcast/scatter_allgather_ring --bytes 100001 --root 4"},
    {7, "--op gather/binomial --bytes 1001 --root 3"},
    {7, "--op gather/linear_sync --bytes 10001 --segment 1KiB --root 6"},
    {7, "--op scatter/binomial --bytes 1001 --root 3"},
    {7, "--op scatter/linear_nb --bytes 1001 --max-requests 3 --root 2"},
    {5, "--op barrier/linear --bytes 0"},
    {5, "--op barrier/double_ring --bytes 0"},
    {6, "--op barrier/recursive_doubling --bytes 0"},
    {6, "--op barrier/bruck --bytes 0"},
    {2, "--op barrier/two_proc --bytes 0"},
    {6, "--op barrier/tree --bytes 0"},
    {6, "--op allreduce/basic_linear --bytes 4004"},
    {6, "--op allreduce/recursive_doubling --bytes 4004"},
    {7, "--op allreduce/ring --bytes 40004"},
    {5, "--op allreduce/ring --bytes 16"},
    {5, "--op allreduce/segmented_ring --bytes 40004 --segment 1KiB"},
    {6, "--op allreduce/rabenseifner --bytes 40008 --datatype double"},
    {7, "--op allreduce/rabenseifner --bytes 12"},
    {6, "--op reduce_scatter/non-overlapping --bytes 4000"},
    {6, "--op reduce_scatter/recursive_halving --bytes 4000"},
    {5, "--op reduce_scatter/ring --bytes 4000"},
    {6, "--op reduce_scatter/butterfly --bytes 4000"},
    {7, "--op reduce_scatter/butterfly --bytes 1004"},
    // Reduce: double sum on 4 processes as in the fidelity benchmark, then odd process counts,
    // int32 max, segments that are no multiple of the element (1005 bytes of doubles: 126
    // elements by Open MPI's rounding, 1003: 125), the chain's fanout and the leaves' max_requests;
    // rabenseifner on non-powers of two (its folding step), with an odd root below 2r (rank 0
    // hands its block over), a root beyond 2r, and fewer elements than p' (linear instead).
    {7, "--op reduce/linear --bytes 1004 --root 3 --datatype int32 --reduce-op max"},
    {7, "--op reduce/chain --bytes 30004 --segment 1KiB --fanout 3 --root 5 --datatype int32 --reduce-op max"},
    {5, "--op reduce/chain --bytes 30000 --segment 1005 --fanout 2 --max-requests 2 --root 2 --datatype double"},
    {8, "--op reduce/chain --bytes 20000 --segment 1KiB --fanout 7 --root 6"},
    {5, "--op reduce/pipeline --bytes 30004 --segment 2KiB --max-requests 3 --root 4 --datatype int32 --reduce-op max"},
    {6, "--op reduce/binary --bytes 50004 --segment 4KiB --root 3 --datatype int32 --reduce-op max"},
    {7, "--op reduce/binary --bytes 30000 --segment 1003 --max-requests 1 --root 2 --datatype double"},
    {7, "--op reduce/binomial --bytes 30004 --segment 1KiB --root 6 --datatype int32 --reduce-op max"},
    {6, "--op reduce/binomial --bytes 40000 --segment 1KiB --max-requests 4 --root 1 --datatype double"},
    {5, "--op reduce/in-order_binary --bytes 30000 --segment 1KiB --root 4 --datatype double"},
    {7,
     "--op reduce/in-order_binary --bytes 30004 --segment 2KiB --max-requests 2 --root 2 --datatype int32 "
     "--reduce-op max"},
    {7, "--op reduce/rabenseifner --bytes 8008 --root 3 --datatype double"},
    {7, "--op reduce/rabenseifner --bytes 1004 --root 0 --datatype int32 --reduce-op max"},
    {6, "--op reduce/rabenseifner --bytes 10000 --root 4 --datatype double"},
    {5, "--op reduce/rabenseifner --bytes 1004 --root 1 --datatype int32 --reduce-op max"},
    {8, "--op reduce/rabenseifner --bytes 56 --root 5 --datatype double"},
    // Allgather and alltoall: 4 processes, then odd sizes and process counts, and the fallbacks
    // (recursive_doubling to bruck on non-powers of two, neighbor to ring on odd p).
    {5, "--op allgather/linear --bytes 1001"},
    {7, "--op allgather/linear --bytes 20001"},
    {5, "--op allgather/bruck --bytes 1001"},
    {6, "--op allgather/bruck --bytes 1001"},
    {6, "--op allgather/recursive_doubling --bytes 1001"},
    {8, "--op allgather/recursive_doubling --bytes 1001"},
    {7, "--op allgather/ring --bytes 1001"},
    {6, "--op allgather/neighbor --bytes 1001"},
    {5, "--op allgather/neighbor --bytes 1001"},
    {6, "--op alltoall/linear --bytes 1001"},
    {5, "--op alltoall/pairwise --bytes 1001"},
    {5, "--op alltoall/modified_bruck --bytes 1001"},
    {7, "--op alltoall/modified_bruck --bytes 1001"},
    {7, "--op alltoall/linear_sync --bytes 1001 --max-requests 2"},
    {5, "--op alltoall/linear_sync --bytes 1001 --max-requests 3"},
    {6, "--op alltoall/linear_sync --bytes 1001 --max-requests 9"},
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string name = "np" + std::to_string(info.param.procs) + "_";
  std::istringstream in(info.param.args);
  std::string op, word;
  in >> word >> op;
  for (char c : op) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name + "_" + std::to_string(info.index);
}

std::vector<Case> all_cases() {
  std::vector<Case> out = registry_cases();
  out.insert(out.end(), std::begin(kMoreCases), std::end(kMoreCases));
  return out;
}

INSTANTIATE_TEST_SUITE_P(Every, Pattern, ::testing::ValuesIn(all_cases()), case_name);

// The comparison sees the knobs: Open MPI forced to another radix, segment size or fanout sends
// something else than ours.
TEST(PatternControl, AnotherRadixSegmentOrFanoutIsSeen) {
  REQUIRE_MONITORING();
  const std::string knomial = "--op bcast/knomial --bytes 64KiB --segment 8KiB";
  EXPECT_NE(monitored(8, "mpi", knomial + " --radix 4").sent, monitored(8, "mpi-native", knomial + " --radix 2").sent);
  EXPECT_NE(monitored(4, "mpi", "--op bcast/pipeline --bytes 64KiB --segment 8KiB").sent,
            monitored(4, "mpi-native", "--op bcast/pipeline --bytes 64KiB --segment 16KiB").sent);
  const std::string chain = "--op bcast/chain --bytes 64KiB --segment 8KiB";
  EXPECT_NE(monitored(5, "mpi", chain + " --fanout 2").sent, monitored(5, "mpi-native", chain + " --fanout 4").sent);
}

// Zero-byte messages are counted too: two barriers with other message patterns are told apart.
TEST(PatternControl, AnotherBarrierIsSeen) {
  REQUIRE_MONITORING();
  EXPECT_NE(monitored(6, "mpi", "--op barrier/bruck --bytes 0").sent,
            monitored(6, "mpi-native", "--op barrier/recursive_doubling --bytes 0").sent);
}

}  // namespace
