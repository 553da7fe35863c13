#include "algorithms/gather.hpp"

namespace collsim {

Task<> gather_basic_linear(Comm& comm, Buffer block, Buffer gathered,
                           const AlgorithmParams& params) {
  const std::size_t m = block.size();
  if (m == 0) co_return;  // MPI_Gather returns at once for empty blocks
  if (comm.rank() != params.root) {
    co_await comm.send(block, params.root, tags::gather);
    co_return;
  }
  // The root takes the blocks in rank order, copying its own when its turn comes.
  for (int r = 0; r < comm.size(); ++r) {
    Buffer slot = gathered.slice(static_cast<std::size_t>(r) * m, m);
    if (r == params.root)
      co_await comm.copy(slot, block);
    else
      co_await comm.recv(slot, r, tags::gather);
  }
}

}  // namespace collsim
