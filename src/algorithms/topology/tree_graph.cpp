#include "algorithms/topology/tree_graph.hpp"

#include <algorithm>
#include <deque>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include <boost/graph/graphviz.hpp>

namespace collsim {

namespace {

[[noreturn]] void not_a_tree(const std::string& why) { throw std::logic_error("not a tree: " + why); }

// Ranks in breadth-first order from the root, children in serving order.
std::vector<int> breadth_first(const TreeGraph& tree) {
  std::vector<int> order{tree.root};
  for (std::size_t i = 0; i < order.size(); ++i)
    for (auto e : boost::make_iterator_range(boost::out_edges(static_cast<std::size_t>(order[i]), tree.graph)))
      order.push_back(static_cast<int>(boost::target(e, tree.graph)));
  return order;
}

}  // namespace

TreeGraph build_tree_graph(int size, int root, const NodeFunction& node_of) {
  if (size < 1) throw std::invalid_argument("a tree needs at least 1 process, not " + std::to_string(size));
  if (root < 0 || root >= size)
    throw std::invalid_argument("root " + std::to_string(root) + " is not a rank of " + std::to_string(size) +
                                " processes");
  const auto n = static_cast<std::size_t>(size);
  std::vector<TreeNode> nodes;
  nodes.reserve(n);
  for (int r = 0; r < size; ++r) nodes.push_back(node_of(r));

  TreeGraph tree{TreeAdjacency(n), root};
  for (int r = 0; r < size; ++r) {
    const TreeNode& node = nodes[static_cast<std::size_t>(r)];
    if ((r == root) != (node.parent < 0))
      not_a_tree("rank " + std::to_string(r) +
                 (r == root ? " is the root but has parent " + std::to_string(node.parent) : " has no parent"));
    for (int c : node.children) {
      if (c < 0 || c >= size) not_a_tree("rank " + std::to_string(r) + " lists child " + std::to_string(c));
      if (nodes[static_cast<std::size_t>(c)].parent != r)
        not_a_tree("rank " + std::to_string(r) + " lists child " + std::to_string(c) + ", whose parent is " +
                   std::to_string(nodes[static_cast<std::size_t>(c)].parent));
      boost::add_edge(static_cast<std::size_t>(r), static_cast<std::size_t>(c), tree.graph);
    }
  }
  for (int r = 0; r < size; ++r) {
    const auto in = boost::in_degree(static_cast<std::size_t>(r), tree.graph);
    if (r != root && in != 1)
      not_a_tree("rank " + std::to_string(r) + " is listed by " + std::to_string(in) + " parents");
  }
  if (boost::in_degree(static_cast<std::size_t>(root), tree.graph) != 0) not_a_tree("the root is someone's child");
  // One parent each and n-1 edges: the ranks form a tree exactly when all are reachable.
  if (breadth_first(tree).size() != n) not_a_tree("some ranks are not reachable from the root (a cycle)");
  return tree;
}

int tree_size(const TreeGraph& tree) { return static_cast<int>(boost::num_vertices(tree.graph)); }

std::vector<int> tree_depths(const TreeGraph& tree) {
  std::vector<int> depth(boost::num_vertices(tree.graph), 0);
  for (int r : breadth_first(tree))
    for (auto e : boost::make_iterator_range(boost::out_edges(static_cast<std::size_t>(r), tree.graph)))
      depth[boost::target(e, tree.graph)] = depth[static_cast<std::size_t>(r)] + 1;
  return depth;
}

int tree_height(const TreeGraph& tree) {
  const std::vector<int> depth = tree_depths(tree);
  return *std::max_element(depth.begin(), depth.end());
}

TreeDegrees tree_degrees(const TreeGraph& tree) {
  TreeDegrees d;
  for (std::size_t r = 0; r < boost::num_vertices(tree.graph); ++r) {
    const int children = static_cast<int>(boost::out_degree(r, tree.graph));
    d.max_children = std::max(d.max_children, children);
    if (static_cast<int>(r) == tree.root)
      d.root_children = children;
    else if (children > 0)
      ++d.inner;
    if (children == 0) ++d.leaves;
  }
  return d;
}

std::string tree_dot(const TreeGraph& tree, std::string_view title, bool data_to_root) {
  std::string escaped;
  for (char c : title) {
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += c;
  }
  // ordering=out keeps each rank's children left to right in the order they are served.
  auto graph_attributes = [&](std::ostream& out) {
    out << "label=\"" << escaped << "\";\nlabelloc=t;\nordering=out;\nnode [shape=circle];\n";
    if (data_to_root) out << "edge [dir=back];\n";
  };
  auto vertex_attributes = [&](std::ostream& out, std::size_t v) {
    out << "[label=\"" << v << '"' << (static_cast<int>(v) == tree.root ? ", shape=doublecircle" : "") << ']';
  };
  std::ostringstream out;
  boost::write_graphviz(out, tree.graph, vertex_attributes, boost::default_writer(), graph_attributes);
  return out.str();
}

std::string tree_text(const TreeGraph& tree) {
  std::string text;
  for (int r : breadth_first(tree)) {
    const auto v = static_cast<std::size_t>(r);
    if (boost::out_degree(v, tree.graph) == 0) continue;
    text += std::to_string(r) + " ->";
    for (auto e : boost::make_iterator_range(boost::out_edges(v, tree.graph))) {
      text += ' ';  // appended in two steps: GCC 12 warns falsely (-Wrestrict) on " " + string
      text += std::to_string(boost::target(e, tree.graph));
    }
    text += '\n';
  }
  // A lone root still says who it is.
  return text.empty() ? std::to_string(tree.root) + "\n" : text;
}

}  // namespace collsim
