// Textbook Hockney formulas. P processes, m bytes, t(x) = alpha + beta*x, gamma seconds per byte
// reduced; every formula is 0 for one process or no bytes, where MPI returns at once (a barrier
// has no bytes and is 0 for one process only).
#include <cmath>

#include "algorithms/segmentation.hpp"
#include "models/textbook_formulas.hpp"

namespace collsim::models {

namespace {

bool trivial(const FormulaInput& in) { return in.procs <= 1 || in.bytes == 0; }
double P(const FormulaInput& in) { return static_cast<double>(in.procs); }
double m(const FormulaInput& in) { return static_cast<double>(in.bytes); }
double ceil_log2(double x) { return std::ceil(std::log2(x)); }

}  // namespace

// The root sends the message to each of the P-1 others in turn.
double textbook_bcast_basic_linear(const FormulaInput& in) { return trivial(in) ? 0 : (P(in) - 1) * in.t(m(in)); }

// A chain of P ranks with n_s segments of m/n_s bytes: the last segment leaves the root after
// n_s - 1 steps and needs P - 1 more: (P + n_s - 2) * t(m/n_s).
double textbook_bcast_pipeline(const FormulaInput& in) {
  if (trivial(in)) return 0;
  const double n = static_cast<double>(Segmentation(in.bytes, in.params.segment).count());
  return (P(in) + n - 2) * in.t(m(in) / n);
}

// Each inner node sends to its two children one after the other, over ceil(log2(P+1)) - 1 levels.
double textbook_bcast_binary_tree(const FormulaInput& in) {
  return trivial(in) ? 0 : 2 * (ceil_log2(P(in) + 1) - 1) * in.t(m(in));
}

// The number of ranks holding the message doubles every step.
double textbook_bcast_binomial(const FormulaInput& in) { return trivial(in) ? 0 : ceil_log2(P(in)) * in.t(m(in)); }

// Binomial scatter (log2 P steps, (P-1)/P of the message leaves the root) and recursive-doubling
// allgather (log2 P steps, every rank receives (P-1)/P of it).
double textbook_bcast_scatter_allgather(const FormulaInput& in) {
  if (trivial(in)) return 0;
  return 2 * ceil_log2(P(in)) * in.costs.hockney.alpha + 2 * (P(in) - 1) / P(in) * m(in) * in.costs.hockney.beta;
}

// The same scatter, then a ring allgather of P-1 steps of m/P bytes.
double textbook_bcast_scatter_allgather_ring(const FormulaInput& in) {
  if (trivial(in)) return 0;
  return (ceil_log2(P(in)) + P(in) - 1) * in.costs.hockney.alpha +
         2 * (P(in) - 1) / P(in) * m(in) * in.costs.hockney.beta;
}

// The root receives P-1 blocks one after the other.
double textbook_gather_basic_linear(const FormulaInput& in) { return trivial(in) ? 0 : (P(in) - 1) * in.t(m(in)); }

// log2 P steps, and the root receives the P-1 other blocks.
double textbook_gather_binomial(const FormulaInput& in) {
  if (trivial(in)) return 0;
  return ceil_log2(P(in)) * in.costs.hockney.alpha + (P(in) - 1) * m(in) * in.costs.hockney.beta;
}

// Scatter is gather reversed (Thakur, Rabenseifner and Gropp give both the same cost): the root
// sends P-1 blocks one after the other; the binomial tree takes log2 P steps and the root sends
// the P-1 other blocks.
double textbook_scatter_basic_linear(const FormulaInput& in) { return textbook_gather_basic_linear(in); }
double textbook_scatter_binomial(const FormulaInput& in) { return textbook_gather_binomial(in); }

// Reduce, binomial tree: ceil(log2 P) steps, each a receive of the whole vector and its reduction
// at the root.
double textbook_reduce_binomial(const FormulaInput& in) {
  if (trivial(in)) return 0;
  return ceil_log2(P(in)) * (in.t(m(in)) + m(in) * in.costs.reduce_gamma);
}

// Reduce, Rabenseifner (Thakur, Rabenseifner and Gropp 2005): a reduce-scatter by recursive
// halving (log2 P steps; every rank sends and reduces (P-1)/P of the vector), then a binomial
// gather of the pieces (log2 P steps; the root receives (P-1)/P of it):
// 2*log2(P)*alpha + 2*(P-1)/P*m*beta + (P-1)/P*m*gamma. Given for powers of two; other P are
// charged ceil(log2 P) steps, as the other textbook formulas here.
double textbook_reduce_rabenseifner(const FormulaInput& in) {
  if (trivial(in)) return 0;
  const double share = (P(in) - 1) / P(in) * m(in);
  return 2 * ceil_log2(P(in)) * in.costs.hockney.alpha + 2 * share * in.costs.hockney.beta +
         share * in.costs.reduce_gamma;
}

// Allgather of blocks of m bytes. Bruck: ceil(log2 P) steps, every rank receives the P-1 other
// blocks. Recursive doubling: the same on a power of two (Open MPI runs bruck on the others).
// Ring: P-1 steps of one block.
double textbook_allgather_bruck(const FormulaInput& in) {
  if (trivial(in)) return 0;
  return ceil_log2(P(in)) * in.costs.hockney.alpha + (P(in) - 1) * m(in) * in.costs.hockney.beta;
}
double textbook_allgather_recursive_doubling(const FormulaInput& in) { return textbook_allgather_bruck(in); }
double textbook_allgather_ring(const FormulaInput& in) { return trivial(in) ? 0 : (P(in) - 1) * in.t(m(in)); }

// Alltoall of blocks of m bytes. Pairwise exchange: P-1 steps of one block each way. Bruck:
// ceil(log2 P) steps of about half the P blocks.
double textbook_alltoall_pairwise(const FormulaInput& in) { return trivial(in) ? 0 : (P(in) - 1) * in.t(m(in)); }
double textbook_alltoall_modified_bruck(const FormulaInput& in) {
  if (trivial(in)) return 0;
  const double steps = ceil_log2(P(in));
  return steps * in.costs.hockney.alpha + steps * P(in) / 2 * m(in) * in.costs.hockney.beta;
}

// Barrier (no bytes: one zero-byte message costs alpha). Dissemination (bruck): ceil(log2 P)
// rounds. Recursive doubling: log2 P exchanges on a power of two, and two more messages (in and
// out) for the ranks beyond it.
double textbook_barrier_bruck(const FormulaInput& in) { return in.procs <= 1 ? 0 : ceil_log2(P(in)) * in.t(0); }
double textbook_barrier_recursive_doubling(const FormulaInput& in) {
  if (in.procs <= 1) return 0;
  const double floor_log = std::floor(std::log2(P(in)));
  const bool power_of_two = std::exp2(floor_log) == P(in);
  return (floor_log + (power_of_two ? 0 : 2)) * in.t(0);
}

// Allreduce of an m-byte vector (Thakur, Rabenseifner and Gropp 2005, section 4.4). Recursive
// doubling: ceil(log2 P) exchanges of the whole vector, each reduced. Ring (reduce-scatter then
// allgather, P-1 steps of m/P bytes each): 2(P-1)*alpha + 2(P-1)/P*m*beta + (P-1)/P*m*gamma.
// Rabenseifner (recursive-halving reduce-scatter, recursive-doubling allgather):
// 2*log2(P)*alpha + 2(P-1)/P*m*beta + (P-1)/P*m*gamma.
double textbook_allreduce_recursive_doubling(const FormulaInput& in) {
  if (trivial(in)) return 0;
  return ceil_log2(P(in)) * (in.t(m(in)) + m(in) * in.costs.reduce_gamma);
}
double textbook_allreduce_ring(const FormulaInput& in) {
  if (trivial(in)) return 0;
  const double share = (P(in) - 1) / P(in) * m(in);
  return 2 * (P(in) - 1) * in.costs.hockney.alpha + 2 * share * in.costs.hockney.beta + share * in.costs.reduce_gamma;
}
double textbook_allreduce_rabenseifner(const FormulaInput& in) {
  if (trivial(in)) return 0;
  const double share = (P(in) - 1) / P(in) * m(in);
  return 2 * ceil_log2(P(in)) * in.costs.hockney.alpha + 2 * share * in.costs.hockney.beta +
         share * in.costs.reduce_gamma;
}

// Reduce_scatter of blocks of m bytes, a vector of n = P*m (ibid., section 4.3). Recursive
// halving: log2(P) steps, halving the data each time: log2(P)*alpha + (P-1)/P*n*(beta + gamma).
// Ring (the pairwise exchange's cost): P-1 steps of one block: (P-1)*alpha + (P-1)/P*n*(beta + gamma).
double textbook_reduce_scatter_recursive_halving(const FormulaInput& in) {
  if (trivial(in)) return 0;
  return ceil_log2(P(in)) * in.costs.hockney.alpha +
         (P(in) - 1) * m(in) * (in.costs.hockney.beta + in.costs.reduce_gamma);
}
double textbook_reduce_scatter_ring(const FormulaInput& in) {
  if (trivial(in)) return 0;
  return (P(in) - 1) * (in.t(m(in)) + m(in) * in.costs.reduce_gamma);
}

}  // namespace collsim::models
