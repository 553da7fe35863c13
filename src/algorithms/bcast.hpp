// Broadcast algorithms, named and numbered as Open MPI's coll/tuned (bcast algorithm IDs).
//
// Every function broadcasts `data` (data.size() bytes) from params.root; on non-root ranks the
// buffer receives the root's bytes.
#pragma once

#include "algorithms/params.hpp"
#include "comm/comm.hpp"

namespace collsim {

Task<> bcast_binomial(Comm& comm, Buffer data, const AlgorithmParams& params);  // ID 6

}  // namespace collsim
