// The ring step that several derived formulas end with, evaluated in O(P) rather than step by
// step over every rank, which costs O(P^2).
//
// In the ring allgather, rank v is done with step s at
//   x_v(s) = max(x_v(s-1) + c(v - s + 1), x_{v-1}(s-1) + c(v - s))
// (its own send, and the receive from v-1), where c(b) is the time of block b's transfer. On the
// diagonal d = v - s the block a node sends is its diagonal's, c(d): a rank that keeps its own
// time goes down one diagonal per step, one that takes its left neighbour's stays on it. So the
// last rank's time after n steps is the longest path that starts on some diagonal e with x_e(0),
// is charged the cost of the diagonal it is on at each of the n steps and moves down by zero or
// one diagonal per step. Visiting the k+1 diagonals e, e-1, ..., e-k (k <= n-1) charges each once
// and the other n-1-k steps at the dearest of them, so the longest path is
//   max over e, k of x_e(0) + sum_{j=0..k} c(e-j) + (n-1-k) * max_{j<=k} c(e-j),
// and for one e only the k where the dearest cost so far grows can win (between two of those
// each step adds a cost below the dearest, which staying would have charged). The ring's blocks
// take two or three sizes, so that is a few candidates per e. The sums are taken in long double;
// against the step-by-step evaluation the result differs in the last bits only.
#pragma once

#include <cstddef>
#include <span>

namespace collsim::models {

// The largest x_v(n) of the recurrence above over all v, P = start.size() = cost.size() ranks,
// from start[d] = x_d(0) and cost[d] = c(d), for 0 < n < P (a path cannot visit more than P-1
// diagonals in n steps).
double ring_longest_path(std::span<const double> start, std::span<const double> cost, std::size_t n);

}  // namespace collsim::models
