// The registry's allreduce entries, and their formulas derived from our implementation (= Open MPI's call sequence; the
// algorithms are described in algorithms/collectives.hpp). Notation: P processes, m bytes of the vector (count = m /
// element size elements; the ring's blocks are counted in elements, recursive doubling moves the m bytes as they are),
// P' the largest power of two <= P, r = P - P', t(x) = alpha + beta*x, g = reduce_gamma: a local reduction of x bytes
// costs g*x. Every formula is 0 for no elements, where MPI_Allreduce returns at once, and for one process (a copy,
// free).
//
// Every message here is a blocking send (alone, or in a sendrecv: irecv, blocking send, wait), so
// a sender's port is free whenever it posts; where no receiver takes two messages at once the
// formulas are exact under one port too, and each comment says what happens where one does.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/collectives.hpp"
#include "algorithms/ompi41_decision.hpp"
#include "algorithms/rabenseifner.hpp"
#include "algorithms/rank_math.hpp"
#include "algorithms/segmentation.hpp"
#include "models/ring_paths.hpp"
#include "registry/entries.hpp"
#include "support/input_error.hpp"

namespace collsim {

namespace models {
namespace {

std::size_t type_size(const FormulaInput& in) { return size_of(in.params.reduction.type); }
std::size_t element_count(const FormulaInput& in) { return in.bytes / type_size(in); }
double reduce_cost(const FormulaInput& in, double bytes) { return bytes * in.costs.reduce_gamma; }

// The ring's reduce-scatter in `phases` phases, then its allgather (ring_phases in
// algorithms/allreduce.cpp). Rank i's k-th send of a phase (k = 1..P-1) carries its piece of block
// i-k+1 to rank i+1, which is the only rank that sends to it, so no port is ever shared. With
// S_i(k) the time rank i posts that send and a_i(k) the arrival at i of rank i-1's k-th send
// (S_{i-1}(k) + t(piece i-k)):
//   S_i(1) = the end of the previous phase (0 at first),
//   S_i(k) = max(S_i(k-1) + t(piece i-k+2), a_i(k-1)) + g*piece(i-k+1)  (send done, data in, reduced),
//   end of the phase = max(S_i(P-1) + t(piece i+2), a_i(P-1)) + g*piece(i+1).
// The allgather is P-1 sendrecvs of whole blocks: R_i <- max(R_i + t(B_{i+1-k}), R_{i-1} + t(B_{i-k})),
// whose last rank is the longest path of ring_paths.hpp (block i+1-k is diagonal (i-k)+1's).
// Phases run one after the other on each rank but not in step across ranks, so they are
// evaluated step by step over all ranks: O(phases * P^2), with each piece's costs computed once per
// phase. With one phase and equal blocks of b bytes it is (P-1)*(2*t(b) + g*b).
double ring_steps(const FormulaInput& in, std::size_t phases) {
  const int P = in.procs;
  const auto n = static_cast<std::size_t>(P);
  const std::size_t ts = type_size(in);
  const BlockSplit blocks(element_count(in), n);

  std::vector<double> clock(n, 0), send_end(n), piece_t(n), piece_g(n);
  for (std::size_t q = 0; q < phases; ++q) {
    for (std::size_t b = 0; b < n; ++b) {
      const auto piece = static_cast<double>(BlockSplit(blocks.length(b), phases).length(q) * ts);
      piece_t[b] = in.t(piece);
      piece_g[b] = reduce_cost(in, piece);
    }
    for (std::size_t i = 0; i < n; ++i) send_end[i] = clock[i] + piece_t[i];
    // Step k, ranks from the last down, so that send_end[i-1] is still step k-1's when rank i
    // reads it as its arrival (rank P-1's, read by rank 0, is kept before it is overwritten).
    for (int k = 2; k < P; ++k) {
      const double last_sent = send_end[n - 1];
      std::size_t b = n - static_cast<std::size_t>(k);  // block i-k+1, from i = P-1 down
      for (std::size_t i = n; i-- > 0; b = b == 0 ? n - 1 : b - 1) {
        const double arrival = i == 0 ? last_sent : send_end[i - 1];
        clock[i] = std::max(send_end[i], arrival) + piece_g[b];
        send_end[i] = clock[i] + piece_t[b];
      }
    }
    const double last_sent = send_end[n - 1];
    for (std::size_t i = n; i-- > 0;)
      clock[i] = std::max(send_end[i], i == 0 ? last_sent : send_end[i - 1]) + piece_g[(i + 1) % n];
  }
  std::vector<double> block_t(n);
  for (std::size_t d = 0; d < n; ++d) block_t[d] = in.t(static_cast<double>(blocks.length((d + 1) % n) * ts));
  return ring_longest_path(clock, block_t, n - 1);
}

// ring_steps, remembering the last few results per thread: segmented_ring falls back to the
// ring below P segments, so select asks for one ring once per segment size it tries (7 times by
// default), and at thousands of processes each costs P^2 steps.
double ring(const FormulaInput& in, std::size_t phases) {
  struct Key {
    int procs;
    std::size_t count, type_size, phases;
    double alpha, beta, reduce_gamma;
    std::vector<models::Regime> regimes;
    bool operator==(const Key&) const = default;
  };
  const Key key{in.procs,
                element_count(in),
                type_size(in),
                phases,
                in.costs.hockney.alpha,
                in.costs.hockney.beta,
                in.costs.reduce_gamma,
                in.costs.regimes};
  thread_local std::vector<std::pair<Key, double>> last;
  for (const auto& [k, time] : last)
    if (k == key) return time;
  const double time = ring_steps(in, phases);
  if (last.size() == 4) last.erase(last.begin());
  last.emplace_back(key, time);
  return time;
}

// basic_linear: a reduce to rank 0, then a broadcast from it: reduce/linear, then
// bcast/basic_linear (the root isends to all: gamma(P)*t(m)). Every rank is done with the reduce
// by the time rank 0 is (its last message has arrived there; the reduce's time is rank 0's), and
// no broadcast message leaves rank 0 before, so the broadcast runs as if called at that moment on
// idle ranks and ports: the two formulas add up, exactly under both port models wherever theirs
// are exact.
double derived_allreduce_basic_linear(const FormulaInput& in) {
  if (in.procs <= 1 || in.bytes == 0) return 0;
  FormulaInput at_zero = in;
  at_zero.params.root = 0;
  return derived_formula("reduce/linear", at_zero) + derived_formula("bcast/basic_linear", at_zero);
}

// recursive_doubling, with T = t(m) and G = g*m: every exchange is a sendrecv of the whole vector
// with one partner and a reduction of it, T + G for both partners once both have posted. On a
// power of two the P ranks run log2(P) such steps side by side: log2(P)*(T + G). Otherwise the odd
// ranks below 2r start their steps at T + G (the even rank's vector received and reduced), and as
// every step pairs groups of newranks that together hold newrank 0, which is one of them, all
// ranks end the log2(P') steps at (1 + log2 P')*(T + G); the even ranks then receive the result:
// (1 + log2 P')*(T + G) + T.
// One port: on a power of two each step's two messages go between partners only. Otherwise a rank
// may send a step's vector to a partner whose port still takes an earlier message (the pre-step's,
// or an earlier step's from a partner that is behind); the message then arrives up to one
// transfer later, but still no later than the answer of the partner that is behind, which the
// receiver waits for anyway: the same time (checked on every P to 128).
double derived_allreduce_recursive_doubling(const FormulaInput& in) {
  if (in.procs <= 1 || in.bytes == 0) return 0;
  const double T = in.t(static_cast<double>(in.bytes)), G = reduce_cost(in, static_cast<double>(in.bytes));
  const auto pof2 = largest_power_of_two(in.procs);
  const double steps = std::countr_zero(static_cast<unsigned>(pof2));
  return pof2 == in.procs ? steps * (T + G) : (steps + 1) * (T + G) + T;
}

// ring: recursive_doubling below P elements (Open MPI's fallback), else one phase of ring() above.
double derived_allreduce_ring(const FormulaInput& in) {
  const std::size_t count = element_count(in);
  if (count == 0 || in.procs <= 1) return 0;
  if (count < static_cast<std::size_t>(in.procs)) return derived_allreduce_recursive_doubling(in);
  return ring(in, 1);
}

// segmented_ring: segcount elements per segment (params.segment, element_segment); ring below
// P*segcount elements, else ring() in count / (P*segcount) phases, one more when the remainder is
// at least P and more than half a phase, as the algorithm counts them.
double derived_allreduce_segmented_ring(const FormulaInput& in) {
  const std::size_t ts = type_size(in), count = element_count(in);
  if (count == 0 || in.procs <= 1) return 0;
  const auto p = static_cast<std::size_t>(in.procs);
  const std::size_t segcount = element_segment(in.bytes, in.params.segment, ts) / ts, round = p * segcount;
  if (count < round) return derived_allreduce_ring(in);
  std::size_t phases = count / round;
  if (count % round >= p && count % round > round / 2) ++phases;
  return ring(in, phases);
}

// rabenseifner (count >= P' elements, commutative operator; otherwise basic_linear, as the
// algorithm falls back). Sizes in elements, x of them cost t(x*size).
//  1. Ranks below 2r, with lh = count/2 and rh = count - lh: odd and even swap halves
//     (sendrecv: done at max(t(lh), t(rh)) for both); the odd one reduces rh and sends it back,
//     the even one reduces lh and receives it. The even one (virtual rank u = rank/2) starts step 2
//     at D = max(max(t(lh), t(rh)) + g*lh, max(t(lh), t(rh)) + g*rh + t(rh)), the others at 0.
//  2. Halving k with partner v = u XOR 2^k (rabenseifner_halvings: both see the same window, and
//     u sends what v keeps): c_u <- max(c_u + t(sent_u), c_v + t(sent_v)) + g*keep_u.
//  3. The same exchanges in reverse order, each sending what it kept and receiving what it sent:
//     c_u <- max(c_u + t(keep_u), c_v + t(keep_v)).
//  4. The even ranks below 2r send the whole vector (m bytes) to the odd ones: c_u + t(m).
// The call ends at the largest of these; O(P log P). On a power of two with count a multiple of
// P every window halves evenly and it is 2*log2(P)*alpha + 2*(P-1)/P*m*beta + (P-1)/P*m*g.
// One port: exact on a power of two. Otherwise step 1's messages meet step 2's: a rank past 2r
// may send its first halving to an even rank below 2r whose port still takes its odd partner's
// halves, and then delays the odd rank's second message; later, a rank ahead may take the port of
// one whose partner is behind. Which message a port serves first depends on when each was posted,
// which the formula does not follow: it lets them arrive side by side, a lower bound there (the
// engine is up to about 20% slower on 3 processes; tests/registry/formula_agreement_test.cpp).
double derived_allreduce_rabenseifner(const FormulaInput& in) {
  const std::size_t ts = type_size(in), count = element_count(in);
  if (count == 0 || in.procs <= 1) return 0;
  const int P = in.procs, pof2 = largest_power_of_two(P), extra = P - pof2;
  if (count < static_cast<std::size_t>(pof2) || !is_commutative(in.params.reduction.op))
    return derived_allreduce_basic_linear(in);
  auto t = [&](std::size_t elements) { return in.t(static_cast<double>(elements * ts)); };
  auto g = [&](std::size_t elements) { return reduce_cost(in, static_cast<double>(elements * ts)); };

  const std::size_t lh = count / 2, rh = count - lh;
  const double swapped = std::max(t(lh), t(rh));
  const double odd_done = swapped + g(rh) + t(rh);  // its send of the reduced upper half ends
  const double D = std::max(swapped + g(lh), odd_done);

  const auto n = static_cast<std::size_t>(pof2);
  std::vector<std::vector<Halving>> steps(n);
  std::vector<double> c(n);
  for (int u = 0; u < pof2; ++u) {
    steps[static_cast<std::size_t>(u)] = rabenseifner_halvings(u, pof2, count);
    c[static_cast<std::size_t>(u)] = u < extra ? D : 0;
  }
  const std::size_t levels = steps[0].size();
  auto exchange = [&](std::size_t k, bool halving) {
    std::vector<double> next(n);
    for (std::size_t u = 0; u < n; ++u) {
      const std::size_t v = u ^ (std::size_t{1} << k);
      const Halving &a = steps[u][k], &b = steps[v][k];
      next[u] = halving ? std::max(c[u] + t(a.sent_count), c[v] + t(b.sent_count)) + g(a.keep_count)
                        : std::max(c[u] + t(a.keep_count), c[v] + t(b.keep_count));
    }
    c = std::move(next);
  };
  for (std::size_t k = 0; k < levels; ++k) exchange(k, true);
  for (std::size_t k = levels; k-- > 0;) exchange(k, false);

  double end = extra > 0 ? odd_done : 0;
  for (std::size_t u = 0; u < n; ++u)
    end = std::max(end, c[u] + (static_cast<int>(u) < extra ? in.t(static_cast<double>(in.bytes)) : 0));
  return end;
}

// nonoverlapping: a reduce to rank 0, then a broadcast from it (as allreduce/basic_linear,
// registry/allreduce.cpp, which says why the two times add up), with the communicator's reduce and
// bcast: Open MPI 4.1's fixed decisions for m bytes.
double derived_allreduce_nonoverlapping(const FormulaInput& in) {
  if (in.procs <= 1 || in.bytes == 0) return 0;
  return derived_fixed_choice(Operation::reduce, in, in.bytes, 0) +
         derived_fixed_choice(Operation::bcast, in, in.bytes, 0);
}

constexpr std::array kEntries{
    // allreduce (buffers as reduce's, every rank's result filled): no tree. basic_linear,
    // nonoverlapping and rabenseifner (whose fallback is basic_linear) compose reduce's derived
    // formulas, as reduce_scatter/non-overlapping does.
    AlgorithmInfo{.name = "allreduce/basic_linear",
                  .op = Operation::allreduce,
                  .ompi_id = 1,
                  .knobs = kNoKnobs,
                  .summary = "linear reduce to rank 0, then linear bcast from it (rank order kept)",
                  .run = &as_reduce<allreduce_basic_linear>,
                  .max_procs = kAnyProcs,
                  .tree = nullptr,
                  .textbook = nullptr,
                  .derived = derived_allreduce_basic_linear,
                  .receives_first = false,
                  .keeps_rank_order = true},
    AlgorithmInfo{.name = "allreduce/nonoverlapping",
                  .op = Operation::allreduce,
                  .ompi_id = 2,
                  .knobs = kNoKnobs,
                  .summary = "the communicator's reduce to rank 0, then its bcast (Open MPI 4.1's fixed decisions)",
                  .run = &as_reduce<allreduce_nonoverlapping>,
                  .max_procs = kAnyProcs,
                  .tree = nullptr,
                  .textbook = nullptr,
                  .derived = derived_allreduce_nonoverlapping,
                  .receives_first = false,
                  .keeps_rank_order = true},
    AlgorithmInfo{.name = "allreduce/recursive_doubling",
                  .op = Operation::allreduce,
                  .ompi_id = 3,
                  .knobs = kNoKnobs,
                  .summary = "whole vectors exchanged with rank XOR 1, 2, 4, ... (rank order kept)",
                  .run = &as_reduce<allreduce_recursive_doubling>,
                  .max_procs = kAnyProcs,
                  .tree = nullptr,
                  .textbook = textbook_allreduce_recursive_doubling,
                  .derived = derived_allreduce_recursive_doubling,
                  .receives_first = false,
                  .keeps_rank_order = true},
    AlgorithmInfo{.name = "allreduce/ring",
                  .op = Operation::allreduce,
                  .ompi_id = 4,
                  .knobs = kNoKnobs,
                  .summary = "ring reduce-scatter, ring allgather of p blocks; recursive_doubling below p elements",
                  .run = &as_reduce<allreduce_ring>,
                  .max_procs = kAnyProcs,
                  .tree = nullptr,
                  .textbook = textbook_allreduce_ring,
                  .derived = derived_allreduce_ring,
                  .receives_first = false,
                  .keeps_rank_order = false},
    AlgorithmInfo{.name = "allreduce/segmented_ring",
                  .op = Operation::allreduce,
                  .ompi_id = 5,
                  .knobs = kSegment,
                  .summary = "ring reduce-scatter in phases of segment-sized pieces, then ring allgather",
                  .run = &as_reduce<allreduce_segmented_ring>,
                  .max_procs = kAnyProcs,
                  .tree = nullptr,
                  .textbook = nullptr,
                  .derived = derived_allreduce_segmented_ring,
                  .receives_first = false,
                  .keeps_rank_order = false},
    AlgorithmInfo{.name = "allreduce/rabenseifner",
                  .op = Operation::allreduce,
                  .ompi_id = 6,
                  .knobs = kNoKnobs,
                  .summary = "recursive-halving reduce-scatter, then recursive-doubling allgather (commutative ops)",
                  .run = &as_reduce<allreduce_rabenseifner>,
                  .max_procs = kAnyProcs,
                  .tree = nullptr,
                  .textbook = textbook_allreduce_rabenseifner,
                  .derived = derived_allreduce_rabenseifner,
                  .receives_first = false,
                  .keeps_rank_order = true},
};

}  // namespace
}  // namespace models

std::span<const AlgorithmInfo> allreduce_entries() { return models::kEntries; }

}  // namespace collsim
