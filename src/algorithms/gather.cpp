#include "algorithms/collectives.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "algorithms/binomial_blocks.hpp"
#include "algorithms/segmentation.hpp"
#include "algorithms/virtual_trees.hpp"

namespace collsim {

Task<> gather_basic_linear(Comm& comm, Buffer block, Buffer gathered, const AlgorithmParams& params) {
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

Task<> gather_binomial(Comm& comm, Buffer block, Buffer gathered, const AlgorithmParams& params) {
  const std::size_t m = block.size();
  if (m == 0) co_return;
  const int p = comm.size(), rank = comm.rank(), root = params.root;
  // `acc` collects this rank's subtree in vrank order, its own block first (odd vranks send their
  // block as it is).
  const auto [temp, acc, vrank, node] = binomial_subtree(rank, p, params, gathered, block);
  if (rank == root || vrank % 2 == 0) co_await comm.copy(acc.slice(0, m), block);

  std::size_t held = m;
  for (int child : node.children) {
    const std::int64_t vchild = (child - root + p) % p;
    const std::size_t n = subtree_blocks(vchild, p) * m;
    co_await comm.recv(acc.slice(held, n), child, tags::gather);
    held += n;
  }
  if (rank != root) {
    co_await comm.send(acc.slice(0, held), node.parent, tags::gather);
  } else if (root != 0) {
    // acc holds vranks 0..p-1, i.e. ranks root..p-1 then 0..root-1.
    const std::size_t upper = static_cast<std::size_t>(p - root) * m;
    co_await comm.copy(gathered.slice(static_cast<std::size_t>(root) * m, upper), acc.slice(0, upper));
    co_await comm.copy(gathered.slice(0, static_cast<std::size_t>(root) * m), acc.slice(upper, acc.size() - upper));
  }
}

Task<> gather_linear_sync(Comm& comm, Buffer block, Buffer gathered, const AlgorithmParams& params) {
  const std::size_t m = block.size();
  if (m == 0) co_return;
  const std::size_t first = Segmentation(m, params.segment).segment_bytes();
  const Buffer sync;  // the zero-byte "go ahead" message
  if (comm.rank() != params.root) {
    Buffer ignored;
    co_await comm.recv(ignored, params.root, tags::gather);
    co_await comm.send(block.slice(0, first), params.root, tags::gather);
    co_await comm.send(block.slice(first, m - first), params.root, tags::gather);
    co_return;
  }
  std::vector<Request> second(static_cast<std::size_t>(comm.size()));
  for (int r = 0; r < comm.size(); ++r) {
    if (r == params.root) continue;
    Buffer slot = gathered.slice(static_cast<std::size_t>(r) * m, m);
    Request first_part = co_await comm.irecv(slot.slice(0, first), r, tags::gather);
    co_await comm.send(sync, r, tags::gather);
    second[static_cast<std::size_t>(r)] = co_await comm.irecv(slot.slice(first, m - first), r, tags::gather);
    co_await comm.wait(first_part);
  }
  co_await comm.copy(gathered.slice(static_cast<std::size_t>(params.root) * m, m), block);
  co_await comm.wait_all(second);
}

}  // namespace collsim
