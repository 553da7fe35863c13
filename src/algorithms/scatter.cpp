#include "algorithms/collectives.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "algorithms/binomial_blocks.hpp"
#include "algorithms/virtual_trees.hpp"

namespace collsim {

namespace {

// The root walks the ranks 0..p-1 in order, copying its own block and blocking-sending the
// others theirs; the others blocking-receive.
Task<> linear_scatter(Comm& comm, Buffer blocks, Buffer block, int root, int tag) {
  const std::size_t m = block.size();
  if (m == 0) co_return;  // MPI_Scatter returns at once for an empty scatter
  if (comm.rank() != root) {
    co_await comm.recv(block, root, tag);
    co_return;
  }
  for (int r = 0; r < comm.size(); ++r) {
    Buffer slot = blocks.slice(static_cast<std::size_t>(r) * m, m);
    if (r == root)
      co_await comm.copy(block, slot);
    else
      co_await comm.send(slot, r, tag);
  }
}

}  // namespace

Task<> scatter_basic_linear(Comm& comm, Buffer blocks, Buffer block, const AlgorithmParams& params) {
  return linear_scatter(comm, blocks, block, params.root, tags::scatter);
}

Task<> scatterv_basic_linear(Comm& comm, Buffer blocks, Buffer block, int root) {
  return linear_scatter(comm, blocks, block, root, tags::scatterv);
}

Task<> scatter_binomial(Comm& comm, Buffer blocks, Buffer block, const AlgorithmParams& params) {
  const std::size_t m = block.size();
  if (m == 0) co_return;
  const int p = comm.size(), rank = comm.rank(), root = params.root;
  // `held` is this rank's subtree in vrank order, its own block first (odd vranks receive their
  // one block in place).
  const auto [temp, held, vrank, node] = binomial_subtree(rank, p, params, blocks, block);
  if (rank == root && root != 0) {
    // Ranks root..p-1 are vranks 0..p-root-1, then ranks 0..root-1.
    const std::size_t upper = static_cast<std::size_t>(p - root) * m;
    co_await comm.copy(held.slice(0, upper), blocks.slice(static_cast<std::size_t>(root) * m, upper));
    co_await comm.copy(held.slice(upper, held.size() - upper), blocks.slice(0, static_cast<std::size_t>(root) * m));
  }
  if (rank != root) co_await comm.recv(held, node.parent, tags::scatter);
  if (rank == root || vrank % 2 == 0) co_await comm.copy(block, held.slice(0, m));

  for (auto child = node.children.rbegin(); child != node.children.rend(); ++child) {
    const std::int64_t vchild = (*child - root + p) % p;
    const auto offset = static_cast<std::size_t>(vchild - vrank) * m;
    const std::size_t n = subtree_blocks(vchild, p) * m;
    co_await comm.send(held.slice(offset, n), *child, tags::scatter);
  }
}

Task<> scatter_linear_nb(Comm& comm, Buffer blocks, Buffer block, const AlgorithmParams& params) {
  const std::size_t m = block.size();
  if (m == 0) co_return;
  if (comm.rank() != params.root) {
    co_await comm.recv(block, params.root, tags::scatter);
    co_return;
  }
  // Open MPI treats max_requests <= 1 as "never block".
  const int every = params.max_requests > 1 ? params.max_requests : 0;
  std::vector<Request> sends;
  sends.reserve(static_cast<std::size_t>(comm.size()));
  for (int r = 0; r < comm.size(); ++r) {
    Buffer slot = blocks.slice(static_cast<std::size_t>(r) * m, m);
    if (r == params.root) {
      co_await comm.copy(block, slot);
    } else if (every != 0 && r % every == 0) {
      co_await comm.send(slot, r, tags::scatter);
    } else {
      auto send = comm.isend(slot, r, tags::scatter);
      sends.push_back(co_await send);
    }
  }
  co_await comm.wait_all(sends);
}

}  // namespace collsim
