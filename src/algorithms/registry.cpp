#include "algorithms/registry.hpp"

#include <array>
#include <climits>
#include <utility>

#include "algorithms/allgather.hpp"
#include "algorithms/allreduce.hpp"
#include "algorithms/alltoall.hpp"
#include "algorithms/barrier.hpp"
#include "algorithms/bcast.hpp"
#include "algorithms/gather.hpp"
#include "algorithms/reduce.hpp"
#include "algorithms/reduce_scatter.hpp"
#include "algorithms/scatter.hpp"
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
Task<> as_scatter(Comm& comm, RankBuffers b, const AlgorithmParams& p) {
  return F(comm, b.data, b.result, p);
}

// reduce and allreduce: `data` is the rank's vector, `result` the reduction.
template <Task<> (*F)(Comm&, Buffer, Buffer, const AlgorithmParams&)>
Task<> as_reduce(Comm& comm, RankBuffers b, const AlgorithmParams& p) {
  return F(comm, b.data, b.result, p);
}

template <Task<> (*F)(Comm&, const AlgorithmParams&)>
Task<> as_barrier(Comm& comm, RankBuffers, const AlgorithmParams& p) {
  return F(comm, p);
}

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

constexpr unsigned kSegment = static_cast<unsigned>(Knob::segment);
constexpr unsigned kFanout = static_cast<unsigned>(Knob::fanout);
constexpr unsigned kRadix = static_cast<unsigned>(Knob::radix);
constexpr unsigned kMaxRequests = static_cast<unsigned>(Knob::max_requests);
constexpr bool kReceivesFirst = true;

using namespace models;

