#include "models/coarray_cost.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/ompi41_decision.hpp"
#include "algorithms/rank_math.hpp"

namespace collsim::models {

using coarray::PutMode;

double datatype_overhead(const coarray::Scheme& scheme, std::size_t bytes, const Overhead& overhead) {
  const std::size_t m = std::min(scheme.nl, scheme.nr);
  if (m == 0 || bytes == 0) return 0;
  return static_cast<double>(bytes / m) * overhead.at(m);
}

namespace {

// The copies of one buffered unit of n bytes: its n / NL pieces one by one in cases 2 and 3, the
// unit at once in cases 1 and 4 (coarray_transfer.cpp's pack and unpack), each c0 + bytes / bw.
double unit_copies(const coarray::Scheme& scheme, std::size_t n, const CoarrayCosts& costs) {
  if (n == 0) return 0;
  const std::size_t k = scheme.table_case == 2 || scheme.table_case == 3 ? n / scheme.nl : 1;
  return static_cast<double>(k) * copy_time(static_cast<double>(n / k), costs.copy_bandwidth, costs.copy_overhead);
}

}  // namespace

// The units of the segment in order, each of n_i bytes, with c_i = k_i*c0 + n_i / bw its copies
// (cases 1 to 4 copy each unit's bytes once, in k_i pieces: unit_copies), o_i = o(n_i), f = o(0),
// w_i = beta*n_i. The origin's clock t and its port p start at 0. Unit i:
//  - buffered, before its copies, the origin waits for the put that last read the buffer it is
//    about to fill: none when blocking (each put was waited for) or nowait (its own copy); put
//    i-1 when safe; put i-2 when double-buffered. DMA waits for nothing;
//  - copies (buffered): t += c_i; its put's overhead: t += o_i;
//  - the put starts at s_i = max(t, p), p = s_i + w_i, and arrives at a_i = s_i + alpha + w_i;
//  - blocking: t = a_i (wait), then the flush: t = t + f + alpha.
// The segment's end waits for every put (t = max(t, a_i)), then flush_all: t += f, and + alpha
// if any put is unflushed (every non-blocking one), then win_sync: t += F. With o = F = 0 this
// sums to the closed forms
//   blocking          C + 2*alpha*k + beta*S
//   safe, buffered    C + alpha*(k+1) + beta*S           (each unit waits for the previous put)
//   DMA, non-blocking alpha*2 + beta*m*k                 (k puts of m bytes back to back)
// (C all copies, k puts, S bytes); nowait and double-buffered keep the max()es of the rules.
// Per-statement registration adds R = registration.time(registered_bytes) to the origin's clock
// before each statement's first unit: + statements*R when blocking, at most that otherwise.
//
// The datatype scheme is one unit of all S_st bytes a statement, not buffered, whose overhead is
// that of its k pieces, k * o(m) (m = min(NL, NR), k = S_st / m; datatype_overhead): blocking,
// k*o(m) + 2*alpha + beta*S_st + f a statement, and the end's f.
double coarray_put_time(const coarray::Plan& plan, const CoarrayCosts& costs, PutMode mode) {
  const double alpha = costs.hockney.alpha, beta = costs.hockney.beta, f = costs.overhead.at(0);
  const std::size_t per_statement = plan.statements > 0 ? plan.bytes / plan.statements : 0;
  const bool datatype = plan.scheme.datatype();
  const coarray::UnitSizes units =
      datatype ? coarray::UnitSizes{per_statement > 0 ? 1U : 0U, 1, per_statement, per_statement}
               : coarray::unit_sizes(plan.scheme, per_statement);
  const bool buffered = !plan.scheme.dma() && !datatype;
  double t = 0, port = 0, latest = 0;
  double arrived[2] = {0, 0};  // the last two puts' arrivals: [0] the latest
  bool unflushed = false;
  for (std::size_t st = 0; st < plan.statements; ++st) {
    t += costs.registration_per_statement();
    for (std::size_t r = 0; r < units.runs; ++r)
      for (std::size_t u = 0; u < units.per_run; ++u) {
        const std::size_t n = u + 1 == units.per_run ? units.last : units.unit;
        const double bytes = static_cast<double>(n);
        if (buffered) {
          if (mode == PutMode::nonblocking) t = std::max(t, arrived[0]);
          if (mode == PutMode::double_buffered) t = std::max(t, arrived[1]);
          t += unit_copies(plan.scheme, n, costs);
        }
        t += datatype ? datatype_overhead(plan.scheme, n, costs.overhead) : costs.overhead.at(n);
        const double start = std::max(t, port);
        port = start + beta * bytes;
        const double arrival = start + alpha + beta * bytes;
        arrived[1] = arrived[0], arrived[0] = arrival;
        latest = std::max(latest, arrival);
        if (mode == PutMode::blocking) {
          t = arrival + f + alpha;
        } else {
          unflushed = true;
        }
      }
  }
  t = std::max(t, latest) + f + (unflushed ? alpha : 0);
  return t + costs.sync_overhead;
}

// Every get is waited for before the next operation: a get of n bytes takes o_get(n) + 2*alpha +
// beta*n, and the copies out of the buffer add C = copies*c0 + S_copied / bw (cases 1 to 4;
// Table 1's single get per unit or Omni's get per NL piece only change k and the sizes). DMA gets
// straight into local memory, C = 0. With o = 0: k*2*alpha + beta*S + C. The segment's end adds
// f + F, each statement its registration.
double coarray_get_time(const coarray::Plan& plan, const CoarrayCosts& costs) {
  const double alpha = costs.hockney.alpha, beta = costs.hockney.beta;
  const Overhead& o = costs.get_table();
  double overheads = costs.overhead.at(0);     // the end's flush_all
  if (plan.scheme.datatype() && !o.empty()) {  // a get of k pieces a statement: k * o(m)
    const std::size_t per_statement = plan.statements > 0 ? plan.bytes / plan.statements : 0;
    overheads += static_cast<double>(plan.transfers) * datatype_overhead(plan.scheme, per_statement, o);
  } else if (!o.empty()) {
    // The gets' sizes: a unit each, or (Omni's per-piece GET in cases 2 and 3) an NL piece each.
    const std::size_t per_statement = plan.statements > 0 ? plan.bytes / plan.statements : 0;
    const coarray::UnitSizes units = coarray::unit_sizes(plan.scheme, per_statement);
    const std::size_t units_total = plan.statements * units.runs * units.per_run;
    if (plan.transfers != units_total) {
      overheads += static_cast<double>(plan.transfers) * o.at(plan.scheme.nl);
    } else {
      const auto last_per_run = static_cast<double>(units.runs * plan.statements);
      overheads += last_per_run * (static_cast<double>(units.per_run - 1) * o.at(units.unit) + o.at(units.last));
    }
  }
  return 2 * alpha * static_cast<double>(plan.transfers) + beta * static_cast<double>(plan.bytes) +
         copy_time(static_cast<double>(plan.bytes_copied), costs.copy_bandwidth) +
         static_cast<double>(plan.copies) * costs.copy_overhead + overheads +
         static_cast<double>(plan.statements) * costs.registration_per_statement() + costs.sync_overhead;
}

namespace {

// Rank 0's releases down the barrier tree (algorithms/barrier.cpp, barrier_tree): every rank
// blocking-sends to its children farthest first, each send s after the last; the last arrival
// after rank 0 starts, in messages.
double tree_release(int procs) {
  int depth = 1;
  while (depth < procs) depth <<= 1;
  std::vector<double> at(static_cast<std::size_t>(procs), 0);
  double last = 0;
  for (int v = 0; v < procs; ++v) {  // a parent before its children
    const int lowest = v == 0 ? depth : (v & -v);
    int farthest = 0;
    for (int jump = 1; jump < lowest && v + jump < procs; jump <<= 1) farthest = jump;
    double clock = at[static_cast<std::size_t>(v)];
    for (int jump = farthest; jump > 0; jump >>= 1) at[static_cast<std::size_t>(v + jump)] = clock += 1;
    last = std::max(last, clock);
  }
  return last;
}

// The barrier's time from the last rank's entry, the origin's, in zero-byte messages.
double late_barrier_messages(int procs, int origin) {
  const std::string_view name = ompi41_fixed_choice(Operation::barrier, procs, 0).algorithm;
  if (name == "recursive_doubling") {
    const int pof2 = largest_power_of_two(procs), extra = procs - pof2;
    const int k = std::countr_zero(static_cast<unsigned>(pof2));
    return k + (extra > 0 ? 1 : 0) + (origin >= pof2 ? 1 : 0);
  }
  if (name == "linear") return origin == 0 ? procs - 1 : procs;
  if (name == "bruck") {
    int rounds = 0;
    for (int distance = 1; distance < procs; distance <<= 1) ++rounds;
    return rounds;
  }
  if (name == "tree") return std::popcount(static_cast<unsigned>(origin)) + tree_release(procs);
  throw std::logic_error("coarray_sync_time: no rule for barrier/" + std::string(name));
}

}  // namespace

double coarray_sync_time(coarray::SyncKind kind, int images, int origin, const CoarrayCosts& costs) {
  const double f = costs.overhead.at(0), s = f + costs.hockney.alpha, end = f + costs.sync_overhead;
  switch (kind) {
    case coarray::SyncKind::memory: return 0;
    case coarray::SyncKind::images: return s + end;
    case coarray::SyncKind::all: return late_barrier_messages(images, origin) * s + end;
  }
  return 0;
}

std::optional<double> coarray_pattern_time(coarray::Pattern pattern, int images, const coarray::Plan& plan,
                                           const CoarrayCosts& costs, PutMode mode, bool get) {
  auto alone = [&](const coarray::Plan& p) {
    return get ? coarray_get_time(p, costs) : coarray_put_time(p, costs, mode);
  };
  switch (pattern) {
    case coarray::Pattern::one:
    case coarray::Pattern::ring: return alone(plan);
    case coarray::Pattern::halo: {
      coarray::Plan both = plan;
      both.statements *= 2, both.bytes *= 2, both.transfers *= 2, both.copies *= 2, both.bytes_copied *= 2;
      return alone(both);
    }
    case coarray::Pattern::all_to_one: {
      if (plan.transfers == 1) return alone(plan) + (images - 2) * costs.hockney.beta * static_cast<double>(plan.bytes);
      // Blocking PUTs of k units of one size n: each unit a cycle C = p + 2*alpha + beta*n + f.
      if (get || mode != PutMode::blocking || plan.scheme.datatype() || costs.registration_per_statement() > 0)
        return std::nullopt;
      const std::size_t per_statement = plan.statements > 0 ? plan.bytes / plan.statements : 0;
      const coarray::UnitSizes units = coarray::unit_sizes(plan.scheme, per_statement);
      if (units.last != units.unit) return std::nullopt;
      const double alpha = costs.hockney.alpha, beta = costs.hockney.beta, f = costs.overhead.at(0);
      const double n = static_cast<double>(units.unit), k = static_cast<double>(plan.transfers);
      const double p =
          (plan.scheme.dma() ? 0 : unit_copies(plan.scheme, units.unit, costs)) + costs.overhead.at(units.unit);
      return std::max(alone(plan) + (images - 2) * beta * n,
                      p + (images - 1) * k * beta * n + 2 * alpha + 2 * f + costs.sync_overhead);
    }
  }
  return std::nullopt;
}

}  // namespace collsim::models
