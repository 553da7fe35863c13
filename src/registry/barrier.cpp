// The registry's barrier entries, and their formulas derived from our implementation (= Open MPI's call sequence; the
// algorithms are described in algorithms/collectives.hpp). Notation: P processes, a = t(0) = alpha: every message is
// empty and still costs its latency. Every formula is 0 for one process (coll/self). A blocking
// send completes when its message arrives, a receive when its message has arrived (posting it
// is free). FormulaCosts::serial_receive is the model engine's one port: a transfer holds the
// sender's send port and the receiver's receive port, granted in the order sends are posted;
// the engine starts the ranks in rank order, so sends posted at the same time at the start are
// granted in rank order.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <utility>
#include <vector>

#include "algorithms/collectives.hpp"
#include "algorithms/rank_math.hpp"
#include "algorithms/two_proc.hpp"
#include "registry/entries.hpp"

namespace collsim {

namespace models {
namespace {

double a(const FormulaInput& in) { return in.t(0); }

// linear: the P-1 others' blocking sends to rank 0 start together and arrive side by side at a,
// or one at a time by (P-1)*a; rank 0 then releases them with P-1 blocking sends in rank order,
// the last arriving (P-1)*a later. Contention-free P*a, one port 2(P-1)*a.
double derived_barrier_linear(const FormulaInput& in) {
  if (in.procs <= 1) return 0;
  const double others = in.procs - 1;
  return (in.costs.serial_receive ? others : 1) * a(in) + others * a(in);
}

// double_ring: one token goes twice round the ring, each hop a blocking send that the next rank
// is waiting for; only one message is ever in flight, so one port changes nothing: 2P*a.
double derived_barrier_double_ring(const FormulaInput& in) { return in.procs <= 1 ? 0 : 2.0 * in.procs * a(in); }

// recursive_doubling, p' = the largest power of two <= P, k = log2(p'), x = P - p' extra ranks.
// Rank i < x first waits for extra rank p'+i's message, E_i: a. Then the k exchanges: each is a
// zsr whose send and receive both take a, so a rank finishes the exchange with mask 2^j at
// max(its own start, its partner's) + a; after k of them (a butterfly) every rank of p' has
// heard from all the others: max_i E_i + k*a. Ranks i < x then release p'+i with one more
// message. Contention-free: k*a for a power of two, (k+2)*a otherwise (the textbook's).
// One port: at the start the ranks of p' that have no extra rank send their first exchange at
// once, and when x is odd, rank x (no extra) does so to rank x-1 before extra rank p'+x-1 (a
// higher rank) posts its message to x-1: that message arrives at 2a, and the butterfly carries
// the delay to every rank, (k+3)*a. This is a lower bound: an exchange still ends no earlier
// than max(own start, partner's start) + a. It is exact up to 5 processes. From 6 on the ranks
// are out of step, and a rank that has finished an exchange early can post its next one to a
// rank that is still waiting for its current partner's message (ties at equal times go in the
// order the engine queued the events, not by round): the port, granted in posting order, takes
// the later message first and delays the current one, by a (tests/registry/formula_agreement_test).
double derived_barrier_recursive_doubling(const FormulaInput& in) {
  if (in.procs <= 1) return 0;
  const int pof2 = largest_power_of_two(in.procs), extra = in.procs - pof2;
  const int k = std::countr_zero(static_cast<unsigned>(pof2));
  if (extra == 0) return k * a(in);
  const double first = in.costs.serial_receive && extra % 2 == 1 ? 2 : 1;  // max_i E_i, in a
  return (first + k + 1) * a(in);
}

// bruck (dissemination): ceil(log2 P) rounds; in each every rank posts its receive, sends to
// rank + 2^j and waits for rank - 2^j. All ranks start every round together and each receives
// one message per round, so no port is ever busy when it is asked for: ceil(log2 P)*a.
double derived_barrier_bruck(const FormulaInput& in) {
  int rounds = 0;
  for (int distance = 1; distance < in.procs; distance <<= 1) ++rounds;
  return rounds * a(in);
}

// two_proc: one zsr each way, side by side: a. Refused beyond 2 processes, as the algorithm.
double derived_barrier_two_proc(const FormulaInput& in) {
  require_two_processes("barrier/two_proc", in.procs);
  return in.procs <= 1 ? 0 : a(in);
}

// tree: with D the smallest power of two >= P, rank v's children are v + 2^i for 2^i below v's
// lowest set bit (below D for rank 0) and under P. Up: a leaf sends to its parent at once; a
// parent takes its children's messages (blocking receives in increasing distance, but each
// message arrives on its own) and sends up once it has all: U_v = max_c (U_c + a), 0 for a leaf.
// One port: the messages into v take its receive port one at a time in the order they are sent
// (by U_c; at equal times the lower rank first, as the ranks start in rank order and each
// level's sends are released in that order), so U_v is the end of that sequence. Down: rank 0
// at U_0, every rank once its parent's message has arrived, blocking-sends to its children,
// farthest first, a each; a rank is done after its last send, a leaf when its message has
// arrived. Down messages go one at a time per sender, to ranks whose ports are long free, so
// one port changes nothing there.
double derived_barrier_tree(const FormulaInput& in) {
  const int P = in.procs;
  if (P <= 1) return 0;
  int depth = 1;
  while (depth < P) depth <<= 1;
  // The children of v, nearest first.
  auto children = [&](int v) {
    std::vector<int> out;
    const int lowest = v == 0 ? depth : (v & -v);
    for (int jump = 1; jump < lowest && v + jump < P; jump <<= 1) out.push_back(v + jump);
    return out;
  };
  const double t = a(in);
  std::vector<double> up(static_cast<std::size_t>(P), 0);
  for (int v = P - 1; v >= 0; --v) {  // children have larger ranks than their parent
    std::vector<std::pair<double, int>> sent;
    for (int c : children(v)) sent.emplace_back(up[static_cast<std::size_t>(c)], c);
    double clock = 0;
    if (in.costs.serial_receive) {
      std::sort(sent.begin(), sent.end());
      for (const auto& [U, c] : sent) clock = std::max(clock, U) + t;
    } else {
      for (const auto& [U, c] : sent) clock = std::max(clock, U + t);
    }
    up[static_cast<std::size_t>(v)] = clock;
  }
  std::vector<double> down(static_cast<std::size_t>(P), 0);
  down[0] = up[0];
  double finish = 0;
  for (int v = 0; v < P; ++v) {  // a parent before its children
    const std::vector<int> c = children(v);
    double clock = down[static_cast<std::size_t>(v)];
    for (auto it = c.rbegin(); it != c.rend(); ++it) down[static_cast<std::size_t>(*it)] = clock += t;
    finish = std::max(finish, clock);
  }
  return finish;
}

constexpr std::array kEntries{
    // Barrier: zero-byte messages only. two_proc runs on 2 processes only, as in Open MPI.
    AlgorithmInfo{.name = "barrier/linear",
                  .op = Operation::barrier,
                  .ompi_id = 1,
                  .knobs = kNoKnobs,
                  .summary = "everyone reports to rank 0, which then releases each",
                  .run = &as_barrier<barrier_linear>,
                  .max_procs = kAnyProcs,
                  .tree = nullptr,
                  .textbook = nullptr,
                  .derived = derived_barrier_linear,
                  .receives_first = false,
                  .keeps_rank_order = false},
    AlgorithmInfo{.name = "barrier/double_ring",
                  .op = Operation::barrier,
                  .ompi_id = 2,
                  .knobs = kNoKnobs,
                  .summary = "a token twice around the ring from rank 0",
                  .run = &as_barrier<barrier_double_ring>,
                  .max_procs = kAnyProcs,
                  .tree = nullptr,
                  .textbook = nullptr,
                  .derived = derived_barrier_double_ring,
                  .receives_first = false,
                  .keeps_rank_order = false},
    AlgorithmInfo{.name = "barrier/recursive_doubling",
                  .op = Operation::barrier,
                  .ompi_id = 3,
                  .knobs = kNoKnobs,
                  .summary = "exchanges at distances 1, 2, 4, ...; ranks beyond a power of two fold in and out",
                  .run = &as_barrier<barrier_recursive_doubling>,
                  .max_procs = kAnyProcs,
                  .tree = nullptr,
                  .textbook = textbook_barrier_recursive_doubling,
                  .derived = derived_barrier_recursive_doubling,
                  .receives_first = false,
                  .keeps_rank_order = false},
    AlgorithmInfo{.name = "barrier/bruck",
                  .op = Operation::barrier,
                  .ompi_id = 4,
                  .knobs = kNoKnobs,
                  .summary = "log2(p) rounds: send to rank + 2^k, receive from rank - 2^k",
                  .run = &as_barrier<barrier_bruck>,
                  .max_procs = kAnyProcs,
                  .tree = nullptr,
                  .textbook = textbook_barrier_bruck,
                  .derived = derived_barrier_bruck,
                  .receives_first = false,
                  .keeps_rank_order = false},
    AlgorithmInfo{.name = "barrier/two_proc",
                  .op = Operation::barrier,
                  .ompi_id = 5,
                  .knobs = kNoKnobs,
                  .summary = "one exchange between the two ranks (2 processes only)",
                  .run = &as_barrier<barrier_two_proc>,
                  .max_procs = kTwoProcesses,
                  .tree = nullptr,
                  .textbook = nullptr,
                  .derived = derived_barrier_two_proc,
                  .receives_first = false,
                  .keeps_rank_order = false},
    AlgorithmInfo{.name = "barrier/tree",
                  .op = Operation::barrier,
                  .ompi_id = 6,
                  .knobs = kNoKnobs,
                  .summary = "up a binomial-like tree of pairs to rank 0 and back down",
                  .run = &as_barrier<barrier_tree>,
                  .max_procs = kAnyProcs,
                  .tree = nullptr,
                  .textbook = nullptr,
                  .derived = derived_barrier_tree,
                  .receives_first = false,
                  .keeps_rank_order = false},
};

}  // namespace
}  // namespace models

std::span<const AlgorithmInfo> barrier_entries() { return models::kEntries; }

}  // namespace collsim