// In Open MPI's ID order per operation. scatter_allgather(_ring) accept a segment size in Open
// MPI and ignore it, so they take none here.
const std::array kAlgorithms{
    AlgorithmInfo{"bcast/basic_linear", Operation::bcast, 1, 0,
                  "the root isends the whole message to every rank at once", &as_bcast<bcast_basic_linear>, linear_node,
                  textbook_bcast_basic_linear, derived_bcast_basic_linear, kReceivesFirst},
    AlgorithmInfo{"bcast/chain", Operation::bcast, 2, kSegment | kFanout,
                  "fanout chains off the root, segments pipelined along them (generic tree bcast)",
                  &as_bcast<bcast_chain>, chain_node, nullptr, derived_bcast_chain, kReceivesFirst},
    AlgorithmInfo{"bcast/pipeline", Operation::bcast, 3, kSegment,
                  "one chain through all ranks, segments pipelined (generic tree bcast)", &as_bcast<bcast_pipeline>,
                  pipeline_node, textbook_bcast_pipeline, derived_bcast_pipeline, kReceivesFirst},
    AlgorithmInfo{"bcast/split_binary_tree", Operation::bcast, 4, kSegment,
                  "halves down the two subtrees of a binary tree, then swapped between pairs",
                  &as_bcast<bcast_split_binary_tree>, binary_node, nullptr, derived_bcast_split_binary_tree,
                  kReceivesFirst},
    AlgorithmInfo{"bcast/binary_tree", Operation::bcast, 5, kSegment,
                  "breadth-first binary tree, segments pipelined (generic tree bcast)", &as_bcast<bcast_binary_tree>,
                  binary_node, textbook_bcast_binary_tree, derived_bcast_binary_tree, kReceivesFirst},
    AlgorithmInfo{"bcast/binomial", Operation::bcast, 6, kSegment,
                  "binomial tree, segmented pipeline through it (generic tree bcast)", &as_bcast<bcast_binomial>,
                  binomial_node, textbook_bcast_binomial, derived_bcast_binomial, kReceivesFirst},
    AlgorithmInfo{"bcast/knomial", Operation::bcast, 7, kSegment | kRadix,
                  "k-nomial tree of the given radix, segments pipelined (generic tree bcast)", &as_bcast<bcast_knomial>,
                  knomial_node, nullptr, derived_bcast_knomial, kReceivesFirst},
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
    // Scatter: the root's `data` holds the blocks, every rank's `result` gets its own.
    AlgorithmInfo{"scatter/basic_linear", Operation::scatter, 1, 0,
                  "the root sends each rank its block in rank order (blocking sends)",
                  &as_scatter<scatter_basic_linear>, linear_node, textbook_scatter_basic_linear,
                  derived_scatter_basic_linear, kReceivesFirst},
    AlgorithmInfo{"scatter/binomial", Operation::scatter, 2, 0,
                  "in-order binomial tree; inner ranks receive their subtree's blocks and pass them on",
                  &as_scatter<scatter_binomial>, in_order_node, textbook_scatter_binomial, derived_scatter_binomial,
                  kReceivesFirst},
    AlgorithmInfo{"scatter/linear_nb", Operation::scatter, 3, kMaxRequests,
                  "the root isends each rank its block, a blocking send every max-requests ranks",
                  &as_scatter<scatter_linear_nb>, linear_node, nullptr, derived_scatter_linear_nb, kReceivesFirst},
    // Barrier: zero-byte messages only. two_proc runs on 2 processes only, as in Open MPI.
    AlgorithmInfo{"barrier/linear", Operation::barrier, 1, 0, "everyone reports to rank 0, which then releases each",
                  &as_barrier<barrier_linear>, nullptr, nullptr, derived_barrier_linear},
    AlgorithmInfo{"barrier/double_ring", Operation::barrier, 2, 0, "a token twice around the ring from rank 0",
                  &as_barrier<barrier_double_ring>, nullptr, nullptr, derived_barrier_double_ring},
    AlgorithmInfo{"barrier/recursive_doubling", Operation::barrier, 3, 0,
                  "pairwise exchanges at distances 1, 2, 4, ...; ranks beyond a power of two fold in and out",
                  &as_barrier<barrier_recursive_doubling>, nullptr, textbook_barrier_recursive_doubling,
                  derived_barrier_recursive_doubling},
    AlgorithmInfo{"barrier/bruck", Operation::barrier, 4, 0,
                  "log2(p) rounds: send to rank + 2^k, receive from rank - 2^k", &as_barrier<barrier_bruck>, nullptr,
                  textbook_barrier_bruck, derived_barrier_bruck},
    AlgorithmInfo{"barrier/two_proc", Operation::barrier, 5, 0, "one exchange between the two ranks (2 processes only)",
                  &as_barrier<barrier_two_proc>, nullptr, nullptr, derived_barrier_two_proc},
    AlgorithmInfo{"barrier/tree", Operation::barrier, 6, 0, "up a binomial-like tree of pairs to rank 0 and back down",
                  &as_barrier<barrier_tree>, nullptr, nullptr, derived_barrier_tree},

    // allgather and alltoall: no tree. The data/result wrapper of gather fits them.
    AlgorithmInfo{"allgather/linear", Operation::allgather, 1, 0,
                  "the communicator's gather to rank 0, then its bcast from rank 0 (Open MPI 4.1's fixed choices)",
                  &as_gather<allgather_linear>, nullptr, nullptr, derived_allgather_linear},
    AlgorithmInfo{"allgather/bruck", Operation::allgather, 2, 0,
                  "log p steps to rank - 2^k, doubling the blocks sent; then a local rotation",
                  &as_gather<allgather_bruck>, nullptr, textbook_allgather_bruck, derived_allgather_bruck},
    AlgorithmInfo{"allgather/recursive_doubling", Operation::allgather, 3, 0,
                  "exchanges with rank XOR 2^k, doubling the blocks (power-of-two p; else bruck)",
                  &as_gather<allgather_recursive_doubling>, nullptr, textbook_allgather_recursive_doubling,
                  derived_allgather_recursive_doubling},
    AlgorithmInfo{"allgather/ring", Operation::allgather, 4, 0, "p - 1 steps passing one block to the next rank",
                  &as_gather<allgather_ring>, nullptr, textbook_allgather_ring, derived_allgather_ring},
    AlgorithmInfo{"allgather/neighbor", Operation::allgather, 5, 0,
                  "p/2 steps exchanging pairs of blocks with alternate neighbours (even p; else ring)",
                  &as_gather<allgather_neighbor>, nullptr, nullptr, derived_allgather_neighbor},
    AlgorithmInfo{"allgather/two_proc", Operation::allgather, 6, 0,
                  "one exchange between the two processes (2 processes only)", &as_gather<allgather_two_proc>, nullptr,
                  nullptr, derived_allgather_two_proc},
    AlgorithmInfo{"alltoall/linear", Operation::alltoall, 1, 0,
                  "every receive, then every send posted at once; wait for all", &as_gather<alltoall_linear>, nullptr,
                  nullptr, derived_alltoall_linear},
    AlgorithmInfo{"alltoall/pairwise", Operation::alltoall, 2, 0, "p steps: sendrecv with rank + k and rank - k",
                  &as_gather<alltoall_pairwise>, nullptr, textbook_alltoall_pairwise, derived_alltoall_pairwise},
    AlgorithmInfo{"alltoall/modified_bruck", Operation::alltoall, 3, 0,
                  "log p steps sending the blocks whose index has bit k set to rank + 2^k; local rotations",
                  &as_gather<alltoall_modified_bruck>, nullptr, textbook_alltoall_modified_bruck,
                  derived_alltoall_modified_bruck},
    AlgorithmInfo{"alltoall/linear_sync", Operation::alltoall, 4, kMaxRequests,
                  "linear with at most max_requests receives and sends in flight, refilled as they complete",
                  &as_gather<alltoall_linear_sync>, nullptr, nullptr, derived_alltoall_linear_sync},
    AlgorithmInfo{"alltoall/two_proc", Operation::alltoall, 5, 0,
                  "one exchange between the two processes (2 processes only)", &as_gather<alltoall_two_proc>, nullptr,
                  nullptr, derived_alltoall_two_proc},

    // reduce: in-order_binary's tree is rooted at p-1 and rabenseifner's is no tree, so they have
    // none (tree nullptr).
    AlgorithmInfo{"reduce/linear", Operation::reduce, 1, 0,
                  "non-roots send; the root receives from p-1 down to 0, reducing in rank order",
                  &as_reduce<reduce_linear>, linear_node, nullptr, derived_reduce_linear},
    AlgorithmInfo{"reduce/chain", Operation::reduce, 2, kSegment | kFanout | kMaxRequests,
                  "fanout chains into the root, segments pipelined (generic tree reduce)", &as_reduce<reduce_chain>,
                  chain_node, nullptr, derived_reduce_chain},
    AlgorithmInfo{"reduce/pipeline", Operation::reduce, 3, kSegment | kMaxRequests,
                  "one chain through all ranks, segments pipelined (generic tree reduce)", &as_reduce<reduce_pipeline>,
                  pipeline_node, nullptr, derived_reduce_pipeline},
    AlgorithmInfo{"reduce/binary", Operation::reduce, 4, kSegment | kMaxRequests,
                  "breadth-first binary tree, segments pipelined (generic tree reduce)", &as_reduce<reduce_binary>,
                  binary_node, nullptr, derived_reduce_binary},
    AlgorithmInfo{"reduce/binomial", Operation::reduce, 5, kSegment | kMaxRequests,
                  "in-order binomial tree, segments pipelined (generic tree reduce)", &as_reduce<reduce_binomial>,
                  in_order_node, textbook_reduce_binomial, derived_reduce_binomial},
    AlgorithmInfo{"reduce/in-order_binary", Operation::reduce, 6, kSegment | kMaxRequests,
                  "in-order binary tree into rank p-1 (rank order kept), then to the root",
                  &as_reduce<reduce_in_order_binary>, nullptr, nullptr, derived_reduce_in_order_binary},
    AlgorithmInfo{"reduce/rabenseifner", Operation::reduce, 7, 0,
                  "recursive-halving reduce-scatter, then binomial gather to the root (commutative ops)",
                  &as_reduce<reduce_rabenseifner>, nullptr, textbook_reduce_rabenseifner, derived_reduce_rabenseifner},

    // allreduce (buffers as reduce's, every rank's result filled): no tree. basic_linear,
    // nonoverlapping and rabenseifner (whose fallback is basic_linear) compose reduce's derived
    // formulas, as reduce_scatter/non-overlapping does.
    AlgorithmInfo{"allreduce/basic_linear", Operation::allreduce, 1, 0,
                  "linear reduce to rank 0, then linear bcast from it (rank order kept)",
                  &as_reduce<allreduce_basic_linear>, nullptr, nullptr, derived_allreduce_basic_linear},
    AlgorithmInfo{"allreduce/nonoverlapping", Operation::allreduce, 2, 0,
                  "the communicator's reduce to rank 0, then its bcast (Open MPI 4.1's fixed decisions)",
                  &as_reduce<allreduce_nonoverlapping>, nullptr, nullptr, derived_allreduce_nonoverlapping},
    AlgorithmInfo{"allreduce/recursive_doubling", Operation::allreduce, 3, 0,
                  "whole vectors exchanged with rank XOR 1, 2, 4, ... (rank order kept)",
                  &as_reduce<allreduce_recursive_doubling>, nullptr, textbook_allreduce_recursive_doubling,
                  derived_allreduce_recursive_doubling},
    AlgorithmInfo{"allreduce/ring", Operation::allreduce, 4, 0,
                  "ring reduce-scatter of p blocks, then ring allgather (recursive_doubling below p elements)",
                  &as_reduce<allreduce_ring>, nullptr, textbook_allreduce_ring, derived_allreduce_ring},
    AlgorithmInfo{"allreduce/segmented_ring", Operation::allreduce, 5, kSegment,
                  "ring reduce-scatter in phases of segment-sized pieces, then ring allgather",
                  &as_reduce<allreduce_segmented_ring>, nullptr, nullptr, derived_allreduce_segmented_ring},
    AlgorithmInfo{"allreduce/rabenseifner", Operation::allreduce, 6, 0,
                  "recursive-halving reduce-scatter, then recursive-doubling allgather (commutative ops)",
                  &as_reduce<allreduce_rabenseifner>, nullptr, textbook_allreduce_rabenseifner,
                  derived_allreduce_rabenseifner},
    // reduce_scatter.
    AlgorithmInfo{"reduce_scatter/non-overlapping", Operation::reduce_scatter, 1, 0,
                  "the communicator's reduce to rank 0, then a linear scatterv of the blocks",
                  &as_reduce<reduce_scatter_non_overlapping>, nullptr, nullptr, derived_reduce_scatter_non_overlapping},
    AlgorithmInfo{"reduce_scatter/recursive_halving", Operation::reduce_scatter, 2, 0,
                  "fold to a power of two, then halve the window of blocks by distance halving",
                  &as_reduce<reduce_scatter_recursive_halving>, nullptr, textbook_reduce_scatter_recursive_halving,
                  derived_reduce_scatter_recursive_halving},
    AlgorithmInfo{"reduce_scatter/ring", Operation::reduce_scatter, 3, 0,
                  "each block goes once round the ring, reduced at every rank", &as_reduce<reduce_scatter_ring>,
                  nullptr, textbook_reduce_scatter_ring, derived_reduce_scatter_ring},
    AlgorithmInfo{"reduce_scatter/butterfly", Operation::reduce_scatter, 4, 0,
                  "fold to a power of two, then halves exchanged by distance doubling (order preserving)",
                  &as_reduce<reduce_scatter_butterfly>, nullptr, nullptr, derived_reduce_scatter_butterfly},
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

bool runs_on(const AlgorithmInfo& algorithm, int procs) { return procs <= 2 || !algorithm.name.ends_with("/two_proc"); }

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
  // Segment 0, the documented default, means unsegmented: what an algorithm without segments is.
  if (!algorithm.takes(knob) && !(knob == Knob::segment && value == 0)) {
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
