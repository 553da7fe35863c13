// The registry's alltoall entries, and their formulas derived from our implementation (= Open MPI's call sequence; the
// algorithms are described in algorithms/collectives.hpp). Notation: P processes, m bytes per pair of processes (one
// block), t(x) = alpha + beta*x. Every formula is 0 for no bytes, where MPI_Alltoall returns at once, and for one
// process (local copies, packing included, are free). FormulaCosts::serial_receive is the model engine's one port: a
// transfer holds the sender's send port and the receiver's receive port, both granted in the order sends are posted.
//
// pairwise, modified_bruck and two_proc are rounds of sendrecv in which every rank sends and
// receives the same bytes: all ranks start each round together, each receives exactly one
// message in it, and the round takes t(its bytes), under one port too (no port is ever busy when
// asked for).
#include <algorithm>
#include <cstddef>
#include <vector>

#include "algorithms/collectives.hpp"
#include "algorithms/two_proc.hpp"
#include "registry/entries.hpp"

namespace collsim {

namespace models {
namespace {

bool trivial(const FormulaInput& in) { return in.procs <= 1 || in.bytes == 0; }
double blocks(const FormulaInput& in, int n) { return in.t(static_cast<double>(n) * static_cast<double>(in.bytes)); }

// linear: every rank posts its P-1 receives, then its P-1 isends (to rank-1, rank-2, ...) at
// once, and waits for all. Contention-free: the P-1 isends cost gamma(P)/gamma(2) transfers, and
// every receive's message has arrived by then (each is one of its sender's isends).
// One port: the model engine starts the ranks in rank order and each posts all its isends before
// the next rank starts, so the ports are granted in the order (rank, i): rank r's i-th isend, to
// d = r - i, starts when r's send port and d's receive port are both free, and holds them for
// t(m). That greedy order is not the best one (rank 0's later isends take ports that higher
// ranks' first ones then wait for), so the result is evaluated in that order, O(P^2); it is at
// least (P-1)*t(m), each rank's send port carrying P-1 transfers.
double derived_alltoall_linear(const FormulaInput& in) {
  if (trivial(in)) return 0;
  const int P = in.procs;
  const double t = blocks(in, 1);
  if (!in.costs.serial_receive) return in.costs.gamma.sends(P - 1) * t;
  std::vector<double> send_free(static_cast<std::size_t>(P), 0), recv_free(static_cast<std::size_t>(P), 0);
  double end = 0;
  for (int r = 0; r < P; ++r)
    for (int i = 1; i < P; ++i) {
      const auto s = static_cast<std::size_t>(r), d = static_cast<std::size_t>((r - i + P) % P);
      const double done = std::max(send_free[s], recv_free[d]) + t;
      send_free[s] = recv_free[d] = done;
      end = std::max(end, done);
    }
  return end;
}

// pairwise: P-1 rounds of one block with rank + k and rank - k: (P-1)*t(m).
double derived_alltoall_pairwise(const FormulaInput& in) {
  if (trivial(in)) return 0;
  return (in.procs - 1) * blocks(in, 1);
}

// modified_bruck: for distance 2^j < P, the blocks whose index has bit j set (n_j of them) go to
// rank + 2^j in one message: the sum over the ceil(log2 P) rounds of t(n_j*m).
double derived_alltoall_modified_bruck(const FormulaInput& in) {
  if (trivial(in)) return 0;
  const int P = in.procs;
  double sum = 0;
  for (int distance = 1; distance < P; distance <<= 1) {
    int n = 0;
    for (int j = distance; j < P; j += 2 * distance) n += std::min(distance, P - j);
    sum += blocks(in, n);
  }
  return sum;
}

// linear_sync with R = max_requests, 0 < R < P-1 (else it is linear): every rank keeps R
// receives and R isends in flight, replacing each as it completes. Contention-free, all ranks
// alike: the R isends posted together complete after gamma(R+1)/gamma(2) transfers, and so do
// the R receives (each message is its sender's isend of the same batch), so the P-1 blocks go in
// ceil((P-1)/R) batches, the last of (P-1) mod R (or R) isends.
// One port: the same sum, gamma(k+1)/gamma(2) = k, is (P-1)*t(m), each rank's P-1 isends one
// after the other through its send port: a lower bound. Exact for R = 1: one isend per rank at a
// time, all ranks in step, and the k-th isends (rank r to r-k) a permutation, so no port is ever
// busy when asked for. From R = 2 on the engine is slower, up to twice (P = 40, R = 3): a port,
// granted in posting order, goes to a later message first, as in linear above, with the refills'
// order also decided by which request completes first; not evaluated here.
double derived_alltoall_linear_sync(const FormulaInput& in) {
  if (trivial(in)) return 0;
  const int P = in.procs, R = in.params.max_requests;
  if (R <= 0 || R >= P - 1) return derived_alltoall_linear(in);
  const double t = blocks(in, 1);
  double sum = 0;
  for (int left = P - 1; left > 0; left -= R) sum += in.costs.gamma.sends(std::min(R, left)) * t;
  return sum;
}

// two_proc: one swap of a block, t(m). Refused beyond 2 processes, as the algorithm (which
// returns first for no bytes).
double derived_alltoall_two_proc(const FormulaInput& in) {
  if (in.bytes == 0) return 0;
  require_two_processes("alltoall/two_proc", in.procs);
  return trivial(in) ? 0 : blocks(in, 1);
}

constexpr std::array kEntries{
    AlgorithmInfo{.name = "alltoall/linear",
                  .op = Operation::alltoall,
                  .ompi_id = 1,
                  .knobs = kNoKnobs,
                  .summary = "every receive, then every send posted at once; wait for all",
                  .run = &as_gather<alltoall_linear>,
                  .max_procs = kAnyProcs,
                  .tree = nullptr,
                  .textbook = nullptr,
                  .derived = derived_alltoall_linear,
                  .receives_first = false,
                  .keeps_rank_order = false},
    AlgorithmInfo{.name = "alltoall/pairwise",
                  .op = Operation::alltoall,
                  .ompi_id = 2,
                  .knobs = kNoKnobs,
                  .summary = "p steps: sendrecv with rank + k and rank - k",
                  .run = &as_gather<alltoall_pairwise>,
                  .max_procs = kAnyProcs,
                  .tree = nullptr,
                  .textbook = textbook_alltoall_pairwise,
                  .derived = derived_alltoall_pairwise,
                  .receives_first = false,
                  .keeps_rank_order = false},
    AlgorithmInfo{.name = "alltoall/modified_bruck",
                  .op = Operation::alltoall,
                  .ompi_id = 3,
                  .knobs = kNoKnobs,
                  .summary = "log p steps sending the blocks whose index has bit k set to rank + 2^k; local rotations",
                  .run = &as_gather<alltoall_modified_bruck>,
                  .max_procs = kAnyProcs,
                  .tree = nullptr,
                  .textbook = textbook_alltoall_modified_bruck,
                  .derived = derived_alltoall_modified_bruck,
                  .receives_first = false,
                  .keeps_rank_order = false},
    AlgorithmInfo{.name = "alltoall/linear_sync",
                  .op = Operation::alltoall,
                  .ompi_id = 4,
                  .knobs = kMaxRequests,
                  .summary = "linear with at most max_requests receives and sends in flight, refilled as they complete",
                  .run = &as_gather<alltoall_linear_sync>,
                  .max_procs = kAnyProcs,
                  .tree = nullptr,
                  .textbook = nullptr,
                  .derived = derived_alltoall_linear_sync,
                  .receives_first = false,
                  .keeps_rank_order = false},
    AlgorithmInfo{.name = "alltoall/two_proc",
                  .op = Operation::alltoall,
                  .ompi_id = 5,
                  .knobs = kNoKnobs,
                  .summary = "one exchange between the two processes (2 processes only)",
                  .run = &as_gather<alltoall_two_proc>,
                  .max_procs = kTwoProcesses,
                  .tree = nullptr,
                  .textbook = nullptr,
                  .derived = derived_alltoall_two_proc,
                  .receives_first = false,
                  .keeps_rank_order = false},
};

}  // namespace
}  // namespace models

std::span<const AlgorithmInfo> alltoall_entries() { return models::kEntries; }

}  // namespace collsim
