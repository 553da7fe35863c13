// Heights of Open MPI's trees (edges from the root to the deepest rank), written from their
// definitions and independently of the library's tree code, so that tests do not check the
// library against itself.
#pragma once

#include <algorithm>

namespace collsim_test {

inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

inline int floor_log2(int p) {  // p >= 1
  int h = 0;
  while ((2LL << h) <= p) ++h;
  return h;
}

inline int ceil_log2(int p) {  // p >= 1
  int h = 0;
  while ((1LL << h) < p) ++h;
  return h;
}

// Chains of consecutive ranks off the root, the longest holding ceil((p-1)/f) ranks; Open MPI
// serves at most 32 chains. The pipeline is the chain of fanout 1: p - 1.
inline int chain_height(int p, int fanout) { return p <= 1 ? 0 : ceil_div(p - 1, std::min(fanout, 32)); }

// Filled breadth first, level l holding f^l ranks: the last level L is the first at which
// 1 + f + ... + f^L reaches p. Binary tree (f = 2): floor(log2 p).
inline int kary_height(int p, int fanout) {
  long long total = 1, width = 1;
  int levels = 0;
  while (total < p) {
    width *= fanout;
    total += width;
    ++levels;
  }
  return levels;
}

// Open MPI's binomial trees (bmtree and the in-order one): the depth of a vrank is its number of
// set bits, and below p the most is floor(log2 p).
inline int binomial_height(int p) { return floor_log2(p); }

// k-nomial: the depth of a vrank is its number of non-zero base-k digits; the most among vranks
// below p.
inline int knomial_height(int p, int radix) {
  int best = 0;
  for (int v = 0; v < p; ++v) {
    int digits = 0;
    for (int x = v; x > 0; x /= radix) digits += x % radix != 0;
    best = std::max(best, digits);
  }
  return best;
}

}  // namespace collsim_test
