// Every registered algorithm in the sim engine with real bytes checked: process counts 1 to 17,
// 31, 32, 33, 64 and 100, more ranks than hosts, several roots, sizes around the edge cases (empty, one byte, odd, not
// a multiple of the segment, both sides of the eager limit) and a few large messages.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>

#include <deque>
#include <span>
#include <vector>

#include "common/every_algorithm.hpp"
#include "common/late_barrier.hpp"
#include "common/sim_test_util.hpp"
#include "registry/registry.hpp"

namespace collsim {
namespace {

struct Case {
  std::size_t bytes;
  std::size_t segment;  // used only by algorithms that honour it
};

// In an allgather, alltoall or reduce_scatter every rank holds p blocks, p^2 in all.
bool p_blocks_each(const AlgorithmInfo& a) {
  return a.op == Operation::allgather || a.op == Operation::alltoall || a.op == Operation::reduce_scatter;
}

constexpr Case kSizes[] = {{0, 0}, {1, 0}, {1001, 0}, {10000, 1024}, {65535, 0}, {65536, 8192}, {100003, 4096}};

std::vector<RunSpec> cases(const AlgorithmInfo& a, const std::vector<int>& procs,
                           std::span<const Case> sizes = kSizes) {
  std::vector<RunSpec> specs;
  const std::vector<Reduction> reductions = collsim_test::test_reductions(a);
  for (int p : collsim_test::procs_for(a, procs)) {
    for (int root : collsim_test::roots_for(a, p, {0, p - 1, p / 2}))
      for (const Case& c : sizes) {
        if (!collsim_test::takes_size(a, c.bytes)) continue;
        // A reducing algorithm takes its reductions in turn. Small sizes count its elements (zero,
        // one, odd counts); from 4096 on they are about that many bytes, so that the eager limit's
        // edges are crossed at the same sizes and a case costs what the other operations' do.
        const Reduction reduction = reductions[specs.size() % reductions.size()];
        const std::size_t bytes = collsim_test::case_bytes(a, c.bytes, reduction, 4096);
        // p^2 blocks above 32 MB would take long to fill and check; the eager limit's edges are
        // still crossed on up to 16 processes.
        if (p_blocks_each(a) && bytes * static_cast<std::size_t>(p * p) > (std::size_t{32} << 20)) continue;
        RunSpec s;
        s.algorithm = &a;
        s.procs = p;
        s.params.reduction = reduction;
        s.bytes = bytes;
        s.params.root = root;
        s.params.segment = a.takes(Knob::segment) ? c.segment : 0;
        specs.push_back(s);
      }
  }
  return specs;
}

// No algorithm can finish before the bytes that must cross a link have crossed it. `lat` is the
// least latency of a message, `bw` the most bytes per second a link carries into one host, and
// `root_host_ranks` the ranks that share the root's host (their blocks may come another way).
// A bcast or scatter is not over before a non-root off the root's host holds its m bytes; a gather
// not before the root's host has received the blocks of every other host's ranks (nor an allgather
// or alltoall before any rank's host has); a reduce not before the root's host has received one
// element for each of the m bytes' elements (each depends on other hosts' ranks), nor any rank's
// host in an allreduce; a barrier not
// before one (empty) message has crossed a link.
struct LowerBound {
  double lat = 0, bw = 0;
  int ranks_per_host = 1;
  bool via_links = true;  // ranks on one host talk through its links too (star16 has no loopback)

