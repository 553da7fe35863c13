// The communicator's collectives (algorithms/nested_collective.hpp) run the registry's entries:
// the algorithms declare what they call, and the catalogue, one layer up, provides it, as Open
// MPI's coll framework fills a communicator's table of collectives above the algorithms.
#include "algorithms/nested_collective.hpp"

#include "registry/registry.hpp"

namespace collsim {

Task<> communicator_gather(Comm& comm, Buffer block, Buffer gathered, int root) {
  AlgorithmParams params;
  const AlgorithmInfo& a = fixed_choice(Operation::gather, comm.size(), block.size(), true, root, params);
  co_await a.run(comm, RankBuffers{block, gathered}, params);
}

Task<> communicator_reduce(Comm& comm, Buffer data, Buffer result, int root, Reduction reduction) {
  AlgorithmParams params;
  const AlgorithmInfo& a =
      fixed_choice(Operation::reduce, comm.size(), data.size(), is_commutative(reduction.op), root, params);
  params.reduction = reduction;
  co_await a.run(comm, RankBuffers{data, result}, params);
}

Task<> communicator_bcast(Comm& comm, Buffer data, int root) {
  AlgorithmParams params;
  const AlgorithmInfo& a = fixed_choice(Operation::bcast, comm.size(), data.size(), true, root, params);
  co_await a.run(comm, RankBuffers{data, {}}, params);
}

}  // namespace collsim
