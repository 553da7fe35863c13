// bcast/split_binary_tree (ID 4); what it does and where it follows Open MPI: bcast.hpp.
#include <algorithm>
#include <array>

#include "algorithms/collectives.hpp"
#include "algorithms/segmentation.hpp"
#include "algorithms/virtual_trees.hpp"

namespace collsim {

namespace {

constexpr int kLeft = 0, kRight = 1;  // which half a subtree carries

// The two halves of the message and how each is segmented.
struct Halves {
  std::array<Buffer, 2> part;
  std::array<Segmentation, 2> seg;

  Halves(Buffer data, std::size_t segment)
      : part{data.slice(0, (data.size() + 1) / 2), data.slice((data.size() + 1) / 2, data.size() / 2)},
        seg{Segmentation(part[0].size(), segment), Segmentation(part[1].size(), segment)} {}

  Buffer segment(int half, std::size_t i) const { return seg[half].slice(part[half], i); }
};

// Phase 1 at the root: segment i of the left half to the left child, then segment i of the right
// half to the right child, with blocking sends, until both halves are out.
Task<> root_sends_halves(Comm& comm, const Halves& h, const TreeNode& node) {
  const std::size_t children = std::min<std::size_t>(node.children.size(), 2);
  for (std::size_t i = 0; i < h.seg[kLeft].count(); ++i)
    for (std::size_t c = 0; c < children; ++c) {
      const int half = static_cast<int>(c);
      if (i < h.seg[half].count()) co_await comm.send(h.segment(half, i), node.children[c], tags::bcast);
    }
}

// Blocking-sends one segment to each child in turn.
Task<> send_to_children(Comm& comm, Buffer segment, const TreeNode& node) {
  for (int child : node.children) co_await comm.send(segment, child, tags::bcast);
}

// Phase 1 at an inner node: one receive always posted ahead, then forward each segment.
Task<> relay_half(Comm& comm, const Halves& h, int half, const TreeNode& node) {
  const std::size_t n = h.seg[half].count();
  Request current = co_await comm.irecv(h.segment(half, 0), node.parent, tags::bcast);
  for (std::size_t i = 1; i < n; ++i) {
    Request next = co_await comm.irecv(h.segment(half, i), node.parent, tags::bcast);
    co_await comm.wait(current);
    co_await send_to_children(comm, h.segment(half, i - 1), node);
    current = next;
  }
  co_await comm.wait(current);
  co_await send_to_children(comm, h.segment(half, n - 1), node);
}

// Phase 1 at a leaf: blocking receives, one segment after another.
Task<> receive_half(Comm& comm, const Halves& h, int half, const TreeNode& node) {
  for (std::size_t i = 0; i < h.seg[half].count(); ++i)
    co_await comm.recv(h.segment(half, i), node.parent, tags::bcast);
}

// Phase 2: each rank gets the half its subtree did not carry from its pair in the other subtree.
Task<> swap_halves(Comm& comm, const Halves& h, int root, int mine) {
  const int p = comm.size(), rank = comm.rank();
  const int other = 1 - mine;
  const int pair = mine == kLeft ? (rank + 1) % p : (rank - 1 + p) % p;
  const int last = (root + p - 1) % p;  // with even p, the left vrank p-1 has no right pair
  if (rank == root) {
    if (p % 2 == 0) co_await comm.send(h.part[kRight], last, tags::bcast);
  } else if (p % 2 == 0 && rank == last) {
    co_await comm.recv(h.part[kRight], root, tags::bcast);
  } else {
    co_await comm.sendrecv(h.part[mine], pair, tags::bcast, h.part[other], pair, tags::bcast);
  }
}

}  // namespace

Task<> bcast_split_binary_tree(Comm& comm, Buffer data, const AlgorithmParams& params) {
  if (comm.size() == 1 || data.size() == 0) co_return;  // MPI_Bcast returns at once for these
  const Halves h(data, params.segment);
  // Open MPI 4.1 cannot split an empty half or fit a segment in a half: it broadcasts with the
  // chain of fanout 1, which is the pipeline, with the same segment size.
  if (h.part[kRight].size() == 0 || params.segment > h.part[kRight].size()) {
    co_await bcast_pipeline(comm, data, params);
    co_return;
  }
  const int p = comm.size(), root = params.root;
  const int vrank = (comm.rank() - root + p) % p;
  const int mine = vrank % 2 == 1 ? kLeft : kRight;  // the root counts as right
  const TreeNode node = binary_node(comm.rank(), p, params);

  if (comm.rank() == root)
    co_await root_sends_halves(comm, h, node);
  else if (!node.children.empty())
    co_await relay_half(comm, h, mine, node);
  else
    co_await receive_half(comm, h, mine, node);
  co_await swap_halves(comm, h, root, mine);
}

}  // namespace collsim
