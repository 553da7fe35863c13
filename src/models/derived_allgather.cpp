// Allgather formulas derived from our implementation (= Open MPI's call sequence; the algorithms
// are described in algorithms/allgather.hpp). Notation: P processes, m bytes per process (one
// block), t(x) = alpha + beta*x. Every formula is 0 for no bytes, where MPI_Allgather returns at
// once, and for one process (local copies are free).
//
// bruck, recursive_doubling, ring, neighbor and two_proc are rounds of sendrecv in which every
// rank sends and receives the same number of blocks: all ranks start each round together, each
// receives exactly one message in it, and the round takes t(its bytes). One port changes nothing
// there (no port is ever busy when asked for), so each formula holds under both assumptions.
#include <cstddef>

#include "algorithms/two_proc.hpp"
#include "models/formulas.hpp"

namespace collsim::models {

namespace {

bool trivial(const FormulaInput& in) { return in.procs <= 1 || in.bytes == 0; }
double blocks(const FormulaInput& in, int n) { return in.t(static_cast<double>(n) * static_cast<double>(in.bytes)); }

}  // namespace

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

}  // namespace collsim::models
