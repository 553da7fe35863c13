// The registry's scatter entries, and their formulas derived from our implementation (= Open MPI's call sequence; the
// algorithms are described in algorithms/collectives.hpp). Notation: P processes, m bytes per process, t(x) = alpha +
// beta*x. Every formula is 0 for no bytes, where MPI_Scatter returns at once, and for one process (the root's copy of
// its own block is free, as every local copy here). A blocking send takes one transfer; non-blocking sends posted
// together read gamma (formulas.hpp).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "algorithms/collectives.hpp"
#include "registry/entries.hpp"

namespace collsim {

namespace models {
namespace {

bool trivial(const FormulaInput& in) { return in.procs <= 1 || in.bytes == 0; }

// The root walks the ranks in order; `blocking(r)` says whether rank r gets a blocking send. The
// isends posted since the last blocking send form a batch: with j of them, the next blocking send
// is the (j+1)-th send of the batch and completes sends(j+1) transfers after the batch began (one
// port: behind them; contention-free: one transfer), which starts the next batch. The call ends
// when the last transfer does.
template <class Blocking>
double linear_scatter(const FormulaInput& in, Blocking blocking) {
  const double t = in.t(static_cast<double>(in.bytes));
  double clock = 0, end = 0;
  int batch = 0;
  for (int r = 0; r < in.procs; ++r) {
    if (r == in.params.root) continue;
    if (!blocking(r)) {
      ++batch;
      continue;
    }
    clock += in.costs.gamma.sends(batch + 1) * t;
    end = std::max(end, clock);
    batch = 0;
  }
  if (batch > 0) end = std::max(end, clock + in.costs.gamma.sends(batch) * t);
  return end;
}

// basic_linear: P-1 blocking sends one after the other, (P-1)*t(m).
double derived_scatter_basic_linear(const FormulaInput& in) {
  if (trivial(in)) return 0;
  return linear_scatter(in, [](int) { return true; });
}

// linear_nb: isends, except blocking sends to the multiples of max_requests when it is above 1.
// Isends only (the default): the last of P-1 arrives after gamma(P)/gamma(2) transfers.
double derived_scatter_linear_nb(const FormulaInput& in) {
  if (trivial(in)) return 0;
  const int every = in.params.max_requests > 1 ? in.params.max_requests : 0;
  return linear_scatter(in, [every](int r) { return every != 0 && r % every == 0; });
}

// binomial on the in-order binomial tree: a rank has its subtree when its receive completes (the
// root at 0), then blocking-sends each child c (vrank) its min(c - v, P - c) blocks, largest child
// first, one transfer each. Every rank receives one message and sends one at a time, so one port
// changes nothing. The call ends when the last rank has its blocks.
double derived_scatter_binomial(const FormulaInput& in) {
  if (trivial(in)) return 0;
  const std::int64_t P = in.procs;
  const double m = static_cast<double>(in.bytes);
  std::vector<double> ready(static_cast<std::size_t>(P), 0);
  double end = 0;
  for (std::int64_t v = 0; v < P; ++v) {  // a parent has a smaller vrank than its children
    std::int64_t top = 1;                 // the largest mask with a child: v + mask < P, mask below v's lowest bit
    while ((v & top) == 0 && v + top < P) top <<= 1;
    double clock = ready[static_cast<std::size_t>(v)];
    for (std::int64_t mask = top >> 1; mask >= 1; mask >>= 1) {
      const std::int64_t child = v + mask;
      if (child >= P) continue;
      clock += in.t(static_cast<double>(std::min(mask, P - child)) * m);
      ready[static_cast<std::size_t>(child)] = clock;
    }
    end = std::max(end, clock);
  }
  return end;
}

constexpr std::array kEntries{
    // Scatter: the root's `data` holds the blocks, every rank's `result` gets its own.
    AlgorithmInfo{.name = "scatter/basic_linear",
                  .op = Operation::scatter,
                  .ompi_id = 1,
                  .knobs = kNoKnobs,
                  .summary = "the root sends each rank its block in rank order (blocking sends)",
                  .run = &as_scatter<scatter_basic_linear>,
                  .max_procs = kAnyProcs,
                  .tree = linear_node,
                  .textbook = textbook_scatter_basic_linear,
                  .derived = derived_scatter_basic_linear,
                  .receives_first = true,
                  .keeps_rank_order = false},
    AlgorithmInfo{.name = "scatter/binomial",
                  .op = Operation::scatter,
                  .ompi_id = 2,
                  .knobs = kNoKnobs,
                  .summary = "in-order binomial tree; inner ranks receive their subtree's blocks and pass them on",
                  .run = &as_scatter<scatter_binomial>,
                  .max_procs = kAnyProcs,
                  .tree = in_order_node,
                  .textbook = textbook_scatter_binomial,
                  .derived = derived_scatter_binomial,
                  .receives_first = true,
                  .keeps_rank_order = false},
    AlgorithmInfo{.name = "scatter/linear_nb",
                  .op = Operation::scatter,
                  .ompi_id = 3,
                  .knobs = kMaxRequests,
                  .summary = "the root isends each rank its block, a blocking send every max-requests ranks",
                  .run = &as_scatter<scatter_linear_nb>,
                  .max_procs = kAnyProcs,
                  .tree = linear_node,
                  .textbook = nullptr,
                  .derived = derived_scatter_linear_nb,
                  .receives_first = true,
                  .keeps_rank_order = false},
};

}  // namespace
}  // namespace models

std::span<const AlgorithmInfo> scatter_entries() { return models::kEntries; }

}  // namespace collsim
