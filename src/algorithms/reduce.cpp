#include "algorithms/collectives.hpp"
#include "algorithms/rabenseifner.hpp"

#include <cstddef>
#include <vector>

#include "algorithms/rank_math.hpp"
#include "algorithms/virtual_trees.hpp"

namespace collsim {

Task<> reduce_linear(Comm& comm, Buffer vector, Buffer result, const AlgorithmParams& params) {
  const std::size_t m = vector.size();
  if (m == 0) co_return;  // MPI_Reduce returns at once for count 0
  const int p = comm.size(), root = params.root;
  if (comm.rank() != root) {
    co_await comm.send(vector, root, tags::reduce);
    co_return;
  }
  if (root == p - 1)
    co_await comm.copy(result, vector);
  else
    co_await comm.recv(result, p - 1, tags::reduce);
  Storage temp(p > 1 ? m : 0, !vector.is_virtual());
  for (int i = p - 2; i >= 0; --i) {
    Buffer operand = vector;
    if (i != root) {
      operand = temp.view();
      co_await comm.recv(operand, i, tags::reduce);
    }
    co_await comm.reduce_local(result, operand, params.reduction);
  }
}

Task<> reduce_chain(Comm& comm, Buffer vector, Buffer result, const AlgorithmParams& params) {
  return reduce_tree(comm, vector, result, chain_node(comm.rank(), comm.size(), params), params);
}

Task<> reduce_pipeline(Comm& comm, Buffer vector, Buffer result, const AlgorithmParams& params) {
  return reduce_tree(comm, vector, result, pipeline_node(comm.rank(), comm.size(), params), params);
}

Task<> reduce_binary(Comm& comm, Buffer vector, Buffer result, const AlgorithmParams& params) {
  return reduce_tree(comm, vector, result, binary_node(comm.rank(), comm.size(), params), params);
}

Task<> reduce_binomial(Comm& comm, Buffer vector, Buffer result, const AlgorithmParams& params) {
  return reduce_tree(comm, vector, result, in_order_node(comm.rank(), comm.size(), params), params);
}

Task<> reduce_in_order_binary(Comm& comm, Buffer vector, Buffer result, const AlgorithmParams& params) {
  const std::size_t m = vector.size();
  if (m == 0) co_return;
  const int rank = comm.rank(), top = comm.size() - 1, root = params.root;
  const TreeNode node = in_order_binary_tree(rank, comm.size());
  // The tree always reduces to rank p-1, into a temporary there unless it is the root.
  Storage temp;
  Buffer acc = result;
  if (rank == top && root != top) {
    temp = Storage(m, !vector.is_virtual());
    acc = temp.view();
  }
  co_await reduce_tree(comm, vector, acc, node, params);
  if (root == top) co_return;
  if (rank == top)
    co_await comm.send(acc, root, tags::reduce);
  else if (rank == root)
    co_await comm.recv(result, top, tags::reduce);
}

std::vector<Halving> rabenseifner_halvings(int vrank, int pof2, std::size_t count) {
  std::vector<Halving> steps;
  std::size_t lo = 0, n = count;
  for (int mask = 1; mask < pof2; mask <<= 1) {
    const std::size_t lower = n / 2;
    const Halving h =
        vrank < (vrank ^ mask) ? Halving{lo, lower, lo + lower, n - lower} : Halving{lo + lower, n - lower, lo, lower};
    steps.push_back(h);
    lo = h.keep;
    n = h.keep_count;
  }
  return steps;
}

Task<int> rabenseifner_reduce_scatter(Comm& comm, Buffer w, Buffer t, Reduction red, int tag) {
  const std::size_t ts = size_of(red.type), count = w.size() / ts;
  const int p = comm.size(), rank = comm.rank();
  const int pof2 = largest_power_of_two(p);
  const int extra = p - pof2;
  auto part = [ts](Buffer b, std::size_t first, std::size_t n) { return b.slice(first * ts, n * ts); };

  // Step 1: ranks below 2 * extra pair up; the odd one hands its half over and drops out.
  int vrank = rank - extra;
  if (rank < 2 * extra) {
    const std::size_t lh = count / 2, rh = count - lh;
    if (rank % 2 == 1) {
      co_await comm.sendrecv(part(w, 0, lh), rank - 1, tag, part(t, lh, rh), rank - 1, tag);
      co_await comm.reduce_local(part(w, lh, rh), part(t, lh, rh), red);
      co_await comm.send(part(w, lh, rh), rank - 1, tag);
      co_return -1;
    }
    co_await comm.sendrecv(part(w, lh, rh), rank + 1, tag, part(t, 0, lh), rank + 1, tag);
    co_await comm.reduce_local(part(w, 0, lh), part(t, 0, lh), red);
    co_await comm.recv(part(w, lh, rh), rank + 1, tag);
    vrank = rank / 2;
  }

  // Step 2: reduce-scatter by recursive vector halving and distance doubling.
  const std::vector<Halving> steps = rabenseifner_halvings(vrank, pof2, count);
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const Halving& h = steps[k];
    const int partner = rabenseifner_real_rank(vrank ^ (1 << k), extra);
    co_await comm.sendrecv(part(w, h.sent, h.sent_count), partner, tag, part(t, h.keep, h.keep_count), partner, tag);
    co_await comm.reduce_local(part(w, h.keep, h.keep_count), part(t, h.keep, h.keep_count), red);
  }
  co_return vrank;
}

