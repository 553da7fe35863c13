#include "algorithms/tree_bcast.hpp"

#include <array>
#include <vector>

#include "algorithms/params.hpp"
#include "algorithms/segmentation.hpp"

namespace collsim {

// One pass per segment i: a non-root rank has the receives of segments up to i + 1 posted before
// it waits for segment i (so two are in flight), then every rank with children isends segment i
// to each of them and waits for those sends. The root only forwards.
//
// Written for a small coroutine frame, since a model run holds one per rank for millions of
// ranks: GCC gives every local, and every temporary alive across a co_await, a slot of its own.
// So the forwarding is inline rather than a helper coroutine, and each operation is made in a
// statement of its own and then awaited, which keeps its arguments' temporaries out of the frame.
Task<> tree_bcast(Comm& comm, Buffer data, int root, std::size_t segment, TreeNode node) {
  const Segmentation seg(data.size(), segment);
  std::vector<Request> sends(node.children.size());
  std::array<Request, 2> recvs;

  std::size_t posted = 0;  // receives posted so far
  for (std::size_t i = 0; i < seg.count(); ++i) {
    if (comm.rank() != root) {
      for (; posted < seg.count() && posted <= i + 1; ++posted) {
        auto post = comm.irecv(seg.slice(data, posted), node.parent, tags::bcast);
        recvs[posted % 2] = co_await post;
      }
      co_await comm.wait(recvs[i % 2]);
    }
    if (node.children.empty()) continue;
    for (std::size_t c = 0; c < node.children.size(); ++c) {
      auto send = comm.isend(seg.slice(data, i), node.children[c], tags::bcast);
      sends[c] = co_await send;
    }
    co_await comm.wait_all(sends);
  }
}

}  // namespace collsim
