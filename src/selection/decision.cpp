#include "selection/decision.hpp"

#include <array>
#include <cstdint>

#include "algorithms/ompi41_decision.hpp"
#include "support/input_error.hpp"
#include "support/units.hpp"

namespace collsim::selection {

bool operator==(const Choice& a, const Choice& b) {
  if (a.algorithm != b.algorithm) return false;
  if (a.algorithm == nullptr) return true;
  for (const KnobInfo& k : all_knobs())
    if (a.algorithm->takes(k.knob) && get_knob(a.params, k.knob) != get_knob(b.params, k.knob)) return false;
  return true;
}

std::string to_string(const Choice& choice) {
  if (choice.algorithm == nullptr) return "(none)";
  std::string out(choice.algorithm->name);
  for (const KnobInfo& k : all_knobs()) {
    if (!choice.algorithm->takes(k.knob)) continue;
    const long long v = get_knob(choice.params, k.knob);
    // Appended piece by piece: GCC 12 misreports `" " + std::string` chains (-Wrestrict).
    out += ' ';
    out += k.name;
    out += ' ';
    out += k.knob == Knob::segment ? format_bytes(static_cast<std::size_t>(v)) : std::to_string(v);
  }
  return out;
}

std::string_view to_string(OmpiVersion v) {
  switch (v) {
    case OmpiVersion::v3_1: return "3.1";
    case OmpiVersion::v4_1: return "4.1";
  }
  return "?";
}

namespace {

Choice make(Operation op, std::string_view algorithm, std::size_t segment, int fanout = 4) {
  Choice c;
  c.algorithm = find_algorithm(op, algorithm);
  if (!c.algorithm)
    throw InputError("Open MPI picks " + std::string(to_string(op)) + "/" + std::string(algorithm) +
                     ", which collsim does not have");
  c.params.segment = segment;
  c.params.fanout = fanout;
  return c;
}

constexpr std::size_t KiB = 1024;

// 3.1: thresholds in message bytes, and lines p < a*m + b fitted to measurements (Open MPI's
// comparison is in double: the process count and the bytes converted, the product rounded).
Choice bcast_3_1(int procs, std::size_t bytes) {
  if (bytes < 2048) return make(Operation::bcast, "binomial", 0);
  if (bytes < 370728) return make(Operation::bcast, "split_binary_tree", 1 * KiB);
  const double m = static_cast<double>(bytes), p = procs;
  if (p < 1.6134e-6 * m + 2.1102) return make(Operation::bcast, "pipeline", 128 * KiB);
  if (procs < 13) return make(Operation::bcast, "split_binary_tree", 8 * KiB);
  if (p < 2.3679e-6 * m + 1.1787) return make(Operation::bcast, "pipeline", 64 * KiB);
  if (p < 3.2118e-6 * m + 8.7936) return make(Operation::bcast, "pipeline", 16 * KiB);
  return make(Operation::bcast, "pipeline", 8 * KiB);
}

Choice gather_3_1(int procs, std::size_t bytes) {
  if (bytes > 92160) return make(Operation::gather, "linear_sync", 32 * KiB);
  if (bytes > 6000) return make(Operation::gather, "linear_sync", 1 * KiB);
  if (procs > 60 || (procs > 10 && bytes < 1024)) return make(Operation::gather, "binomial", 0);
  return make(Operation::gather, "basic_linear", 0);
}

}  // namespace

Choice ompi_fixed_decision(OmpiVersion v, Operation op, int procs, std::size_t bytes, bool commutative) {
  if (procs < 1) throw InputError("a decision needs at least 1 process, not " + std::to_string(procs));
  if (v == OmpiVersion::v3_1) {
    if (op == Operation::bcast) return bcast_3_1(procs, bytes);
    if (op == Operation::gather) return gather_3_1(procs, bytes);
    throw InputError("Open MPI 3.1's fixed decision is written here for bcast and gather only, not " +
                     std::string(to_string(op)));
  }
  // 4.1's tables are also what algorithms calling another collective run (nested_collective.hpp).
  const FixedChoice fixed = ompi41_fixed_choice(op, procs, ompi41_decision_bytes(op, procs, bytes), commutative);
  Choice c = make(op, fixed.algorithm, fixed.params.segment, fixed.params.fanout);
  c.params.max_requests = fixed.params.max_requests;
  return c;
}

}  // namespace collsim::selection
