// One process's view of a virtual topology: its parent and its children, as real ranks.
//
// Algorithms ask only for their own node, computed in O(degree + log size) from (rank, size,
// root), so a run of a million ranks never materialises a whole tree. Whole-tree graphs for
// inspection and Graphviz export (tree_graph.hpp) are built from the same functions.
//
// Every tree is Open MPI's (coll/base coll_base_topo.c): ranks are shifted so that the root is
// virtual rank 0 (vrank = (rank - root) mod size), the shape is built on vranks, and children are
// listed in the order Open MPI stores them, which is the order the algorithms serve them.
//
// All functions throw std::invalid_argument when size < 1 or rank/root is not in [0, size).
#pragma once

#include <vector>

namespace collsim {

struct TreeNode {
  int parent = -1;            // -1 at the root
  std::vector<int> children;  // in the order the algorithm serves them
};

// Open MPI caps the fanout of its chain and n-ary trees (MAXTREEFANOUT in coll_base_topo.h).
inline constexpr int kMaxTreeFanout = 32;

// The root is the parent of every other rank; its children come in plain rank order
// 0, 1, ..., size-1 without the root (not shifted), as Open MPI's linear bcast and gather loop.
TreeNode linear_tree(int rank, int size, int root);

// Open MPI's chain (build_chain): the root heads `fanout` chains of consecutive vranks; every
// chain is ceil((size-1)/fanout) long except that, when fanout does not divide size-1, only the
// first (size-1) mod fanout chains have that length and the others are one shorter. The fanout
// is clamped to [1, kMaxTreeFanout] and to size-1, as Open MPI does. Fanout 1 is the pipeline.
TreeNode chain_tree(int rank, int size, int root, int fanout);
TreeNode pipeline_tree(int rank, int size, int root);

// Open MPI's n-ary tree (build_tree), filled breadth first: a vrank on level l (levels hold
// 1, f, f^2, ... vranks) has children vrank + f^l * i for i = 1..f, so siblings are f^(l-1)
// apart. With fanout 2 (binary_tree, Open MPI's bintree) and 7 ranks: 0 -> {1,2}, 1 -> {3,5},
// 2 -> {4,6}; odd vranks form the root's left subtree and even ones its right subtree.
TreeNode kary_tree(int rank, int size, int root, int fanout);
TreeNode binary_tree(int rank, int size, int root);

// Open MPI's binomial tree (coll/base bmtree): on vranks, the parent clears the highest set bit;
// the children are vrank | mask for each power-of-two mask above the highest set bit, in
// increasing order. Height: the largest popcount among vranks < size.
TreeNode binomial_tree(int rank, int size, int root);

// Open MPI's in-order binomial tree (build_in_order_bmtree), used by gather/binomial: for
// mask = 1, 2, 4, ... the partner vrank ^ mask is the parent if smaller (the lowest set bit is
// cleared), else a child if it exists. Children in increasing mask order; a child with mask j
// roots the vranks [vrank + j, vrank + 2j). For 8 ranks: 0 -> {1,2,4}, 2 -> {3}, 4 -> {5,6},
// 6 -> {7}.
TreeNode in_order_binomial_tree(int rank, int size, int root);

// Open MPI's in-order binary tree (build_in_order_bintree), used by reduce/in-order_binary. It
// does not depend on the root: it is rooted at rank size-1. The subtree over ranks [b, b+n) has
// root b+n-1; its child 0 roots [b + n/2, b+n-1) and its child 1 roots [b, b + n/2), empty
// ranges omitted (n = 2 has the single child b). Rank order is in-order order: everything under
// child 0 is above everything under child 1. For 8 ranks: 7 -> {6,3}, 6 -> {5,4}, 3 -> {2,1},
// 1 -> {0}. Throws std::invalid_argument when size < 1 or rank is not in [0, size).
TreeNode in_order_binary_tree(int rank, int size);

// The binomial scatter tree of bcast/scatter_allgather(_ring): the same shape as the in-order
// binomial tree, but each rank serves its children largest subtree first (decreasing mask).
TreeNode scatter_binomial_tree(int rank, int size, int root);

// Open MPI's k-nomial tree (build_kmtree): the parent of a vrank clears its lowest non-zero
// base-`radix` digit; the children are vrank + d * radix^j for every position j below that digit
// (all positions at the root) and d = 1..radix-1, highest position first. Radix 2 gives the
// in-order binomial shape of scatter_binomial_tree, not binomial_tree's. Throws
// std::invalid_argument if radix < 2 (Open MPI requires radix > 1).
TreeNode knomial_tree(int rank, int size, int root, int radix);

// Heights (largest root-to-leaf distance, in edges) of the trees above, in closed form.
int binomial_tree_height(int size);            // largest popcount of a vrank < size
int chain_tree_height(int size, int fanout);   // length of the longest chain
int kary_tree_height(int size, int fanout);    // last level of the breadth-first tree
int knomial_tree_height(int size, int radix);  // most non-zero base-radix digits

}  // namespace collsim
