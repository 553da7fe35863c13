// The formula engine's pieces: gamma(p) measured in the model engine, the Gamma table, the
// textbook formulas against hand values, how run_formula picks parameters and refuses, and its
// results at thousands of processes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "common/run_specs.hpp"
#include "engines/formula/formula_engine.hpp"
#include "models/ring_paths.hpp"

namespace collsim {
namespace {

constexpr double kAlpha = 10e-6, kBeta = 1e-9;

RunSpec spec(const char* name, int procs, std::size_t bytes, std::size_t segment = 0) {
  RunSpec s = collsim_test::named_spec(name, procs, bytes, segment);
  s.real_bytes = false;
  return s;
}

FormulaConfig config(FormulaConfig::Kind kind) {
  FormulaConfig f;
  f.kind = kind;
  f.costs.hockney = {kAlpha, kBeta};
  return f;
}

double t(double m) { return kAlpha + kBeta * m; }

TEST(Gamma, OnePortIsOneTransferPerRankAndContentionFreeIsOne) {
  ModelConfig m;
  m.hockney = {kAlpha, kBeta};
  const models::Gamma free = gamma_in_model(m, 20, 8192);
  m.one_port = true;
  const models::Gamma port = gamma_in_model(m, 20, 8192);
  for (int p = 2; p <= 20; ++p) {
    EXPECT_DOUBLE_EQ(free(p), 1) << p;
    EXPECT_NEAR(port(p), p - 1, 1e-12 * p) << p;  // the root's p-1 sends one after the other
  }
  EXPECT_EQ(port(1), 0);
}

TEST(Gamma, IsNormalisedAndExtendsAlongItsLastTwoPoints) {
  const models::Gamma g({2.0, 3.0, 5.0});  // gamma(2..4), before dividing by gamma(2) = 2
  EXPECT_DOUBLE_EQ(g(2), 1);
  EXPECT_DOUBLE_EQ(g(3), 1.5);
  EXPECT_DOUBLE_EQ(g(4), 2.5);
  EXPECT_DOUBLE_EQ(g(6), 4.5);  // slope 1 per process past the table
  EXPECT_DOUBLE_EQ(g.sends(3), 2.5);
  EXPECT_DOUBLE_EQ(g.sends(0), 0);
  EXPECT_DOUBLE_EQ(models::Gamma()(100), 1);
  EXPECT_THROW(models::Gamma({0.0, 1.0}), std::invalid_argument);
}

TEST(Textbook, HandValues) {
  const FormulaConfig f = config(FormulaConfig::Kind::textbook);
  auto time = [&](const char* name, int p, std::size_t m, std::size_t seg = 0) {
    return run_formula(f, spec(name, p, m, seg)).time_s;
  };
  const double m = 1e6;
  EXPECT_DOUBLE_EQ(time("bcast/binomial", 8, 1000000), 3 * t(m));
  EXPECT_DOUBLE_EQ(time("bcast/binomial", 9, 1000000), 4 * t(m));
  EXPECT_DOUBLE_EQ(time("bcast/binary_tree", 7, 1000000), 4 * t(m));  // 2 * (log2 8 - 1)
  EXPECT_DOUBLE_EQ(time("bcast/binary_tree", 8, 1000000), 6 * t(m));  // 2 * (ceil(log2 9) - 1)
  EXPECT_DOUBLE_EQ(time("bcast/basic_linear", 5, 1000000), 4 * t(m));
  EXPECT_DOUBLE_EQ(time("bcast/pipeline", 5, 1000000, 250000), 7 * t(250000));  // P + n - 2
  EXPECT_DOUBLE_EQ(time("bcast/scatter_allgather", 8, 1000000), 6 * kAlpha + 2 * 7.0 / 8 * m * kBeta);
  EXPECT_DOUBLE_EQ(time("bcast/scatter_allgather_ring", 8, 1000000), 10 * kAlpha + 2 * 7.0 / 8 * m * kBeta);
  EXPECT_DOUBLE_EQ(time("gather/basic_linear", 5, 1000000), 4 * t(m));
  EXPECT_DOUBLE_EQ(time("gather/binomial", 5, 1000000), 3 * kAlpha + 4 * m * kBeta);
  EXPECT_EQ(time("bcast/binomial", 1, 1000000), 0);
  EXPECT_EQ(time("gather/binomial", 8, 0), 0);
}

// The derived formulas' gamma(p) terms with a table that is neither 1 nor linear, so that a
// batch charged for more or fewer sends than it has shows. sends(k) = gamma(k+1)/gamma(2):
// 1, 1.5, 1.8, 2.6, 2.9, 3.0 for k = 1..6. The values come from the algorithms' message
// sequences (which sends are posted together), not from the formulas' code.
TEST(Derived, NonLinearGammaHandValues) {
  FormulaConfig f = config(FormulaConfig::Kind::derived);
  f.costs.gamma = models::Gamma({1.0, 1.5, 1.8, 2.6, 2.9, 3.0});
  auto time = [&](const char* name, int p, std::size_t m, auto&& knobs) {
    RunSpec s = spec(name, p, m);
    knobs(s.params);
    return run_formula(f, s).time_s;
  };
  auto plain = [](AlgorithmParams&) {};
  auto requests = [](int r) { return [r](AlgorithmParams& k) { k.max_requests = r; }; };
  const double m = 1e5, tm = t(m);
  // The root's P-1 isends posted together.
  EXPECT_DOUBLE_EQ(time("bcast/basic_linear", 5, 100000, plain), 2.6 * tm);
  EXPECT_DOUBLE_EQ(time("scatter/linear_nb", 5, 100000, plain), 2.6 * tm);
  // Every rank's P-1 isends posted together.
  EXPECT_DOUBLE_EQ(time("alltoall/linear", 6, 100000, plain), 2.9 * tm);
  // linear_sync: batches of max_requests isends, the last one short: 5 = 3 + 2, 7 = 3 + 3 + 1,
  // 6 = 4 + 2.
  EXPECT_DOUBLE_EQ(time("alltoall/linear_sync", 6, 100000, requests(3)), (1.8 + 1.5) * tm);
  EXPECT_DOUBLE_EQ(time("alltoall/linear_sync", 8, 100000, requests(3)), (1.8 + 1.8 + 1.0) * tm);
  EXPECT_DOUBLE_EQ(time("alltoall/linear_sync", 7, 100000, requests(4)), (2.6 + 1.5) * tm);
  // scatter/linear_nb with max_requests 2 on 6 ranks: isend to 1, blocking send to 2 (the second
  // send of its batch), isend to 3, blocking send to 4, and the last isend to 5 alone.
  EXPECT_DOUBLE_EQ(time("scatter/linear_nb", 6, 100000, requests(2)), (1.5 + 1.5 + 1.0) * tm);
  // chain of fanout 2 on 5 ranks: the root's two children get a segment after 1 and 1.5 transfers,
  // each forwards it to its one child. One segment: 1.5 + 1. Two segments of 1000 bytes: the
  // root's second pair of isends starts at 1.5, the second child holds segment 1 at 3 and its
  // child at 4.
  auto fanout2 = [](AlgorithmParams& k) { k.fanout = 2; };
  EXPECT_DOUBLE_EQ(time("bcast/chain", 5, 100000, fanout2), 2.5 * tm);
  auto two_segments = [](AlgorithmParams& k) {
    k.fanout = 2;
    k.segment = 1000;
  };
  EXPECT_DOUBLE_EQ(time("bcast/chain", 5, 2000, two_segments), 4 * t(1000));
  // Closed forms without gamma: pairwise (P-1)*t(m); modified_bruck on 5 ranks sends the blocks
  // with bit j of their index set: {1, 3}, {2, 3}, {4}; scatter/basic_linear (P-1)*t(m).
  EXPECT_DOUBLE_EQ(time("alltoall/pairwise", 5, 100000, plain), 4 * tm);
  EXPECT_DOUBLE_EQ(time("alltoall/modified_bruck", 5, 100000, plain), 2 * t(2 * m) + t(m));
  EXPECT_DOUBLE_EQ(time("scatter/basic_linear", 5, 100000, plain), 4 * tm);
}

// Eager hand-over (FormulaCosts::eager_handover, tcp): a send is done alpha before its data has
// arrived, so the sender's next send leaves while the previous one's latency runs. alpha 10 us,
// beta 1 ns/B, segments of 1000 B: t = 11 us; c(1) = 1, c(2) = 1.5 (gamma {1, 1.5}).
TEST(Derived, EagerHandOverOverlapsEachSegmentsLatency) {
  FormulaConfig f = config(FormulaConfig::Kind::derived);
  f.costs.gamma = models::Gamma({1.0, 1.5});
  const RunSpec tree = spec("bcast/binary_tree", 3, 2000, 1000);
  // Rank 0 sends each segment to ranks 1 and 2 (leaves), holding them 1.5 t = 16.5 us. Blocking
  // reading: segment 2 leaves at 16.5 us and reaches rank 2 at 16.5 + 16.5 = 33 us.
  EXPECT_NEAR(run_formula(f, tree).time_s, 33e-6, 1e-15);
  // Handed over: the root is free once the link has taken both, 16.5 - 10 = 6.5 us; segment 2
  // reaches rank 2 at 6.5 + 16.5 = 23 us (rank 1 at 6.5 + 11 = 17.5 us).
  f.costs.eager_handover = true;
  EXPECT_NEAR(run_formula(f, tree).time_s, 23e-6, 1e-15);
  // One segment: nothing follows it, the last arrival is c(2) t = 16.5 us either way.
  EXPECT_NEAR(run_formula(f, spec("bcast/binary_tree", 3, 1000, 1000)).time_s, 16.5e-6, 1e-15);
}

// Sends posted together sharing the link fairly (FormulaCosts::fair_sharing, the sim engine's
// flows) end together. binomial on 4 ranks: 0 -> 1, 2; 1 -> 3 (Open MPI's bmtree: rank 1 roots
// the larger subtree). One segment of 1000 B, t = 11 us, c(2) = 1.5. One after the other: rank 1
// holds it at t, rank 3 at 2 t = 22 us (rank 2 at 1.5 t). Shared: ranks 1 and 2 both at 1.5 t,
// rank 3 at 2.5 t = 27.5 us. (The sim engine on Grisou, rpn 1, 8 KiB: 59.71 us = 33.14 us, the
// linear broadcast to 2 ranks, + 26.57 us, to 1.)
TEST(Derived, FairSharingEndsARanksSendsTogether) {
  FormulaConfig f = config(FormulaConfig::Kind::derived);
  f.costs.gamma = models::Gamma({1.0, 1.5});
  const RunSpec tree = spec("bcast/binomial", 4, 1000, 1000);
  EXPECT_NEAR(run_formula(f, tree).time_s, 22e-6, 1e-15);
  f.costs.fair_sharing = true;
  EXPECT_NEAR(run_formula(f, tree).time_s, 27.5e-6, 1e-15);
}

// A linear gather of 100 kB from 3 ranks, taken one at a time by the root: t = 110 us. Blocking:
// 3 t = 330 us. Handed over, the latencies run side by side and each message holds the root for
// t - alpha = 100 us after the first's 110 us: 110 + 2 * 100 = 310 us.
TEST(Derived, EagerHandOverInTheLinearGather) {
  FormulaConfig f = config(FormulaConfig::Kind::derived);
  f.costs.serial_receive = true;
  const RunSpec gather = spec("gather/basic_linear", 4, 100000);
  EXPECT_NEAR(run_formula(f, gather).time_s, 330e-6, 1e-15);
  f.costs.eager_handover = true;
  EXPECT_NEAR(run_formula(f, gather).time_s, 310e-6, 1e-15);
}

// Ranks sharing a node's link (FormulaCosts::node_ranks = 2: nodes {0,1}, {2,3}, {4,5}, {6}).
// binary_tree on 7 ranks: 0 -> 1, 2; 1 -> 3, 4; 2 -> 5, 6. Node {0,1} sends 0 -> 2, 1 -> 3 and
// 1 -> 4 to other nodes each segment: three messages over one link, c(3) = 1.8 (gamma
// {1, 1.5, 1.8}), so ranks 0 and 1 pace 1.8 t instead of c(2) t = 1.5 t. Two segments, t = 11 us.
TEST(Derived, RanksOfANodeShareItsLink) {
  FormulaConfig f = config(FormulaConfig::Kind::derived);
  f.costs.gamma = models::Gamma({1.0, 1.5, 1.8});
  const RunSpec tree = spec("bcast/binary_tree", 7, 2000, 1000);
  // A link per rank: segment 2 leaves the root at 1.5 t, reaches rank 2 at 3 t; rank 2's first
  // sends end at 1.5 t + 1.5 t = 3 t, so it forwards at 3 t and rank 6 holds it at 4.5 t.
  EXPECT_NEAR(run_formula(f, tree).time_s, 4.5 * 11e-6, 1e-15);
  // Shared: segment 2 leaves the root at 1.8 t, reaches rank 2 at 3.3 t, which forwards it then
  // (its own sends, two to node {6} and {4,5}, pace 1.5 t): rank 6 holds it at 4.8 t.
  f.costs.node_ranks = 2;
  EXPECT_NEAR(run_formula(f, tree).time_s, 4.8 * 11e-6, 1e-15);
}

// split_binary_tree under the sim engine's terms. 4 ranks, 2000 B in segments of 1000 B: halves of
// 1000 B, one segment each; t = 11 us, c(1) = 1, c(2) = 1.5. Tree 0 -> 1, 2; 1 -> 3; swaps 1 <-> 2
// and, P even, 0 -> 3. Nodes {0,1}, {2,3} (node_ranks = 2): ranks 0 and 1 both send to node
// {2,3} in phase 1, and two swaps (1 -> 2, 0 -> 3) leave node {0,1}, one (2 -> 1) leaves {2,3}.
TEST(Derived, SplitBinaryTreeSharesTheNodesLinkAndHandsOver) {
  FormulaConfig f = config(FormulaConfig::Kind::derived);
  f.costs.gamma = models::Gamma({1.0, 1.5, 1.8});
  const RunSpec split = spec("bcast/split_binary_tree", 4, 2000, 1000);
  // A link per rank, blocking: the root's two sends end at 11 and 22 us, rank 1 forwards to 3 by
  // 22 us; every swap (and the root's half to rank 3) takes one t more: 33 us.
  EXPECT_NEAR(run_formula(f, split).time_s, 33e-6, 1e-15);
  // Shared: 0 -> 1 stays inside the node (11 us); 0 -> 2 and 1 -> 3 take c(2) t = 16.5 us: both
  // arrive at 27.5 us. The swap 1 -> 2 and the half 0 -> 3 take c(2) t: 27.5 + 16.5 = 44 us
  // (2 -> 1, alone on its node's link: 27.5 + 11 = 38.5 us).
  f.costs.node_ranks = 2;
  EXPECT_NEAR(run_formula(f, split).time_s, 44e-6, 1e-15);
  // Handed over, a send holds its sender alpha = 10 us less than it takes to arrive: 0 -> 1 holds
  // the root 1 us (arrives at 11), 0 -> 2 6.5 us more (root done at 7.5, rank 2 holds it at 17.5);
  // rank 1 forwards at 11, done at 17.5, rank 3 holds it at 27.5. Swaps arrive whole: 1 -> 2 at
  // 17.5 + 16.5 = 34 us, 2 -> 1 at 28.5, 0 -> 3 at 7.5 + 16.5 = 24 (rank 3 done at 27.5): 34 us.
  f.costs.eager_handover = true;
  EXPECT_NEAR(run_formula(f, split).time_s, 34e-6, 1e-15);
}

// A half in the rendezvous regime waits for its receiver to post (its phase 1 done); its eager
// segments do not. 4 ranks, 2000 B in segments of 500 B (2 per half), a regime from 1000 B with
// the same alpha and beta and no handshake; handed over, a link per rank. Segments: t = 10.5 us,
// holding the sender 0.5 us. The root's four sends end at 0.5, 1, 1.5, 2 us: rank 1 holds its
// segments at 10.5 and 11.5, rank 2 at 11 and 12 (done). Rank 1 forwards at 10.5 and 11.5, done
// at 12; rank 3 holds them at 21 and 22. Halves (t(1000) = 11 us, rendezvous: no hand-over): 1 <->
// 2 from 12 us, at 23 us; the root's half to rank 3 starts when rank 3 posts it, at 22: 33 us.
// Were the halves eager (regime from 2000 B), it would leave at 2 and arrive at 13: 23 us.
TEST(Derived, SplitBinaryTreesRendezvousHalfWaitsForItsReceiver) {
  FormulaConfig f = config(FormulaConfig::Kind::derived);
  f.costs.eager_handover = true;
  f.costs.regimes = {models::Regime{1000, {kAlpha, kBeta}, 0, 0}};
  const RunSpec split = spec("bcast/split_binary_tree", 4, 2000, 500);
  EXPECT_NEAR(run_formula(f, split).time_s, 33e-6, 1e-15);
  f.costs.regimes = {models::Regime{2000, {kAlpha, kBeta}, 0, 0}};
  EXPECT_NEAR(run_formula(f, split).time_s, 23e-6, 1e-15);
}

// Messages inside a node priced by their own Hockney (FormulaCosts::intra: alpha 1 us, beta
// 0.1 ns/B, t_in(1000) = 1.1 us), the calibration's ping-pong inside a node. Nodes {0,1}, {2,3};
// one segment of 1000 B, t = 11 us, c(1) = 1, c(2) = 1.5; no hand-over.
TEST(Derived, MessagesInsideANodeTakeTheirOwnCost) {
  FormulaConfig f = config(FormulaConfig::Kind::derived);
  f.costs.gamma = models::Gamma({1.0, 1.5, 1.8});
  f.costs.node_ranks = 2;
  // binary_tree: 0 -> 1, 2; 1 -> 3. Node {0,1} sends 0 -> 2 and 1 -> 3 to node {2,3}: both ranks
  // send at c(2) t = 16.5 us. Rank 1 holds the segment at t = 11 us and its send is done at
  // 11 + 16.5 = 27.5 us; inside the node it holds it at 1.1 us, done at 1.1 + 16.5 = 17.6 us
  // (rank 2 at 16.5, rank 3 at 1.1 + 11 = 12.1).
  const RunSpec tree = spec("bcast/binary_tree", 4, 1000, 1000);
  EXPECT_NEAR(run_formula(f, tree).time_s, 27.5e-6, 1e-15);
  // split_binary_tree (the case of SplitBinaryTreeSharesTheNodesLinkAndHandsOver, 44 us): 0 -> 1
  // takes 1.1 us, 0 -> 2 then 16.5 (root done, rank 2 holds it, at 17.6); rank 1 forwards to 3 by
  // 1.1 + 16.5 = 17.6. Swaps 1 -> 2 and 0 -> 3 at 17.6 + 16.5 = 34.1 us (2 -> 1 at 28.6).
  const RunSpec split = spec("bcast/split_binary_tree", 4, 2000, 1000);
  EXPECT_NEAR(run_formula(f, split).time_s, 44e-6, 1e-15);
  f.costs.intra = models::Hockney{1e-6, 0.1e-9};
  EXPECT_NEAR(run_formula(f, tree).time_s, 17.6e-6, 1e-15);
  EXPECT_NEAR(run_formula(f, split).time_s, 34.1e-6, 1e-15);
  // With a link per rank (node_ranks = 1) there is no node to be inside: as without it.
  f.costs.node_ranks = 1;
  f.costs.gamma = models::Gamma({1.0, 1.5});
  EXPECT_NEAR(run_formula(f, tree).time_s, 22e-6, 1e-15);
}

// The gathers with messages inside a node priced apart: nodes {0,1}, {2,3}, root 0, one at a
// time at the root (serial receives), no hand-over; t(1000) = 11 us between nodes, t_in(1000) =
// 1 + 0.1 = 1.1 us inside (alpha 1 us, beta 0.1 ns/B).
TEST(Derived, GathersTakeTheirMessagesInsideANodeApart) {
  FormulaConfig f = config(FormulaConfig::Kind::derived);
  f.costs.serial_receive = true;
  f.costs.node_ranks = 2;
  const RunSpec linear = spec("gather/basic_linear", 4, 1000);
  const RunSpec binomial = spec("gather/binomial", 4, 1000);
  const RunSpec sync = spec("gather/linear_sync", 4, 1000, 400);
  // Without a price inside a node: basic_linear 3 t = 33 us; binomial: rank 2 has rank 3's block
  // at 11, the root rank 1's at 11 and then rank 2's two blocks, t(2000) = 12 us, at 23 us;
  // linear_sync (f = 400, r = 600 B): t(0) + t(400) = 20.4, two turns of t(600) + t(400) = 21 us
  // and the last second segment, 10.6: 73 us.
  EXPECT_NEAR(run_formula(f, linear).time_s, 33e-6, 1e-15);
  EXPECT_NEAR(run_formula(f, binomial).time_s, 23e-6, 1e-15);
  EXPECT_NEAR(run_formula(f, sync).time_s, 73e-6, 1e-15);
  f.costs.intra = models::Hockney{1e-6, 0.1e-9};
  // basic_linear: rank 1's block comes in at 1.1 us beside ranks 2 and 3's over the link, 2 t.
  EXPECT_NEAR(run_formula(f, linear).time_s, 22e-6, 1e-15);
  // binomial: rank 3 -> 2 and 1 -> 0 inside their nodes at 1.1 us; then 2 -> 0: 1.1 + 12 = 13.1.
  EXPECT_NEAR(run_formula(f, binomial).time_s, 13.1e-6, 1e-15);
  // linear_sync: rank 1's turn inside, t_in(0) + t_in(400) = 1 + 1.04 = 2.04 us (its second
  // segment in at 3.1); rank 2's does not wait for it: 2.04 + t(0) + t(400) = 22.44; rank 3's waits
  // for rank 2's second segment: 22.44 + 21 = 43.44; its second segment in at 54.04 us.
  EXPECT_NEAR(run_formula(f, sync).time_s, 54.04e-6, 1e-15);
}

// Fair sharing with ranks sharing a node's link (the sim engine's hosts): a rank's first segment
// shares only with its own sends, its node's other ranks having nothing yet, but by the last
// segment the link carries every stream leaving the node. binomial on 4 ranks, 0 -> 1, 2; 1 -> 3;
// nodes {0,1}, {2,3}: node {0,1} sends 0 -> 2 and 1 -> 3 to node {2,3}, K = 2, c(2) = 1.5
// (gamma {1, 1.5, 1.8}); segments of 1000 B, t = 11 us; handed over (a send holds its sender
// alpha = 10 us less than it takes to arrive), no price of its own inside a node.
TEST(Derived, TheLastSegmentSharesTheNodesLinkWithAllItsStreams) {
  FormulaConfig f = config(FormulaConfig::Kind::derived);
  f.costs.gamma = models::Gamma({1.0, 1.5, 1.8});
  f.costs.fair_sharing = true;
  f.costs.eager_handover = true;
  f.costs.node_ranks = 2;
  // Two segments. The root's two sends of a segment hold it 1.5 t - 10 = 6.5 us: segment 2 leaves
  // at 6.5 and reaches ranks 1 and 2 at 6.5 + 1.5 t = 23 us. Rank 1 forwards segment 1 at 16.5
  // (rank 3 holds it at 27.5) and segment 2 at 23, when the link carries both of the node's
  // streams: rank 3 holds it at 23 + 1.5 t = 39.5 us (34 us were it priced as rank 1's one send).
  EXPECT_NEAR(run_formula(f, spec("bcast/binomial", 4, 2000, 1000)).time_s, 39.5e-6, 1e-15);
  // One segment is the first: rank 3 holds it at 16.5 + t = 27.5 us (rank 1 is done at 23).
  EXPECT_NEAR(run_formula(f, spec("bcast/binomial", 4, 1000, 1000)).time_s, 27.5e-6, 1e-15);
}

TEST(FormulaEngine, RefusesWhatHasNoTextbookFormula) {
  try {
    run_formula(config(FormulaConfig::Kind::textbook), spec("bcast/chain", 4, 100));
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bcast/chain has no textbook formula (textbook formulas: bcast/basic_linear"),
              std::string::npos)
        << e.what();
  }
}

TEST(FormulaEngine, UsesAnAlgorithmsOwnParametersWhenItHasThem) {
  FormulaConfig f = config(FormulaConfig::Kind::derived);
  f.per_algorithm["bcast/binomial"] = {1e-3, 0};
  EXPECT_DOUBLE_EQ(run_formula(f, spec("bcast/binomial", 8, 100)).time_s, 3e-3);
  EXPECT_DOUBLE_EQ(run_formula(f, spec("bcast/basic_linear", 2, 100)).time_s, t(100));
}

TEST(FormulaEngine, LogGPBecomesTheHockneyOfOneMessage) {
  ModelConfig m;
  m.kind = ModelConfig::Kind::loggp;
  m.loggp = {5e-6, 1e-6, 2e-6, 1e-9};
  const models::FormulaCosts c = costs_from_model(m, 4, 1000);
  // One message of s bytes: 2o + L + (s-1)G = (2o + L - G) + s*G.
  EXPECT_DOUBLE_EQ(c.hockney.alpha, 2e-6 + 5e-6 - 1e-9);
  EXPECT_DOUBLE_EQ(c.hockney.beta, 1e-9);
  EXPECT_TRUE(c.serial_receive);
}

// At thousands of processes the formulas are evaluated the fast way (gamma(p) measured only where
// a formula reads it, ring steps as a longest path, trees kept flat, reduce trees depth first):
// their results against closed forms derived by hand, and the longest path against the ring's
// recurrence run step by step over every rank. A faster evaluation that changed a result fails
// here; how fast it is, is tools/bench/README.md's business (no timed tests).

double predict(const FormulaConfig& f, const char* name, int procs, std::size_t bytes, std::size_t segment = 0) {
  return run_formula(f, spec(name, procs, bytes, segment)).time_s;
}

// The formula engine under the model engine's Hockney, gamma(p) measured in it as measure
// --engine formula does without --params.
FormulaConfig from_model(bool one_port, int max_procs, double reduce_gamma = 0) {
  ModelConfig m;
  m.hockney = {kAlpha, kBeta};
  m.one_port = one_port;
  m.reduce_gamma = reduce_gamma;
  FormulaConfig f;
  f.costs = costs_from_model(m, max_procs, 8192);
  return f;
}

// gamma(p) measured on demand equals the table measured whole, inside it and along its last two
// points past it, and only the p read are measured.
TEST(FormulaScale, GammaMeasuredOnDemandEqualsTheWholeTable) {
  auto experiment = [](int p) { return 3e-6 + 2e-6 * p + 1e-8 * p * p; };
  std::vector<double> table;
  for (int p = 2; p <= 50; ++p) table.push_back(experiment(p));
  const models::Gamma whole(table);
  int runs = 0;
  const models::Gamma lazy(50, [&](int p) {
    ++runs;
    return experiment(p);
  });
  EXPECT_EQ(runs, 1);  // gamma(2), the unit
  for (int p : {1, 2, 17, 50, 51, 80}) EXPECT_EQ(lazy(p), whole(p)) << p;
  EXPECT_EQ(runs, 4);  // 2, 17, 50 and 49 (the slope past the table)
  const models::Gamma copy = lazy;
  EXPECT_EQ(copy(17), whole(17));
  EXPECT_EQ(runs, 4);  // copies share what was measured
}

// Broadcasts on 10000 to 300000 processes. Binomial, contention-free: every rank holds the
// message after as many transfers as its vrank has bits set, at most 13 below 10000 (8191) and
// 18 below 300000. Under one port a rank's j-th child has it after j of its
// transfers, and the root serves its largest subtree first, so a rank of height k is done k
// transfers after it has the message whichever child is on the critical path: log2(P) transfers
// on a power of two. basic_linear under one port: P-1 transfers, one after the other.
TEST(FormulaScale, BroadcastsOnThousandsOfProcessesMatchTheirClosedForms) {
  const std::size_t m = 1 << 20;
  EXPECT_NEAR(predict(from_model(false, 10000), "bcast/binomial", 10000, m), 13 * t(m), 1e-12 * 13 * t(m));
  EXPECT_NEAR(predict(from_model(false, 10000), "bcast/basic_linear", 10000, m), t(m), 1e-12 * t(m));
  const FormulaConfig port = from_model(true, 16384);
  EXPECT_NEAR(predict(port, "bcast/binomial", 16384, m), 14 * t(m), 1e-12 * 14 * t(m));
  EXPECT_NEAR(predict(port, "bcast/basic_linear", 10000, m), 9999 * t(m), 1e-12 * 9999 * t(m));

  // The pipeline of n segments of s bytes: (P + n - 2)*t(s); below and above the processes up
  // to which the formula keeps its trees (one tree walked as it is asked beyond).
  const std::size_t s = 8192, n = 10;
  for (int procs : {10000, 300000}) {
    const double chain = (procs + n - 2) * t(s);
    EXPECT_NEAR(predict(from_model(false, procs), "bcast/pipeline", procs, n * s, s), chain, 1e-12 * chain) << procs;
  }
  EXPECT_NEAR(predict(from_model(false, 300000), "bcast/binomial", 300000, m), 18 * t(m), 1e-12 * 18 * t(m));

  // scatter_allgather_ring on a power of two with P dividing m, blocks of b bytes: the binomial
  // scatter ends after log2(P) transfers of P/2, P/4, ..., 1 blocks, then P-1 ring steps of t(b):
  // (log2 P + P - 1)*alpha + 2*(P - 1)*b*beta (the textbook formula).
  const int P = 8192;
  const std::size_t b = 1000;
  const double ring = 13 * kAlpha + (P - 1) * b * kBeta + (P - 1) * t(b);
  EXPECT_NEAR(predict(from_model(false, P), "bcast/scatter_allgather_ring", P, P * b), ring, 1e-12 * ring);
}

// Reductions: allreduce/ring with count = P*k elements of 8 bytes, blocks of b = 8k bytes: P-1
// reduce-scatter steps of a transfer and a reduction, then P-1 allgather steps,
// (P-1)*(2*t(b) + g*b). reduce/pipeline, a chain of P ranks and n segments of l bytes: a rank h
// hops from the leaf sends segment s at 2t(l) + g*l + (h-1)*(t(l) + g*l) + s*(t(l) + g*l) (the
// leaf paces t, every other rank t + g*l), so the root, which only reduces, is done at
// (P + n - 2)*(t(l) + g*l).
TEST(FormulaScale, ReductionsOnThousandsOfProcessesMatchTheirClosedForms) {
  const double g = 2.5e-10;
  const FormulaConfig f = from_model(false, 4000, g);
  const std::size_t b = 8 * 24;
  const double ring = 3999 * (2 * t(b) + g * b);
  RunSpec s = spec("allreduce/ring", 4000, 4000 * b);
  s.params.reduction = {Datatype::float64, ReduceOp::sum};
  EXPECT_NEAR(run_formula(f, s).time_s, ring, 1e-12 * ring);

  const std::size_t l = 1024, n = 64;
  const double chain = (4000 + n - 2) * (t(l) + g * l);
  s.algorithm = find_algorithm("reduce/pipeline");
  s.bytes = n * l;
  s.params.segment = l;
  EXPECT_NEAR(run_formula(f, s).time_s, chain, 1e-12 * chain);
}

// ring_longest_path against the ring's recurrence run step by step over every rank, with costs of
// many values, and of the two or three a ring's blocks have (full, short, empty), and P-1 steps
// as the formulas take or fewer.
TEST(FormulaScale, RingLongestPathEqualsTheRecurrenceStepByStep) {
  std::mt19937 random(26);
  std::uniform_real_distribution<double> u(0, 1);
  for (int P : {2, 3, 7, 64, 301}) {
    for (int kind = 0; kind < 3; ++kind) {
      std::vector<double> start(static_cast<std::size_t>(P)), cost(static_cast<std::size_t>(P));
      for (int d = 0; d < P; ++d) {
        start[static_cast<std::size_t>(d)] = kind == 2 ? 0 : 1e-5 * u(random);
        cost[static_cast<std::size_t>(d)] = kind == 0 ? 1e-6 * u(random) : d < P / 2 ? 3e-6 : d == P / 2 ? 2e-6 : 1e-6;
      }
      for (int n : {1, P / 2, P - 1}) {
        if (n < 1) continue;
        std::vector<double> x = start, next(x.size());
        for (int step = 1; step <= n; ++step) {
          for (int v = 0; v < P; ++v) {
            auto at = [&](int i) { return static_cast<std::size_t>(((i % P) + P) % P); };
            next[at(v)] = std::max(x[at(v)] + cost[at(v - step + 1)], x[at(v - 1)] + cost[at(v - step)]);
          }
          std::swap(x, next);
        }
        const double expected = *std::max_element(x.begin(), x.end());
        EXPECT_NEAR(models::ring_longest_path(start, cost, static_cast<std::size_t>(n)), expected, 1e-13 * expected)
            << "P " << P << " kind " << kind << " n " << n;
      }
    }
  }
}

// bcast/binary_tree on 12 ranks, 1 MiB unsegmented, one port: the tree 0 -> 1,2; 1 -> 3,4;
// 2 -> 5,6; 3 -> 7,8; 4 -> 9,10; 5 -> 11. Rank 1 has the message after t, rank 2 after 2t (the
// root's second send); rank 4, rank 1's second child, after 3t, and its second child, rank 10,
// after 5t, the last. So 5t, in the formula and in the model engine.
TEST(FormulaSigns, BinaryTreeOnTwelveRanksOnePortByHand) {
  ModelConfig m;
  m.hockney = {kAlpha, kBeta};
  m.one_port = true;
  FormulaConfig f = config(FormulaConfig::Kind::derived);
  f.costs = costs_from_model(m, 12, 8192);
  const RunSpec s = spec("bcast/binary_tree", 12, std::size_t{1} << 20);
  const double expected = 5 * t(1 << 20);
  EXPECT_NEAR(run_formula(f, s).time_s, expected, 1e-12);
  EXPECT_NEAR(run_model(m, s).time_s, expected, 1e-12);
}

// No formula (derived or textbook) predicts a negative time, for any algorithm, process count, size (one byte
// short of a segment included) and port model: every term is a count of transfers, each of
// positive cost.
TEST(FormulaSigns, NoFormulaIsNegative) {
  for (bool one_port : {false, true}) {
    ModelConfig m;
    m.hockney = {kAlpha, kBeta};
    m.one_port = one_port;
    for (const FormulaConfig::Kind kind : {FormulaConfig::Kind::derived, FormulaConfig::Kind::textbook}) {
      FormulaConfig f = config(kind);
      f.costs = costs_from_model(m, 64, 8192);
      for (const AlgorithmInfo& a : all_algorithms()) {
        if (!(kind == FormulaConfig::Kind::derived ? a.derived : a.textbook)) continue;
        for (int P : {1, 2, 3, 5, 8, 12, 17, 64}) {
          if (!runs_on(a, P)) continue;
          for (std::size_t bytes : {std::size_t{0}, std::size_t{1}, std::size_t{8191}, std::size_t{1} << 20}) {
            if (!call_error(operation_info(a.op), bytes, kDefaultReduction).empty()) continue;
            for (std::size_t segment : {std::size_t{0}, std::size_t{8192}}) {
              RunSpec s = spec(a.name.data(), P, bytes, a.takes(Knob::segment) ? segment : 0);
              EXPECT_GE(run_formula(f, s).time_s, 0)
                  << describe(s) << " segment " << segment << (one_port ? " one port " : " ") << to_string(kind);
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace collsim
