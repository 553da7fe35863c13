#include "algorithms/bcast.hpp"

#include "algorithms/topology/tree.hpp"
#include "algorithms/tree_bcast.hpp"

namespace collsim {

Task<> bcast_binomial(Comm& comm, Buffer data, const AlgorithmParams& params) {
  if (comm.size() == 1 || data.size() == 0) co_return;  // MPI_Bcast returns at once for these
  const TreeNode node = binomial_tree(comm.rank(), comm.size(), params.root);
  co_await tree_bcast(comm, data, params.root, params.segment, node);
}

}  // namespace collsim
