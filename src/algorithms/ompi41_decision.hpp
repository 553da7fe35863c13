// Open MPI 4.1's fixed decision (coll_tuned_decision_fixed.c, `ompi_coll_tuned_<op>_intra_dec_fixed`):
// which of its algorithms coll/tuned runs for a call when nothing is forced, for every operation.
//
// Two users: algorithms built from other collectives (nested_collective.hpp) run what Open MPI
// would run for the nested call, and selection/decision.hpp answers `collsim select` with it. The
// tables are ../shared/reference/openmpi-collectives.md section 10 and openmpi-algorithms.md
// (bcast, gather), checked against the v4.1.x sources.
#pragma once

#include <cstddef>
#include <string_view>

#include "algorithms/operation.hpp"
#include "algorithms/params.hpp"

namespace collsim {

// The algorithm, by its name within the operation ("pipeline": the registry's "bcast/pipeline",
// whose entry holds Open MPI's ID), and the knobs 4.1 runs it with: unsegmented, fanout 0 (which
// its chains raise to 1), the k-nomial radix and max_requests MCA defaults (4 and 0).
struct FixedChoice {
  std::string_view algorithm;
  AlgorithmParams params;
};

// The size Open MPI decides on for a call of `bytes` (as the operation's descriptor means it) on
// `procs` processes: the bytes themselves (the message, a block, the vector), except for
// reduce_scatter, whose decision reads the whole vector (procs blocks).
std::size_t ompi41_decision_bytes(Operation op, int procs, std::size_t bytes);

// The choice for a decision size `m` (ompi41_decision_bytes) on `procs` processes. Reduce,
// allreduce and reduce_scatter have other tables for a non-commutative operator; the other
// operations ignore `commutative`. The barrier decides on `procs` alone.
FixedChoice ompi41_fixed_choice(Operation op, int procs, std::size_t m, bool commutative = true);

}  // namespace collsim
