// Rabenseifner's reduce-scatter by recursive vector halving and distance doubling, shared by
// reduce/rabenseifner and allreduce/rabenseifner (Open MPI's redscat_gather and
// redscat_allgather run the same steps 1 and 2, each with its own tag), and the formulas that
// follow its halvings.
#pragma once

#include <cstddef>
#include <vector>

#include "algorithms/params.hpp"
#include "comm/comm.hpp"

namespace collsim {

// One step of the vector halving, in elements: the part a rank keeps and the part it sends away.
struct Halving {
  std::size_t keep, keep_count, sent, sent_count;
};

// The halvings of virtual rank `vrank` among `pof2` over `count` elements, step k at distance
// 2^k: the lower of the two partners keeps the lower floor(w/2) elements of its window w, the
// upper one the rest. Real ranks grow with virtual ones, so comparing either gives the same side.
std::vector<Halving> rabenseifner_halvings(int vrank, int pof2, std::size_t count);

// The real rank of virtual rank u when the `extra` = p - p' odd ranks below 2 * extra have
// dropped out: 2u below extra, u + extra above.
inline int rabenseifner_real_rank(int u, int extra) { return u < extra ? 2 * u : u + extra; }

// Steps 1 and 2 on the working vector `w` (every rank's own data on entry; count = its size in
// elements, at least p'), with `t` (as large) to receive into, messages tagged `tag`:
//  1. ranks below 2(p - p') pair up: the odd one sends its lower half and gets the even one's
//     upper half (sendrecv), reduces that upper half and sends it back, then drops out; the even
//     one reduces the lower half and receives the upper one;
//  2. the p' remaining ranks (virtual rank u) halve the vector by distance doubling: at each step
//     a sendrecv with the partner of rabenseifner_halvings, then w[keep] <- t[keep] (+) w[keep].
// Returns the virtual rank, whose last halving's kept part of w is now fully reduced; -1 for a
// rank that dropped out.
Task<int> rabenseifner_reduce_scatter(Comm& comm, Buffer w, Buffer t, Reduction reduction, int tag);

}  // namespace collsim
