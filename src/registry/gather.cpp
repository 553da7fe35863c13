// The registry's gather entries, and their formulas derived from our implementation (= Open MPI's call sequence; the
// algorithms are described in algorithms/collectives.hpp). Notation: P processes, m bytes per process, t(x) = alpha +
// beta*x. Every formula is 0 for no bytes, where MPI_Gather returns at once, and for one process (the root's copy of
// its own block is free, as every local copy here). FormulaCosts::serial_receive says whether the root takes its
// messages one at a time (one port, the seed's assumption) or side by side (contention-free).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "algorithms/collectives.hpp"
#include "algorithms/segmentation.hpp"
#include "registry/entries.hpp"

namespace collsim {

namespace models {
namespace {

bool trivial(const FormulaInput& in) { return in.procs <= 1 || in.bytes == 0; }

// basic_linear: the P-1 blocking sends start together. Taken one at a time they end (P-1)*t(m)
// later, in rank order, the order the root receives in; side by side they all arrive at t(m).
// Eager messages handed over (FormulaCosts::eager_handover) take the root one after another for
// their occupancy t(m) - alpha each, their latencies running side by side: t(m) + (P-2)*(t(m) -
// alpha). Messages from ranks on the root's node, where those are priced apart
// (FormulaCosts::intra), do not cross the node's link: they take their own turns, side by side
// with those of the n ranks on other nodes, t(m) + (n-1)*(t(m) - alpha).
double derived_gather_basic_linear(const FormulaInput& in) {
  if (trivial(in)) return 0;
  const auto m = static_cast<double>(in.bytes);
  int inside = 0;
  for (int r = 0; r < in.procs; ++r)
    if (r != in.params.root && in.costs.inside_node(r, in.params.root)) ++inside;
  // n messages over one path: the first takes `t`, each next `held` more when taken one at a time.
  auto over = [&](int n, double t, double held) {
    return n == 0 ? 0 : t + (in.costs.serial_receive ? (n - 1) * held : 0);
  };
  const double t_in = inside > 0 ? in.costs.intra_transfer(m) : 0;
  return std::max(over(in.procs - 1 - inside, in.t(m), in.costs.occupancy(m)),
                  over(inside, t_in, t_in - (inside > 0 ? in.costs.intra_overlapped(m) : 0)));
}

// binomial on the in-order binomial tree: a rank receives its children's subtrees in increasing
// mask order with blocking receives, then sends everything to its parent. Child c (vrank) is
// ready at C_c and sends min(c - v, P - c) blocks; side by side its data arrives at
// C_c + t(blocks*m), and the receive completes at max(previous receive, arrival). Taken one at a
// time in that order, a transfer starts when the child is ready and the previous one is over:
// max(C_c, previous) + t(blocks*m). The root's time is the call's (its rotation copies are
// free). Powers of two: log2(P)*alpha + (P-1)*beta*m either way. (Under one port the model
// engine grants a port in the order sends are posted, not in receive order; children become
// ready in increasing mask order, so the two orders agree.) A child on its parent's node, where
// that is priced apart (FormulaCosts::intra), sends over it: t_in(blocks*m).
double derived_gather_binomial(const FormulaInput& in) {
  if (trivial(in)) return 0;
  const std::int64_t P = in.procs;
  const double m = static_cast<double>(in.bytes);
  std::vector<double> ready(static_cast<std::size_t>(P), 0);
  for (std::int64_t v = P - 1; v >= 0; --v) {  // children have larger vranks than their parent
    double clock = 0;
    for (std::int64_t mask = 1; mask < P && (v & mask) == 0; mask <<= 1) {
      const std::int64_t child = v + mask;
      if (child >= P) break;
      const double blocks = static_cast<double>(std::min(mask, P - child));
      const double C = ready[static_cast<std::size_t>(child)];
      const double bytes = blocks * m;
      const bool inside = in.costs.inside_node(static_cast<int>((child + in.params.root) % P),
                                               static_cast<int>((v + in.params.root) % P));
      const double arrival =
          (in.costs.serial_receive ? std::max(C, clock) : C) + (inside ? in.costs.intra_transfer(bytes) : in.t(bytes));
      clock = std::max(clock, arrival);
    }
    ready[static_cast<std::size_t>(v)] = clock;
  }
  return ready[0];
}

// linear_sync, first segment f bytes (params.segment if 1 <= segment < m, else m), second
// r = m - f (zero bytes are still sent). The root serves the ranks in turn: its zero-byte sync
// arrives alpha after the turn starts, the first segment t(f) after that, and then the next turn
// starts; each rank sends its second segment as soon as its first is out. Side by side:
// (P-1)*(2*alpha + beta*f) + t(r), the last rank's second segment ending the call. One at a time,
// a turn's first segment also waits for the previous rank's second segment, which has taken the
// root's port since the turn began (t(r) >= alpha): every turn after the first takes
// t(r) + t(f) = 2*alpha + beta*m, so (2*alpha + beta*f) + (P-2)*(2*alpha + beta*m) + t(r).
// A rank on the root's node, where that is priced apart (FormulaCosts::intra), takes its turn
// inside the node, t_in(0) + t_in(f), and its second segment, t_in(r), does not hold the node's
// link: the next turn does not wait for it. The call ends when the last second segment is in.
double derived_gather_linear_sync(const FormulaInput& in) {
  if (trivial(in)) return 0;
  const double f = static_cast<double>(Segmentation(in.bytes, in.params.segment).segment_bytes());
  const double r = static_cast<double>(in.bytes) - f;
  // Each message in the regime of its own size.
  double clock = 0, finish = 0;
  bool first = true, after_link = false;  // whether the previous rank's second segment crossed the link
  for (int rank = 0; rank < in.procs; ++rank) {
    if (rank == in.params.root) continue;
    const bool inside = in.costs.inside_node(rank, in.params.root);
    auto x = [&](double bytes) { return inside ? in.costs.intra_transfer(bytes) : in.t(bytes); };
    const bool waits = !first && !inside && after_link && in.costs.serial_receive;
    clock += (waits ? in.t(r) : x(0)) + x(f);
    finish = std::max(finish, clock + x(r));
    first = false;
    after_link = !inside;
  }
  return finish;
}

constexpr std::array kEntries{
    AlgorithmInfo{.name = "gather/basic_linear",
                  .op = Operation::gather,
                  .ompi_id = 1,
                  .knobs = kNoKnobs,
                  .summary = "non-roots send; the root receives in rank order",
                  .run = &as_gather<gather_basic_linear>,
                  .max_procs = kAnyProcs,
                  .tree = linear_node,
                  .textbook = textbook_gather_basic_linear,
                  .derived = derived_gather_basic_linear,
                  .receives_first = false,
                  .keeps_rank_order = false},
    AlgorithmInfo{.name = "gather/binomial",
                  .op = Operation::gather,
                  .ompi_id = 2,
                  .knobs = kNoKnobs,
                  .summary = "in-order binomial tree; inner ranks forward their whole subtree",
                  .run = &as_gather<gather_binomial>,
                  .max_procs = kAnyProcs,
                  .tree = in_order_node,
                  .textbook = textbook_gather_binomial,
                  .derived = derived_gather_binomial,
                  .receives_first = false,
                  .keeps_rank_order = false},
    AlgorithmInfo{.name = "gather/linear_sync",
                  .op = Operation::gather,
                  .ompi_id = 3,
                  .knobs = kSegment,
                  .summary = "the root asks each rank in turn (zero-byte sync); first segment, then the rest",
                  .run = &as_gather<gather_linear_sync>,
                  .max_procs = kAnyProcs,
                  .tree = linear_node,
                  .textbook = nullptr,
                  .derived = derived_gather_linear_sync,
                  .receives_first = false,
                  .keeps_rank_order = false},
};

}  // namespace
}  // namespace models

std::span<const AlgorithmInfo> gather_entries() { return models::kEntries; }

}  // namespace collsim
