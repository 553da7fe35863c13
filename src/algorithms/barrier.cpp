#include "algorithms/collectives.hpp"

#include <string>
#include <vector>

#include "algorithms/rank_math.hpp"
#include "algorithms/two_proc.hpp"

namespace collsim {

namespace {

// Open MPI's ompi_coll_base_sendrecv_zero.
Task<> zero_sendrecv(Comm& comm, int dest, int source) {
  return comm.sendrecv(Buffer{}, dest, tags::barrier, Buffer{}, source, tags::barrier);
}

}  // namespace

Task<> barrier_linear(Comm& comm, const AlgorithmParams&) {
  const int p = comm.size();
  if (p == 1) co_return;
  if (comm.rank() != 0) {
    co_await comm.send(Buffer{}, 0, tags::barrier);
    co_await comm.recv(Buffer{}, 0, tags::barrier);
    co_return;
  }
  std::vector<Request> arrivals(static_cast<std::size_t>(p - 1));
  for (int r = 1; r < p; ++r) {
    auto post = comm.irecv(Buffer{}, r, tags::barrier);
    arrivals[static_cast<std::size_t>(r - 1)] = co_await post;
  }
  co_await comm.wait_all(arrivals);
  for (int r = 1; r < p; ++r) co_await comm.send(Buffer{}, r, tags::barrier);
}

Task<> barrier_double_ring(Comm& comm, const AlgorithmParams&) {
  const int p = comm.size(), rank = comm.rank();
  if (p == 1) co_return;
  const int left = (rank - 1 + p) % p, right = (rank + 1) % p;
  for (int round = 0; round < 2; ++round) {
    if (rank > 0) co_await comm.recv(Buffer{}, left, tags::barrier);
    co_await comm.send(Buffer{}, right, tags::barrier);  // round 2: MPI_Ssend in Open MPI
    if (rank == 0) co_await comm.recv(Buffer{}, left, tags::barrier);
  }
}

Task<> barrier_recursive_doubling(Comm& comm, const AlgorithmParams&) {
  const int p = comm.size(), rank = comm.rank();
  if (p == 1) co_return;
  const int pof2 = largest_power_of_two(p), extra = p - pof2;
  if (rank >= pof2) {
    // Announces itself, and is released by the partner's last send.
    co_await zero_sendrecv(comm, rank - pof2, rank - pof2);
    co_return;
  }
  if (rank < extra) co_await comm.recv(Buffer{}, rank + pof2, tags::barrier);
  for (int mask = 1; mask < pof2; mask <<= 1) co_await zero_sendrecv(comm, rank ^ mask, rank ^ mask);
  if (rank < extra) co_await comm.send(Buffer{}, rank + pof2, tags::barrier);  // MPI_Ssend in Open MPI
}

Task<> barrier_bruck(Comm& comm, const AlgorithmParams&) {
  const int p = comm.size(), rank = comm.rank();
  for (int distance = 1; distance < p; distance <<= 1)
    co_await zero_sendrecv(comm, (rank + distance) % p, (rank - distance + p) % p);
}

Task<> barrier_two_proc(Comm& comm, const AlgorithmParams&) {
  const int p = comm.size();
  if (p == 1) co_return;
  require_two_processes("barrier/two_proc", p);
  const int other = 1 - comm.rank();
  co_await zero_sendrecv(comm, other, other);
}

Task<> barrier_tree(Comm& comm, const AlgorithmParams&) {
  const int p = comm.size(), rank = comm.rank();
  int depth = 1;  // the smallest power of two >= p
  while (depth < p) depth <<= 1;
  // Whether rank and rank XOR jump are a pair at this jump.
  auto paired = [&](int partner, int jump) { return (partner & (jump - 1)) == 0 && partner < p; };
  for (int jump = 1; jump < depth; jump <<= 1) {
    const int partner = rank ^ jump;
    if (!paired(partner, jump)) continue;
    if (partner > rank)
      co_await comm.recv(Buffer{}, partner, tags::barrier);
    else
      co_await comm.send(Buffer{}, partner, tags::barrier);
  }
  for (int jump = depth / 2; jump > 0; jump >>= 1) {
    const int partner = rank ^ jump;
    if (!paired(partner, jump)) continue;
    if (partner > rank)
      co_await comm.send(Buffer{}, partner, tags::barrier);
    else
      co_await comm.recv(Buffer{}, partner, tags::barrier);
  }
}

}  // namespace collsim
