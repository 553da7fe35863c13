// The virtual tree of each algorithm as one rank sees it, from the call's parameters: the
// functions the algorithms run on, and that their registry entries name so that `collsim tree`
// and the derived formulas read the very same trees.
//
//   linear_node      basic_linear (bcast, gather), gather/linear_sync: the root and everyone else
//   chain_node       bcast/chain (params.fanout chains)
//   pipeline_node    bcast/pipeline
//   binary_node      bcast/binary_tree, bcast/split_binary_tree (its halves go down the two
//                    subtrees)
//   binomial_node    bcast/binomial
//   knomial_node     bcast/knomial (params.radix)
//   scatter_node     bcast/scatter_allgather(_ring): the binomial scatter (the allgather that
//                    follows is not a tree)
//   in_order_node    gather/binomial
//
// Each throws std::invalid_argument as the tree functions of topology/tree.hpp do.
#pragma once

#include "algorithms/params.hpp"
#include "algorithms/topology/tree.hpp"

namespace collsim {

// The virtual tree as rank `rank` of `size` sees it.
using TreeFn = TreeNode (*)(int rank, int size, const AlgorithmParams& params);

TreeNode linear_node(int rank, int size, const AlgorithmParams& params);
TreeNode chain_node(int rank, int size, const AlgorithmParams& params);
TreeNode pipeline_node(int rank, int size, const AlgorithmParams& params);
TreeNode binary_node(int rank, int size, const AlgorithmParams& params);
TreeNode binomial_node(int rank, int size, const AlgorithmParams& params);
TreeNode knomial_node(int rank, int size, const AlgorithmParams& params);
TreeNode scatter_node(int rank, int size, const AlgorithmParams& params);
TreeNode in_order_node(int rank, int size, const AlgorithmParams& params);

}  // namespace collsim
