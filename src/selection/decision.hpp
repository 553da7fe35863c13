// What an MPI library decides per collective call: which algorithm, with which knobs.
//
// A Choice is the answer of every selector in selection/: Open MPI's fixed decision functions
// (here), model-based selection (model_selection.hpp) and a precomputed DecisionTable
// (decision_table.hpp), so their answers can be compared, tabulated and written as an Open MPI
// rules file (rules_file.hpp).
//
// The fixed decisions are those of Open MPI's coll/tuned when nothing is forced: 3.1 (the same in
// 2.1 and 4.0; segment sizes chosen by message and communicator size) and 4.1 (the same in 5.0;
// tables by communicator size, always unsegmented). They are written from
// ../shared/reference/openmpi-algorithms.md, "Fixed decision functions" (bcast, gather), and
// openmpi-collectives.md section 10 (the other operations), and checked against
// the v3.1.6 and v4.1.4 sources of coll_tuned_decision_fixed.c.
#pragma once

#include <cstddef>
#include <string>

#include "algorithms/params.hpp"
#include "registry/registry.hpp"

namespace collsim::selection {

struct Choice {
  const AlgorithmInfo* algorithm = nullptr;
  // The knobs the algorithm takes (segment, fanout, radix); the others keep their defaults. The
  // root is not part of a choice (no decision here depends on it).
  AlgorithmParams params;

  // Same algorithm and the same value of each knob the algorithm takes: two choices that run
  // the same messages compare equal, whatever an unused knob holds.
  friend bool operator==(const Choice& a, const Choice& b);
};

// "bcast/pipeline segment 8KiB", "bcast/chain segment 0 fanout 1", "gather/binomial".
std::string to_string(const Choice& choice);

enum class OmpiVersion { v3_1, v4_1 };
std::string_view to_string(OmpiVersion v);

// Open MPI's fixed decision for a call on `procs` processes (at least 1) of `bytes` as the
// operation's descriptor means them (the broadcast message, each process's block, the vector, ...),
// with a commutative reduction operator or not (reduce, allreduce and reduce_scatter only). 3.1's
// decisions are written for bcast and gather only (InputError for the others).
//
// 4.1 runs what it picks with fanout and segment size 0: its chain then has one chain (a
// pipeline; Open MPI raises a fanout below 1 to 1), so the 4.1 bcast/chain choice has fanout 1;
// its k-nomial radix is the process-wide coll_tuned_bcast_algorithm_knomial_radix, 4 by default.
Choice ompi_fixed_decision(OmpiVersion v, Operation op, int procs, std::size_t bytes, bool commutative = true);

}  // namespace collsim::selection
