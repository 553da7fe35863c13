#include "algorithms/nested_collective.hpp"

#include <string>

#include "algorithms/input_error.hpp"
#include "algorithms/ompi41_decision.hpp"
#include "algorithms/registry.hpp"

namespace collsim {

namespace {

// The registry's entry Open MPI 4.1 picks for this call, with its knobs.
const AlgorithmInfo& fixed_algorithm(Operation op, int procs, std::size_t bytes, AlgorithmParams& params, int root,
                                     bool commutative = true) {
  const FixedChoice choice = ompi41_fixed_choice(op, procs, ompi41_decision_bytes(op, procs, bytes), commutative);
  const AlgorithmInfo* a = find_algorithm(op, choice.ompi_id);
  if (!a)
    throw InputError("Open MPI 4.1 runs " + std::string(to_string(op)) + " algorithm " +
                     std::to_string(choice.ompi_id) + " here, which collsim does not have");
  params = choice.params;
  params.root = root;
  return *a;
}

}  // namespace

Task<> communicator_gather(Comm& comm, Buffer block, Buffer gathered, int root) {
  AlgorithmParams params;
  const AlgorithmInfo& a = fixed_algorithm(Operation::gather, comm.size(), block.size(), params, root);
  co_await a.run(comm, RankBuffers{block, gathered}, params);
}

Task<> communicator_reduce(Comm& comm, Buffer data, Buffer result, int root, Reduction reduction) {
  AlgorithmParams params;
  const AlgorithmInfo& a =
      fixed_algorithm(Operation::reduce, comm.size(), data.size(), params, root, is_commutative(reduction.op));
  params.reduction = reduction;
  co_await a.run(comm, RankBuffers{data, result}, params);
}

Task<> communicator_bcast(Comm& comm, Buffer data, int root) {
  AlgorithmParams params;
  const AlgorithmInfo& a = fixed_algorithm(Operation::bcast, comm.size(), data.size(), params, root);
  co_await a.run(comm, RankBuffers{data, {}}, params);
}

}  // namespace collsim
