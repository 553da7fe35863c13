// Whole virtual trees of registered algorithms, for `collsim tree` and for tests: the entry's own
// per-rank tree function (AlgorithmInfo::tree, the one the algorithm runs on), assembled into a
// graph. The tree does not depend on the message size, so size-dependent fallbacks
// (split_binary to the pipeline, scatter_allgather to basic_linear on small messages) are not
// shown; for scatter_allgather(_ring) it is the scatter's tree (the allgather is not a tree).
#pragma once

#include <string>

#include "algorithms/params.hpp"
#include "algorithms/topology/tree_graph.hpp"
#include "registry/registry.hpp"

namespace collsim {

// Each throws std::invalid_argument when procs < 1, params.root is not in [0, procs), a tree
// parameter is out of range (knomial radix < 2), or the algorithm has no tree (its entry's
// `tree` is null: barriers and the other exchanges that are not trees, reduce/in-order_binary and
// reduce/rabenseifner).
TreeGraph algorithm_tree(const AlgorithmInfo& algorithm, int procs, const AlgorithmParams& params);
// Graphviz DOT of algorithm_tree, titled e.g. "bcast/binary_tree, 13 processes, root 0"; gather
// trees are drawn with the arrows pointing to the root, the way their data flows.
std::string algorithm_tree_dot(const AlgorithmInfo& algorithm, int procs, const AlgorithmParams& params);
// One "parent -> children" line per inner rank, top down: "0 -> 1 2 4".
std::string algorithm_tree_text(const AlgorithmInfo& algorithm, int procs, const AlgorithmParams& params);

}  // namespace collsim
