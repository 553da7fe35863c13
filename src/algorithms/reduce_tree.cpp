// Open MPI's generic tree reduction (ompi_coll_base_reduce_generic), which reduce's chain,
// pipeline, binary, binomial and in-order_binary run on their trees (reduce.hpp).
#include <array>
#include <vector>

#include "algorithms/collectives.hpp"
#include "algorithms/segmentation.hpp"

namespace collsim {

namespace {

// A leaf sends its segments up in order; with 0 < max_requests < segments it keeps at most
// max_requests isends in flight, reusing the oldest slot for the next segment.
Task<> reduce_leaf(Comm& comm, Buffer vector, int parent, const Segmentation& seg, int max_requests) {
  const auto limit = static_cast<std::size_t>(max_requests > 0 ? max_requests : 0);
  if (limit == 0 || seg.count() <= limit) {
    for (std::size_t s = 0; s < seg.count(); ++s) co_await comm.send(seg.slice(vector, s), parent, tags::reduce);
    co_return;
  }
  std::vector<Request> slots(limit);
  for (std::size_t s = 0; s < seg.count(); ++s) {
    if (s >= limit) co_await comm.wait(slots[s % limit]);
    auto send = comm.isend(seg.slice(vector, s), parent, tags::reduce);
    slots[s % limit] = co_await send;
  }
  co_await comm.wait_all(slots);
}

}  // namespace

Task<> reduce_tree(Comm& comm, Buffer vector, Buffer result, TreeNode node, const AlgorithmParams& params) {
  const std::size_t m = vector.size();
  if (m == 0) co_return;
  const Reduction red = params.reduction;
  const Segmentation seg(m, element_segment(m, params.segment, size_of(red.type)));
  const std::vector<int>& kids = node.children;
  const bool is_root = node.parent < 0;
  if (kids.empty()) {
    if (is_root)
      co_await comm.copy(result, vector);  // one process: coll/self's copy
    else
      co_await reduce_leaf(comm, vector, node.parent, seg, params.max_requests);
    co_return;
  }

  const bool real = !vector.is_virtual();
  Storage acc_store;
  Buffer acc = result;
  if (!is_root) {
    acc_store = Storage(m, real);
    acc = acc_store.view();
  }
  // A commutative operator lets child 0's segment land in the accumulator and own data join it
  // at child 1; otherwise own data starts the accumulator and each child is combined on its left.
  const bool direct = is_commutative(red.op);
  if (!direct) co_await comm.copy(acc, vector);
  std::array<Storage, 2> temps{Storage(seg.segment_bytes(), real), Storage(seg.segment_bytes(), real)};
  std::size_t next_temp = 0;

  const std::size_t segments = seg.count(), k = kids.size();
  Request pending;      // the receive posted last
  Buffer pending_data;  // where it lands
  for (std::size_t s = 0; s <= segments; ++s) {
    for (std::size_t i = 0; i < k; ++i) {
      Request posted;
      Buffer posted_data;
      if (s < segments) {
        if (i == 0 && direct) {
          posted_data = seg.slice(acc, s);
        } else {
          posted_data = temps[next_temp].view().slice(0, seg.length(s));
          next_temp ^= 1;
        }
        auto post = comm.irecv(posted_data, kids[i], tags::reduce);
        posted = co_await post;
      }
      if (s == 0 && i == 0) {  // nothing earlier to wait for
        pending = posted;
        pending_data = posted_data;
        continue;
      }
      co_await comm.wait(pending);
      if (i >= 1) {  // child i-1's segment s
        const Buffer in = i == 1 && direct ? seg.slice(vector, s) : pending_data;
        co_await comm.reduce_local(seg.slice(acc, s), in, red);
      } else {  // the last child's segment s-1 finishes that segment
        const Buffer in = k == 1 && direct ? seg.slice(vector, s - 1) : pending_data;
        co_await comm.reduce_local(seg.slice(acc, s - 1), in, red);
        if (!is_root) co_await comm.send(seg.slice(acc, s - 1), node.parent, tags::reduce);
        if (s == segments) break;
      }
      pending = posted;
      pending_data = posted_data;
    }
  }
}

}  // namespace collsim
