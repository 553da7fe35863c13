// The cost of one algorithm decision, as an MPI library pays it at every collective call.
//
// Times, in one run on the same pseudo-random calls (communicator sizes 1..4096 and message sizes
// 1 B..16 MiB, log-uniform, fixed seed): Open MPI 3.1's and 4.1's fixed decisions, a
// DecisionTable lookup (two tables: one built by model-based selection, one with a row per
// communicator size), and for contrast model-based selection run directly at each call, with the
// textbook closed forms and with the implementation-derived formulas (the latter on 2..64
// processes and up to 1 MiB: each of its predictions walks the algorithm's messages). Prints ns
// per decision and the ratio to the table lookup; the target for what a library runs per call is
// under 100 ns. Run:
//   build/release/bin/decision_cost [seconds per measurement=0.3]
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "selection/decision_table.hpp"
#include "selection/model_selection.hpp"

namespace {

using namespace collsim;
using namespace collsim::selection;

struct Call {
  int procs;
  std::size_t bytes;
};

std::vector<Call> calls(int max_log2_procs, int max_log2_bytes, std::size_t n) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<Call> out(n);
  for (Call& c : out) {
    c.procs = static_cast<int>(std::lround(std::exp2(u(rng) * max_log2_procs)));
    c.bytes = static_cast<std::size_t>(std::exp2(u(rng) * max_log2_bytes));
  }
  return out;
}

// Something of every choice flows into the result, so no decision can be optimised away.
std::uint64_t digest(const Choice& c) {
  return static_cast<std::uint64_t>(c.algorithm->ompi_id) + c.params.segment +
         static_cast<std::uint64_t>(c.params.fanout);
}

struct Timing {
  double ns_per_decision;
  std::uint64_t digest;
};

// Runs `decide` over `cs` until `seconds` have passed (whole passes, at least one).
template <class F>
Timing time_decisions(const std::vector<Call>& cs, double seconds, F&& decide) {
  using clock = std::chrono::steady_clock;
  std::uint64_t sum = 0, decisions = 0;
  const auto start = clock::now();
  double elapsed = 0;
  do {
    for (const Call& c : cs) sum += digest(decide(c.procs, c.bytes));
    decisions += cs.size();
    elapsed = std::chrono::duration<double>(clock::now() - start).count();
  } while (elapsed < seconds);
  return {elapsed * 1e9 / static_cast<double>(decisions), sum};
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 0.3;
  if (!(seconds > 0) || seconds > 60) {
    std::fprintf(stderr, "usage: decision_cost [seconds per measurement, 0..60]\n");
    return 2;
  }
  const std::vector<Call> wide = calls(12, 24, 4096);
  const std::vector<Call> narrow = calls(6, 20, 512);

  models::FormulaCosts costs;
  costs.hockney = {2e-5, 8e-10};
  const Predictor textbook = formula_predictor(costs, FormulaKind::textbook);
  const Predictor derived = formula_predictor(costs, FormulaKind::derived);
  const auto bcast_candidates = default_candidates(Operation::bcast);
  const auto gather_candidates = default_candidates(Operation::gather);

  // What a library would load: the model's selection, sampled at powers of two of the
  // communicator size and at sample_sizes() of the message.
  std::vector<int> pow2;
  for (int p = 1; p <= 4096; p *= 2) pow2.push_back(p);
  const auto sizes = sample_sizes(std::size_t{1} << 24);
  const DecisionTable model_table = DecisionTable::build(Operation::bcast, pow2, sizes, [&](int p, std::size_t m) {
    return select_by_model(Operation::bcast, p, m, textbook, bcast_candidates);
  });
  // A larger one: a row at every communicator size 1..4096 (Open MPI 3.1's decision, whose
  // boundaries depend on both sizes, so few rows merge).
  std::vector<int> every;
  for (int p = 1; p <= 4096; ++p) every.push_back(p);
  const DecisionTable dense_table = DecisionTable::build(Operation::bcast, every, sizes, [](int p, std::size_t m) {
    return ompi_fixed_decision(OmpiVersion::v3_1, Operation::bcast, p, m);
  });
  auto ranges = [](const DecisionTable& t) {
    std::size_t n = 0;
    for (const auto& row : t.rows()) n += row.ranges.size();
    return n;
  };

  struct Line {
    std::string what;
    Timing t;
  };
  std::vector<Line> lines;
  const double s = seconds;
  lines.push_back({"fixed 3.1 bcast", time_decisions(wide, s, [](int p, std::size_t m) {
                     return ompi_fixed_decision(OmpiVersion::v3_1, Operation::bcast, p, m);
                   })});
  lines.push_back({"fixed 3.1 gather", time_decisions(wide, s, [](int p, std::size_t m) {
                     return ompi_fixed_decision(OmpiVersion::v3_1, Operation::gather, p, m);
                   })});
  lines.push_back({"fixed 4.1 bcast", time_decisions(wide, s, [](int p, std::size_t m) {
                     return ompi_fixed_decision(OmpiVersion::v4_1, Operation::bcast, p, m);
                   })});
  lines.push_back({"fixed 4.1 gather", time_decisions(wide, s, [](int p, std::size_t m) {
                     return ompi_fixed_decision(OmpiVersion::v4_1, Operation::gather, p, m);
                   })});
  const std::size_t table_line = lines.size();
  lines.push_back({"table lookup (model table, " + std::to_string(model_table.rows().size()) + " rows, " +
                       std::to_string(ranges(model_table)) + " ranges)",
                   time_decisions(wide, s, [&](int p, std::size_t m) { return model_table.lookup(p, m); })});
  lines.push_back({"table lookup (dense table, " + std::to_string(dense_table.rows().size()) + " rows, " +
                       std::to_string(ranges(dense_table)) + " ranges)",
                   time_decisions(wide, s, [&](int p, std::size_t m) { return dense_table.lookup(p, m); })});
  lines.push_back({"select_by_model, textbook formulas, " + std::to_string(bcast_candidates.size()) + " candidates",
                   time_decisions(wide, s, [&](int p, std::size_t m) {
                     return select_by_model(Operation::bcast, p, m, textbook, bcast_candidates);
                   })});
  lines.push_back({"select_by_model, derived formulas, " + std::to_string(bcast_candidates.size()) +
                       " candidates, P <= 64, m <= 1MiB",
                   time_decisions(narrow, s, [&](int p, std::size_t m) {
                     return select_by_model(Operation::bcast, p, m, derived, bcast_candidates);
                   })});
  lines.push_back({"select_by_model gather, derived formulas, " + std::to_string(gather_candidates.size()) +
                       " candidates, P <= 64, m <= 1MiB",
                   time_decisions(narrow, s, [&](int p, std::size_t m) {
                     return select_by_model(Operation::gather, p, m, derived, gather_candidates);
                   })});

  const double reference = lines[table_line].t.ns_per_decision;
  std::uint64_t all = 0;
  std::printf("cost of one decision (%zu calls: P 1..4096, m 1B..16MiB, log-uniform; %.2f s each)\n", wide.size(),
              seconds);
  std::printf("%-78s %12s %10s\n", "decision", "ns/decision", "x lookup");
  for (const Line& l : lines) {
    std::printf("%-78s %12.1f %10.1f\n", l.what.c_str(), l.t.ns_per_decision, l.t.ns_per_decision / reference);
    all += l.t.digest;
  }
  std::printf("(digest %llu)\n", static_cast<unsigned long long>(all % 1000003));
  return 0;
}
