#include "algorithms/algorithm_tree.hpp"

#include <stdexcept>
#include <string_view>

namespace collsim {

namespace {

// The node function of `algorithm`'s tree for one call's parameters.
NodeFunction node_function(const AlgorithmInfo& algorithm, int procs, const AlgorithmParams& params) {
  const std::string_view name = algorithm.name;
  const int root = params.root;
  if (name == "bcast/basic_linear" || name == "gather/basic_linear" || name == "gather/linear_sync")
    return [=](int r) { return linear_tree(r, procs, root); };
  if (name == "bcast/chain") return [=, fanout = params.fanout](int r) { return chain_tree(r, procs, root, fanout); };
  if (name == "bcast/pipeline") return [=](int r) { return pipeline_tree(r, procs, root); };
  if (name == "bcast/binary_tree" || name == "bcast/split_binary_tree")
    return [=](int r) { return binary_tree(r, procs, root); };
  if (name == "bcast/binomial") return [=](int r) { return binomial_tree(r, procs, root); };
  if (name == "bcast/knomial") {
    if (params.radix < 2)
      throw std::invalid_argument("the k-nomial radix must be at least 2, not " + std::to_string(params.radix));
    return [=, radix = params.radix](int r) { return knomial_tree(r, procs, root, radix); };
  }
  if (name == "bcast/scatter_allgather" || name == "bcast/scatter_allgather_ring")
    return [=](int r) { return scatter_binomial_tree(r, procs, root); };
  if (name == "gather/binomial") return [=](int r) { return in_order_binomial_tree(r, procs, root); };
  throw std::invalid_argument("no tree is known for " + std::string(name));
}

}  // namespace

TreeGraph algorithm_tree(const AlgorithmInfo& algorithm, int procs, const AlgorithmParams& params) {
  return build_tree_graph(procs, params.root, node_function(algorithm, procs, params));
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
