// Virtual topologies: every tree against the shapes in Open MPI's sources and the reference doc
// (/work/shared/reference/openmpi-algorithms.md), and against invariants for all sizes and roots.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "algorithms/topology/tree.hpp"
#include "algorithms/topology/tree_graph.hpp"
#include "common/tree_heights.hpp"
#include "registry/algorithm_tree.hpp"
#include "registry/registry.hpp"

namespace collsim {
namespace {

using Children = std::vector<int>;

// ---- Shapes from the examples -------------------------------------------------------------

TEST(BinomialTree, MatchesOpenMpiShapeForEight) {
  // 0 -> {1,2,4}, 1 -> {3,5}, 2 -> {6}, 3 -> {7}
  EXPECT_EQ(binomial_tree(0, 8, 0).children, (Children{1, 2, 4}));
  EXPECT_EQ(binomial_tree(1, 8, 0).children, (Children{3, 5}));
  EXPECT_EQ(binomial_tree(2, 8, 0).children, (Children{6}));
  EXPECT_EQ(binomial_tree(3, 8, 0).children, (Children{7}));
  EXPECT_TRUE(binomial_tree(7, 8, 0).children.empty());
  EXPECT_EQ(binomial_tree(7, 8, 0).parent, 3);
  EXPECT_EQ(binomial_tree(0, 8, 0).parent, -1);
}

TEST(BinomialTree, RootIsShifted) {
  // Root 3 of 5: vranks 0..4 are ranks 3,4,0,1,2.
  EXPECT_EQ(binomial_tree(3, 5, 3).children, (Children{4, 0, 2}));
  EXPECT_EQ(binomial_tree(4, 5, 3).children, (Children{1}));
  EXPECT_EQ(binomial_tree(1, 5, 3).parent, 4);
}

TEST(BinaryTree, MatchesOpenMpiBuildTreeForSeven) {
  // Open MPI's example for fanout 2, size 7: 0 -> {1,2}, 1 -> {3,5}, 2 -> {4,6}.
  EXPECT_EQ(binary_tree(0, 7, 0).children, (Children{1, 2}));
  EXPECT_EQ(binary_tree(1, 7, 0).children, (Children{3, 5}));
  EXPECT_EQ(binary_tree(2, 7, 0).children, (Children{4, 6}));
  for (int r = 3; r < 7; ++r) EXPECT_TRUE(binary_tree(r, 7, 0).children.empty()) << r;
  EXPECT_EQ(binary_tree(5, 7, 0).parent, 1);
  EXPECT_EQ(binary_tree(4, 7, 0).parent, 2);
  // Shifted: root 5 of 7 has vranks 1, 2 at ranks 6, 0.
  EXPECT_EQ(binary_tree(5, 7, 5).children, (Children{6, 0}));
  EXPECT_EQ(binary_tree(6, 7, 5).children, (Children{1, 3}));  // vranks 3, 5
}

TEST(BinaryTree, ThirteenRanksLevelByLevel) {
  // Level 2 (delta 4): 3 -> {7, 11}, 4 -> {8, 12}, 5 -> {9}, 6 -> {10}.
  EXPECT_EQ(binary_tree(3, 13, 0).children, (Children{7, 11}));
  EXPECT_EQ(binary_tree(4, 13, 0).children, (Children{8, 12}));
  EXPECT_EQ(binary_tree(5, 13, 0).children, (Children{9}));
  EXPECT_EQ(binary_tree(6, 13, 0).children, (Children{10}));
  EXPECT_EQ(binary_tree(12, 13, 0).parent, 4);
}

TEST(BinaryTree, OddVranksFormTheLeftSubtree) {
  // split_binary_tree relies on it: the subtree of vrank 1 is exactly the odd vranks.
  for (int p = 2; p <= 70; ++p) {
    for (int v = 1; v < p; ++v) {
      int top = v;
      while (binary_tree(top, p, 0).parent != 0) top = binary_tree(top, p, 0).parent;
      EXPECT_EQ(top, v % 2 == 1 ? 1 : 2) << "p=" << p << " v=" << v;
    }
  }
}

TEST(InOrderBinomialTree, MatchesReferenceForEight) {
  // 0 -> {1,2,4}, 2 -> {3}, 4 -> {5,6}, 6 -> {7}
  EXPECT_EQ(in_order_binomial_tree(0, 8, 0).children, (Children{1, 2, 4}));
  EXPECT_EQ(in_order_binomial_tree(2, 8, 0).children, (Children{3}));
  EXPECT_EQ(in_order_binomial_tree(4, 8, 0).children, (Children{5, 6}));
  EXPECT_EQ(in_order_binomial_tree(6, 8, 0).children, (Children{7}));
  EXPECT_EQ(in_order_binomial_tree(7, 8, 0).parent, 6);
  EXPECT_EQ(in_order_binomial_tree(5, 8, 0).parent, 4);
  for (int odd : {1, 3, 5, 7}) EXPECT_TRUE(in_order_binomial_tree(odd, 8, 0).children.empty());
  // Root 6 of 8: vrank v is rank (v + 6) % 8.
  EXPECT_EQ(in_order_binomial_tree(6, 8, 6).children, (Children{7, 0, 2}));
  EXPECT_EQ(in_order_binomial_tree(2, 8, 6).children, (Children{3, 4}));
}

TEST(InOrderBinaryTree, MatchesReferenceForEightAndFive) {
  // The reference's examples (build_in_order_bintree): rooted at p-1 whatever the root.
  EXPECT_EQ(in_order_binary_tree(7, 8).parent, -1);
  EXPECT_EQ(in_order_binary_tree(7, 8).children, (Children{6, 3}));
  EXPECT_EQ(in_order_binary_tree(6, 8).children, (Children{5, 4}));
  EXPECT_EQ(in_order_binary_tree(3, 8).children, (Children{2, 1}));
  EXPECT_EQ(in_order_binary_tree(1, 8).children, (Children{0}));
  EXPECT_EQ(in_order_binary_tree(0, 8).parent, 1);
  EXPECT_EQ(in_order_binary_tree(4, 8).parent, 6);
  for (int leaf : {0, 2, 4, 5}) EXPECT_TRUE(in_order_binary_tree(leaf, 8).children.empty());
  EXPECT_EQ(in_order_binary_tree(4, 5).children, (Children{3, 1}));
  EXPECT_EQ(in_order_binary_tree(3, 5).children, (Children{2}));
  EXPECT_EQ(in_order_binary_tree(1, 5).children, (Children{0}));
  EXPECT_EQ(in_order_binary_tree(2, 5).parent, 3);
  EXPECT_TRUE(in_order_binary_tree(0, 1).children.empty());
  EXPECT_THROW(in_order_binary_tree(5, 5), std::invalid_argument);
}

TEST(InOrderBinaryTree, EverySubtreeHoldsConsecutiveRanksBelowItsRoot) {
  // What makes a non-commutative reduction right on it: child 0's ranks all lie above child 1's,
  // and a node's subtree is the ranks just below it.
  for (int p = 1; p <= 40; ++p) {
    std::function<int(int)> low = [&](int r) {
      int l = r;
      for (int c : in_order_binary_tree(r, p).children) {
        EXPECT_EQ(in_order_binary_tree(c, p).parent, r) << p;
        l = std::min(l, low(c));
      }
      return l;
    };
    std::function<void(int)> check = [&](int r) {
      const Children kids = in_order_binary_tree(r, p).children;
      int top = r - 1;  // the next child's subtree must end just below the previous one's
      for (int c : kids) {
        EXPECT_EQ(c, top) << "p " << p << " rank " << r;
        top = low(c) - 1;
        check(c);
      }
    };
    EXPECT_EQ(low(p - 1), 0) << p;
    check(p - 1);
  }
}

TEST(ScatterBinomialTree, ServesLargestSubtreeFirst) {
  EXPECT_EQ(scatter_binomial_tree(0, 8, 0).children, (Children{4, 2, 1}));
  EXPECT_EQ(scatter_binomial_tree(4, 8, 0).children, (Children{6, 5}));
  EXPECT_EQ(scatter_binomial_tree(0, 6, 0).children, (Children{4, 2, 1}));
  EXPECT_EQ(scatter_binomial_tree(4, 6, 0).children, (Children{5}));
  EXPECT_EQ(scatter_binomial_tree(3, 6, 0).parent, 2);
}

TEST(KnomialTree, MatchesOpenMpiExamplesForTen) {
  // Open MPI's build_kmtree examples, comm_size = 10.
  EXPECT_EQ(knomial_tree(0, 10, 0, 2).children, (Children{8, 4, 2, 1}));
  EXPECT_EQ(knomial_tree(8, 10, 0, 2).children, (Children{9}));
  EXPECT_EQ(knomial_tree(4, 10, 0, 2).children, (Children{6, 5}));
  EXPECT_EQ(knomial_tree(6, 10, 0, 2).children, (Children{7}));
  EXPECT_EQ(knomial_tree(2, 10, 0, 2).children, (Children{3}));

  EXPECT_EQ(knomial_tree(0, 10, 0, 3).children, (Children{9, 3, 6, 1, 2}));
  EXPECT_EQ(knomial_tree(3, 10, 0, 3).children, (Children{4, 5}));
  EXPECT_EQ(knomial_tree(6, 10, 0, 3).children, (Children{7, 8}));
  EXPECT_EQ(knomial_tree(9, 10, 0, 3).parent, 0);

  EXPECT_EQ(knomial_tree(0, 10, 0, 4).children, (Children{4, 8, 1, 2, 3}));
  EXPECT_EQ(knomial_tree(4, 10, 0, 4).children, (Children{5, 6, 7}));
  EXPECT_EQ(knomial_tree(8, 10, 0, 4).children, (Children{9}));
  EXPECT_EQ(knomial_tree(7, 10, 0, 4).parent, 4);
}

TEST(KnomialTree, RadixTwoIsTheScatterTreeNotOpenMpisBinomial) {
  // Clearing the lowest non-zero digit is clearing the lowest set bit: the in-order binomial
  // shape, largest subtree first, while Open MPI's bmtree clears the highest set bit.
  for (int p = 1; p <= 40; ++p)
    for (int root : {0, p / 3, p - 1})
      for (int r = 0; r < p; ++r) {
        const TreeNode k = knomial_tree(r, p, root, 2), s = scatter_binomial_tree(r, p, root);
        EXPECT_EQ(k.children, s.children) << "p=" << p << " root=" << root << " rank=" << r;
        EXPECT_EQ(k.parent, s.parent);
      }
  EXPECT_EQ(knomial_tree(3, 8, 0, 2).parent, 2);
  EXPECT_EQ(binomial_tree(3, 8, 0).parent, 1);
}

TEST(KnomialTree, RadixBelowTwoIsRejected) {
  EXPECT_THROW(knomial_tree(0, 8, 0, 1), std::invalid_argument);
  EXPECT_THROW(knomial_tree(0, 8, 0, 0), std::invalid_argument);
  EXPECT_THROW(knomial_tree_height(8, 1), std::invalid_argument);
}

TEST(ChainTree, FourChainsOfTen) {
  // 9 ranks in 4 chains: the first 9 mod 4 = 1 chain has ceil(9/4) = 3, the others 2.
  EXPECT_EQ(chain_tree(0, 10, 0, 4).children, (Children{1, 4, 6, 8}));
  EXPECT_EQ(chain_tree(1, 10, 0, 4).children, (Children{2}));
  EXPECT_EQ(chain_tree(3, 10, 0, 4).children, (Children{}));
  EXPECT_EQ(chain_tree(4, 10, 0, 4).parent, 0);
  EXPECT_EQ(chain_tree(5, 10, 0, 4).parent, 4);
  EXPECT_TRUE(chain_tree(5, 10, 0, 4).children.empty());
  EXPECT_EQ(chain_tree(9, 10, 0, 4).parent, 8);
}

TEST(ChainTree, ShiftedRootAndEvenSplit) {
  // 7 non-root ranks in 4 chains: three of 2 and one of 1; root 5.
  // vranks 1,2 | 3,4 | 5,6 | 7 are ranks 6,7 | 0,1 | 2,3 | 4.
  EXPECT_EQ(chain_tree(5, 8, 5, 4).children, (Children{6, 0, 2, 4}));
  EXPECT_EQ(chain_tree(7, 8, 5, 4).parent, 6);
  EXPECT_EQ(chain_tree(4, 8, 5, 4).parent, 5);
  // 9 ranks, fanout 4: 8 = 4 * 2, every chain has 2.
  EXPECT_EQ(chain_tree(0, 9, 0, 4).children, (Children{1, 3, 5, 7}));
}

TEST(ChainTree, FanoutIsClampedLikeOpenMpi) {
  // More chains than ranks: one rank per chain. Fanout 0 is the pipeline, beyond 32 is 32.
  EXPECT_EQ(chain_tree(0, 4, 0, 10).children, (Children{1, 2, 3}));
  EXPECT_EQ(chain_tree(0, 5, 0, 0).children, (Children{1}));
  EXPECT_EQ(chain_tree(0, 100, 0, 50).children.size(), 32u);
  EXPECT_EQ(chain_tree_height(100, 50), 4);  // ceil(99 / 32)
}

TEST(PipelineTree, IsOneChain) {
  for (int root : {0, 2, 4})
    for (int r = 0; r < 5; ++r) {
      const TreeNode n = pipeline_tree(r, 5, root);
      const int v = (r - root + 5) % 5;
      EXPECT_EQ(n.parent, v == 0 ? -1 : (r + 4) % 5);
      EXPECT_EQ(n.children, v == 4 ? Children{} : Children{(r + 1) % 5});
    }
}

TEST(LinearTree, RootServesRanksInPlainOrder) {
  EXPECT_EQ(linear_tree(2, 5, 2).children, (Children{0, 1, 3, 4}));
  EXPECT_EQ(linear_tree(4, 5, 2).parent, 2);
  EXPECT_TRUE(linear_tree(4, 5, 2).children.empty());
}

TEST(TreeArguments, BadSizeRankOrRootThrow) {
  EXPECT_THROW(binomial_tree(0, 0, 0), std::invalid_argument);
  EXPECT_THROW(binary_tree(5, 5, 0), std::invalid_argument);
  EXPECT_THROW(chain_tree(0, 5, 5, 4), std::invalid_argument);
  EXPECT_THROW(in_order_binomial_tree(-1, 5, 0), std::invalid_argument);
  EXPECT_THROW(linear_tree(0, 3, -1), std::invalid_argument);
}

// ---- Invariants for every size and root ---------------------------------------------------

struct NamedTree {
  std::string name;
  std::function<TreeNode(int rank, int size, int root)> node;
  std::function<int(int size)> expected_height;  // from the definition (tests/common)
  std::function<int(int size)> closed_form;      // the library's height function
};

std::vector<NamedTree> every_tree() {
  using namespace collsim_test;
  const auto one_level = [](int p) { return p > 1 ? 1 : 0; };
  std::vector<NamedTree> trees{
      {"linear", linear_tree, one_level, one_level},
      {"pipeline", pipeline_tree, [](int p) { return p - 1; }, [](int p) { return chain_tree_height(p, 1); }},
      {"binary", binary_tree, floor_log2, [](int p) { return kary_tree_height(p, 2); }},
      {"binomial", binomial_tree, binomial_height, binomial_tree_height},
      {"in_order_binomial", in_order_binomial_tree, binomial_height, binomial_tree_height},
      {"scatter_binomial", scatter_binomial_tree, binomial_height, binomial_tree_height},
  };
  for (int f : {1, 2, 3, 4, 5, 7, 33}) {
    trees.push_back({"chain" + std::to_string(f), [f](int r, int p, int root) { return chain_tree(r, p, root, f); },
                     [f](int p) { return chain_height(p, f); }, [f](int p) { return chain_tree_height(p, f); }});
    trees.push_back({"kary" + std::to_string(f), [f](int r, int p, int root) { return kary_tree(r, p, root, f); },
                     [f](int p) { return kary_height(p, f); }, [f](int p) { return kary_tree_height(p, f); }});
  }
  for (int k : {2, 3, 4, 5, 8, 40})
    trees.push_back({"knomial" + std::to_string(k), [k](int r, int p, int root) { return knomial_tree(r, p, root, k); },
                     [k](int p) { return knomial_height(p, k); }, [k](int p) { return knomial_tree_height(p, k); }});
  return trees;
}

TEST(TreeInvariants, EveryRankHasOneParentThatListsItForAllSizesAndRoots) {
  // build_tree_graph throws unless every non-root has exactly one parent, that parent lists it,
  // the root has none and every rank is reachable from the root.
  for (const NamedTree& t : every_tree())
    for (int p = 1; p <= 40; ++p)
      for (int root = 0; root < p; ++root) {
        try {
          const TreeGraph g = build_tree_graph(p, root, [&](int r) { return t.node(r, p, root); });
          EXPECT_EQ(tree_size(g), p);
        } catch (const std::exception& e) {
          ADD_FAILURE() << t.name << " p=" << p << " root=" << root << ": " << e.what();
        }
      }
}

TEST(TreeInvariants, HeightsMatchTheirDefinitions) {
  // The whole graph built from the per-rank functions the algorithms call, and the library's O(1)
  // height functions, against heights written from the trees' definitions (tests/common).

  for (const NamedTree& t : every_tree())
    for (int p : {1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 1000}) {
      const TreeGraph g = build_tree_graph(p, p / 2, [&](int r) { return t.node(r, p, p / 2); });
      EXPECT_EQ(tree_height(g), t.expected_height(p)) << t.name << " p=" << p;
      EXPECT_EQ(t.closed_form(p), t.expected_height(p)) << t.name << " p=" << p;
    }
}

TEST(TreeInvariants, ShiftingTheRootRelabelsTheSameShape) {
  // Every Open MPI tree but the linear one is built on vranks: node(rank, root) is node(vrank, 0)
  // with every rank shifted by root.
  for (const NamedTree& t : every_tree()) {
    if (t.name == "linear") continue;
    for (int p : {5, 12, 33})
      for (int root = 1; root < p; ++root)
        for (int r = 0; r < p; ++r) {
          const TreeNode shifted = t.node(r, p, root);
          const TreeNode base = t.node((r - root + p) % p, p, 0);
          EXPECT_EQ(shifted.parent, base.parent < 0 ? -1 : (base.parent + root) % p) << t.name;
          ASSERT_EQ(shifted.children.size(), base.children.size()) << t.name;
          for (std::size_t i = 0; i < base.children.size(); ++i)
            EXPECT_EQ(shifted.children[i], (base.children[i] + root) % p) << t.name;
        }
  }
}

TEST(ChainTree, ChainLengthsFollowTheReference) {
  // chain length ceil((p-1)/fanout); the first (p-1) mod fanout chains are that long and the
  // others one shorter (all equal when fanout divides p-1).
  for (int p = 2; p <= 60; ++p)
    for (int fanout : {1, 2, 3, 4, 5, 6, 8, 32}) {
      const int chains = std::min(fanout, p - 1);
      const int longest = (p - 1 + chains - 1) / chains;
      const int long_ones = (p - 1) % chains == 0 ? chains : (p - 1) % chains;
      const TreeNode root = chain_tree(0, p, 0, fanout);
      ASSERT_EQ(static_cast<int>(root.children.size()), chains) << "p=" << p << " fanout=" << fanout;
      for (int c = 0; c < chains; ++c) {
        int length = 1;
        for (int r = root.children[static_cast<std::size_t>(c)]; !chain_tree(r, p, 0, fanout).children.empty();
             r = chain_tree(r, p, 0, fanout).children[0])
          ++length;
        EXPECT_EQ(length, c < long_ones ? longest : longest - 1) << "p=" << p << " fanout=" << fanout << " chain " << c;
      }
    }
}

TEST(BinaryTree, MatchesOpenMpisParentSearch) {
  // Open MPI finds the parent by stepping back f^(level-1) from the vrank until it leaves its
  // level; we compute it in one step.
  for (int fanout : {2, 3, 4})
    for (int p = 2; p <= 200; ++p)
      for (int v = 1; v < p; ++v) {
        long level_start = 0, width = 1;
        while (level_start + width <= v) {
          level_start += width;
          width *= fanout;
        }
        long parent = v;
        if (parent < fanout)
          parent = 0;
        else
          while (parent >= level_start) parent -= width / fanout;
        EXPECT_EQ(kary_tree(v, p, 0, fanout).parent, parent) << "fanout=" << fanout << " p=" << p << " v=" << v;
      }
}

TEST(BinomialHeight, MatchesLargeSizes) {
  EXPECT_EQ(binomial_tree_height(1), 0);
  EXPECT_EQ(binomial_tree_height(2), 1);
  EXPECT_EQ(binomial_tree_height(8), 3);
  EXPECT_EQ(binomial_tree_height(1000), 9);
  EXPECT_EQ(binomial_tree_height(1 << 20), 20);
  EXPECT_EQ(kary_tree_height(7, 2), 2);
  EXPECT_EQ(kary_tree_height(8, 2), 3);
  EXPECT_EQ(knomial_tree_height(10, 4), 2);  // vrank 5 = 11 in base 4
  EXPECT_EQ(knomial_tree_height(1 << 20, 2), 20);
}

// ---- Graphs and export ----------------------------------------------------------------------

TEST(TreeGraph, DegreesAndDepths) {
  const TreeGraph g = build_tree_graph(8, 0, [](int r) { return binomial_tree(r, 8, 0); });
  const TreeDegrees d = tree_degrees(g);
  EXPECT_EQ(d.root_children, 3);
  EXPECT_EQ(d.max_children, 3);
  EXPECT_EQ(d.leaves, 4);  // 4, 5, 6, 7
  EXPECT_EQ(d.inner, 3);   // 1, 2, 3
  EXPECT_EQ(tree_depths(g), (std::vector<int>{0, 1, 1, 2, 1, 2, 2, 3}));
}

TEST(TreeGraph, RejectsWhatIsNotATree) {
  // Rank 2 claims rank 1 as a child, but rank 1's parent is 0.
  auto bad = [](int r) {
    TreeNode n;
    if (r == 0) n.children = {1, 2};
    if (r == 2) n.children = {1};
    if (r != 0) n.parent = 0;
    return n;
  };
  EXPECT_THROW(build_tree_graph(3, 0, bad), std::logic_error);
  // Rank 2 is nobody's child.
  auto orphan = [](int r) {
    TreeNode n;
    if (r == 0) n.children = {1};
    if (r != 0) n.parent = 0;
    return n;
  };
  EXPECT_THROW(build_tree_graph(3, 0, orphan), std::logic_error);
  EXPECT_THROW(build_tree_graph(0, 0, orphan), std::invalid_argument);
  EXPECT_THROW(build_tree_graph(3, 3, orphan), std::invalid_argument);
}

TEST(TreeGraph, TextListsParentsTopDown) {
  const TreeGraph g = build_tree_graph(8, 0, [](int r) { return binomial_tree(r, 8, 0); });
  EXPECT_EQ(tree_text(g), "0 -> 1 2 4\n1 -> 3 5\n2 -> 6\n3 -> 7\n");
  const TreeGraph alone = build_tree_graph(1, 0, [](int r) { return binomial_tree(r, 1, 0); });
  EXPECT_EQ(tree_text(alone), "0\n");
}

TEST(TreeGraph, DotKeepsChildOrderAndMarksTheRoot) {
  const TreeGraph g = build_tree_graph(4, 2, [](int r) { return binary_tree(r, 4, 2); });
  const std::string dot = tree_dot(g, "bcast/binary_tree, 4 processes, root 2");
  EXPECT_NE(dot.find("digraph"), std::string::npos) << dot;
  EXPECT_NE(dot.find("ordering=out"), std::string::npos) << dot;
  EXPECT_NE(dot.find("label=\"bcast/binary_tree, 4 processes, root 2\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("2[label=\"2\", shape=doublecircle]"), std::string::npos) << dot;
  // 2 -> {3, 0}, 3 -> {1}, in that order.
  const auto first = dot.find("2->3"), second = dot.find("2->0");
  EXPECT_NE(first, std::string::npos) << dot;
  EXPECT_NE(second, std::string::npos) << dot;
  EXPECT_LT(first, second);
  EXPECT_NE(dot.find("3->1"), std::string::npos) << dot;
  EXPECT_EQ(dot.find("dir=back"), std::string::npos);
  EXPECT_NE(tree_dot(g, "gather", true).find("dir=back"), std::string::npos);
}

TEST(AlgorithmTree, EveryRegisteredAlgorithmWithATreeHasItsTree) {
  AlgorithmParams params;
  for (const AlgorithmInfo& a : all_algorithms()) {
    // Entries without a tree rooted at the root (barriers and other exchanges, reduce/in-order_binary,
    // reduce/rabenseifner) say so.
    if (!a.tree) {
      EXPECT_THROW(algorithm_tree(a, 4, params), std::invalid_argument) << a.name;
      continue;
    }
    for (int p : {1, 2, 13, 64})
      for (int root : {0, p - 1}) {
        params.root = root;
        const TreeGraph g = algorithm_tree(a, p, params);
        EXPECT_EQ(tree_size(g), p) << a.name;
        EXPECT_EQ(g.root, root) << a.name;
        EXPECT_FALSE(algorithm_tree_dot(a, p, params).empty()) << a.name;
        EXPECT_FALSE(algorithm_tree_text(a, p, params).empty()) << a.name;
      }
  }
}

TEST(AlgorithmTree, EachAlgorithmGetsTheTreeItUses) {
  AlgorithmParams params;
  auto text = [&](const char* name, int p) { return algorithm_tree_text(*find_algorithm(name), p, params); };
  EXPECT_EQ(text("bcast/binary_tree", 7), "0 -> 1 2\n1 -> 3 5\n2 -> 4 6\n");
  EXPECT_EQ(text("bcast/split_binary_tree", 7), text("bcast/binary_tree", 7));
  EXPECT_EQ(text("bcast/basic_linear", 4), "0 -> 1 2 3\n");
  EXPECT_EQ(text("bcast/pipeline", 4), "0 -> 1\n1 -> 2\n2 -> 3\n");
  EXPECT_EQ(text("bcast/chain", 7), "0 -> 1 3 5 6\n1 -> 2\n3 -> 4\n");  // fanout 4: chains of 2, 2, 1, 1
  EXPECT_EQ(text("bcast/binomial", 8), "0 -> 1 2 4\n1 -> 3 5\n2 -> 6\n3 -> 7\n");
  EXPECT_EQ(text("bcast/knomial", 10), "0 -> 4 8 1 2 3\n4 -> 5 6 7\n8 -> 9\n");
  EXPECT_EQ(text("bcast/scatter_allgather", 8), "0 -> 4 2 1\n4 -> 6 5\n2 -> 3\n6 -> 7\n");
  EXPECT_EQ(text("bcast/scatter_allgather_ring", 8), text("bcast/scatter_allgather", 8));
  EXPECT_EQ(text("gather/binomial", 8), "0 -> 1 2 4\n2 -> 3\n4 -> 5 6\n6 -> 7\n");
  EXPECT_EQ(text("gather/linear_sync", 3), "0 -> 1 2\n");
  params.fanout = 2;
  EXPECT_EQ(text("bcast/chain", 7), "0 -> 1 4\n1 -> 2\n4 -> 5\n2 -> 3\n5 -> 6\n");
  params.radix = 3;
  EXPECT_EQ(text("bcast/knomial", 10), "0 -> 9 3 6 1 2\n3 -> 4 5\n6 -> 7 8\n");
  EXPECT_NE(algorithm_tree_dot(*find_algorithm("gather/binomial"), 8, params).find("dir=back"), std::string::npos);
}

TEST(AlgorithmTree, BadArgumentsThrowInvalidArgument) {
  const AlgorithmInfo& binary = *find_algorithm("bcast/binary_tree");
  AlgorithmParams params;
  EXPECT_THROW(algorithm_tree_dot(binary, 0, params), std::invalid_argument);
  EXPECT_THROW(algorithm_tree_dot(binary, -3, params), std::invalid_argument);
  params.root = 13;
  EXPECT_THROW(algorithm_tree_dot(binary, 13, params), std::invalid_argument);
  params.root = -1;
  EXPECT_THROW(algorithm_tree_text(binary, 13, params), std::invalid_argument);
  params.root = 0;
  params.radix = 1;
  EXPECT_THROW(algorithm_tree_dot(*find_algorithm("bcast/knomial"), 13, params), std::invalid_argument);
}

}  // namespace
}  // namespace collsim
