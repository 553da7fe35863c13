// Every registered algorithm in the model engine, real bytes checked on every rank: all roots on
// small process counts, sizes 0, 1, odd, around the process count (scatter_allgather's block
// edge cases), not a multiple of the segment, segments around the split_binary halves, other
// fanouts and radices, and a few messages up to 4 MiB. The engine also rejects any message whose
// size differs from the posted receive, so the size arithmetic is checked on both sides.
//
// The suite over every algorithm runs under three cost models. They order the completions
// differently (which receive completes first, when a rank gets to post its next send), and an
// algorithm that reuses a buffer too early or relies on one arrival order can be right under one
// and wrong under another.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "comm/trace.hpp"
#include "common/every_algorithm.hpp"
#include "common/late_barrier.hpp"
#include "common/model_configs.hpp"
#include "engines/model/model_engine.hpp"
#include "registry/registry.hpp"
#include "support/input_error.hpp"

namespace collsim {
namespace {

struct Case {
  std::size_t bytes;
  std::size_t segment = 0;
};

// A reducing algorithm runs the case with `reduction`: c.bytes elements of its type below 64 KiB,
// about c.bytes bytes (whole elements) above; the segment stays in bytes, so it is rounded to
// elements by Open MPI's rule.
RunSpec spec_for(const AlgorithmInfo& a, int procs, Case c, int root, Reduction reduction) {
  RunSpec s;
  s.algorithm = &a;
  s.procs = procs;
  const std::size_t units =
      c.bytes < 65536 || !operation_info(a.op).reduces ? c.bytes : c.bytes / size_of(reduction.type);
  s.bytes = collsim_test::test_bytes(a, units, reduction);
  s.params.root = root;
  s.params.segment = c.segment;
  s.params.reduction = reduction;
  return s;
}

RunSpec spec_for(const AlgorithmInfo& a, int procs, Case c, int root) {
  return spec_for(a, procs, c, root, collsim_test::test_reductions(a).front());
}

// The cost models besides the default Hockney (no contention).
using collsim_test::loggp;

ModelConfig one_port() {
  ModelConfig c;
  c.one_port = true;
  return c;
}

// Three ranks per node, much cheaper inside a node than between nodes.
ModelConfig two_level() {
  ModelConfig c;
  c.kind = ModelConfig::Kind::two_level;
  c.two_level = {{1e-6, 0.2e-9}, {10e-6, 0.8e-9}, models::block_placement(3), std::nullopt, std::nullopt, std::nullopt};
  return c;
}

// A time no correct algorithm can beat, for p > 1 processes and m > 0 bytes. Some rank needs a
// byte it does not hold, so at least one message of at least one byte is delivered: under
// Hockney that takes alpha + beta (two-level: the cheaper of its two); under LogGP o on the sender, L and o on the
// receiver (the injection of one byte takes no time). Under one-port each of the root's ports carries one transfer at a
// time, each taking alpha + beta * its bytes: every byte of a bcast leaves through the root's send port, and the p-1
// other blocks of a gather come in through its receive port, so that port is busy alpha + beta * those bytes before the
// last of them is delivered. In an allgather or alltoall every rank's receive port takes p-1 blocks so.
// A barrier moves no byte, but some rank must hear from another, so one zero-byte message is
// delivered. A scatter's p-1 other blocks leave through the root's send port. Reductions: at least
// one byte is delivered.
double lower_bound(const ModelConfig& c, const RunSpec& s) {
  const double m = static_cast<double>(s.bytes);
  const double least = operation_info(s.algorithm->op).moves_data ? 1 : 0;
  if (c.kind == ModelConfig::Kind::loggp) return 2 * c.loggp.o + c.loggp.L;
  if (c.kind == ModelConfig::Kind::two_level)
    return std::min(c.two_level.intra.transfer(least), c.two_level.inter.transfer(least));
  if (!c.one_port) return c.hockney.alpha + c.hockney.beta * least;
  const Operation op = s.algorithm->op;
  if (operation_info(op).reduces) return c.hockney.alpha + c.hockney.beta * least;
  const double through_root = op == Operation::bcast ? m : (s.procs - 1) * m;
  return c.hockney.alpha + c.hockney.beta * through_root;
}

void expect_right(const RunSpec& s, const ModelConfig& config = ModelConfig{}) {
  try {
    const RunResult r = run_model(config, s);
    EXPECT_TRUE(r.data_error.empty()) << describe(s) << ": " << r.data_error;
    ASSERT_EQ(r.finish_s.size(), static_cast<std::size_t>(s.procs)) << describe(s);
    EXPECT_EQ(r.time_s, *std::max_element(r.finish_s.begin(), r.finish_s.end())) << describe(s);
    EXPECT_GE(*std::min_element(r.finish_s.begin(), r.finish_s.end()), 0) << describe(s);
    if (s.procs == 1 || (s.bytes == 0 && operation_info(s.algorithm->op).moves_data)) {
      // Nothing to move: every algorithm returns at once (MPI_Bcast and MPI_Gather do), and a
      // lone rank's copies are free here. A barrier of several ranks still sends messages.
      EXPECT_EQ(r.time_s, 0) << describe(s);
    } else {
      const double bound = lower_bound(config, s);
      EXPECT_GE(r.time_s, bound * (1 - 1e-12)) << describe(s);
    }
  } catch (const std::exception& e) {
    ADD_FAILURE() << describe(s) << ": " << e.what();
  }
}

// Cases that do not apply to the algorithm are left out: sizes other than 0 for a barrier, roots
// other than 0 for operations without one, process counts a two_proc algorithm refuses (tested
// on their own below). A reducing algorithm runs the case once per reduction of
// collsim_test::test_reductions.
void run_case(const AlgorithmInfo& a, int procs, Case c, int root, const ModelConfig& config = ModelConfig{}) {
  if (!runs_on(a, procs) || !collsim_test::takes_size(a, c.bytes) || !collsim_test::takes_root(a, root)) return;
  for (Reduction r : collsim_test::test_reductions(a)) expect_right(spec_for(a, procs, c, root, r), config);
}

// Sizes worth trying on p processes, all small enough to run from every root: empty, tiny,
// around p (scatter_allgather's blocks), odd, and not a multiple of the segment.
std::vector<Case> small_cases(int p) {
  const auto n = static_cast<std::size_t>(p);
  return {{0}, {1}, {2}, {3, 1}, {n}, {n + 1}, {2 * n - 1}, {1001}, {1001, 100}, {10000, 1024}};
}

// A cost model for the suite over every algorithm. The default Hockney runs the whole case list;
// the others a representative part of it (every root up to 9 processes, a few larger counts), so
// that the sanitizer build does not take three times as long.
struct Model {
  const char* name;
  ModelConfig config;
  bool every_case;
};

void PrintTo(const Model& m, std::ostream* os) { *os << m.name; }

const Model kModels[] = {{"Hockney", ModelConfig{}, true},
                         {"LogGP", loggp(), false},
                         {"OnePort", one_port(), false},
                         {"TwoLevel", two_level(), false}};

class EveryAlgorithm : public ::testing::TestWithParam<std::tuple<const AlgorithmInfo*, Model>> {
 protected:
  const AlgorithmInfo& algorithm() const { return *std::get<0>(GetParam()); }
  const Model& model() const { return std::get<1>(GetParam()); }
  // A reducing algorithm takes its reductions in turn, one per case, so that each meets every
  // process count and root without multiplying the cases.
  void run(int procs, Case c, int root) {
    const AlgorithmInfo& a = algorithm();
    if (!runs_on(a, procs) || !collsim_test::takes_size(a, c.bytes) || !collsim_test::takes_root(a, root)) return;
    const std::vector<Reduction> reductions = collsim_test::test_reductions(algorithm());
    const Reduction r = reductions[turn_++ % reductions.size()];
    expect_right(spec_for(algorithm(), procs, c, root, r), model().config);
  }

