#include "algorithms/registry.hpp"

#include <array>
#include <utility>

#include "algorithms/bcast.hpp"
#include "algorithms/gather.hpp"

namespace collsim {

std::string_view to_string(Operation op) {
  switch (op) {
    case Operation::bcast: return "bcast";
    case Operation::gather: return "gather";
  }
  return "?";
}

namespace {

template <Task<> (*F)(Comm&, Buffer, const AlgorithmParams&)>
Task<> as_bcast(Comm& comm, RankBuffers b, const AlgorithmParams& p) {
  return F(comm, b.data, p);
}

template <Task<> (*F)(Comm&, Buffer, Buffer, const AlgorithmParams&)>
Task<> as_gather(Comm& comm, RankBuffers b, const AlgorithmParams& p) {
  return F(comm, b.data, b.gathered, p);
}

// In Open MPI's ID order per operation; AlgorithmInfo::uses_segment says whether Open MPI's
// algorithm honours the segment size (scatter_allgather(_ring) accept one and ignore it).
const std::array kAlgorithms{
    AlgorithmInfo{"bcast/basic_linear", Operation::bcast, 1, false,
                  "the root isends the whole message to every rank at once", &as_bcast<bcast_basic_linear>},
    AlgorithmInfo{"bcast/chain", Operation::bcast, 2, true,
                  "fanout chains off the root, segments pipelined along them (generic tree bcast)",
                  &as_bcast<bcast_chain>},
    AlgorithmInfo{"bcast/pipeline", Operation::bcast, 3, true,
                  "one chain through all ranks, segments pipelined (generic tree bcast)", &as_bcast<bcast_pipeline>},
    AlgorithmInfo{"bcast/split_binary_tree", Operation::bcast, 4, true,
                  "halves down the two subtrees of a binary tree, then swapped between pairs",
                  &as_bcast<bcast_split_binary_tree>},
    AlgorithmInfo{"bcast/binary_tree", Operation::bcast, 5, true,
                  "breadth-first binary tree, segments pipelined (generic tree bcast)", &as_bcast<bcast_binary_tree>},
    AlgorithmInfo{"bcast/binomial", Operation::bcast, 6, true,
                  "binomial tree, segmented pipeline through it (generic tree bcast)", &as_bcast<bcast_binomial>},
    AlgorithmInfo{"bcast/knomial", Operation::bcast, 7, true,
                  "k-nomial tree of the given radix, segments pipelined (generic tree bcast)",
                  &as_bcast<bcast_knomial>},
    AlgorithmInfo{"bcast/scatter_allgather", Operation::bcast, 8, false,
                  "binomial scatter of p blocks, then recursive-doubling allgather",
                  &as_bcast<bcast_scatter_allgather>},
    AlgorithmInfo{"bcast/scatter_allgather_ring", Operation::bcast, 9, false,
                  "binomial scatter of p blocks, then ring allgather", &as_bcast<bcast_scatter_allgather_ring>},
    AlgorithmInfo{"gather/basic_linear", Operation::gather, 1, false, "non-roots send; the root receives in rank order",
                  &as_gather<gather_basic_linear>},
    AlgorithmInfo{"gather/binomial", Operation::gather, 2, false,
                  "in-order binomial tree; inner ranks forward their whole subtree", &as_gather<gather_binomial>},
    AlgorithmInfo{"gather/linear_sync", Operation::gather, 3, true,
                  "the root asks each rank in turn (zero-byte sync); first segment, then the rest",
                  &as_gather<gather_linear_sync>},
};

}  // namespace

std::span<const AlgorithmInfo> all_algorithms() { return kAlgorithms; }

// Short names people use for Open MPI's tree broadcasts (the design card says bcast/binary).
constexpr std::pair<std::string_view, std::string_view> kAliases[] = {
    {"bcast/binary", "bcast/binary_tree"},
    {"bcast/split_binary", "bcast/split_binary_tree"},
    {"bcast/linear", "bcast/basic_linear"},
    {"gather/linear", "gather/basic_linear"},
};

const AlgorithmInfo* find_algorithm(std::string_view name) {
  for (const auto& [alias, full] : kAliases)
    if (name == alias) name = full;
  for (const auto& a : kAlgorithms)
    if (a.name == name) return &a;
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

bool uses_fanout(const AlgorithmInfo& algorithm) { return algorithm.name == "bcast/chain"; }
bool uses_radix(const AlgorithmInfo& algorithm) { return algorithm.name == "bcast/knomial"; }

}  // namespace collsim
