#include "algorithms/bcast.hpp"

#include <vector>

#include "algorithms/topology/tree.hpp"
#include "algorithms/tree_bcast.hpp"

namespace collsim {

namespace {

// MPI_Bcast returns before any algorithm runs when there is nothing to move.
bool nothing_to_do(const Comm& comm, Buffer data) { return comm.size() == 1 || data.size() == 0; }

// The five tree broadcasts differ only in the tree: run the one generic segmented broadcast on
// this rank's node of it.
template <class MakeNode>
Task<> on_tree(Comm& comm, Buffer data, AlgorithmParams params, MakeNode make_node) {
  if (nothing_to_do(comm, data)) co_return;
  const TreeNode node = make_node(comm.rank(), comm.size(), params.root);
  co_await tree_bcast(comm, data, params.root, params.segment, node);
}

}  // namespace

Task<> bcast_basic_linear(Comm& comm, Buffer data, const AlgorithmParams& params) {
  if (nothing_to_do(comm, data)) co_return;
  if (comm.rank() != params.root) {
    co_await comm.recv(data, params.root, tags::bcast);
    co_return;
  }
  const TreeNode node = linear_tree(comm.rank(), comm.size(), params.root);
  std::vector<Request> sends(node.children.size());
  for (std::size_t i = 0; i < node.children.size(); ++i)
    sends[i] = co_await comm.isend(data, node.children[i], tags::bcast);
  co_await comm.wait_all(sends);
}

Task<> bcast_chain(Comm& comm, Buffer data, const AlgorithmParams& params) {
  return on_tree(comm, data, params, [fanout = params.fanout](int rank, int size, int root) {
    return chain_tree(rank, size, root, fanout);
  });
}

Task<> bcast_pipeline(Comm& comm, Buffer data, const AlgorithmParams& params) {
  return on_tree(comm, data, params, pipeline_tree);
}

Task<> bcast_binary_tree(Comm& comm, Buffer data, const AlgorithmParams& params) {
  return on_tree(comm, data, params, binary_tree);
}

Task<> bcast_binomial(Comm& comm, Buffer data, const AlgorithmParams& params) {
  return on_tree(comm, data, params, binomial_tree);
}

Task<> bcast_knomial(Comm& comm, Buffer data, const AlgorithmParams& params) {
  return on_tree(comm, data, params, [radix = params.radix](int rank, int size, int root) {
    return knomial_tree(rank, size, root, radix);
  });
}

}  // namespace collsim
