#include "algorithms/collectives.hpp"

#include <vector>

#include "algorithms/tree_bcast.hpp"
#include "algorithms/virtual_trees.hpp"

namespace collsim {

namespace {

// MPI_Bcast returns before any algorithm runs when there is nothing to move.
bool nothing_to_do(const Comm& comm, Buffer data) { return comm.size() == 1 || data.size() == 0; }

Task<> nothing() { co_return; }

// The five tree broadcasts differ only in the tree (their registry entries name the same
// functions): run the one generic segmented broadcast on this rank's node of it. Not a coroutine
// itself, so that a rank holds one frame, the broadcast's (model runs hold millions of ranks).
Task<> on_tree(Comm& comm, Buffer data, const AlgorithmParams& params, TreeFn tree) {
  if (nothing_to_do(comm, data)) return nothing();
  return tree_bcast(comm, data, params.root, params.segment, tree(comm.rank(), comm.size(), params));
}

}  // namespace

Task<> bcast_basic_linear(Comm& comm, Buffer data, const AlgorithmParams& params) {
  if (nothing_to_do(comm, data)) co_return;
  if (comm.rank() != params.root) {
    co_await comm.recv(data, params.root, tags::bcast);
    co_return;
  }
  const TreeNode node = linear_node(comm.rank(), comm.size(), params);
  std::vector<Request> sends(node.children.size());
  for (std::size_t i = 0; i < node.children.size(); ++i)
    sends[i] = co_await comm.isend(data, node.children[i], tags::bcast);
  co_await comm.wait_all(sends);
}

Task<> bcast_chain(Comm& comm, Buffer data, const AlgorithmParams& params) {
  return on_tree(comm, data, params, chain_node);
}

Task<> bcast_pipeline(Comm& comm, Buffer data, const AlgorithmParams& params) {
  return on_tree(comm, data, params, pipeline_node);
}

Task<> bcast_binary_tree(Comm& comm, Buffer data, const AlgorithmParams& params) {
  return on_tree(comm, data, params, binary_node);
}

Task<> bcast_binomial(Comm& comm, Buffer data, const AlgorithmParams& params) {
  return on_tree(comm, data, params, binomial_node);
}

Task<> bcast_knomial(Comm& comm, Buffer data, const AlgorithmParams& params) {
  return on_tree(comm, data, params, knomial_node);
}

}  // namespace collsim
