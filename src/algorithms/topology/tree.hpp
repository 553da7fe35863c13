// One process's view of a virtual topology: its parent and its children, as real ranks.
//
// Algorithms ask only for their own node, computed in O(degree) from (rank, size, root), so a run
// of a million ranks never materialises a whole tree. Whole-tree graphs for inspection and
// Graphviz export are built from the same functions.
#pragma once

#include <vector>

namespace collsim {

struct TreeNode {
  int parent = -1;            // -1 at the root
  std::vector<int> children;  // in the order the algorithm serves them
};

// Open MPI's binomial tree (coll/base bmtree): on vrank = (rank - root) mod size, the parent
// clears the highest set bit; the children are vrank | mask for each power-of-two mask above the
// highest set bit, in increasing order. Height: the largest popcount among vranks < size.
TreeNode binomial_tree(int rank, int size, int root);

// Largest distance from the root to a leaf in Open MPI's binomial tree of `size` processes.
int binomial_tree_height(int size);

}  // namespace collsim