Task<> reduce_rabenseifner(Comm& comm, Buffer vector, Buffer result, const AlgorithmParams& params) {
  const Reduction red = params.reduction;
  const std::size_t ts = size_of(red.type), count = vector.size() / ts;
  if (count == 0) co_return;
  const int p = comm.size(), rank = comm.rank(), root = params.root;
  const int pof2 = largest_power_of_two(p);
  if (pof2 < 2 || count < static_cast<std::size_t>(pof2) || !is_commutative(red.op)) {
    co_await reduce_linear(comm, vector, result, params);
    co_return;
  }
  const int extra = p - pof2;
  auto part = [ts](Buffer b, std::size_t first, std::size_t n) { return b.slice(first * ts, n * ts); };

  // W, the working vector (the root's result buffer), starts as own data; T receives.
  const bool real = !vector.is_virtual();
  Storage w_store, t_store(vector.size(), real);
  Buffer w = result, t = t_store.view();
  if (rank != root) {
    w_store = Storage(vector.size(), real);
    w = w_store.view();
  }
  co_await comm.copy(w, vector);
  int vrank = co_await rabenseifner_reduce_scatter(comm, w, t, red, tags::reduce);
  std::vector<Halving> steps;
  if (vrank >= 0) steps = rabenseifner_halvings(vrank, pof2, count);

  // Step 3: binomial gather of the pieces to the root. An odd root below 2 * extra has no virtual
  // rank: rank 0 hands it its piece and it stands in for virtual rank 0.
  const bool odd_root = root < 2 * extra && root % 2 == 1;
  const int vroot = root < 2 * extra ? (odd_root ? 0 : root / 2) : root - extra;
  if (odd_root && rank == 0) {
    co_await comm.send(part(w, steps.back().keep, steps.back().keep_count), root, tags::reduce);
    co_return;
  }
  if (odd_root && rank == root) {
    vrank = 0;
    steps = rabenseifner_halvings(0, pof2, count);
    co_await comm.recv(part(w, steps.back().keep, steps.back().keep_count), 0, tags::reduce);
  }
  if (vrank < 0) co_return;
  auto address = [&](int u) { return odd_root && u == 0 ? root : rabenseifner_real_rank(u, extra); };
  for (int k = static_cast<int>(steps.size()) - 1; k >= 0; --k) {
    const int mask = 1 << k, partner = vrank ^ mask;
    const Halving& h = steps[static_cast<std::size_t>(k)];
    if (partner / mask == vroot / mask) {  // the partner is on the root's side: hand over and stop
      co_await comm.send(part(w, h.keep, h.keep_count), address(partner), tags::reduce);
      co_return;
    }
    co_await comm.recv(part(w, h.sent, h.sent_count), address(partner), tags::reduce);
  }
}

}  // namespace collsim