 private:
  std::size_t turn_ = 0;
};

TEST_P(EveryAlgorithm, MovesTheRightBytesForEveryRoot) {
  const int max_procs = model().every_case ? 17 : 9;
  for (int p = 1; p <= max_procs; ++p) {
    if (!runs_on(algorithm(), p)) continue;  // RefusesWhereOpenMpiFails
    for (int root : collsim_test::every_root(algorithm(), p))
      for (Case c : small_cases(p)) run(p, c, root);
  }
}

TEST_P(EveryAlgorithm, MovesTheRightBytesAtLargerScale) {
  // Selective: the debug (sanitizer) build pays for every byte generated and checked.
  // In an allgather, alltoall or reduce_scatter every rank holds p blocks (p^2 in all): their
  // larger sizes are cut to keep that to a few MB; the block edges are the same.
  const Operation op = algorithm().op;
  const bool p_blocks_each = op == Operation::allgather || op == Operation::alltoall || op == Operation::reduce_scatter;
  // A reduce_scatter's sizes below 64 KiB count elements of up to 8 bytes: 8 times fewer.
  const int elements = op == Operation::reduce_scatter ? 3 : 0;
  const std::size_t mid = p_blocks_each ? std::size_t{1235} >> elements : 12345;
  const int shift = p_blocks_each ? 17 : 20;
  auto root = [&](int p, int wanted) { return collsim_test::roots_for(algorithm(), p, {wanted}).front(); };
  if (model().every_case) {
    for (int p : {31, 32, 33, 64, 100}) {
      if (!runs_on(algorithm(), p)) continue;
      const auto n = static_cast<std::size_t>(p);
      for (int r : collsim_test::roots_for(algorithm(), p, {0, p / 2, p - 1}))
        for (Case c : {Case{1}, Case{n - 1}, Case{n + 1}, Case{3 * n + 1}, Case{mid, 4096}}) run(p, c, r);
    }
    if (runs_on(algorithm(), 33)) {
      run(33, {mid, 4096}, root(33, 1));
      run(100, {p_blocks_each ? std::size_t{653} >> elements : std::size_t{65537}, 8192}, root(100, 99));
      run(8, {(std::size_t{1} << shift) + 1, 8192}, root(8, 5));
      run(5, {(std::size_t{4} << shift) + 3, 65536}, root(5, 2));
    } else {
      run(2, {(std::size_t{4} << 20) + 3, 65536}, 0);
    }
    return;
  }
  for (int p : {16, 33, 100}) {
    if (!runs_on(algorithm(), p)) continue;
    const auto n = static_cast<std::size_t>(p);
    for (int r : collsim_test::roots_for(algorithm(), p, {0, p - 1}))
      for (Case c : {Case{1}, Case{n + 1}, Case{3 * n + 1}, Case{mid, 4096}}) run(p, c, r);
  }
  if (runs_on(algorithm(), 8)) run(8, {(std::size_t{1} << shift) + 1, 8192}, root(8, 5));
}

TEST_P(EveryAlgorithm, RefusesWhereOpenMpiFails) {
  // Open MPI's two_proc algorithms fail on more than 2 processes (no fallback); ours refuse, and
  // run on 1 and 2 (MovesTheRightBytesForEveryRoot).
  const AlgorithmInfo& a = algorithm();
  for (int p : {3, 4, 7, 33}) {
    if (runs_on(a, p)) continue;
    const Case c{collsim_test::takes_size(a, 16) ? 16u : 0u};
    try {
      run_model(model().config, spec_for(a, p, c, 0));
      ADD_FAILURE() << a.name << " ran on " << p;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("2 processes only"), std::string::npos) << e.what();
    }
    // An empty call of an operation that moves data returns before reaching the algorithm, as
    // in MPI.
    if (operation_info(a.op).moves_data) expect_right(spec_for(a, p, {0}, 0), model().config);
  }
}

TEST_P(EveryAlgorithm, VirtualBytesTakeTheSameTimeAsRealOnes) {
  const AlgorithmInfo& a = algorithm();
  const bool p_blocks_each =
      a.op == Operation::allgather || a.op == Operation::alltoall || a.op == Operation::reduce_scatter;
  for (int p : collsim_test::procs_for(a, {2, 7, 33}))
    for (Case c : {Case{p_blocks_each ? 7001u >> (a.op == Operation::reduce_scatter ? 3 : 0) : 70001u, 8192}, Case{40},
                   Case{0}}) {
      if (!collsim_test::takes_size(a, c.bytes)) continue;
      RunSpec s =
          spec_for(a, p, c, collsim_test::takes_root(a, p / 3) ? p / 3 : 0, collsim_test::test_reductions(a).back());
      const RunResult real = run_model(model().config, s);
      s.real_bytes = false;
      const RunResult fake = run_model(model().config, s);
      EXPECT_EQ(real.finish_s, fake.finish_s) << describe(s);
    }
}

TEST(ModelAlgorithms, ChainWithOtherFanouts) {
  for (const char* name : {"bcast/chain", "reduce/chain"}) {
    const AlgorithmInfo& a = *find_algorithm(name);
    for (int fanout : {1, 2, 3, 5, 8, 32, 40})
      for (int p : {2, 3, 6, 9, 17, 33, 100})
        for (int root : {0, p - 1})
          for (Case c : {Case{1}, Case{10000, 1024}, Case{9999, 0}}) {
            RunSpec s = spec_for(a, p, c, root);
            s.params.fanout = fanout;
            expect_right(s);
          }
  }
}

TEST(ModelAlgorithms, ReduceLeavesWithFewRequests) {
  // max_requests below, at and above the segment count: leaves keep that many isends in flight.
  for (const char* name :
       {"reduce/chain", "reduce/pipeline", "reduce/binary", "reduce/binomial", "reduce/in-order_binary"}) {
    const AlgorithmInfo& a = *find_algorithm(name);
    for (int max_requests : {1, 2, 3, 7, 250, 251})
      for (int p : {2, 5, 8, 13})
        for (int root : {0, p - 1})
          for (Reduction r : collsim_test::test_reductions(a)) {
            // 1001 elements in segments of 4 (the last short): 251 segments.
            RunSpec s = spec_for(a, p, {1001, 4 * size_of(r.type)}, root, r);
            s.params.max_requests = max_requests;
            expect_right(s);
          }
  }
}

TEST(ModelAlgorithms, ReduceSegmentsRoundToElements) {
  // Open MPI counts segments in elements: segsize / typesize, one more when the remainder is
  // over half an element; a segment under one element, or not under the vector, is unsegmented.
  for (const AlgorithmInfo& a : all_algorithms()) {
    if (a.op != Operation::reduce || !a.takes(Knob::segment)) continue;
    for (int p : {3, 6, 11})
      for (std::size_t segment : {std::size_t{1}, std::size_t{3}, std::size_t{5}, std::size_t{7}, std::size_t{13},
                                  std::size_t{100}, std::size_t{1001}, std::size_t{8016}, std::size_t{8017}})
        run_case(a, p, {1001, segment}, p / 2);  // every reduction of the algorithm
  }
}

TEST(ModelAlgorithms, RabenseifnerAroundItsFallbacks) {
  // Counts below, at and above p' (below: linear), every root: odd roots below 2(p - p') get
  // their piece from rank 0 and stand in for it.
  const AlgorithmInfo& a = *find_algorithm("reduce/rabenseifner");
  for (int p : {2, 3, 5, 6, 7, 9, 12, 13, 15, 16, 17, 24, 31, 33})
    for (int root = 0; root < p; ++root) {
      const std::size_t pof2 = std::bit_floor(static_cast<std::size_t>(p));
      for (std::size_t n : {pof2 - 1, pof2, pof2 + 1, 2 * pof2 + 3, std::size_t{1001}}) run_case(a, p, {n}, root);
    }
}

TEST(ModelAlgorithms, KnomialWithOtherRadices) {
  const AlgorithmInfo& a = *find_algorithm("bcast/knomial");
  for (int radix : {2, 3, 5, 8, 16, 200})
    for (int p : {2, 3, 6, 9, 17, 33, 100})
      for (int root : {0, p - 1})
        for (Case c : {Case{1}, Case{10000, 1024}, Case{9999, 0}}) {
          RunSpec s = spec_for(a, p, c, root);
          s.params.radix = radix;
          expect_right(s);
        }
}

TEST(ModelAlgorithms, KnomialRejectsRadixOne) {
  RunSpec s = spec_for(*find_algorithm("bcast/knomial"), 4, {100}, 0);
  s.params.radix = 1;
  EXPECT_THROW(run_model(ModelConfig{}, s), std::invalid_argument);
}

TEST(ModelAlgorithms, SplitBinaryAroundItsPipelineFallback) {
  // Halves of ceil(m/2) and floor(m/2) bytes; a segment larger than the second half, or m < 2,
  // sends everything down the pipeline instead.
  const AlgorithmInfo& a = *find_algorithm("bcast/split_binary_tree");
  for (int p : {2, 3, 4, 5, 8, 11, 16, 33})
    for (int root : {0, p / 2}) {
      for (Case c :
           {Case{2, 1}, Case{3, 1}, Case{3, 2}, Case{4, 2}, Case{4, 3}, Case{5, 2}, Case{5, 3}, Case{1000, 500},
            Case{1000, 501}, Case{1001, 500}, Case{1001, 501}, Case{1001, 499}, Case{1001, 1000}})
        run_case(a, p, c, root);
      if (p <= 11) run_case(a, p, {4001, 1}, root);  // thousands of segments per half
    }
}

TEST(ModelAlgorithms, ScatterAllgatherWithEmptyTrailingBlocks) {
  // ceil(m/p)-byte blocks leave the last blocks empty when m is just above p (m=9, p=8: blocks
  // of 2, block 4 has 1 byte and blocks 5-7 none); m < p falls back to basic_linear.
  for (const char* name : {"bcast/scatter_allgather", "bcast/scatter_allgather_ring"}) {
    const AlgorithmInfo& a = *find_algorithm(name);
    for (int p : {3, 5, 6, 7, 8, 9, 12, 13, 24, 31, 33, 100})
      for (int root : {0, p - 1}) {
        const auto n = static_cast<std::size_t>(p);
        for (std::size_t m : {n - 1, n, n + 1, n + 2, 2 * n - 1, 2 * n + 1, n * n / 2 + 1, 7 * n + 3})
          run_case(a, p, {m}, root);
      }
  }
}

TEST(ModelAlgorithms, LinearSyncFirstSegments) {
  const AlgorithmInfo& a = *find_algorithm("gather/linear_sync");
  for (int p : {1, 2, 5, 16})
    for (int root : {0, p - 1})
      for (Case c : {Case{1000, 0}, Case{1000, 1}, Case{1000, 999}, Case{1000, 1000}, Case{1000, 4096}, Case{1, 1}})
        run_case(a, p, c, root);
}

TEST(ModelAlgorithms, ScatterLinearNbWithBlockingSends) {
  // max_requests > 1 turns the isend to every rank that is a multiple of it into a blocking
  // send; 0 and 1 mean isends only, as in Open MPI.
  const AlgorithmInfo& a = *find_algorithm("scatter/linear_nb");
  for (int max_requests : {0, 1, 2, 3, 4, 7, 100})
    for (int p : {2, 3, 5, 8, 9, 17, 33})
      for (int root : {0, 2 % p, p - 1})
        for (Case c : {Case{1}, Case{1001}, Case{65537}}) {
          RunSpec s = spec_for(a, p, c, root);
          s.params.max_requests = max_requests;
          expect_right(s);
          expect_right(s, one_port());
        }
}

// What a barrier is for: no rank leaves before the last has entered. Whichever rank is late,
// it leaves no earlier than it entered, and every other rank leaves at least one message later.
TEST(ModelAlgorithms, NoRankLeavesABarrierBeforeTheLastEnters) {
  ModelConfig c;
  c.reduce_gamma = 1e-9;
  const std::size_t work = 800000;  // 0.8 ms, far above any barrier's time here
  const double entered = static_cast<double>(work) * c.reduce_gamma;
  for (const auto& a : all_algorithms()) {
    if (a.op != Operation::barrier) continue;
    for (int p : collsim_test::procs_for(a, {2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 32, 33}))
      for (int late = 0; late < p; ++late) {
        const collsim_test::LateBarrier program(a, late, work);
        RunSpec s;
        s.program = &program;
        s.procs = p;
        const RunResult r = run_model(c, s);
        ASSERT_EQ(r.finish_s.size(), static_cast<std::size_t>(p));
        for (int rank = 0; rank < p; ++rank)
          EXPECT_GE(r.finish_s[static_cast<std::size_t>(rank)],
                    rank == late ? entered : entered + c.hockney.alpha * (1 - 1e-12))
              << program.describe(p) << ": rank " << rank;
      }
  }
}

TEST(ModelAlgorithms, AlltoallLinearSyncWithFewerRequests) {
  // 0 and p - 1 or more post everything (= linear); fewer refill as requests complete, in an
  // order each cost model makes different.
  const AlgorithmInfo& a = *find_algorithm("alltoall/linear_sync");
  for (const ModelConfig& config : {ModelConfig{}, loggp(), one_port()})
    for (int max_requests : {0, 1, 2, 3, 5, 16, 40})
      for (int p : {1, 2, 3, 5, 8, 17, 33})
        for (Case c : {Case{1}, Case{1001}}) {
          RunSpec s = spec_for(a, p, c, 0);
          s.params.max_requests = max_requests;
          expect_right(s, config);
        }
}

// The messages each rank sends, in the order it starts them: (destination, bytes). `units` are
// bytes, or elements of the reduction's type (default int32 sum) for a reducing operation.
std::vector<std::vector<std::pair<int, std::uint64_t>>> sends(const char* algorithm, int procs, std::size_t units,
                                                              std::size_t segment = 0,
                                                              Reduction reduction = {Datatype::int32, ReduceOp::sum}) {
  TraceBuffer trace;
  RunSpec s = spec_for(*find_algorithm(algorithm), procs, {units, segment}, 0, reduction);
  s.trace = &trace;
  const RunResult r = run_model(ModelConfig{}, s);
  EXPECT_EQ(r.data_error, "") << algorithm;
  std::vector<std::vector<std::pair<int, std::uint64_t>>> out(static_cast<std::size_t>(procs));
  for (const TraceEvent& e : trace.events())
    if (e.kind == TraceKind::send_start) out[static_cast<std::size_t>(e.rank)].emplace_back(e.peer, e.bytes);
  return out;
}

// The reference's examples (openmpi-collectives.md, sections 6 and 7), block m = 10 bytes.
TEST(ModelAlgorithms, AllgatherAndAlltoallSendOpenMpisMessages) {
  using Sends = std::vector<std::pair<int, std::uint64_t>>;
  // bruck, p = 6: 1, 2, 2 blocks to rank - 1, - 2, - 4; recursive doubling falls back to it.
  for (const char* name : {"allgather/bruck", "allgather/recursive_doubling"})
    EXPECT_EQ(sends(name, 6, 10)[1], (Sends{{0, 10}, {5, 20}, {3, 20}})) << name;
  // recursive doubling, p = 8: 1, 2, 4 blocks to rank XOR 1, 2, 4.
  EXPECT_EQ(sends("allgather/recursive_doubling", 8, 10)[5], (Sends{{4, 10}, {7, 20}, {1, 40}}));
  // ring: p - 1 single blocks to the next rank.
  EXPECT_EQ(sends("allgather/ring", 4, 10)[3], (Sends{{0, 10}, {0, 10}, {0, 10}}));
  // neighbor, p = 6: one block to neighbour 0, then pairs alternating sides; odd p runs ring.
  EXPECT_EQ(sends("allgather/neighbor", 6, 10)[2], (Sends{{3, 10}, {1, 20}, {3, 20}}));
  EXPECT_EQ(sends("allgather/neighbor", 6, 10)[3], (Sends{{2, 10}, {4, 20}, {2, 20}}));
  EXPECT_EQ(sends("allgather/neighbor", 5, 10)[3], (Sends{{4, 10}, {4, 10}, {4, 10}, {4, 10}}));
  EXPECT_EQ(sends("allgather/two_proc", 2, 10)[1], (Sends{{0, 10}}));
  // linear on 4 processes, 8 bytes: Open MPI 4.1 gathers with binomial (rank 1 sends its block,
  // rank 3 its block to 2, rank 2 both to 0), then bcasts 32 bytes with the binary tree.
  const auto linear = sends("allgather/linear", 4, 8);
  EXPECT_EQ(linear[0], (Sends{{1, 32}, {2, 32}}));
  EXPECT_EQ(linear[1], (Sends{{0, 8}, {3, 32}}));
  EXPECT_EQ(linear[2], (Sends{{0, 16}}));
  EXPECT_EQ(linear[3], (Sends{{2, 8}}));

  // modified bruck, p = 5: 2, 2, 1 blocks to rank + 1, + 2, + 4.
  EXPECT_EQ(sends("alltoall/modified_bruck", 5, 10)[3], (Sends{{4, 20}, {0, 20}, {2, 10}}));
  // pairwise: rank + 1, + 2, ...; linear: sends to rank - 1, - 2, ...
  EXPECT_EQ(sends("alltoall/pairwise", 4, 10)[1], (Sends{{2, 10}, {3, 10}, {0, 10}}));
  EXPECT_EQ(sends("alltoall/linear", 4, 10)[1], (Sends{{0, 10}, {3, 10}, {2, 10}}));
  EXPECT_EQ(sends("alltoall/linear_sync", 4, 10)[1], (Sends{{0, 10}, {3, 10}, {2, 10}}));
  EXPECT_EQ(sends("alltoall/two_proc", 2, 10)[0], (Sends{{1, 10}}));
}

// The reference's allreduce (openmpi-collectives.md, section 5), 10 int32 elements (40 bytes).
TEST(ModelAlgorithms, AllreduceSendsOpenMpisMessages) {
  using Sends = std::vector<std::pair<int, std::uint64_t>>;
  // basic_linear: linear reduce to 0, then rank 0 isends to 1, 2, 3 in order.
  const auto linear = sends("allreduce/basic_linear", 4, 10);
  EXPECT_EQ(linear[0], (Sends{{1, 40}, {2, 40}, {3, 40}}));
  EXPECT_EQ(linear[2], (Sends{{0, 40}}));
  // nonoverlapping, p = 4, 40 bytes: Open MPI 4.1 reduces with binary (rank 3 to 1, ranks 1 and 2
  // to 0), then bcasts with the binary tree (0 to 1 and 2, 1 to 3).
  const auto nonoverlapping = sends("allreduce/nonoverlapping", 4, 10);
  EXPECT_EQ(nonoverlapping[0], (Sends{{1, 40}, {2, 40}}));
  EXPECT_EQ(nonoverlapping[1], (Sends{{0, 40}, {3, 40}}));
  EXPECT_EQ(nonoverlapping[2], (Sends{{0, 40}}));
  EXPECT_EQ(nonoverlapping[3], (Sends{{1, 40}}));
  // recursive_doubling, p = 6 (p' = 4, r = 2): even rank 0 hands its vector to 1 and waits; rank
  // 1 (newrank 0) exchanges with newranks 1 and 2 (ranks 3 and 4), then returns the result to 0.
  const auto doubling = sends("allreduce/recursive_doubling", 6, 10);
  EXPECT_EQ(doubling[0], (Sends{{1, 40}}));
  EXPECT_EQ(doubling[1], (Sends{{3, 40}, {4, 40}, {0, 40}}));
  EXPECT_EQ(doubling[4], (Sends{{5, 40}, {1, 40}}));
  // ring, p = 4: blocks of 3, 3, 2, 2 elements. Rank 1 sends blocks 1, 0, 3 to rank 2 while
  // reducing, then the complete blocks 2, 1, 0.
  EXPECT_EQ(sends("allreduce/ring", 4, 10)[1], (Sends{{2, 12}, {2, 12}, {2, 8}, {2, 8}, {2, 12}, {2, 12}}));
  // segmented_ring, p = 3, 4-byte segments (one element): 10 >= 3 elements, 3 phases; blocks of
  // 4, 3, 3 in pieces of 2, 1, 1 and 1, 1, 1. Rank 0 sends piece q of blocks 0 and 2 per phase,
  // then whole blocks 1 and 0.
  EXPECT_EQ(sends("allreduce/segmented_ring", 3, 10, 4)[0],
            (Sends{{1, 8}, {1, 4}, {1, 4}, {1, 4}, {1, 4}, {1, 4}, {1, 12}, {1, 16}}));
  // rabenseifner, p = 6: rank 0 swaps halves with rank 1 (which sends its lower half, then the
  // reduced upper half back), halves with vrank 1 (rank 2: 5 elements) and vrank 2 (rank 4: 3),
  // sends back its 2 and 5 elements in the allgather, and the whole result to rank 1.
  const auto rabenseifner = sends("allreduce/rabenseifner", 6, 10);
  EXPECT_EQ(rabenseifner[0], (Sends{{1, 20}, {2, 20}, {4, 12}, {4, 8}, {2, 20}, {1, 40}}));
  EXPECT_EQ(rabenseifner[1], (Sends{{0, 20}, {0, 20}}));
}

TEST(ModelAlgorithms, AllreduceAroundItsFallbacks) {
  // ring runs recursive_doubling below p elements; rabenseifner runs basic_linear below p'
  // elements and for a non-commutative operator; segmented_ring runs ring below p * segcount
  // (one phase of it is the ring). Each with the right result, and the fallback's messages.
  const Reduction affine{Datatype::int64, ReduceOp::affine};
  for (int p : {2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 31, 33}) {
    const auto n = static_cast<std::size_t>(p), pof2 = std::bit_floor(n);
    for (std::size_t count : {n - 1, n, n + 1}) {
      if (count == 0) continue;
      run_case(*find_algorithm("allreduce/ring"), p, {count}, 0);
      EXPECT_EQ(sends("allreduce/ring", p, count) == sends("allreduce/recursive_doubling", p, count), count < n)
          << p << " processes, " << count << " elements";
    }
    for (std::size_t count : {pof2 - 1, pof2, pof2 + 1}) {
      if (count == 0) continue;
      run_case(*find_algorithm("allreduce/rabenseifner"), p, {count}, 0);
      EXPECT_EQ(sends("allreduce/rabenseifner", p, count) == sends("allreduce/basic_linear", p, count), count < pof2)
          << p << " processes, " << count << " elements";
      EXPECT_EQ(sends("allreduce/rabenseifner", p, count, 0, affine),
                sends("allreduce/basic_linear", p, count, 0, affine));
    }
    // Segments of 8 bytes (2 int32 elements), or 7 (rounded to 2) and 5 (rounded to 1).
    for (std::size_t segment : {std::size_t{5}, std::size_t{7}, std::size_t{8}}) {
      const std::size_t round = n * (segment == 5 ? 1 : 2);
      for (std::size_t count : {n - 1, round - 1, round, round + 1, 3 * round + n / 2, 5 * round + n}) {
        if (count == 0) continue;
        run_case(*find_algorithm("allreduce/segmented_ring"), p, {count, segment}, p / 2);
        if (count < round) {
          EXPECT_EQ(sends("allreduce/segmented_ring", p, count, segment), sends("allreduce/ring", p, count));
        }
      }
    }
  }
}

TEST(ModelAlgorithms, AllreduceSegmentedRingPhases) {
  // floor(count / (p * segcount)) phases, one more when the remainder is at least p and over half
  // of p * segcount; each phase and the final allgather send p - 1 messages per rank.
  const int p = 4;
  auto phases = [&](std::size_t count, std::size_t segment) {
    return sends("allreduce/segmented_ring", p, count, segment)[0].size() / (p - 1) - 1;
  };
  for (std::size_t segment : {std::size_t{7}, std::size_t{8}}) {  // 2 elements: 8 per phase
    EXPECT_EQ(phases(8, segment), 1u);
    EXPECT_EQ(phases(16, segment), 2u);
    EXPECT_EQ(phases(20, segment), 2u);  // remainder 4: not over 4
    EXPECT_EQ(phases(21, segment), 3u);  // remainder 5: at least 4 and over 4
    EXPECT_EQ(phases(23, segment), 3u);
  }
  EXPECT_EQ(phases(21, 5), 5u);  // one element: 4 per phase, remainder 1 below p
  EXPECT_EQ(phases(23, 5), 5u);  // remainder 3 below p
  EXPECT_EQ(phases(24, 5), 6u);
  EXPECT_EQ(phases(7, 8), 1u);     // below 8 elements: ring
  EXPECT_EQ(phases(1000, 0), 1u);  // unsegmented: ring
}

// Reduce_scatter on p = 3, 5, 6, 7, 12 (r = p - p' of 1, 1, 2, 3, 4): the even ranks below 2r fold
// into the next odd one; one element per block up to blocks larger than the fold's.
TEST(ModelAlgorithms, ReduceScatterFoldsNonPowersOfTwo) {
  for (const AlgorithmInfo& a : all_algorithms()) {
    if (a.op != Operation::reduce_scatter) continue;
    for (int p : {3, 5, 6, 7, 12})
      for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{7}, std::size_t{1001}})
        for (const ModelConfig& config : {ModelConfig{}, loggp(), one_port()}) run_case(a, p, {n}, 0, config);
  }
}

