// The virtual tree each registered algorithm communicates along, for `collsim tree` and for
// tests: the same per-rank node functions the algorithms call, assembled into a whole graph.
//
//   basic_linear (bcast, gather), gather/linear_sync   the star of linear_tree
//   bcast/chain, bcast/pipeline                         chain_tree (params.fanout; 1)
//   bcast/binary_tree, bcast/split_binary_tree          binary_tree (split_binary's halves go
//                                                       down its two subtrees)
//   bcast/binomial                                      binomial_tree
//   bcast/knomial                                       knomial_tree (params.radix)
//   bcast/scatter_allgather(_ring)                      scatter_binomial_tree (the scatter; the
//                                                       allgather that follows is not a tree)
//   gather/binomial                                     in_order_binomial_tree
//
// The tree does not depend on the message size, so size-dependent fallbacks (split_binary to
// the pipeline, scatter_allgather to basic_linear on small messages) are not shown.
#pragma once

#include <string>

#include "algorithms/params.hpp"
#include "algorithms/registry.hpp"
#include "algorithms/topology/tree_graph.hpp"

namespace collsim {

// Each throws std::invalid_argument when procs < 1, params.root is not in [0, procs), or a tree
// parameter is out of range (knomial radix < 2).
TreeGraph algorithm_tree(const AlgorithmInfo& algorithm, int procs, const AlgorithmParams& params);
// Graphviz DOT of algorithm_tree, titled e.g. "bcast/binary_tree, 13 processes, root 0"; gather
// trees are drawn with the arrows pointing to the root, the way their data flows.
std::string algorithm_tree_dot(const AlgorithmInfo& algorithm, int procs, const AlgorithmParams& params);
// One "parent -> children" line per inner rank, top down: "0 -> 1 2 4".
std::string algorithm_tree_text(const AlgorithmInfo& algorithm, int procs, const AlgorithmParams& params);

}  // namespace collsim
