// The registry's allgather entries, and their formulas derived from our implementation (= Open MPI's call sequence; the
// algorithms are described in algorithms/collectives.hpp). Notation: P processes, m bytes per process (one block), t(x)
// = alpha + beta*x. Every formula is 0 for no bytes, where MPI_Allgather returns at once, and for one process (local
// copies are free).
//
// bruck, recursive_doubling, ring, neighbor and two_proc are rounds of sendrecv in which every
// rank sends and receives the same number of blocks: all ranks start each round together, each
// receives exactly one message in it, and the round takes t(its bytes). One port changes nothing
// there (no port is ever busy when asked for), so each formula holds under both assumptions.
#include <cstddef>

#include "algorithms/collectives.hpp"
#include "algorithms/two_proc.hpp"
#include "registry/entries.hpp"

namespace collsim {

namespace models {
namespace {

bool trivial(const FormulaInput& in) { return in.procs <= 1 || in.bytes == 0; }
double blocks(const FormulaInput& in, int n) { return in.t(static_cast<double>(n) * static_cast<double>(in.bytes)); }

// bruck: for distance 2^j < P, c = min(2^j, P - 2^j) blocks to rank - 2^j and from rank + 2^j:
// sum over the ceil(log2 P) rounds of t(c*m) (= ceil(log2 P)*alpha + (P-1)*m*beta).
double derived_allgather_bruck(const FormulaInput& in) {
  if (trivial(in)) return 0;
  double sum = 0;
  for (int distance = 1; distance < in.procs; distance <<= 1)
    sum += blocks(in, distance <= in.procs / 2 ? distance : in.procs - distance);
  return sum;
}

// recursive_doubling on a power of two: round j swaps 2^j blocks with rank XOR 2^j, sum of
// t(2^j*m) = log2(P)*alpha + (P-1)*m*beta. Bruck elsewhere, as the algorithm.
double derived_allgather_recursive_doubling(const FormulaInput& in) {
  if (trivial(in)) return 0;
  if ((in.procs & (in.procs - 1)) != 0) return derived_allgather_bruck(in);
  double sum = 0;
  for (int distance = 1; distance < in.procs; distance <<= 1) sum += blocks(in, distance);
  return sum;
}

// ring: P-1 rounds of one block to the next rank: (P-1)*t(m).
double derived_allgather_ring(const FormulaInput& in) {
  if (trivial(in)) return 0;
  return (in.procs - 1) * blocks(in, 1);
}

// neighbor on even P: one block with neighbour 0, then P/2 - 1 rounds of two blocks:
// t(m) + (P/2 - 1)*t(2m). Ring on odd P, as the algorithm.
double derived_allgather_neighbor(const FormulaInput& in) {
  if (trivial(in)) return 0;
  if (in.procs % 2 != 0) return derived_allgather_ring(in);
  return blocks(in, 1) + (in.procs / 2 - 1) * blocks(in, 2);
}

// two_proc: one swap of a block, t(m). Refused beyond 2 processes, as the algorithm (which
// returns first for no bytes).
double derived_allgather_two_proc(const FormulaInput& in) {
  if (in.bytes == 0) return 0;
  require_two_processes("allgather/two_proc", in.procs);
  return trivial(in) ? 0 : blocks(in, 1);
}

// linear: the gather of the blocks to rank 0, then the bcast of all P*m bytes from it, each with
// the algorithm Open MPI 4.1's fixed decision picks, so the sum of their derived formulas. Rank
// 0's gather ends last (every other rank's ends when its data has left, no later than it
// arrives at 0), and no message of the gather is in flight then; the bcast's other ranks act
// only on what reaches them from rank 0, so the bcast runs as if everyone started it when rank
// 0 does. The sum is exact where both parts are: under one port the bcast's scatter_allgather
// (16..31 processes, P*m >= 1 MiB) is a lower bound (registry/bcast.cpp), and so is this there:
// the engine is up to about a quarter slower on 21..31 processes
// (tests/registry/formula_agreement_test.cpp).
double derived_allgather_linear(const FormulaInput& in) {
  if (in.procs <= 1 || in.bytes == 0) return 0;
  return derived_fixed_choice(Operation::gather, in, in.bytes, 0) +
         derived_fixed_choice(Operation::bcast, in, in.bytes * static_cast<std::size_t>(in.procs), 0);
}

constexpr std::array kEntries{
    // allgather and alltoall: no tree. The data/result wrapper of gather fits them.
    AlgorithmInfo{.name = "allgather/linear",
                  .op = Operation::allgather,
                  .ompi_id = 1,
                  .knobs = kNoKnobs,
                  .summary = "the communicator's gather to rank 0, then its bcast from it (Open MPI 4.1's choices)",
                  .run = &as_gather<allgather_linear>,
                  .max_procs = kAnyProcs,
                  .tree = nullptr,
                  .textbook = nullptr,
                  .derived = derived_allgather_linear,
                  .receives_first = false,
                  .keeps_rank_order = false},
    AlgorithmInfo{.name = "allgather/bruck",
                  .op = Operation::allgather,
                  .ompi_id = 2,
                  .knobs = kNoKnobs,
                  .summary = "log p steps to rank - 2^k, doubling the blocks sent; then a local rotation",
                  .run = &as_gather<allgather_bruck>,
                  .max_procs = kAnyProcs,
                  .tree = nullptr,
                  .textbook = textbook_allgather_bruck,
                  .derived = derived_allgather_bruck,
                  .receives_first = false,
                  .keeps_rank_order = false},
    AlgorithmInfo{.name = "allgather/recursive_doubling",
                  .op = Operation::allgather,
                  .ompi_id = 3,
                  .knobs = kNoKnobs,
                  .summary = "exchanges with rank XOR 2^k, doubling the blocks (power-of-two p; else bruck)",
                  .run = &as_gather<allgather_recursive_doubling>,
                  .max_procs = kAnyProcs,
                  .tree = nullptr,
                  .textbook = textbook_allgather_recursive_doubling,
                  .derived = derived_allgather_recursive_doubling,
                  .receives_first = false,
                  .keeps_rank_order = false},
    AlgorithmInfo{.name = "allgather/ring",
                  .op = Operation::allgather,
                  .ompi_id = 4,
                  .knobs = kNoKnobs,
                  .summary = "p - 1 steps passing one block to the next rank",
                  .run = &as_gather<allgather_ring>,
                  .max_procs = kAnyProcs,
                  .tree = nullptr,
                  .textbook = textbook_allgather_ring,
                  .derived = derived_allgather_ring,
                  .receives_first = false,
                  .keeps_rank_order = false},
    AlgorithmInfo{.name = "allgather/neighbor",
                  .op = Operation::allgather,
                  .ompi_id = 5,
                  .knobs = kNoKnobs,
                  .summary = "p/2 steps exchanging pairs of blocks with alternate neighbours (even p; else ring)",
                  .run = &as_gather<allgather_neighbor>,
                  .max_procs = kAnyProcs,
                  .tree = nullptr,
                  .textbook = nullptr,
                  .derived = derived_allgather_neighbor,
                  .receives_first = false,
                  .keeps_rank_order = false},
    AlgorithmInfo{.name = "allgather/two_proc",
                  .op = Operation::allgather,
                  .ompi_id = 6,
                  .knobs = kNoKnobs,
                  .summary = "one exchange between the two processes (2 processes only)",
                  .run = &as_gather<allgather_two_proc>,
                  .max_procs = kTwoProcesses,
                  .tree = nullptr,
                  .textbook = nullptr,
                  .derived = derived_allgather_two_proc,
                  .receives_first = false,
                  .keeps_rank_order = false},
};

}  // namespace
}  // namespace models

std::span<const AlgorithmInfo> allgather_entries() { return models::kEntries; }

}  // namespace collsim
