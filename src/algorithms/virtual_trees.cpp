#include "algorithms/virtual_trees.hpp"

namespace collsim {

TreeNode linear_node(int rank, int size, const AlgorithmParams& p) { return linear_tree(rank, size, p.root); }
TreeNode chain_node(int rank, int size, const AlgorithmParams& p) { return chain_tree(rank, size, p.root, p.fanout); }
TreeNode pipeline_node(int rank, int size, const AlgorithmParams& p) { return pipeline_tree(rank, size, p.root); }
TreeNode binary_node(int rank, int size, const AlgorithmParams& p) { return binary_tree(rank, size, p.root); }
TreeNode binomial_node(int rank, int size, const AlgorithmParams& p) { return binomial_tree(rank, size, p.root); }
TreeNode knomial_node(int rank, int size, const AlgorithmParams& p) {
  return knomial_tree(rank, size, p.root, p.radix);
}
TreeNode scatter_node(int rank, int size, const AlgorithmParams& p) {
  return scatter_binomial_tree(rank, size, p.root);
}
TreeNode in_order_node(int rank, int size, const AlgorithmParams& p) {
  return in_order_binomial_tree(rank, size, p.root);
}

}  // namespace collsim
