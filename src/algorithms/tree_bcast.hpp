// The segmented tree broadcast that Open MPI's chain, pipeline, binary, binomial and knomial
// broadcasts all share (coll/base "generic" bcast); only the tree differs.
//
// Root: for each segment, isend it to every child, then wait for those sends.
// Other nodes: keep two receives posted (post segment i+1 before waiting for segment i), then
// forward segment i to every child with isends and wait for them. Leaves do the same without the
// forwarding.
#pragma once

#include "algorithms/topology/tree.hpp"
#include "comm/comm.hpp"

namespace collsim {

Task<> tree_bcast(Comm& comm, Buffer data, int root, std::size_t segment, const TreeNode& node);

}  // namespace collsim
