#include "algorithms/collectives.hpp"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <utility>
#include <vector>

#include "algorithms/nested_collective.hpp"
#include "algorithms/rank_math.hpp"

namespace collsim {

namespace {

// Elements of each rank's block and where each starts (Open MPI's rcounts and displacements),
// and the byte views of them.
struct Blocks {
  std::size_t type_size;
  std::vector<std::size_t> count, first;

  std::size_t total() const { return count.empty() ? 0 : first.back() + count.back(); }
  Buffer of(Buffer b, std::size_t first_element, std::size_t elements) const {
    return b.slice(first_element * type_size, elements * type_size);
  }
  Buffer of(Buffer b, int i) const {
    const auto u = static_cast<std::size_t>(i);
    return of(b, first[u], count[u]);
  }
};

// MPI_Reduce_scatter with every count the size of `block`.
Blocks equal_blocks(int p, Buffer block, const Reduction& red) {
  Blocks b{size_of(red.type), {}, {}};
  const std::size_t n = block.size() / b.type_size;
  for (int i = 0; i < p; ++i) {
    b.count.push_back(n);
    b.first.push_back(static_cast<std::size_t>(i) * n);
  }
  return b;
}

// The power-of-two core recursive_halving and butterfly share: p' = the largest power of two
// <= p, r = p - p'. Virtual rank u is real rank 2u+1 for u < r (standing for blocks 2u and
// 2u+1: merged block u), u + r above.
struct Folded {
  int pof2, extra;
  Blocks merged;  // the p' merged blocks

