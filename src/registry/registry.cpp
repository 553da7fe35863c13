#include "registry/registry.hpp"

#include <array>
#include <climits>
#include <utility>

#include "algorithms/ompi41_decision.hpp"
#include "registry/entries.hpp"
#include "support/input_error.hpp"

namespace collsim {

namespace {

// Open MPI's knobs and defaults (params.hpp); it caps the chain fanout at 32 (MAXTREEFANOUT) and
// requires a k-nomial radix above 1. It takes a negative max_requests for 0 (with a warning); we
// refuse it.
constexpr std::array kKnobs{
    KnobInfo{Knob::segment, "segment", "segment", "SIZE", 0, LLONG_MAX, 0,
             "segment size for segmented algorithms, 0 = unsegmented (default 0)"},
    KnobInfo{Knob::fanout, "fanout", "fanout", "K", 1, kMaxTreeFanout, 4,
             "bcast/chain, reduce/chain: chains off the root (default 4)"},
    KnobInfo{Knob::radix, "radix", "radix", "K", 2, INT_MAX, 4, "bcast/knomial: tree radix (default 4)"},
    KnobInfo{Knob::max_requests, "max-requests", "max_requests", "N", 0, INT_MAX, 0,
             "requests in flight: scatter/linear_nb blocks on every N-th send, alltoall/linear_sync keeps N "
             "receives and N sends, reduce trees' leaves N isends; 0 = no limit (default 0)"},
};

// Short names people use for Open MPI's tree broadcasts (the design card says bcast/binary).
constexpr std::pair<std::string_view, std::string_view> kAliases[] = {
    {"bcast/binary", "bcast/binary_tree"},
    {"bcast/split_binary", "bcast/split_binary_tree"},
    {"bcast/linear", "bcast/basic_linear"},
    {"gather/linear", "gather/basic_linear"},
};

}  // namespace

std::span<const KnobInfo> all_knobs() { return kKnobs; }

const KnobInfo& knob_info(Knob knob) {
  for (const auto& k : kKnobs)
    if (k.knob == knob) return k;
  return kKnobs[0];
}

// The operations' tables in Operation's order; built on first use, so that tests instantiated
// during static initialisation find it whole.
std::span<const AlgorithmInfo> all_algorithms() {
  static const std::vector<AlgorithmInfo> all = [] {
    std::vector<AlgorithmInfo> out;
    for (const auto table : {bcast_entries, gather_entries, scatter_entries, barrier_entries, allgather_entries,
                             alltoall_entries, reduce_entries, allreduce_entries, reduce_scatter_entries})
      out.insert(out.end(), table().begin(), table().end());
    return out;
  }();
  return all;
}

namespace {

// The derived formula of `algorithm` for a nested call of `bytes` from `root` with `params`
// (the caller's reduction kept); there is none to compose with until the entry has one.
double nested(const AlgorithmInfo& algorithm, const models::FormulaInput& in, std::size_t bytes,
              AlgorithmParams params) {
  if (!algorithm.derived)
    throw InputError(std::string(algorithm.name) + " has no derived formula, which the nested call needs");
  models::FormulaInput call = in;
  call.bytes = bytes;
  params.reduction = in.params.reduction;
  call.params = params;
  return algorithm.derived(call);
}

}  // namespace

double derived_fixed_choice(Operation op, const models::FormulaInput& in, std::size_t bytes, int root) {
  AlgorithmParams params;
  const AlgorithmInfo& a = fixed_choice(op, in.procs, bytes, is_commutative(in.params.reduction.op), root, params);
  return nested(a, in, bytes, params);
}

double derived_formula(std::string_view name, const models::FormulaInput& in) {
  const AlgorithmInfo* a = find_algorithm(name);
  return a->derived(in);
}

bool runs_on(const AlgorithmInfo& algorithm, int procs) {
  return procs <= 1 || algorithm.max_procs == 0 || procs <= algorithm.max_procs;
}

const AlgorithmInfo* find_algorithm(std::string_view name) {
  for (const auto& [alias, full] : kAliases)
    if (name == alias) name = full;
  for (const auto& a : all_algorithms())
    if (a.name == name) return &a;
  return nullptr;
}

const AlgorithmInfo* find_algorithm(Operation op, std::string_view name) {
  const std::string_view prefix = to_string(op);
  for (const auto& a : all_algorithms())
    if (a.op == op && a.name.size() == prefix.size() + 1 + name.size() && a.name.ends_with(name) &&
        a.name[prefix.size()] == '/')
      return &a;
  return nullptr;
}

const AlgorithmInfo* find_algorithm(Operation op, int ompi_id) {
  if (ompi_id <= 0) return nullptr;  // 0 is no number: collsim's own algorithms have it
  for (const auto& a : all_algorithms())
    if (a.op == op && a.ompi_id == ompi_id) return &a;
  return nullptr;
}

const AlgorithmInfo& fixed_choice(Operation op, int procs, std::size_t bytes, bool commutative, int root,
                                  AlgorithmParams& params) {
  const FixedChoice choice = ompi41_fixed_choice(op, procs, ompi41_decision_bytes(op, procs, bytes), commutative);
  const AlgorithmInfo* a = find_algorithm(op, choice.algorithm);
  if (!a)
    throw InputError("Open MPI 4.1 runs " + std::string(to_string(op)) + "/" + std::string(choice.algorithm) +
                     " here, which collsim does not have");
  params = choice.params;
  params.root = root;
  return *a;
}

std::string algorithm_names() {
  std::string out;
  for (const auto& a : all_algorithms()) {
    if (!out.empty()) out += ", ";
    out += a.name;
  }
  return out;
}

std::string knob_error(const AlgorithmInfo& algorithm, Knob knob, long long value) {
  const KnobInfo& k = knob_info(knob);
  const std::string name(k.name);
  // Segment 0, the documented default, means unsegmented: what an algorithm without segments is.
  if (!algorithm.takes(knob) && !(knob == Knob::segment && value == 0)) {
    std::string takers;
    int count = 0;
    for (const auto& a : all_algorithms())
      if (a.takes(knob)) takers += (count++ ? ", " : "") + std::string(a.name);
    return name + " does not apply to " + std::string(algorithm.name) +
           (count <= 2 ? " (only to " + takers + ")" : " (it takes no " + name + ")");
  }
  if (value < k.min || value > k.max) {
    if (k.max == LLONG_MAX || k.max == INT_MAX)
      return name + " must be at least " + std::to_string(k.min) + ", not " + std::to_string(value);
    return name + " must be between " + std::to_string(k.min) + " and " + std::to_string(k.max) + ", not " +
           std::to_string(value);
  }
  return {};
}

void set_knob(AlgorithmParams& params, Knob knob, long long value) {
  switch (knob) {
    case Knob::segment: params.segment = static_cast<std::size_t>(value); break;
    case Knob::fanout: params.fanout = static_cast<int>(value); break;
    case Knob::radix: params.radix = static_cast<int>(value); break;
    case Knob::max_requests: params.max_requests = static_cast<int>(value); break;
  }
}

long long get_knob(const AlgorithmParams& params, Knob knob) {
  switch (knob) {
    case Knob::segment: return static_cast<long long>(params.segment);
    case Knob::fanout: return params.fanout;
    case Knob::radix: return params.radix;
    case Knob::max_requests: return params.max_requests;
  }
  return 0;
}

}  // namespace collsim
