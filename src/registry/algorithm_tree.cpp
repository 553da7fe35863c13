#include "registry/algorithm_tree.hpp"

#include <stdexcept>
#include <string>

namespace collsim {

TreeGraph algorithm_tree(const AlgorithmInfo& algorithm, int procs, const AlgorithmParams& params) {
  if (!algorithm.tree) throw std::invalid_argument(std::string(algorithm.name) + " runs on no tree rooted at its root");
  return build_tree_graph(procs, params.root, [&](int r) { return algorithm.tree(r, procs, params); });
}

std::string algorithm_tree_dot(const AlgorithmInfo& algorithm, int procs, const AlgorithmParams& params) {
  const std::string title = std::string(algorithm.name) + ", " + std::to_string(procs) +
                            (procs == 1 ? " process" : " processes") + ", root " + std::to_string(params.root);
  return tree_dot(algorithm_tree(algorithm, procs, params), title, algorithm.op == Operation::gather);
}

std::string algorithm_tree_text(const AlgorithmInfo& algorithm, int procs, const AlgorithmParams& params) {
  return tree_text(algorithm_tree(algorithm, procs, params));
}

}  // namespace collsim
