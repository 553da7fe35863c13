// Whole virtual trees as Boost.Graph graphs: built from the per-rank node functions of tree.hpp,
// checked, measured, and written as Graphviz DOT or as plain text.
//
// Vertices are real ranks; an edge goes from a parent to a child, and each vertex's out-edges
// keep the order in which the algorithm serves its children.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

#include "algorithms/topology/tree.hpp"

namespace collsim {

using TreeAdjacency = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS>;

struct TreeGraph {
  TreeAdjacency graph;
  int root = 0;
};

// node_of(rank) for every rank of a tree of `size` processes.
using NodeFunction = std::function<TreeNode(int rank)>;

// Builds the graph of `size` ranks rooted at `root`. Throws std::invalid_argument for a bad size
// or root and std::logic_error when the nodes do not form one tree: a child out of range, a
// child whose own parent is someone else, a rank with no parent or two, or a cycle.
TreeGraph build_tree_graph(int size, int root, const NodeFunction& node_of);

int tree_size(const TreeGraph& tree);
// Distance of every rank from the root, in edges.
std::vector<int> tree_depths(const TreeGraph& tree);
// Largest distance from the root to a leaf.
int tree_height(const TreeGraph& tree);

struct TreeDegrees {
  int max_children = 0;  // most children of one rank (the root's for most trees)
  int root_children = 0;
  int leaves = 0;  // ranks without children (the root too when it is alone)
  int inner = 0;   // non-root ranks with children
};
TreeDegrees tree_degrees(const TreeGraph& tree);

// Graphviz DOT, named `title`. `data_to_root` draws arrows towards the parents (gather), else
// from parents to children (bcast); the children keep their serving order from left to right.
std::string tree_dot(const TreeGraph& tree, std::string_view title, bool data_to_root = false);

// One line per rank that has children, top down (breadth first from the root), e.g. "0 -> 1 2 4".
std::string tree_text(const TreeGraph& tree);

}  // namespace collsim
