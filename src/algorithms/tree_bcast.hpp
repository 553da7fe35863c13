// The segmented tree broadcast that Open MPI's chain, pipeline, binary, binomial and knomial
// broadcasts all share (coll/base ompi_coll_base_bcast_intra_generic); only the tree differs.
//
// Root: for each segment, isend it to every child (in the node's child order), then wait for
// those sends, so at most one segment per child is in flight.
// Other nodes: keep two receives posted (post segment i+1 before waiting for segment i), then
// forward segment i to every child with isends and wait for them. Leaves do the same without the
// forwarding. Segments follow Open MPI's rule (segmentation.hpp); the last one may be short.
#pragma once

#include "algorithms/topology/tree.hpp"
#include "comm/comm.hpp"

namespace collsim {

Task<> tree_bcast(Comm& comm, Buffer data, int root, std::size_t segment, TreeNode node);

}  // namespace collsim
