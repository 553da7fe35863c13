#include "algorithms/registry.hpp"

#include <array>
#include <climits>
#include <utility>

#include "algorithms/bcast.hpp"
#include "algorithms/gather.hpp"
#include "algorithms/reduce.hpp"
#include "algorithms/virtual_trees.hpp"
#include "models/formulas.hpp"

namespace collsim {

namespace {

template <Task<> (*F)(Comm&, Buffer, const AlgorithmParams&)>
Task<> as_bcast(Comm& comm, RankBuffers b, const AlgorithmParams& p) {
  return F(comm, b.data, p);
}

template <Task<> (*F)(Comm&, Buffer, Buffer, const AlgorithmParams&)>
Task<> as_gather(Comm& comm, RankBuffers b, const AlgorithmParams& p) {
  return F(comm, b.data, b.result, p);
}

template <Task<> (*F)(Comm&, Buffer, Buffer, const AlgorithmParams&)>
Task<> as_reduce(Comm& comm, RankBuffers b, const AlgorithmParams& p) {
  return F(comm, b.data, b.result, p);
}

// Open MPI's knobs and defaults (params.hpp); it caps the chain fanout at 32 (MAXTREEFANOUT) and
// requires a k-nomial radix above 1.
constexpr std::array kKnobs{
    KnobInfo{Knob::segment, "segment", "SIZE", 0, LLONG_MAX, 0,
             "segment size for segmented algorithms, 0 = unsegmented (default 0)"},
    KnobInfo{Knob::fanout, "fanout", "K", 1, kMaxTreeFanout, 4,
             "bcast/chain, reduce/chain: chains off the root (default 4)"},
    KnobInfo{Knob::radix, "radix", "K", 2, INT_MAX, 4, "bcast/knomial: tree radix (default 4)"},

    KnobInfo{Knob::max_requests, "max_requests", "N", 0, INT_MAX, 0,
             "reduce trees: isends a leaf keeps in flight, 0 = unlimited (default 0)"},
};

constexpr unsigned kSegment = static_cast<unsigned>(Knob::segment);
constexpr unsigned kFanout = static_cast<unsigned>(Knob::fanout);
constexpr unsigned kRadix = static_cast<unsigned>(Knob::radix);
constexpr unsigned kMaxRequests = static_cast<unsigned>(Knob::max_requests);

using namespace models;

// In Open MPI's ID order per operation. scatter_allgather(_ring) accept a segment size in Open
// MPI and ignore it, so they take none here.
const std::array kAlgorithms{
    AlgorithmInfo{"bcast/basic_linear", Operation::bcast, 1, 0,
                  "the root isends the whole message to every rank at once", &as_bcast<bcast_basic_linear>, linear_node,
                  textbook_bcast_basic_linear, derived_bcast_basic_linear},
    AlgorithmInfo{"bcast/chain", Operation::bcast, 2, kSegment | kFanout,
                  "fanout chains off the root, segments pipelined along them (generic tree bcast)",
                  &as_bcast<bcast_chain>, chain_node, nullptr, derived_bcast_chain},
    AlgorithmInfo{"bcast/pipeline", Operation::bcast, 3, kSegment,
                  "one chain through all ranks, segments pipelined (generic tree bcast)", &as_bcast<bcast_pipeline>,
                  pipeline_node, textbook_bcast_pipeline, derived_bcast_pipeline},
    AlgorithmInfo{"bcast/split_binary_tree", Operation::bcast, 4, kSegment,
                  "halves down the two subtrees of a binary tree, then swapped between pairs",
                  &as_bcast<bcast_split_binary_tree>, binary_node, nullptr, derived_bcast_split_binary_tree},
    AlgorithmInfo{"bcast/binary_tree", Operation::bcast, 5, kSegment,
                  "breadth-first binary tree, segments pipelined (generic tree bcast)", &as_bcast<bcast_binary_tree>,
                  binary_node, textbook_bcast_binary_tree, derived_bcast_binary_tree},
    AlgorithmInfo{"bcast/binomial", Operation::bcast, 6, kSegment,
                  "binomial tree, segmented pipeline through it (generic tree bcast)", &as_bcast<bcast_binomial>,
                  binomial_node, textbook_bcast_binomial, derived_bcast_binomial},
    AlgorithmInfo{"bcast/knomial", Operation::bcast, 7, kSegment | kRadix,
                  "k-nomial tree of the given radix, segments pipelined (generic tree bcast)", &as_bcast<bcast_knomial>,
                  knomial_node, nullptr, derived_bcast_knomial},
    AlgorithmInfo{"bcast/scatter_allgather", Operation::bcast, 8, 0,
                  "binomial scatter of p blocks, then recursive-doubling allgather", &as_bcast<bcast_scatter_allgather>,
                  scatter_node, textbook_bcast_scatter_allgather, derived_bcast_scatter_allgather},
    AlgorithmInfo{"bcast/scatter_allgather_ring", Operation::bcast, 9, 0,
                  "binomial scatter of p blocks, then ring allgather", &as_bcast<bcast_scatter_allgather_ring>,
                  scatter_node, textbook_bcast_scatter_allgather_ring, derived_bcast_scatter_allgather_ring},
    AlgorithmInfo{"gather/basic_linear", Operation::gather, 1, 0, "non-roots send; the root receives in rank order",
                  &as_gather<gather_basic_linear>, linear_node, textbook_gather_basic_linear,
                  derived_gather_basic_linear},
    AlgorithmInfo{"gather/binomial", Operation::gather, 2, 0,
                  "in-order binomial tree; inner ranks forward their whole subtree", &as_gather<gather_binomial>,
                  in_order_node, textbook_gather_binomial, derived_gather_binomial},
    AlgorithmInfo{"gather/linear_sync", Operation::gather, 3, kSegment,
                  "the root asks each rank in turn (zero-byte sync); first segment, then the rest",
                  &as_gather<gather_linear_sync>, linear_node, nullptr, derived_gather_linear_sync},

    // reduce: no formulas yet (textbook/derived nullptr); in-order_binary's tree is rooted at p-1
    // and rabenseifner's is no tree, so they have none (tree nullptr).
    AlgorithmInfo{"reduce/linear", Operation::reduce, 1, 0,
                  "non-roots send; the root receives from p-1 down to 0, reducing in rank order",
                  &as_reduce<reduce_linear>, linear_node, nullptr, nullptr},
    AlgorithmInfo{"reduce/chain", Operation::reduce, 2, kSegment | kFanout | kMaxRequests,
                  "fanout chains into the root, segments pipelined (generic tree reduce)", &as_reduce<reduce_chain>,
                  chain_node, nullptr, nullptr},
    AlgorithmInfo{"reduce/pipeline", Operation::reduce, 3, kSegment | kMaxRequests,
                  "one chain through all ranks, segments pipelined (generic tree reduce)", &as_reduce<reduce_pipeline>,
                  pipeline_node, nullptr, nullptr},
    AlgorithmInfo{"reduce/binary", Operation::reduce, 4, kSegment | kMaxRequests,
                  "breadth-first binary tree, segments pipelined (generic tree reduce)", &as_reduce<reduce_binary>,
                  binary_node, nullptr, nullptr},
    AlgorithmInfo{"reduce/binomial", Operation::reduce, 5, kSegment | kMaxRequests,
                  "in-order binomial tree, segments pipelined (generic tree reduce)", &as_reduce<reduce_binomial>,
                  in_order_node, nullptr, nullptr},
    AlgorithmInfo{"reduce/in-order_binary", Operation::reduce, 6, kSegment | kMaxRequests,
                  "in-order binary tree into rank p-1 (rank order kept), then to the root",
                  &as_reduce<reduce_in_order_binary>, nullptr, nullptr, nullptr},
    AlgorithmInfo{"reduce/rabenseifner", Operation::reduce, 7, 0,
                  "recursive-halving reduce-scatter, then binomial gather to the root (commutative ops)",
                  &as_reduce<reduce_rabenseifner>, nullptr, nullptr, nullptr},
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

std::span<const AlgorithmInfo> all_algorithms() { return kAlgorithms; }

const AlgorithmInfo* find_algorithm(std::string_view name) {
  for (const auto& [alias, full] : kAliases)
    if (name == alias) name = full;
  for (const auto& a : kAlgorithms)
    if (a.name == name) return &a;
  return nullptr;
}

const AlgorithmInfo* find_algorithm(Operation op, int ompi_id) {
  for (const auto& a : kAlgorithms)
    if (a.op == op && a.ompi_id == ompi_id) return &a;
  return nullptr;
}

std::string algorithm_names() {
  std::string out;
  for (const auto& a : kAlgorithms) {
    if (!out.empty()) out += ", ";
    out += a.name;
  }
  return out;
}

std::string knob_error(const AlgorithmInfo& algorithm, Knob knob, long long value) {
  const KnobInfo& k = knob_info(knob);
  const std::string name(k.name);
  if (!algorithm.takes(knob)) {
    std::string takers;
    int count = 0;
    for (const auto& a : kAlgorithms)
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
