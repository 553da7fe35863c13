// Knobs shared by the collective algorithms, with Open MPI's defaults.
#pragma once

#include <cstddef>

namespace collsim {

struct AlgorithmParams {
  int root = 0;
  // Bytes per segment for the segmented algorithms (bcast), first-segment size for
  // gather/linear_sync; 0 = unsegmented.
  std::size_t segment = 0;
  int fanout = 4;  // bcast/chain: number of chains hanging off the root
  int radix = 4;   // bcast/knomial
};

// Message tags, one per operation, so that two collectives in flight never match each other.
namespace tags {
inline constexpr int bcast = 1001;
inline constexpr int gather = 1002;
}  // namespace tags

}  // namespace collsim
