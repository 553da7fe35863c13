// The registry's reduce_scatter entries, and their formulas derived from our implementation (= Open MPI's call
// sequence; the algorithms are described in algorithms/collectives.hpp). Notation: P processes, m bytes per process:
// every rank's block holds c = m / element size elements, b = c * element size bytes, and the vector M = P*m bytes (the
// folds move it as it is); P' the largest power of two <= P, r = P - P', t(x) = alpha + beta*x, g = reduce_gamma: a
// local reduction of x bytes costs g*x. Every formula is 0 for empty blocks, where MPI_Reduce_scatter returns at once,
// and for one process (a copy, free).
//
// Every message is a blocking send (alone or in a sendrecv), so a sender's port is free when it
// posts; where no receiver takes two messages at once the formulas are exact under one port too.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <vector>

#include "algorithms/collectives.hpp"
#include "registry/entries.hpp"

namespace collsim {

namespace models {
namespace {

std::size_t type_size(const FormulaInput& in) { return size_of(in.params.reduction.type); }
bool trivial(const FormulaInput& in) { return in.procs <= 1 || in.bytes / type_size(in) == 0; }
double reduce_cost(const FormulaInput& in, double bytes) { return bytes * in.costs.reduce_gamma; }

// The fold of recursive_halving and butterfly and the P' merged blocks left: virtual rank u < r
// (real rank 2u+1) stands for two blocks, the others for one.
struct Folded {
  int pof2, extra;
  double b;  // bytes of one block

