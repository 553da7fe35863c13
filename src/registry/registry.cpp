#include "registry/registry.hpp"

#include <array>
#include <climits>
#include <utility>

#include "algorithms/allgather.hpp"
#include "algorithms/allreduce.hpp"
#include "algorithms/alltoall.hpp"
#include "algorithms/barrier.hpp"
#include "algorithms/bcast.hpp"
#include "algorithms/gather.hpp"
#include "algorithms/ompi41_decision.hpp"
#include "algorithms/reduce.hpp"
#include "algorithms/reduce_scatter.hpp"
#include "algorithms/scatter.hpp"
#include "algorithms/virtual_trees.hpp"
#include "models/formulas.hpp"
#include "registry/nested_formulas.hpp"
#include "support/input_error.hpp"

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

using namespace models;

// In Open MPI's ID order per operation. scatter_allgather(_ring) accept a segment size in Open
// MPI and ignore it, so they take none here.
const std::array kAlgorithms{
    AlgorithmInfo{.name = "bcast/basic_linear",
                  .op = Operation::bcast,
                  .ompi_id = 1,
                  .summary = "the root isends the whole message to every rank at once",
                  .run = &as_bcast<bcast_basic_linear>,
                  .tree = linear_node,
                  .textbook = textbook_bcast_basic_linear,
                  .derived = derived_bcast_basic_linear,
                  .receives_first = true},
    AlgorithmInfo{.name = "bcast/chain",
                  .op = Operation::bcast,
                  .ompi_id = 2,
                  .knobs = kSegment | kFanout,
                  .summary = "fanout chains off the root, segments pipelined along them (generic tree bcast)",
                  .run = &as_bcast<bcast_chain>,
                  .tree = chain_node,
                  .derived = derived_bcast_chain,
                  .receives_first = true},
    AlgorithmInfo{.name = "bcast/pipeline",
                  .op = Operation::bcast,
                  .ompi_id = 3,
                  .knobs = kSegment,
                  .summary = "one chain through all ranks, segments pipelined (generic tree bcast)",
                  .run = &as_bcast<bcast_pipeline>,
                  .tree = pipeline_node,
                  .textbook = textbook_bcast_pipeline,
                  .derived = derived_bcast_pipeline,
                  .receives_first = true},
    AlgorithmInfo{.name = "bcast/split_binary_tree",
                  .op = Operation::bcast,
                  .ompi_id = 4,
                  .knobs = kSegment,
                  .summary = "halves down the two subtrees of a binary tree, then swapped between pairs",
                  .run = &as_bcast<bcast_split_binary_tree>,
                  .tree = binary_node,
                  .derived = derived_bcast_split_binary_tree,
                  .receives_first = true},
    AlgorithmInfo{.name = "bcast/binary_tree",
                  .op = Operation::bcast,
                  .ompi_id = 5,
                  .knobs = kSegment,
                  .summary = "breadth-first binary tree, segments pipelined (generic tree bcast)",
                  .run = &as_bcast<bcast_binary_tree>,
                  .tree = binary_node,
                  .textbook = textbook_bcast_binary_tree,
                  .derived = derived_bcast_binary_tree,
                  .receives_first = true},
    AlgorithmInfo{.name = "bcast/binomial",
                  .op = Operation::bcast,
                  .ompi_id = 6,
                  .knobs = kSegment,
                  .summary = "binomial tree, segmented pipeline through it (generic tree bcast)",
                  .run = &as_bcast<bcast_binomial>,
                  .tree = binomial_node,
                  .textbook = textbook_bcast_binomial,
                  .derived = derived_bcast_binomial,
                  .receives_first = true},
    AlgorithmInfo{.name = "bcast/knomial",
                  .op = Operation::bcast,
                  .ompi_id = 7,
                  .knobs = kSegment | kRadix,
                  .summary = "k-nomial tree of the given radix, segments pipelined (generic tree bcast)",
                  .run = &as_bcast<bcast_knomial>,
                  .tree = knomial_node,
                  .derived = derived_bcast_knomial,
                  .receives_first = true},
    AlgorithmInfo{.name = "bcast/scatter_allgather",
                  .op = Operation::bcast,
                  .ompi_id = 8,
                  .summary = "binomial scatter of p blocks, then recursive-doubling allgather",
                  .run = &as_bcast<bcast_scatter_allgather>,
                  .tree = scatter_node,
                  .textbook = textbook_bcast_scatter_allgather,
                  .derived = derived_bcast_scatter_allgather},
    AlgorithmInfo{.name = "bcast/scatter_allgather_ring",
                  .op = Operation::bcast,
                  .ompi_id = 9,
                  .summary = "binomial scatter of p blocks, then ring allgather",
                  .run = &as_bcast<bcast_scatter_allgather_ring>,
                  .tree = scatter_node,
                  .textbook = textbook_bcast_scatter_allgather_ring,
                  .derived = derived_bcast_scatter_allgather_ring},
    AlgorithmInfo{.name = "gather/basic_linear",
                  .op = Operation::gather,
                  .ompi_id = 1,
                  .summary = "non-roots send; the root receives in rank order",
                  .run = &as_gather<gather_basic_linear>,
                  .tree = linear_node,
                  .textbook = textbook_gather_basic_linear,
                  .derived = derived_gather_basic_linear},
    AlgorithmInfo{.name = "gather/binomial",
                  .op = Operation::gather,
                  .ompi_id = 2,
                  .summary = "in-order binomial tree; inner ranks forward their whole subtree",
                  .run = &as_gather<gather_binomial>,
                  .tree = in_order_node,
                  .textbook = textbook_gather_binomial,
                  .derived = derived_gather_binomial},
    AlgorithmInfo{.name = "gather/linear_sync",
                  .op = Operation::gather,
                  .ompi_id = 3,
                  .knobs = kSegment,
                  .summary = "the root asks each rank in turn (zero-byte sync); first segment, then the rest",
                  .run = &as_gather<gather_linear_sync>,
                  .tree = linear_node,
                  .derived = derived_gather_linear_sync},
    // Scatter: the root's `data` holds the blocks, every rank's `result` gets its own.
    AlgorithmInfo{.name = "scatter/basic_linear",
                  .op = Operation::scatter,
                  .ompi_id = 1,
                  .summary = "the root sends each rank its block in rank order (blocking sends)",
                  .run = &as_scatter<scatter_basic_linear>,
                  .tree = linear_node,
                  .textbook = textbook_scatter_basic_linear,
                  .derived = derived_scatter_basic_linear,
                  .receives_first = true},
    AlgorithmInfo{.name = "scatter/binomial",
                  .op = Operation::scatter,
                  .ompi_id = 2,
                  .summary = "in-order binomial tree; inner ranks receive their subtree's blocks and pass them on",
                  .run = &as_scatter<scatter_binomial>,
                  .tree = in_order_node,
                  .textbook = textbook_scatter_binomial,
                  .derived = derived_scatter_binomial,
                  .receives_first = true},
    AlgorithmInfo{.name = "scatter/linear_nb",
                  .op = Operation::scatter,
                  .ompi_id = 3,
                  .knobs = kMaxRequests,
                  .summary = "the root isends each rank its block, a blocking send every max-requests ranks",
                  .run = &as_scatter<scatter_linear_nb>,
                  .tree = linear_node,
                  .derived = derived_scatter_linear_nb,
                  .receives_first = true},
    // Barrier: zero-byte messages only. two_proc runs on 2 processes only, as in Open MPI.
    AlgorithmInfo{.name = "barrier/linear",
                  .op = Operation::barrier,
                  .ompi_id = 1,
                  .summary = "everyone reports to rank 0, which then releases each",
                  .run = &as_barrier<barrier_linear>,
                  .derived = derived_barrier_linear},
    AlgorithmInfo{.name = "barrier/double_ring",
                  .op = Operation::barrier,
                  .ompi_id = 2,
                  .summary = "a token twice around the ring from rank 0",
                  .run = &as_barrier<barrier_double_ring>,
                  .derived = derived_barrier_double_ring},
    AlgorithmInfo{
        .name = "barrier/recursive_doubling",
        .op = Operation::barrier,
        .ompi_id = 3,
        .summary = "pairwise exchanges at distances 1, 2, 4, ...; ranks beyond a power of two fold in and out",
        .run = &as_barrier<barrier_recursive_doubling>,
        .textbook = textbook_barrier_recursive_doubling,
        .derived = derived_barrier_recursive_doubling},
    AlgorithmInfo{.name = "barrier/bruck",
                  .op = Operation::barrier,
                  .ompi_id = 4,
                  .summary = "log2(p) rounds: send to rank + 2^k, receive from rank - 2^k",
                  .run = &as_barrier<barrier_bruck>,
                  .textbook = textbook_barrier_bruck,
                  .derived = derived_barrier_bruck},
    AlgorithmInfo{.name = "barrier/two_proc",
                  .op = Operation::barrier,
                  .ompi_id = 5,
                  .summary = "one exchange between the two ranks (2 processes only)",
                  .run = &as_barrier<barrier_two_proc>,
                  .max_procs = 2,
                  .derived = derived_barrier_two_proc},
    AlgorithmInfo{.name = "barrier/tree",
                  .op = Operation::barrier,
                  .ompi_id = 6,
                  .summary = "up a binomial-like tree of pairs to rank 0 and back down",
                  .run = &as_barrier<barrier_tree>,
                  .derived = derived_barrier_tree},

    // allgather and alltoall: no tree. The data/result wrapper of gather fits them.
    AlgorithmInfo{
        .name = "allgather/linear",
        .op = Operation::allgather,
        .ompi_id = 1,
        .summary = "the communicator's gather to rank 0, then its bcast from rank 0 (Open MPI 4.1's fixed choices)",
        .run = &as_gather<allgather_linear>,
        .derived = derived_allgather_linear},
    AlgorithmInfo{.name = "allgather/bruck",
                  .op = Operation::allgather,
                  .ompi_id = 2,
                  .summary = "log p steps to rank - 2^k, doubling the blocks sent; then a local rotation",
                  .run = &as_gather<allgather_bruck>,
                  .textbook = textbook_allgather_bruck,
                  .derived = derived_allgather_bruck},
    AlgorithmInfo{.name = "allgather/recursive_doubling",
                  .op = Operation::allgather,
                  .ompi_id = 3,
                  .summary = "exchanges with rank XOR 2^k, doubling the blocks (power-of-two p; else bruck)",
                  .run = &as_gather<allgather_recursive_doubling>,
                  .textbook = textbook_allgather_recursive_doubling,
                  .derived = derived_allgather_recursive_doubling},
    AlgorithmInfo{.name = "allgather/ring",
                  .op = Operation::allgather,
                  .ompi_id = 4,
                  .summary = "p - 1 steps passing one block to the next rank",
                  .run = &as_gather<allgather_ring>,
                  .textbook = textbook_allgather_ring,
                  .derived = derived_allgather_ring},
    AlgorithmInfo{.name = "allgather/neighbor",
                  .op = Operation::allgather,
                  .ompi_id = 5,
                  .summary = "p/2 steps exchanging pairs of blocks with alternate neighbours (even p; else ring)",
                  .run = &as_gather<allgather_neighbor>,
                  .derived = derived_allgather_neighbor},
    AlgorithmInfo{.name = "allgather/two_proc",
                  .op = Operation::allgather,
                  .ompi_id = 6,
                  .summary = "one exchange between the two processes (2 processes only)",
                  .run = &as_gather<allgather_two_proc>,
                  .max_procs = 2,
                  .derived = derived_allgather_two_proc},
    AlgorithmInfo{.name = "alltoall/linear",
                  .op = Operation::alltoall,
                  .ompi_id = 1,
                  .summary = "every receive, then every send posted at once; wait for all",
                  .run = &as_gather<alltoall_linear>,
                  .derived = derived_alltoall_linear},
    AlgorithmInfo{.name = "alltoall/pairwise",
                  .op = Operation::alltoall,
                  .ompi_id = 2,
                  .summary = "p steps: sendrecv with rank + k and rank - k",
                  .run = &as_gather<alltoall_pairwise>,
                  .textbook = textbook_alltoall_pairwise,
                  .derived = derived_alltoall_pairwise},
    AlgorithmInfo{.name = "alltoall/modified_bruck",
                  .op = Operation::alltoall,
                  .ompi_id = 3,
                  .summary = "log p steps sending the blocks whose index has bit k set to rank + 2^k; local rotations",
                  .run = &as_gather<alltoall_modified_bruck>,
                  .textbook = textbook_alltoall_modified_bruck,
                  .derived = derived_alltoall_modified_bruck},
    AlgorithmInfo{.name = "alltoall/linear_sync",
                  .op = Operation::alltoall,
                  .ompi_id = 4,
                  .knobs = kMaxRequests,
                  .summary = "linear with at most max_requests receives and sends in flight, refilled as they complete",
                  .run = &as_gather<alltoall_linear_sync>,
                  .derived = derived_alltoall_linear_sync},
    AlgorithmInfo{.name = "alltoall/two_proc",
                  .op = Operation::alltoall,
                  .ompi_id = 5,
                  .summary = "one exchange between the two processes (2 processes only)",
                  .run = &as_gather<alltoall_two_proc>,
                  .max_procs = 2,
                  .derived = derived_alltoall_two_proc},

    // reduce: in-order_binary's tree is rooted at p-1 and rabenseifner's is no tree, so they have
    // none (tree nullptr).
    AlgorithmInfo{.name = "reduce/linear",
                  .op = Operation::reduce,
                  .ompi_id = 1,
                  .summary = "non-roots send; the root receives from p-1 down to 0, reducing in rank order",
                  .run = &as_reduce<reduce_linear>,
                  .tree = linear_node,
                  .derived = derived_reduce_linear},
    AlgorithmInfo{.name = "reduce/chain",
                  .op = Operation::reduce,
                  .ompi_id = 2,
                  .knobs = kSegment | kFanout | kMaxRequests,
                  .summary = "fanout chains into the root, segments pipelined (generic tree reduce)",
                  .run = &as_reduce<reduce_chain>,
                  .tree = chain_node,
                  .derived = derived_reduce_chain},
    AlgorithmInfo{.name = "reduce/pipeline",
                  .op = Operation::reduce,
                  .ompi_id = 3,
                  .knobs = kSegment | kMaxRequests,
                  .summary = "one chain through all ranks, segments pipelined (generic tree reduce)",
                  .run = &as_reduce<reduce_pipeline>,
                  .tree = pipeline_node,
                  .derived = derived_reduce_pipeline},
    AlgorithmInfo{.name = "reduce/binary",
                  .op = Operation::reduce,
                  .ompi_id = 4,
                  .knobs = kSegment | kMaxRequests,
                  .summary = "breadth-first binary tree, segments pipelined (generic tree reduce)",
                  .run = &as_reduce<reduce_binary>,
                  .tree = binary_node,
                  .derived = derived_reduce_binary},
    AlgorithmInfo{.name = "reduce/binomial",
                  .op = Operation::reduce,
                  .ompi_id = 5,
                  .knobs = kSegment | kMaxRequests,
                  .summary = "in-order binomial tree, segments pipelined (generic tree reduce)",
                  .run = &as_reduce<reduce_binomial>,
                  .tree = in_order_node,
                  .textbook = textbook_reduce_binomial,
                  .derived = derived_reduce_binomial},
    AlgorithmInfo{.name = "reduce/in-order_binary",
                  .op = Operation::reduce,
                  .ompi_id = 6,
                  .knobs = kSegment | kMaxRequests,
                  .summary = "in-order binary tree into rank p-1 (rank order kept), then to the root",
                  .run = &as_reduce<reduce_in_order_binary>,
                  .derived = derived_reduce_in_order_binary},
    AlgorithmInfo{.name = "reduce/rabenseifner",
                  .op = Operation::reduce,
                  .ompi_id = 7,
                  .summary = "recursive-halving reduce-scatter, then binomial gather to the root (commutative ops)",
                  .run = &as_reduce<reduce_rabenseifner>,
                  .textbook = textbook_reduce_rabenseifner,
                  .derived = derived_reduce_rabenseifner},

    // allreduce (buffers as reduce's, every rank's result filled): no tree. basic_linear,
    // nonoverlapping and rabenseifner (whose fallback is basic_linear) compose reduce's derived
    // formulas, as reduce_scatter/non-overlapping does.
    AlgorithmInfo{.name = "allreduce/basic_linear",
                  .op = Operation::allreduce,
                  .ompi_id = 1,
                  .summary = "linear reduce to rank 0, then linear bcast from it (rank order kept)",
                  .run = &as_reduce<allreduce_basic_linear>,
                  .derived = derived_allreduce_basic_linear},
    AlgorithmInfo{.name = "allreduce/nonoverlapping",
                  .op = Operation::allreduce,
                  .ompi_id = 2,
                  .summary = "the communicator's reduce to rank 0, then its bcast (Open MPI 4.1's fixed decisions)",
                  .run = &as_reduce<allreduce_nonoverlapping>,
                  .derived = derived_allreduce_nonoverlapping},
    AlgorithmInfo{.name = "allreduce/recursive_doubling",
                  .op = Operation::allreduce,
                  .ompi_id = 3,
                  .summary = "whole vectors exchanged with rank XOR 1, 2, 4, ... (rank order kept)",
                  .run = &as_reduce<allreduce_recursive_doubling>,
                  .textbook = textbook_allreduce_recursive_doubling,
                  .derived = derived_allreduce_recursive_doubling},
    AlgorithmInfo{
        .name = "allreduce/ring",
        .op = Operation::allreduce,
        .ompi_id = 4,
        .summary = "ring reduce-scatter of p blocks, then ring allgather (recursive_doubling below p elements)",
        .run = &as_reduce<allreduce_ring>,
        .textbook = textbook_allreduce_ring,
        .derived = derived_allreduce_ring},
    AlgorithmInfo{.name = "allreduce/segmented_ring",
                  .op = Operation::allreduce,
                  .ompi_id = 5,
                  .knobs = kSegment,
                  .summary = "ring reduce-scatter in phases of segment-sized pieces, then ring allgather",
                  .run = &as_reduce<allreduce_segmented_ring>,
                  .derived = derived_allreduce_segmented_ring},
    AlgorithmInfo{.name = "allreduce/rabenseifner",
                  .op = Operation::allreduce,
                  .ompi_id = 6,
                  .summary = "recursive-halving reduce-scatter, then recursive-doubling allgather (commutative ops)",
                  .run = &as_reduce<allreduce_rabenseifner>,
                  .textbook = textbook_allreduce_rabenseifner,
                  .derived = derived_allreduce_rabenseifner},
    // reduce_scatter.
    AlgorithmInfo{.name = "reduce_scatter/non-overlapping",
                  .op = Operation::reduce_scatter,
                  .ompi_id = 1,
                  .summary = "the communicator's reduce to rank 0, then a linear scatterv of the blocks",
                  .run = &as_reduce<reduce_scatter_non_overlapping>,
                  .derived = derived_reduce_scatter_non_overlapping},
    AlgorithmInfo{.name = "reduce_scatter/recursive_halving",
                  .op = Operation::reduce_scatter,
                  .ompi_id = 2,
                  .summary = "fold to a power of two, then halve the window of blocks by distance halving",
                  .run = &as_reduce<reduce_scatter_recursive_halving>,
                  .textbook = textbook_reduce_scatter_recursive_halving,
                  .derived = derived_reduce_scatter_recursive_halving},
    AlgorithmInfo{.name = "reduce_scatter/ring",
                  .op = Operation::reduce_scatter,
                  .ompi_id = 3,
                  .summary = "each block goes once round the ring, reduced at every rank",
                  .run = &as_reduce<reduce_scatter_ring>,
                  .textbook = textbook_reduce_scatter_ring,
                  .derived = derived_reduce_scatter_ring},
    AlgorithmInfo{.name = "reduce_scatter/butterfly",
                  .op = Operation::reduce_scatter,
                  .ompi_id = 4,
                  .summary = "fold to a power of two, then halves exchanged by distance doubling (order preserving)",
                  .run = &as_reduce<reduce_scatter_butterfly>,
                  .derived = derived_reduce_scatter_butterfly},
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

bool runs_on(const AlgorithmInfo& algorithm, int procs) {
  return procs <= 1 || algorithm.max_procs == 0 || procs <= algorithm.max_procs;
}

const AlgorithmInfo* find_algorithm(std::string_view name) {
  for (const auto& [alias, full] : kAliases)
    if (name == alias) name = full;
  for (const auto& a : kAlgorithms)
    if (a.name == name) return &a;
  return nullptr;
}

const AlgorithmInfo* find_algorithm(Operation op, std::string_view name) {
  const std::string_view prefix = to_string(op);
  for (const auto& a : kAlgorithms)
    if (a.op == op && a.name.size() == prefix.size() + 1 + name.size() && a.name.ends_with(name) &&
        a.name[prefix.size()] == '/')
      return &a;
  return nullptr;
}

const AlgorithmInfo* find_algorithm(Operation op, int ompi_id) {
  for (const auto& a : kAlgorithms)
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