  Folded(int p, const Blocks& blocks)
      : pof2(largest_power_of_two(p)), extra(p - pof2), merged{blocks.type_size, {}, {}} {
    for (int u = 0; u < pof2; ++u) {
      const auto i = static_cast<std::size_t>(real_rank(u));
      const bool pair = u < extra;
      merged.count.push_back(blocks.count[i] + (pair ? blocks.count[i - 1] : 0));
      merged.first.push_back(pair ? blocks.first[i - 1] : blocks.first[i]);
    }
  }
  int real_rank(int u) const { return u < extra ? 2 * u + 1 : u + extra; }
  // Merged blocks [lo, lo + n) of b, contiguous in the vector.
  Buffer window(Buffer b, int lo, int n) const {
    const auto l = static_cast<std::size_t>(lo), h = static_cast<std::size_t>(lo + n - 1);
    return merged.of(b, merged.first[l], merged.first[h] + merged.count[h] - merged.first[l]);
  }
};

// The ranks below 2r pair up: the even one blocking-sends its whole vector `acc` to the odd one
// and drops out (-1), the odd one receives it into `temp` and reduces acc <- temp (+) acc, its
// left neighbour's data on the left. Yields the virtual rank.
Task<int> fold_extra_ranks(Comm& comm, const Folded& f, Buffer acc, Buffer temp, const Reduction& red) {
  const int rank = comm.rank();
  if (rank >= 2 * f.extra) co_return rank - f.extra;
  if (rank % 2 == 0) {
    co_await comm.send(acc, rank + 1, tags::reduce_scatter);
    co_return -1;
  }
  co_await comm.recv(temp, rank - 1, tags::reduce_scatter);
  co_await comm.reduce_local(acc, temp, red);
  co_return rank / 2;
}

// Open MPI's ompi_mirror_perm: the low `bits` bits of v in reverse order.
int mirror(int v, int bits) {
  int out = 0;
  for (int i = 0; i < bits; ++i) out |= ((v >> i) & 1) << (bits - 1 - i);
  return out;
}

// No elements: nothing to do (MPI_Reduce_scatter returns at once when all counts are 0); one
// process: its block is its whole vector. True when one of them ended the call.
Task<bool> ended_early(Comm& comm, Buffer vector, Buffer block, const Blocks& blocks) {
  if (blocks.total() == 0) co_return true;
  if (comm.size() > 1) co_return false;
  co_await comm.copy(block, vector);
  co_return true;
}

}  // namespace

Task<> reduce_scatter_non_overlapping(Comm& comm, Buffer vector, Buffer block, const AlgorithmParams& params) {
  const Reduction red = params.reduction;
  const int p = comm.size();
  const Blocks blocks = equal_blocks(p, block, red);
  if (co_await ended_early(comm, vector, block, blocks)) co_return;
  Storage reduced(comm.rank() == 0 ? vector.size() : 0, !vector.is_virtual());
  co_await communicator_reduce(comm, vector, reduced.view(), 0, red);
  co_await scatterv_basic_linear(comm, reduced.view(), block, 0);
}

Task<> reduce_scatter_recursive_halving(Comm& comm, Buffer vector, Buffer block, const AlgorithmParams& params) {
  const Reduction red = params.reduction;
  const int p = comm.size(), rank = comm.rank();
  const Blocks blocks = equal_blocks(p, block, red);
  if (co_await ended_early(comm, vector, block, blocks)) co_return;
  const Folded f(p, blocks);
  const bool real = !vector.is_virtual();
  Storage r_store(vector.size(), real), t_store(vector.size(), real);
  const Buffer r = r_store.view(), t = t_store.view();
  co_await comm.copy(r, vector);
  const int vrank = co_await fold_extra_ranks(comm, f, r, t, red);

  if (vrank >= 0) {
    int lo = 0;
    for (int mask = f.pof2 / 2; mask > 0; mask >>= 1) {
      const int vpeer = vrank ^ mask, peer = f.real_rank(vpeer);
      const int keep = vrank < vpeer ? lo : lo + mask, sent = vrank < vpeer ? lo + mask : lo;
      const Buffer kept_t = f.window(t, keep, mask), kept_r = f.window(r, keep, mask), out = f.window(r, sent, mask);
      Request request;
      if (kept_t.size() > 0) request = co_await comm.irecv(kept_t, peer, tags::reduce_scatter);
      if (out.size() > 0) co_await comm.send(out, peer, tags::reduce_scatter);
      if (kept_t.size() > 0) {
        co_await comm.wait(request);
        co_await comm.reduce_local(kept_r, kept_t, red);
      }
      lo = keep;
    }
    co_await comm.copy(block, blocks.of(r, rank));
  }

  // The odd ranks below 2r hold the even rank's block too: hand it back.
  if (rank < 2 * f.extra && blocks.count[static_cast<std::size_t>(rank - rank % 2)] > 0) {
    if (rank % 2 == 1)
      co_await comm.send(blocks.of(r, rank - 1), rank - 1, tags::reduce_scatter);
    else
      co_await comm.recv(block, rank + 1, tags::reduce_scatter);
  }
}

Task<> reduce_scatter_ring(Comm& comm, Buffer vector, Buffer block, const AlgorithmParams& params) {
  const Reduction red = params.reduction;
  const int p = comm.size(), rank = comm.rank();
  const Blocks blocks = equal_blocks(p, block, red);
  if (co_await ended_early(comm, vector, block, blocks)) co_return;
  const int left = (rank + p - 1) % p, right = (rank + 1) % p;
  auto nth_block = [&](int k) { return (rank - k + p) % p; };  // the block at step k
  std::size_t largest = 0;
  for (std::size_t c : blocks.count) largest = std::max(largest, c);
  const bool real = !vector.is_virtual();
  Storage a_store(vector.size(), real);
  Storage in_store[2] = {Storage(largest * blocks.type_size, real), Storage(largest * blocks.type_size, real)};
  const Buffer a = a_store.view();
  co_await comm.copy(a, vector);

  // The receive posted at step k brings block rank-k-1, reduced and sent on at step k+1.
  auto incoming = [&](int i, int k) {
    return in_store[i].view().slice(0, blocks.count[static_cast<std::size_t>(nth_block(k + 1))] * blocks.type_size);
  };
  Request requests[2];
  int inbi = 0;
  requests[inbi] = co_await comm.irecv(incoming(inbi, 1), left, tags::reduce_scatter);
  co_await comm.send(blocks.of(a, nth_block(1)), right, tags::reduce_scatter);
  for (int k = 2; k < p; ++k) {
    inbi ^= 1;
    requests[inbi] = co_await comm.irecv(incoming(inbi, k), left, tags::reduce_scatter);
    co_await comm.wait(requests[inbi ^ 1]);
    const Buffer acc = blocks.of(a, nth_block(k));
    co_await comm.reduce_local(acc, incoming(inbi ^ 1, k - 1), red);
    co_await comm.send(acc, right, tags::reduce_scatter);
  }
  co_await comm.wait(requests[inbi]);
  const Buffer own = blocks.of(a, rank);
  co_await comm.reduce_local(own, incoming(inbi, p - 1), red);
  co_await comm.copy(block, own);
}

Task<> reduce_scatter_butterfly(Comm& comm, Buffer vector, Buffer block, const AlgorithmParams& params) {
  const Reduction red = params.reduction;
  const int p = comm.size(), rank = comm.rank();
  const Blocks blocks = equal_blocks(p, block, red);
  if (co_await ended_early(comm, vector, block, blocks)) co_return;
  const Folded f(p, blocks);
  const bool real = !vector.is_virtual();
  Storage s_store(vector.size(), real), v_store(vector.size(), real);
  Buffer s = s_store.view(), v = v_store.view();
  co_await comm.copy(s, vector);
  const int vrank = co_await fold_extra_ranks(comm, f, s, v, red);
  const int bits = std::countr_zero(static_cast<unsigned>(f.pof2));
  if (vrank < 0) {  // an even rank that folded: its block comes from the holder of merged block rank/2
    co_await comm.recv(block, f.real_rank(mirror(rank / 2, bits)), tags::reduce_scatter);
    co_return;
  }

  int lo = 0, n = f.pof2;
  for (int mask = 1; mask < f.pof2; mask <<= 1) {
    const int vpeer = vrank ^ mask, peer = f.real_rank(vpeer);
    n /= 2;
    const int keep = (vrank & mask) == 0 ? lo : lo + n, sent = (vrank & mask) == 0 ? lo + n : lo;
    co_await comm.sendrecv(f.window(s, sent, n), peer, tags::reduce_scatter, f.window(v, keep, n), peer,
                           tags::reduce_scatter);
    if (vrank < vpeer) {  // own data on the left: the sum lands in V, which becomes S
      co_await comm.reduce_local(f.window(v, keep, n), f.window(s, keep, n), red);
      std::swap(s, v);
    } else {
      co_await comm.reduce_local(f.window(s, keep, n), f.window(v, keep, n), red);
    }
    lo = keep;
  }

  // S holds merged block mirror(vrank): its owner's part goes there, the even rank's part first
  // when the block is merged; the owner holds ours (mirror is its own inverse).
  const int owner_v = mirror(vrank, bits), owner = f.real_rank(owner_v);
  if (owner_v < f.extra) co_await comm.send(blocks.of(s, owner - 1), owner - 1, tags::reduce_scatter);
  if (owner_v != vrank)
    co_await comm.sendrecv(blocks.of(s, owner), owner, tags::reduce_scatter, block, owner, tags::reduce_scatter);
  else
    co_await comm.copy(block, blocks.of(s, rank));
}

}  // namespace collsim