  double operator()(const RunSpec& s) const {
    const int others = via_links ? s.procs - 1 : s.procs - std::min(ranks_per_host, s.procs);
    if (others <= 0) return 0;
    if (s.algorithm->op == Operation::barrier) return lat;
    if (s.bytes == 0) return 0;
    const double m = static_cast<double>(s.bytes);
    // Every rank of an allgather or alltoall needs a block from each other rank, as a gather's root.
    const Operation op = s.algorithm->op;
    const bool from_each = op == Operation::gather || op == Operation::allgather || op == Operation::alltoall;
    const double in = from_each ? m * others : m;
    return lat + in / bw;
  }
};

void check(const SimConfig& config, const std::vector<RunSpec>& specs, const LowerBound& bound) {
  const auto results = collsim_test::run_all(config, specs);
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const RunSpec& s = specs[i];
    const RunResult& r = results[i];
    EXPECT_TRUE(r.data_error.empty()) << describe(s) << ": " << r.data_error;
    ASSERT_EQ(r.finish_s.size(), static_cast<std::size_t>(s.procs)) << describe(s);
    EXPECT_EQ(r.time_s, *std::max_element(r.finish_s.begin(), r.finish_s.end())) << describe(s);
    EXPECT_GE(r.time_s, bound(s) * (1 - 1e-9)) << describe(s);
  }
}

// star16 under the exact configuration: 20 us and 1.25 GB/s on every route, one host's own
// links included.
LowerBound star16() { return {20e-6, 1.25e9, 1, true}; }

class EveryAlgorithm : public ::testing::TestWithParam<const AlgorithmInfo*> {};

TEST_P(EveryAlgorithm, OneRankPerHost) {
  check(collsim_test::exact("test/star16.xml", 1), cases(*GetParam(), {1, 2, 3, 5, 8, 13, 16}), star16());
}

// Several ranks per host, for every algorithm: one of each operation (OnePerOperation, which the
// sanitizer half of the suite runs too: a rooted tree, a linear, a recursive and a Bruck-style
// exchange, a non-commutative-safe reduce) and the others (Others, the release half only).
class SeveralRanksPerHost : public ::testing::TestWithParam<const AlgorithmInfo*> {};

TEST_P(SeveralRanksPerHost, Star16) {
  check(collsim_test::exact("test/star16.xml", 3), cases(*GetParam(), {3, 13, 33}), star16());
}

bool one_per_operation(const AlgorithmInfo& a) {
  static const char* const kSample[] = {
      "bcast/binomial",          "gather/binomial",         "scatter/linear_nb",      "barrier/bruck",
      "allgather/bruck",         "alltoall/modified_bruck", "reduce/in-order_binary", "allreduce/recursive_doubling",
      "reduce_scatter/butterfly"};
  return std::any_of(std::begin(kSample), std::end(kSample), [&](const char* n) { return a.name == n; });
}

std::vector<const AlgorithmInfo*> algorithms_where(bool sampled) {
  std::vector<const AlgorithmInfo*> out;
  for (const AlgorithmInfo* a : collsim_test::every_algorithm())
    if (one_per_operation(*a) == sampled) out.push_back(a);
  return out;
}

TEST(SeveralRanksPerHostSample, IsOneAlgorithmOfEachOperation) {
  std::vector<Operation> ops;
  for (const AlgorithmInfo* a : algorithms_where(true)) ops.push_back(a->op);
  std::sort(ops.begin(), ops.end());
  EXPECT_EQ(std::unique(ops.begin(), ops.end()), ops.end()) << "two of one operation";
  EXPECT_EQ(ops.size(), all_operations().size()) << "an operation without its sample (a name changed?)";
}

INSTANTIATE_TEST_SUITE_P(OnePerOperation, SeveralRanksPerHost, ::testing::ValuesIn(algorithms_where(true)),
                         collsim_test::algorithm_test_name);
INSTANTIATE_TEST_SUITE_P(Others, SeveralRanksPerHost, ::testing::ValuesIn(algorithms_where(false)),
                         collsim_test::algorithm_test_name);

// The process counts the model engine's suite runs, 1 to 17, 31, 32, 33, 64 and 100 (up to 7 ranks
// per host), at one element, an odd count and a count past a segment: non-powers of two and
// their neighbours are where the recursive algorithms fold and unfold ranks.
TEST_P(EveryAlgorithm, EveryProcessCountToAHundred) {
  std::vector<int> procs;
  for (int p = 1; p <= 17; ++p) procs.push_back(p);
  for (int p : {31, 32, 33, 64, 100}) procs.push_back(p);
  const Case sizes[] = {{1, 0}, {1001, 0}, {10000, 1024}};
  check(collsim_test::exact("test/star16.xml", 7), cases(*GetParam(), procs, sizes), star16());
}

// The same cases under Open MPI's protocols (tcp between hosts, shm inside one): the
// fragments, handshakes and in-order connections must still deliver every byte.
TEST_P(EveryAlgorithm, UnderTcpAndShm) {
  check(collsim_test::exact("test/star16.xml", 1, "tcp+shm"), cases(*GetParam(), {1, 2, 3, 5, 8, 13, 16}), star16());
  check(collsim_test::exact("test/star16.xml", 3, "tcp+shm"), cases(*GetParam(), {3, 13, 33}), star16());
}

// Under Open MPI's pml ucx (ucx between hosts, ucx_sm inside one): eager short, bcopy and
// zero-copy, RDMA reads and single copies, each threshold crossed by the sizes of kSizes. Three
// ranks per host: 2 and 3 processes stay on one host (ucx_sm alone), 13 and 33 use both.
TEST_P(EveryAlgorithm, UnderUcx) {
  check(collsim_test::exact("test/star16.xml", 3, "ucx"), cases(*GetParam(), {2, 3, 13, 33}), star16());
}

TEST_P(EveryAlgorithm, LargeMessagesOnGrisou) {
  const AlgorithmInfo& a = *GetParam();
  // Allgather and alltoall: blocks 16 (64 on 33 processes) times smaller, p^2 of them.
  const int cut = p_blocks_each(a) ? 4 : 0;
  const std::size_t big = std::size_t{4} << 20 >> cut;
  std::vector<RunSpec> specs;
  for (auto [p, root, bytes, segment] :
       {std::tuple{8, 5, big, std::size_t{8192}}, std::tuple{5, 2, big + 3, std::size_t{0}},
        std::tuple{33, 32, std::size_t{1} << 20 >> (2 * cut), std::size_t{65536}},
        std::tuple{2, 1, big, std::size_t{0}}}) {
    if (!runs_on(a, p)) continue;
    if (!collsim_test::takes_size(a, bytes)) bytes = 0;  // a barrier's only size
    RunSpec s;
    s.algorithm = &a;
    s.procs = p;
    s.params.reduction = collsim_test::test_reductions(a)[specs.size() % collsim_test::test_reductions(a).size()];
    s.bytes = collsim_test::about_bytes(a, bytes, s.params.reduction);
    s.params.root = collsim_test::roots_for(a, p, {root}).front();
    s.params.segment = a.takes(Knob::segment) ? segment : 0;
    specs.push_back(s);
  }
  SimConfig c;  // SimGrid's default network model, two ranks per node as in the paper's runs
  c.platform_file = collsim_test::platform("grisou.xml");
  c.map_by = {models::MapBy::Policy::ppr_node, 2};
  // Two ranks of a node share its loopback; the others' bytes cross the node's 1.25 GB/s NIC,
  // which no network model makes faster (LV08 takes 3% off). Latencies differ by model: 0.
  check(c, specs, LowerBound{0, 1.25e9, 2, false});
}

// Virtual buffers must not change the simulated times, under CM02 and under LV08 (default).
TEST_P(EveryAlgorithm, VirtualBytesTimeLikeRealBytes) {
  const AlgorithmInfo& a = *GetParam();
  std::vector<RunSpec> specs;
  const std::size_t cut = p_blocks_each(a) ? 16 : 1;  // p^2 blocks
  for (int p : collsim_test::procs_for(a, {2, 5, 33}))
    for (std::size_t m : {std::size_t{0}, std::size_t{1}, std::size_t{70001} / cut, (std::size_t{1} << 18) / cut})
      for (bool real : {true, false}) {
        if (!collsim_test::takes_size(a, m)) continue;
        RunSpec s;
        s.algorithm = &a;
        s.procs = p;
        s.params.reduction = collsim_test::test_reductions(a).back();
        s.bytes = collsim_test::about_bytes(a, m, s.params.reduction);
        s.real_bytes = real;
        s.params.root = collsim_test::roots_for(a, p, {p / 2}).front();
        s.params.segment = a.takes(Knob::segment) ? 8192 : 0;
        specs.push_back(s);
      }
  SimConfig lv08;
  lv08.platform_file = collsim_test::platform("grisou.xml");
  lv08.map_by = {models::MapBy::Policy::ppr_node, 2};
  for (const SimConfig& c : {collsim_test::exact("test/star16.xml", 3), lv08}) {
    for (std::size_t i = 0; i < specs.size(); i += 2) {
      // Each in a simulation of its own, so that both start at date 0: in one simulation a later
      // start date rounds differently, and fragments queued at one instant can then leave a
      // host's interface in another order.
      const RunResult real = collsim_test::run_one(c, specs[i]);
      const RunResult virt = collsim_test::run_one(c, specs[i + 1]);
      EXPECT_TRUE(real.data_error.empty()) << describe(specs[i]) << ": " << real.data_error;
      EXPECT_EQ(virt.time_s, real.time_s) << describe(specs[i]);
      EXPECT_EQ(virt.finish_s, real.finish_s) << describe(specs[i]);
    }
  }
}

// What a barrier is for: no rank leaves before the last has entered. The late rank's work takes
// `entered` (measured alone: a barrier of one process returns at once); every other rank leaves
// at least one 20 us message after that.
TEST(SimBarrier, NoRankLeavesBeforeTheLastEnters) {
  const SimConfig config = collsim_test::exact("test/star16.xml", 1);
  const std::size_t work = std::size_t{8} << 20;  // 1M double additions: about 1 ms at 1 Gf
  for (const auto& a : all_algorithms()) {
    if (a.op != Operation::barrier) continue;
    const collsim_test::LateBarrier alone(a, 0, work);
    RunSpec one;
    one.program = &alone;
    const double entered = collsim_test::run_one(config, one).finish_s.at(0);
    ASSERT_GT(entered, 500e-6) << a.name;
    std::deque<collsim_test::LateBarrier> programs;
    std::vector<RunSpec> specs;
    std::vector<int> lates;
    for (int p : collsim_test::procs_for(a, {2, 3, 5, 8, 13, 16}))
      for (int late : {0, p / 2, p - 1}) {
        programs.emplace_back(a, late, work);
        RunSpec s;
        s.program = &programs.back();
        s.procs = p;
        specs.push_back(s);
        lates.push_back(late);
      }
    const auto results = collsim_test::run_all(config, specs);
    for (std::size_t i = 0; i < specs.size(); ++i)
      for (int rank = 0; rank < specs[i].procs; ++rank)
        EXPECT_GE(results[i].finish_s.at(static_cast<std::size_t>(rank)),
                  (rank == lates[i] ? entered : entered + 20e-6) * (1 - 1e-9))
            << programs[i].describe(specs[i].procs) << ": rank " << rank;
  }
}

INSTANTIATE_TEST_SUITE_P(Sim, EveryAlgorithm, ::testing::ValuesIn(collsim_test::every_algorithm()),
                         collsim_test::algorithm_test_name);

}  // namespace
}  // namespace collsim
