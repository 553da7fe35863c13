// The catalogue of algorithms: Open MPI's name and ID for each, and how to call it.
//
// Engines and the command line look algorithms up here by their full name
// ("<operation>/<algorithm>", e.g. "bcast/binomial"), so adding an algorithm is one entry.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "algorithms/params.hpp"
#include "comm/comm.hpp"

namespace collsim {

enum class Operation { bcast, gather };
std::string_view to_string(Operation op);

// The buffers one rank hands to a collective. bcast: `data` is the broadcast buffer.
// gather: `data` is this rank's block, `gathered` the root's result (size * block bytes).
struct RankBuffers {
  Buffer data;
  Buffer gathered;
};

using AlgorithmFn = Task<> (*)(Comm&, RankBuffers, const AlgorithmParams&);

struct AlgorithmInfo {
  std::string_view name;  // "bcast/binomial"
  Operation op;
  int ompi_id;               // Open MPI's coll_tuned_<op>_algorithm number
  bool uses_segment;         // honours AlgorithmParams::segment
  std::string_view summary;  // one line for --help and listings
  AlgorithmFn run;
};

std::span<const AlgorithmInfo> all_algorithms();
// nullptr when no algorithm has that name. Also accepts the short names bcast/binary,
// bcast/split_binary, bcast/linear and gather/linear.
const AlgorithmInfo* find_algorithm(std::string_view name);
// "bcast/binomial, gather/basic_linear, ...", for error messages.
std::string algorithm_names();

// Whether the algorithm reads AlgorithmParams::fanout (bcast/chain) or ::radix (bcast/knomial).
bool uses_fanout(const AlgorithmInfo& algorithm);
bool uses_radix(const AlgorithmInfo& algorithm);

}  // namespace collsim
