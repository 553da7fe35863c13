#include "algorithms/collectives.hpp"

#include <string>

#include "algorithms/nested_collective.hpp"
#include "algorithms/rank_math.hpp"
#include "algorithms/two_proc.hpp"

namespace collsim {

Task<> allgather_linear(Comm& comm, Buffer block, Buffer gathered, const AlgorithmParams&) {
  if (block.size() == 0) co_return;  // MPI_Allgather returns at once for empty blocks
  co_await communicator_gather(comm, block, gathered, 0);
  co_await communicator_bcast(comm, gathered, 0);
}

Task<> allgather_bruck(Comm& comm, Buffer block, Buffer gathered, const AlgorithmParams&) {
  const std::size_t m = block.size();
  if (m == 0) co_return;
  const int p = comm.size(), rank = comm.rank();
  co_await comm.copy(blocks(gathered, m, 0), block);
  for (int distance = 1; distance < p; distance <<= 1) {
    const int count = distance <= p / 2 ? distance : p - distance;
    co_await comm.sendrecv(blocks(gathered, m, 0, count), mod(rank - distance, p), tags::allgather,
                           blocks(gathered, m, distance, count), mod(rank + distance, p), tags::allgather);
  }
  if (rank == 0) co_return;
  // Block j holds rank (rank + j) mod p's block: blocks 0..p-rank-1 move up by `rank`, the rest
  // down to the start.
  Storage shift(static_cast<std::size_t>(p - rank) * m, !gathered.is_virtual());
  co_await comm.copy(shift.view(), blocks(gathered, m, 0, p - rank));
  co_await comm.copy(blocks(gathered, m, 0, rank), blocks(gathered, m, p - rank, rank));
  co_await comm.copy(blocks(gathered, m, rank, p - rank), shift.view());
}

Task<> allgather_recursive_doubling(Comm& comm, Buffer block, Buffer gathered, const AlgorithmParams& params) {
  const std::size_t m = block.size();
  if (m == 0) co_return;
  const int p = comm.size(), rank = comm.rank();
  if ((p & (p - 1)) != 0) {
    co_await allgather_bruck(comm, block, gathered, params);
    co_return;
  }
  co_await comm.copy(blocks(gathered, m, rank), block);
  int held_from = rank;  // this rank holds blocks [held_from, held_from + distance)
  for (int distance = 1; distance < p; distance <<= 1) {
    const int partner = rank ^ distance;
    const int incoming = rank < partner ? held_from + distance : held_from - distance;
    co_await comm.sendrecv(blocks(gathered, m, held_from, distance), partner, tags::allgather,
                           blocks(gathered, m, incoming, distance), partner, tags::allgather);
    if (rank > partner) held_from = incoming;
  }
}

Task<> allgather_ring(Comm& comm, Buffer block, Buffer gathered, const AlgorithmParams&) {
  const std::size_t m = block.size();
  if (m == 0) co_return;
  const int p = comm.size(), rank = comm.rank();
  co_await comm.copy(blocks(gathered, m, rank), block);
  const int next = mod(rank + 1, p), previous = mod(rank - 1, p);
  for (int i = 0; i < p - 1; ++i)
    co_await comm.sendrecv(blocks(gathered, m, mod(rank - i, p)), next, tags::allgather,
                           blocks(gathered, m, mod(rank - i - 1, p)), previous, tags::allgather);
}

Task<> allgather_neighbor(Comm& comm, Buffer block, Buffer gathered, const AlgorithmParams& params) {
  const std::size_t m = block.size();
  if (m == 0) co_return;
  const int p = comm.size(), rank = comm.rank();
  if (p % 2 != 0) {
    co_await allgather_ring(comm, block, gathered, params);
    co_return;
  }
  co_await comm.copy(blocks(gathered, m, rank), block);
  const bool even = rank % 2 == 0;
  const int neighbor[2] = {mod(even ? rank + 1 : rank - 1, p), mod(even ? rank - 1 : rank + 1, p)};
  co_await comm.sendrecv(blocks(gathered, m, rank), neighbor[0], tags::allgather, blocks(gathered, m, neighbor[0]),
                         neighbor[0], tags::allgather);
  // From now on pairs of blocks, each starting at an even rank: the pair this rank and neighbour
  // 0 hold after step 0, then whichever pair arrived last. Pairs arrive from alternating sides.
  const int pair = even ? rank : neighbor[0];
  const int stride[2] = {even ? 2 : -2, even ? -2 : 2};
  int arrived[2] = {pair, pair};
  int forward = pair;
  for (int i = 1; i < p / 2; ++i) {
    const int side = i % 2;
    arrived[side] = mod(arrived[side] + stride[side], p);
    co_await comm.sendrecv(blocks(gathered, m, forward, 2), neighbor[side], tags::allgather,
                           blocks(gathered, m, arrived[side], 2), neighbor[side], tags::allgather);
    forward = arrived[side];
  }
}

Task<> allgather_two_proc(Comm& comm, Buffer block, Buffer gathered, const AlgorithmParams&) {
  const std::size_t m = block.size();
  if (m == 0) co_return;
  const int p = comm.size(), rank = comm.rank();
  require_two_processes("allgather/two_proc", p);
  if (p == 2) {
    const int other = rank ^ 1;
    co_await comm.sendrecv(block, other, tags::allgather, blocks(gathered, m, other), other, tags::allgather);
  }
  co_await comm.copy(blocks(gathered, m, rank), block);
}

}  // namespace collsim
