// Rank and block arithmetic the algorithms share: neighbours on a ring of ranks, the power-of-two
// core that Open MPI's recursive algorithms fold the other ranks into, and runs of equal blocks.
#pragma once

#include <bit>
#include <cstddef>

#include "comm/buffer.hpp"

namespace collsim {

// a mod p in [0, p), for a rank's distance around a ring of p ranks (a may be negative).
inline int mod(int a, int p) { return ((a % p) + p) % p; }

// The largest power of two not above p (p >= 1).
inline int largest_power_of_two(int p) { return static_cast<int>(std::bit_floor(static_cast<unsigned>(p))); }

// `n` consecutive blocks of m bytes of `b` from block `first` (no wrap-around).
inline Buffer blocks(Buffer b, std::size_t m, int first, int n = 1) {
  return b.slice(static_cast<std::size_t>(first) * m, static_cast<std::size_t>(n) * m);
}

}  // namespace collsim
