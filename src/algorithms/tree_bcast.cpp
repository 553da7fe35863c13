#include "algorithms/tree_bcast.hpp"

#include <array>
#include <vector>

#include "algorithms/params.hpp"
#include "algorithms/segmentation.hpp"

namespace collsim {

namespace {

// Sends one segment to every child at once and waits for all of those sends.
Task<> forward(Comm& comm, Buffer segment, const std::vector<int>& children, std::vector<Request>& sends) {
  for (std::size_t c = 0; c < children.size(); ++c) sends[c] = co_await comm.isend(segment, children[c], tags::bcast);
  co_await comm.wait_all(sends);
}

}  // namespace

Task<> tree_bcast(Comm& comm, Buffer data, int root, std::size_t segment, TreeNode node) {
  const Segmentation seg(data.size(), segment);
  const std::size_t n = seg.count();
  std::vector<Request> sends(node.children.size());

  if (comm.rank() == root) {
    for (std::size_t i = 0; i < n; ++i) co_await forward(comm, seg.slice(data, i), node.children, sends);
    co_return;
  }
  if (n == 0) co_return;

  std::array<Request, 2> recvs;
  int current = 0;
  recvs[current] = co_await comm.irecv(seg.slice(data, 0), node.parent, tags::bcast);
  for (std::size_t i = 1; i < n; ++i) {
    current ^= 1;
    recvs[current] = co_await comm.irecv(seg.slice(data, i), node.parent, tags::bcast);
    co_await comm.wait(recvs[current ^ 1]);
    if (!node.children.empty()) co_await forward(comm, seg.slice(data, i - 1), node.children, sends);
  }
  co_await comm.wait(recvs[current]);
  if (!node.children.empty()) co_await forward(comm, seg.slice(data, n - 1), node.children, sends);
}

}  // namespace collsim
