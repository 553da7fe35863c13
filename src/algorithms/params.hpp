// Knobs shared by the collective algorithms, with Open MPI's defaults.
#pragma once

#include <cstddef>

#include "comm/reduction.hpp"

namespace collsim {

// Open MPI's knobs: coll_tuned_bcast_algorithm_segmentsize (default 0),
// coll_tuned_gather_algorithm_segmentsize (linear_sync's first segment),
// coll_tuned_bcast_algorithm_chain_fanout (default 4) and coll_tuned_bcast_algorithm_knomial_radix
// (default 4), reduce's _segmentsize and _chain_fanout (default 4), and
// coll_tuned_<op>_algorithm_max_requests (default 0; scatter, alltoall, reduce),
// coll_tuned_allreduce_algorithm_segmentsize (segmented_ring). Open MPI has no
// other knob for these algorithms (its tree_fanout is unused by bcast and gather: binary_tree and
// split_binary_tree always use fanout 2; scatter's segmentsize and fanouts are unused; no allgather
// algorithm reads its segment size or fanouts).
struct AlgorithmParams {
  int root = 0;
  // Bytes per segment for the segmented algorithms (bcast; reduce and allreduce/segmented_ring
  // round it to elements), first-segment size for gather/linear_sync; 0 = unsegmented.
  std::size_t segment = 0;
  // bcast/chain: number of chains hanging off the root; clamped to [1, 32] as Open MPI does.
  int fanout = 4;
  // bcast/knomial: tree radix, at least 2.
  int radix = 4;
  // scatter/linear_nb: a blocking send instead of an isend to every rank that is a multiple of
  // it; 0 or 1 = isends only. alltoall/linear_sync: at most this many receives and as many sends
  // in flight; 0 = all p - 1. reduce's tree algorithms: most isends a leaf keeps in flight; 0 = no
  // limit, every segment blocking-sent.
  int max_requests = 0;
  // Reducing operations: the element type and operator (operation.hpp's kDefaultReduction).
  Reduction reduction{Datatype::float32, ReduceOp::sum};
};

// Message tags, one per operation, so that two collectives in flight never match each other.
namespace tags {
inline constexpr int bcast = 1001;
inline constexpr int gather = 1002;
inline constexpr int scatter = 1003;
inline constexpr int reduce = 1004;
inline constexpr int allreduce = 1005;
inline constexpr int allgather = 1006;
inline constexpr int alltoall = 1007;
inline constexpr int barrier = 1008;
inline constexpr int reduce_scatter = 1009;
// coll/basic's MPI_Scatterv, which reduce_scatter/non-overlapping calls (Open MPI's tag -26).
inline constexpr int scatterv = 1010;
}  // namespace tags

}  // namespace collsim
