#include "algorithms/collectives.hpp"
#include "algorithms/rabenseifner.hpp"

#include <array>
#include <cstddef>
#include <utility>
#include <vector>

#include "algorithms/nested_collective.hpp"
#include "algorithms/rank_math.hpp"
#include "algorithms/segmentation.hpp"

namespace collsim {

namespace {

// Open MPI's ring (ompi_coll_base_allreduce_intra_ring(_segmented)) on `result`, which holds own
// data: the reduce-scatter in `phases` phases, each on one piece of every block, then the
// allgather of whole blocks. One phase is the plain ring.
Task<> ring_phases(Comm& comm, Buffer result, Reduction red, std::size_t phases) {
  const std::size_t ts = size_of(red.type), count = result.size() / ts;
  const int p = comm.size(), rank = comm.rank(), right = mod(rank + 1, p), left = mod(rank - 1, p);
  const BlockSplit blocks(count, static_cast<std::size_t>(p));
  auto block = [&](int b) {
    const auto i = static_cast<std::size_t>(b);
    return result.slice(blocks.offset(i) * ts, blocks.length(i) * ts);
  };
  auto piece = [&](int b, std::size_t q) {
    const auto i = static_cast<std::size_t>(b);
    const BlockSplit pieces(blocks.length(i), phases);
    return result.slice((blocks.offset(i) + pieces.offset(q)) * ts, pieces.length(q) * ts);
  };
  // Two alternating receive temporaries of the longest piece (Open MPI's inbuf[0], inbuf[1]).
  const std::size_t longest = BlockSplit(blocks.early(), phases).early() * ts;
  const bool real = !result.is_virtual();
  Storage temp0(longest, real), temp1(p > 2 ? longest : 0, real);
  const std::array<Buffer, 2> in{temp0.view(), temp1.view()};

  for (std::size_t q = 0; q < phases; ++q) {
    std::array<Request, 2> requests;
    std::array<Buffer, 2> arriving;  // where each slot's piece lands, at that piece's length
    int slot = 0;
    auto post = [&](int s, int b) {
      arriving[static_cast<std::size_t>(s)] = in[static_cast<std::size_t>(s)].slice(0, piece(b, q).size());
      return comm.irecv(arriving[static_cast<std::size_t>(s)], left, tags::allreduce);
    };
    // Block rank-1 arrives first; then, while block rank-k+1 is reduced and passed on, rank-k.
    auto first = post(0, mod(rank - 1, p));
    requests[0] = co_await first;
    co_await comm.send(piece(rank, q), right, tags::allreduce);
    for (int k = 2; k < p; ++k) {
      slot ^= 1;
      auto next = post(slot, mod(rank - k, p));
      requests[static_cast<std::size_t>(slot)] = co_await next;
      const auto done = static_cast<std::size_t>(slot ^ 1);
      co_await comm.wait(requests[done]);
      const Buffer target = piece(mod(rank - k + 1, p), q);
      co_await comm.reduce_local(target, arriving[done], red);
      co_await comm.send(target, right, tags::allreduce);
    }
    const auto last = static_cast<std::size_t>(slot);
    co_await comm.wait(requests[last]);
    co_await comm.reduce_local(piece(mod(rank + 1, p), q), arriving[last], red);
  }

  // Rank r now holds block r+1 complete; pass the complete blocks around.
  for (int k = 0; k < p - 1; ++k)
    co_await comm.sendrecv(block(mod(rank + 1 - k, p)), right, tags::allreduce, block(mod(rank - k, p)), left,
                           tags::allreduce);
}

}  // namespace

Task<> allreduce_basic_linear(Comm& comm, Buffer vector, Buffer result, const AlgorithmParams& params) {
  if (vector.size() == 0) co_return;  // MPI_Allreduce returns at once for count 0
  AlgorithmParams at_zero = params;
  at_zero.root = 0;
  co_await reduce_linear(comm, vector, result, at_zero);
  co_await bcast_basic_linear(comm, result, at_zero);
}

Task<> allreduce_nonoverlapping(Comm& comm, Buffer vector, Buffer result, const AlgorithmParams& params) {
  if (vector.size() == 0) co_return;
  co_await communicator_reduce(comm, vector, result, 0, params.reduction);
  co_await communicator_bcast(comm, result, 0);
}

Task<> allreduce_recursive_doubling(Comm& comm, Buffer vector, Buffer result, const AlgorithmParams& params) {
  const std::size_t m = vector.size();
  if (m == 0) co_return;
  const Reduction red = params.reduction;
  const int p = comm.size(), rank = comm.rank();
  const int pof2 = largest_power_of_two(p), extra = p - pof2;
  Storage a_store(m, !vector.is_virtual());
  Buffer a = a_store.view(), b = result;  // A: what this rank sends; B: where it receives
  bool a_is_result = false;
  co_await comm.copy(a, vector);

  // Ranks below 2 * extra pair up; the even one hands its vector over and waits.
  int newrank = rank - extra;
  if (rank < 2 * extra) {
    if (rank % 2 == 0) {
      co_await comm.send(a, rank + 1, tags::allreduce);
      newrank = -1;
    } else {
      co_await comm.recv(b, rank - 1, tags::allreduce);
      co_await comm.reduce_local(a, b, red);
      newrank = rank / 2;
    }
  }

  if (newrank >= 0) {
    for (int distance = 1; distance < pof2; distance <<= 1) {
      const int u = newrank ^ distance;
      const int partner = u < extra ? 2 * u + 1 : u + extra;
      co_await comm.sendrecv(a, partner, tags::allreduce, b, partner, tags::allreduce);
      if (rank < partner) {  // the lower rank's data is the left operand
        co_await comm.reduce_local(b, a, red);
        std::swap(a, b);
        a_is_result = !a_is_result;
      } else {
        co_await comm.reduce_local(a, b, red);
      }
    }
  }

  if (rank < 2 * extra) {
    if (rank % 2 == 0) {
      co_await comm.recv(result, rank + 1, tags::allreduce);
      a_is_result = true;
    } else {
      co_await comm.send(a, rank - 1, tags::allreduce);
    }
  }
  if (!a_is_result) co_await comm.copy(result, a);
}

Task<> allreduce_ring(Comm& comm, Buffer vector, Buffer result, const AlgorithmParams& params) {
  const std::size_t count = vector.size() / size_of(params.reduction.type);
  if (count == 0) co_return;
  const int p = comm.size();
  if (p == 1) {
    co_await comm.copy(result, vector);
    co_return;
  }
  if (count < static_cast<std::size_t>(p)) {
    co_await allreduce_recursive_doubling(comm, vector, result, params);
    co_return;
  }
  co_await comm.copy(result, vector);
  co_await ring_phases(comm, result, params.reduction, 1);
}

Task<> allreduce_segmented_ring(Comm& comm, Buffer vector, Buffer result, const AlgorithmParams& params) {
  const std::size_t ts = size_of(params.reduction.type), count = vector.size() / ts;
  if (count == 0) co_return;
  const auto p = static_cast<std::size_t>(comm.size());
  if (p == 1) {
    co_await comm.copy(result, vector);
    co_return;
  }
  const std::size_t segcount = element_segment(vector.size(), params.segment, ts) / ts;
  const std::size_t round = p * segcount;  // elements one phase reduces
  if (count < round) {
    co_await allreduce_ring(comm, vector, result, params);
    co_return;
  }
  std::size_t phases = count / round;
  if (count % round >= p && count % round > round / 2) ++phases;
  co_await comm.copy(result, vector);
  co_await ring_phases(comm, result, params.reduction, phases);
}

Task<> allreduce_rabenseifner(Comm& comm, Buffer vector, Buffer result, const AlgorithmParams& params) {
  const Reduction red = params.reduction;
  const std::size_t ts = size_of(red.type), count = vector.size() / ts;
  if (count == 0) co_return;
  const int p = comm.size(), rank = comm.rank();
  const int pof2 = largest_power_of_two(p), extra = p - pof2;
  if (count < static_cast<std::size_t>(pof2) || !is_commutative(red.op)) {
    co_await allreduce_basic_linear(comm, vector, result, params);
    co_return;
  }
  auto part = [ts](Buffer b, std::size_t first, std::size_t n) { return b.slice(first * ts, n * ts); };

  co_await comm.copy(result, vector);
  Storage t(vector.size(), !vector.is_virtual());
  const int vrank = co_await rabenseifner_reduce_scatter(comm, result, t.view(), red, tags::allreduce);

  // Allgather by recursive doubling, undoing the halvings: keep what I kept, get what I gave.
  if (vrank >= 0) {
    const std::vector<Halving> steps = rabenseifner_halvings(vrank, pof2, count);
    for (auto k = static_cast<int>(steps.size()) - 1; k >= 0; --k) {
      const Halving& h = steps[static_cast<std::size_t>(k)];
      const int partner = rabenseifner_real_rank(vrank ^ (1 << k), extra);
      co_await comm.sendrecv(part(result, h.keep, h.keep_count), partner, tags::allreduce,
                             part(result, h.sent, h.sent_count), partner, tags::allreduce);
    }
  }

  // The odd ranks that dropped out get the whole result from their even partner.
  if (rank < 2 * extra) {
    if (rank % 2 == 0)
      co_await comm.send(result, rank + 1, tags::allreduce);
    else
      co_await comm.recv(result, rank - 1, tags::allreduce);
  }
}

}  // namespace collsim
