// Gather algorithms, named and numbered as Open MPI's coll/tuned (gather algorithm IDs).
//
// Every rank contributes `block` (m bytes); at params.root, `gathered` (size * m bytes) receives
// rank r's block at offset r * m. `gathered` is ignored on other ranks.
#pragma once

#include "algorithms/params.hpp"
#include "comm/comm.hpp"

namespace collsim {

Task<> gather_basic_linear(Comm& comm, Buffer block, Buffer gathered,
                           const AlgorithmParams& params);  // ID 1

}  // namespace collsim