// The reference's descriptions (openmpi-collectives.md, section 9) on p = 6 (p' = 4, r = 2),
// blocks of 10 int32 (40 bytes); virtual ranks 0-3 are ranks 1, 3, 4, 5.
TEST(ModelAlgorithms, ReduceScatterSendsOpenMpisMessages) {
  using Sends = std::vector<std::pair<int, std::uint64_t>>;
  // The even ranks below 2r send their whole vector to the next rank, and nothing else.
  for (const char* name : {"reduce_scatter/recursive_halving", "reduce_scatter/butterfly"}) {
    const auto all = sends(name, 6, 10);
    EXPECT_EQ(all[0], (Sends{{1, 240}})) << name;
    EXPECT_EQ(all[2], (Sends{{3, 240}})) << name;
  }
  // recursive_halving: distance halving over merged blocks (80, 80, 40, 40 bytes); the lower
  // partner sends the upper half; then rank 1 returns rank 0's block.
  const auto halving = sends("reduce_scatter/recursive_halving", 6, 10);
  EXPECT_EQ(halving[1], (Sends{{4, 80}, {3, 80}, {0, 40}}));
  EXPECT_EQ(halving[4], (Sends{{1, 160}, {5, 40}}));
  EXPECT_EQ(halving[3], (Sends{{5, 80}, {1, 80}, {2, 40}}));
  // butterfly: distance doubling; virtual rank v ends with merged block mirror(v): v = 2 (rank 4)
  // holds merged block 1 (ranks 2 and 3), sends rank 2's part, then swaps with rank 3.
  const auto butterfly = sends("reduce_scatter/butterfly", 6, 10);
  EXPECT_EQ(butterfly[1], (Sends{{3, 80}, {4, 80}, {0, 40}}));
  EXPECT_EQ(butterfly[3], (Sends{{1, 160}, {5, 40}, {4, 40}}));
  EXPECT_EQ(butterfly[4], (Sends{{5, 80}, {1, 80}, {2, 40}, {3, 40}}));
  // ring: p - 1 blocks to the right neighbour.
  EXPECT_EQ(sends("reduce_scatter/ring", 4, 10)[3], (Sends{{0, 40}, {0, 40}, {0, 40}}));
  // non-overlapping: Open MPI 4.1's reduce of the 160-byte vector to rank 0 on 4 processes is the
  // binary tree (0 -> {1, 2}, 1 -> {3}), on 3 processes (120 bytes) linear; then rank 0 sends each
  // rank its block in rank order.
  const auto tree = sends("reduce_scatter/non-overlapping", 4, 10);
  EXPECT_EQ(tree[0], (Sends{{1, 40}, {2, 40}, {3, 40}}));
  EXPECT_EQ(tree[1], (Sends{{0, 160}}));
  EXPECT_EQ(tree[2], (Sends{{0, 160}}));
  EXPECT_EQ(tree[3], (Sends{{1, 160}}));
  const auto linear = sends("reduce_scatter/non-overlapping", 3, 10);
  EXPECT_EQ(linear[0], (Sends{{1, 40}, {2, 40}}));
  EXPECT_EQ(linear[1], (Sends{{0, 120}}));
  EXPECT_EQ(linear[2], (Sends{{0, 120}}));
}

// "bcast_binomial_LogGP".
std::string test_name(const ::testing::TestParamInfo<EveryAlgorithm::ParamType>& info) {
  return collsim_test::algorithm_test_name({std::get<0>(info.param), info.index}) + "_" + std::get<1>(info.param).name;
}

INSTANTIATE_TEST_SUITE_P(Model, EveryAlgorithm,
                         ::testing::Combine(::testing::ValuesIn(collsim_test::every_algorithm()),
                                            ::testing::ValuesIn(kModels)),
                         test_name);

}  // namespace
}  // namespace collsim