  explicit Folded(const FormulaInput& in)
      : pof2(static_cast<int>(std::bit_floor(static_cast<unsigned>(in.procs)))),
        extra(in.procs - pof2),
        b(static_cast<double>(in.bytes / type_size(in) * type_size(in))) {}
  // Bytes of the merged blocks [lo, lo + n).
  double window(int lo, int n) const {
    const int doubled = std::clamp(extra - lo, 0, n);
    return (n + doubled) * b;
  }
  // When virtual rank u starts halving: the odd ranks below 2r once the even one's whole vector
  // has arrived and been reduced, t(M) + g*M; the others at once.
  std::vector<double> start(const FormulaInput& in) const {
    const double M = static_cast<double>(in.procs) * static_cast<double>(in.bytes);
    std::vector<double> c(static_cast<std::size_t>(pof2), 0);
    for (int u = 0; u < extra; ++u) c[static_cast<std::size_t>(u)] = in.t(M) + reduce_cost(in, M);
    return c;
  }
};

// One halving step of recursive_halving and butterfly: virtual rank u and its partner u^mask
// share a window of 2n merged blocks from lo[u]; the one without `mask` keeps the lower n, each
// sends the other's half and reduces its own:
// c_u <- max(c_u + t(sent_u), c_v + t(sent_v)) + g*kept_u.
void halve(const FormulaInput& in, const Folded& f, std::vector<double>& c, std::vector<int>& lo, int mask, int n) {
  std::vector<double> next(c.size());
  std::vector<int> next_lo(c.size());
  for (int u = 0; u < f.pof2; ++u) {
    const int v = u ^ mask, base = lo[static_cast<std::size_t>(u)];
    const bool lower = (u & mask) == 0;
    const int keep = lower ? base : base + n, sent = lower ? base + n : base;
    const double kept = f.window(keep, n), out = f.window(sent, n);
    next[static_cast<std::size_t>(u)] =
        std::max(c[static_cast<std::size_t>(u)] + in.t(out), c[static_cast<std::size_t>(v)] + in.t(kept)) +
        reduce_cost(in, kept);
    next_lo[static_cast<std::size_t>(u)] = keep;
  }
  c = std::move(next);
  lo = std::move(next_lo);
}

// recursive_halving: after the fold, P' ranks halve the window of merged blocks by distance
// P'/2, P'/4, ..., 1; partners see the same window, each sends the half the other keeps and
// reduces the half it keeps: c_u <- max(c_u + t(sent_u), c_v + t(sent_v)) + g*kept_u. Then the odd
// ranks below 2r send the even one its block: c_u + t(b). The call ends at the largest of these;
// O(P log P). On a power of two: log2(P)*alpha + (P-1)*b*(beta + g).
// One port: exact on a power of two. Otherwise an even rank's vector (t(M)) holds its odd
// partner's port while ranks past 2r, which start at once, send it their first halving, which
// waits for the port (and holds the sender's); later a rank ahead may take the port of one whose
// partner is behind, so messages are served in the order they are posted, not step by step. The
// formula lets them arrive side by side: a lower bound for those P (tests/registry/formula_agreement_test.cpp).
double derived_reduce_scatter_recursive_halving(const FormulaInput& in) {
  if (trivial(in)) return 0;
  const Folded f(in);
  std::vector<double> c = f.start(in);
  std::vector<int> lo(c.size(), 0);
  for (int mask = f.pof2 / 2; mask > 0; mask >>= 1) halve(in, f, c, lo, mask, mask);
  double end = 0;
  for (int u = 0; u < f.pof2; ++u) end = std::max(end, c[static_cast<std::size_t>(u)] + (u < f.extra ? in.t(f.b) : 0));
  return end;
}

// ring: every rank sends block rank-1 at once, then P-2 times waits for the block from its left,
// reduces it and passes it on, and finally reduces its own. All ranks move in step, each step a
// transfer of b bytes and a reduction of them: (P-1)*(t(b) + g*b). Each rank hears from its left
// neighbour only, so one port changes nothing.
double derived_reduce_scatter_ring(const FormulaInput& in) {
  if (trivial(in)) return 0;
  const double b = static_cast<double>(in.bytes / type_size(in) * type_size(in));
  return (in.procs - 1) * (in.t(b) + reduce_cost(in, b));
}

// butterfly: after the fold, P' ranks exchange halves of the window by distance 1, 2, ..., P'/2
// (sendrecv; partners see the same window, each sends the half the other keeps):
// c_u <- max(c_u + t(sent_u), c_v + t(sent_v)) + g*kept_u, as in recursive_halving. Then virtual rank u holds merged
// block w = mirror(u): when w < r it first sends block 2w to that even rank (t(b), done at c_u + t(b) there), then
// swaps blocks with w's rank by a sendrecv (or copies, w = u): with s_u its start, done at max(s_u, s_w) + t(b). Even
// ranks below 2r are done when their block arrives. On a power of two: the halving part is log2(P)*alpha +
// (P-1)*b*(beta + g), plus t(b) when some u differs from its mirror (P' >= 4). One port: as recursive_halving, a lower
// bound where P is not a power of two (the first halving meets the fold's vector at the odd ranks' ports).
double derived_reduce_scatter_butterfly(const FormulaInput& in) {
  if (trivial(in)) return 0;
  const Folded f(in);
  std::vector<double> c = f.start(in);
  std::vector<int> lo(c.size(), 0);
  int n = f.pof2;
  for (int mask = 1; mask < f.pof2; mask <<= 1) {
    n /= 2;
    halve(in, f, c, lo, mask, n);
  }

  const int bits = std::countr_zero(static_cast<unsigned>(f.pof2));
  auto mirror = [bits](int v) {
    int out = 0;
    for (int i = 0; i < bits; ++i) out |= ((v >> i) & 1) << (bits - 1 - i);
    return out;
  };
  std::vector<double> s(c.size());
  double end = 0;
  for (int u = 0; u < f.pof2; ++u) {
    const int w = mirror(u);
    s[static_cast<std::size_t>(u)] = c[static_cast<std::size_t>(u)] + (w < f.extra ? in.t(f.b) : 0);
    end = std::max(end, s[static_cast<std::size_t>(u)]);  // an even rank's block has arrived by then
  }
  for (int u = 0; u < f.pof2; ++u) {
    const int w = mirror(u);
    if (w != u)
      end = std::max(end, std::max(s[static_cast<std::size_t>(u)], s[static_cast<std::size_t>(w)]) + in.t(f.b));
  }
  return end;
}

// non-overlapping: the communicator's reduce of the vector (M bytes) to rank 0, then a linear
// scatterv from it: the P-1 blocking sends of scatter/basic_linear. As for allreduce's
// nonoverlapping (above) every rank has finished the reduce when rank 0 has, so
// the two times add up: exact under both port models wherever the reduce's formula is.
double derived_reduce_scatter_non_overlapping(const FormulaInput& in) {
  if (in.procs <= 1 || in.bytes == 0) return 0;
  FormulaInput scatter = in;
  scatter.params.root = 0;
  return derived_fixed_choice(Operation::reduce, in, static_cast<std::size_t>(in.procs) * in.bytes, 0) +
         derived_formula("scatter/basic_linear", scatter);
}

constexpr std::array kEntries{
    // reduce_scatter.
    AlgorithmInfo{.name = "reduce_scatter/non-overlapping",
                  .op = Operation::reduce_scatter,
                  .ompi_id = 1,
                  .knobs = kNoKnobs,
                  .summary = "the communicator's reduce to rank 0, then a linear scatterv of the blocks",
                  .run = &as_reduce<reduce_scatter_non_overlapping>,
                  .max_procs = kAnyProcs,
                  .tree = nullptr,
                  .textbook = nullptr,
                  .derived = derived_reduce_scatter_non_overlapping,
                  .receives_first = false,
                  .keeps_rank_order = true},
    AlgorithmInfo{.name = "reduce_scatter/recursive_halving",
                  .op = Operation::reduce_scatter,
                  .ompi_id = 2,
                  .knobs = kNoKnobs,
                  .summary = "fold to a power of two, then halve the window of blocks by distance halving",
                  .run = &as_reduce<reduce_scatter_recursive_halving>,
                  .max_procs = kAnyProcs,
                  .tree = nullptr,
                  .textbook = textbook_reduce_scatter_recursive_halving,
                  .derived = derived_reduce_scatter_recursive_halving,
                  .receives_first = false,
                  .keeps_rank_order = false},
    AlgorithmInfo{.name = "reduce_scatter/ring",
                  .op = Operation::reduce_scatter,
                  .ompi_id = 3,
                  .knobs = kNoKnobs,
                  .summary = "each block goes once round the ring, reduced at every rank",
                  .run = &as_reduce<reduce_scatter_ring>,
                  .max_procs = kAnyProcs,
                  .tree = nullptr,
                  .textbook = textbook_reduce_scatter_ring,
                  .derived = derived_reduce_scatter_ring,
                  .receives_first = false,
                  .keeps_rank_order = false},
    AlgorithmInfo{.name = "reduce_scatter/butterfly",
                  .op = Operation::reduce_scatter,
                  .ompi_id = 4,
                  .knobs = kNoKnobs,
                  .summary = "fold to a power of two, then halves exchanged by distance doubling (order preserving)",
                  .run = &as_reduce<reduce_scatter_butterfly>,
                  .max_procs = kAnyProcs,
                  .tree = nullptr,
                  .textbook = nullptr,
                  .derived = derived_reduce_scatter_butterfly,
                  .receives_first = false,
                  .keeps_rank_order = true},
};

}  // namespace
}  // namespace models

std::span<const AlgorithmInfo> reduce_scatter_entries() { return models::kEntries; }

}  // namespace collsim
