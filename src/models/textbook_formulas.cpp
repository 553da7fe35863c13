// Textbook Hockney formulas. P processes, m bytes, t(x) = alpha + beta*x; every formula is 0 for
// one process or no bytes, where MPI returns at once.
#include <cmath>

#include "algorithms/segmentation.hpp"
#include "models/formulas.hpp"

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

}  // namespace collsim::models
