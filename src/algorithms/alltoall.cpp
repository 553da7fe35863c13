#include "algorithms/collectives.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "algorithms/rank_math.hpp"
#include "algorithms/two_proc.hpp"

namespace collsim {

namespace {

std::size_t block_size(const Comm& comm, Buffer data) { return data.size() / static_cast<std::size_t>(comm.size()); }

}  // namespace

Task<> alltoall_linear(Comm& comm, Buffer data, Buffer gathered, const AlgorithmParams&) {
  const std::size_t m = block_size(comm, data);
  if (m == 0) co_return;  // MPI_Alltoall returns at once for empty blocks
  const int p = comm.size(), rank = comm.rank();
  co_await comm.copy(blocks(gathered, m, rank), blocks(data, m, rank));
  std::vector<Request> requests(2 * static_cast<std::size_t>(p - 1));
  for (int i = 1; i < p; ++i) {
    const int from = mod(rank + i, p);
    requests[static_cast<std::size_t>(i - 1)] = co_await comm.irecv(blocks(gathered, m, from), from, tags::alltoall);
  }
  for (int i = 1; i < p; ++i) {
    const int to = mod(rank - i, p);
    requests[static_cast<std::size_t>(p - 2 + i)] = co_await comm.isend(blocks(data, m, to), to, tags::alltoall);
  }
  co_await comm.wait_all(requests);
}

Task<> alltoall_pairwise(Comm& comm, Buffer data, Buffer gathered, const AlgorithmParams&) {
  const std::size_t m = block_size(comm, data);
  if (m == 0) co_return;
  const int p = comm.size(), rank = comm.rank();
  for (int step = 1; step < p; ++step) {
    const int to = mod(rank + step, p), from = mod(rank - step, p);
    co_await comm.sendrecv(blocks(data, m, to), to, tags::alltoall, blocks(gathered, m, from), from, tags::alltoall);
  }
  co_await comm.copy(blocks(gathered, m, rank), blocks(data, m, rank));
}

Task<> alltoall_modified_bruck(Comm& comm, Buffer data, Buffer gathered, const AlgorithmParams&) {
  const std::size_t m = block_size(comm, data);
  if (m == 0) co_return;
  const int p = comm.size(), rank = comm.rank();
  const bool real = !data.is_virtual();
  Storage temp(data.size(), real);
  const Buffer t = temp.view();
  co_await comm.copy(blocks(t, m, 0, p - rank), blocks(data, m, rank, p - rank));
  if (rank != 0) co_await comm.copy(blocks(t, m, p - rank, rank), blocks(data, m, 0, rank));

  // The blocks j of a step (bit `distance` set, j < p) come in runs of `distance` consecutive j,
  // at most p/2 blocks in all. Packed, they go out from the front of `gathered` and come in right
  // after (Open MPI receives into its receive buffer too): `gathered` is written for good only by
  // the last rotation, and no scratch memory beyond Open MPI's own temporary is taken. (Two more
  // buffers of p/2 blocks made glibc return the heap's top to the system after every call, and
  // fault it in again at the next: 4 times Open MPI's time at 4 x 256 KiB.)
  for (int distance = 1; distance < p; distance <<= 1) {
    std::size_t packed = 0;
    for (int j = distance; j < p; j += 2 * distance) packed += static_cast<std::size_t>(std::min(distance, p - j)) * m;
    const Buffer out = gathered.slice(0, packed), in = gathered.slice(packed, packed);
    std::size_t at = 0;
    for (int j = distance; j < p; j += 2 * distance) {
      const int n = std::min(distance, p - j);
      co_await comm.copy(out.slice(at, n * m), blocks(t, m, j, n));
      at += static_cast<std::size_t>(n) * m;
    }
    co_await comm.sendrecv(out, mod(rank + distance, p), tags::alltoall, in, mod(rank - distance, p), tags::alltoall);
    at = 0;
    for (int j = distance; j < p; j += 2 * distance) {
      const int n = std::min(distance, p - j);
      co_await comm.copy(blocks(t, m, j, n), in.slice(at, n * m));
      at += static_cast<std::size_t>(n) * m;
    }
  }
  for (int j = 0; j < p; ++j) co_await comm.copy(blocks(gathered, m, mod(rank - j, p)), blocks(t, m, j));
}

Task<> alltoall_linear_sync(Comm& comm, Buffer data, Buffer gathered, const AlgorithmParams& params) {
  const std::size_t m = block_size(comm, data);
  if (m == 0) co_return;
  const int p = comm.size(), rank = comm.rank();
  co_await comm.copy(blocks(gathered, m, rank), blocks(data, m, rank));
  if (p == 1) co_return;
  const int limit = params.max_requests > 0 && params.max_requests < p ? params.max_requests : p - 1;
  // Receives in slots [0, limit), sends in [limit, 2 * limit); the next peers of each kind.
  std::vector<Request> requests(2 * static_cast<std::size_t>(limit));
  int receives = 0, sends = 0;
  for (; receives < limit; ++receives) {
    const int from = mod(rank + 1 + receives, p);
    requests[static_cast<std::size_t>(receives)] = co_await comm.irecv(blocks(gathered, m, from), from, tags::alltoall);
  }
  for (; sends < limit; ++sends) {
    const int to = mod(rank - 1 - sends, p);
    requests[static_cast<std::size_t>(limit + sends)] = co_await comm.isend(blocks(data, m, to), to, tags::alltoall);
  }
  if (limit == p - 1) {
    co_await comm.wait_all(requests);
    co_return;
  }
  for (int done = 0; done < 2 * (p - 1); ++done) {
    const std::size_t slot = co_await comm.wait_any(requests);
    if (slot < static_cast<std::size_t>(limit)) {
      if (receives == p - 1) continue;
      const int from = mod(rank + 1 + receives++, p);
      requests[slot] = co_await comm.irecv(blocks(gathered, m, from), from, tags::alltoall);
    } else if (sends < p - 1) {
      const int to = mod(rank - 1 - sends++, p);
      requests[slot] = co_await comm.isend(blocks(data, m, to), to, tags::alltoall);
    }
  }
}

Task<> alltoall_two_proc(Comm& comm, Buffer data, Buffer gathered, const AlgorithmParams&) {
  const std::size_t m = block_size(comm, data);
  if (m == 0) co_return;
  const int p = comm.size(), rank = comm.rank();
  require_two_processes("alltoall/two_proc", p);
  if (p == 2) {
    const int other = rank ^ 1;
    co_await comm.sendrecv(blocks(data, m, other), other, tags::alltoall, blocks(gathered, m, other), other,
                           tags::alltoall);
  }
  co_await comm.copy(blocks(gathered, m, rank), blocks(data, m, rank));
}

}  // namespace collsim
