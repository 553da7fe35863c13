// bcast/scatter_allgather (ID 8) and bcast/scatter_allgather_ring (ID 9); what they do and where
// they follow Open MPI: bcast.hpp.
#include <algorithm>
#include <cstdint>

#include "algorithms/collectives.hpp"

namespace collsim {

namespace {

// The message cut into one block per vrank: ceil(m/p) bytes each, the last non-empty one short
// and any after it empty (with m >= p some trailing blocks can still be empty, e.g. m=9, p=8).
struct Blocks {
  Buffer data;
  std::uint64_t block;

  Blocks(Buffer d, int p)
      : data(d), block((d.size() + static_cast<std::size_t>(p) - 1) / static_cast<std::size_t>(p)) {}

  // Bytes held by the `n` consecutive blocks starting at block `first`.
  std::size_t bytes(std::uint64_t first, std::uint64_t n) const {
    const std::uint64_t begin = first * block;
    return begin >= data.size() ? 0 : static_cast<std::size_t>(std::min<std::uint64_t>(data.size() - begin, n * block));
  }
  // `bytes` bytes from the start of block `first`; an empty span may start past the end (Open
  // MPI passes such pointers with a zero count).
  Buffer span(std::uint64_t first, std::size_t bytes) const {
    return data.slice(static_cast<std::size_t>(std::min<std::uint64_t>(first * block, data.size())), bytes);
  }
};

int real_rank(std::int64_t vrank, int p, int root) { return static_cast<int>((vrank + root) % p); }

// Binomial scatter: receive the blocks of this rank's subtree from the parent (vrank minus its
// lowest set bit), then hand each child (vrank + mask, largest mask first) the blocks of its
// subtree. Open MPI receives into an upper bound and reads the real size from the status; here
// the receiver computes that size, which is what the parent sends.
Task<> binomial_scatter(Comm& comm, const Blocks& b, int root) {
  const int p = comm.size();
  const std::int64_t vrank = (comm.rank() - root + p) % p;
  std::size_t held = vrank == 0 ? b.data.size() : 0;
  std::int64_t mask = 1;
  for (; mask < p; mask <<= 1) {
    if ((vrank & mask) == 0) continue;
    held = b.bytes(static_cast<std::uint64_t>(vrank), static_cast<std::uint64_t>(mask));
    if (held > 0)
      co_await comm.recv(b.span(static_cast<std::uint64_t>(vrank), held), real_rank(vrank - mask, p, root),
                         tags::bcast);
    break;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (vrank + mask >= p) continue;
    const std::size_t beyond = static_cast<std::size_t>(b.block * static_cast<std::uint64_t>(mask));
    if (held <= beyond) continue;  // the child's blocks are all empty: nothing to send
    const std::size_t n = held - beyond;
    co_await comm.send(b.span(static_cast<std::uint64_t>(vrank + mask), n), real_rank(vrank + mask, p, root),
                       tags::bcast);
    held -= n;
  }
}

// Recursive-doubling allgather of the blocks after the scatter (MPICH's scheme, as Open MPI).
Task<> recursive_doubling_allgather(Comm& comm, const Blocks& b, int root) {
  const int p = comm.size();
  const std::int64_t vrank = (comm.rank() - root + p) % p;
  std::size_t held = b.bytes(static_cast<std::uint64_t>(vrank), 1);
  std::size_t last_received = 0;  // Open MPI forwards the size it received last
  for (std::int64_t mask = 1; mask < p; mask <<= 1) {
    const std::int64_t partner = vrank ^ mask;
    const std::int64_t my_group = vrank / mask * mask;  // the group of `mask` vranks I hold
    const std::int64_t their_group = partner / mask * mask;
    if (partner < p) {
      last_received = b.bytes(static_cast<std::uint64_t>(their_group), static_cast<std::uint64_t>(mask));
      const int peer = real_rank(partner, p, root);
      co_await comm.sendrecv(b.span(static_cast<std::uint64_t>(my_group), held), peer, tags::bcast,
                             b.span(static_cast<std::uint64_t>(their_group), last_received), peer, tags::bcast);
      held += last_received;
    }
    if (their_group + mask <= p) continue;
    // The partner group is cut off by p: ranks whose partner does not exist get that group's
    // blocks from a rank of their own group that has them, by recursive halving.
    const std::int64_t have_all = p - my_group - mask;  // ranks of my group whose partner exists
    const std::int64_t missing = my_group + mask;       // first block of the partner group
    for (std::int64_t half = mask >> 1; half > 0; half >>= 1) {
      const std::int64_t peer = vrank ^ half;
      const std::int64_t subgroup = vrank / (half << 1) * (half << 1);
      if (peer > vrank && vrank < subgroup + have_all && peer >= subgroup + have_all) {
        co_await comm.send(b.span(static_cast<std::uint64_t>(missing), last_received), real_rank(peer, p, root),
                           tags::bcast);
      } else if (peer < vrank && peer < subgroup + have_all && vrank >= subgroup + have_all) {
        last_received = b.bytes(static_cast<std::uint64_t>(missing), static_cast<std::uint64_t>(mask));
        co_await comm.recv(b.span(static_cast<std::uint64_t>(missing), last_received), real_rank(peer, p, root),
                           tags::bcast);
        held += last_received;
      }
    }
  }
}

// Ring allgather: p-1 steps; each passes to the right the block received from the left the step
// before (its own block first).
Task<> ring_allgather(Comm& comm, const Blocks& b, int root) {
  const int p = comm.size(), rank = comm.rank();
  const std::int64_t vrank = (rank - root + p) % p;
  const int left = (rank - 1 + p) % p, right = (rank + 1) % p;
  std::int64_t send_block = vrank, recv_block = (vrank - 1 + p) % p;
  for (int step = 1; step < p; ++step) {
    const auto s = static_cast<std::uint64_t>(send_block), r = static_cast<std::uint64_t>(recv_block);
    co_await comm.sendrecv(b.span(s, b.bytes(s, 1)), right, tags::bcast, b.span(r, b.bytes(r, 1)), left, tags::bcast);
    send_block = recv_block;
    recv_block = (recv_block - 1 + p) % p;
  }
}

}  // namespace

Task<> bcast_scatter_allgather(Comm& comm, Buffer data, const AlgorithmParams& params) {
  const int p = comm.size();
  if (p == 1 || data.size() == 0) co_return;        // MPI_Bcast returns at once for these
  if (data.size() < static_cast<std::size_t>(p)) {  // fewer bytes than blocks: Open MPI goes linear
    co_await bcast_basic_linear(comm, data, params);
    co_return;
  }
  const Blocks b(data, p);
  co_await binomial_scatter(comm, b, params.root);
  co_await recursive_doubling_allgather(comm, b, params.root);
}

Task<> bcast_scatter_allgather_ring(Comm& comm, Buffer data, const AlgorithmParams& params) {
  const int p = comm.size();
  if (p == 1 || data.size() == 0) co_return;
  if (data.size() < static_cast<std::size_t>(p)) {
    co_await bcast_basic_linear(comm, data, params);
    co_return;
  }
  const Blocks b(data, p);
  co_await binomial_scatter(comm, b, params.root);
  co_await ring_allgather(comm, b, params.root);
}

}  // namespace collsim
