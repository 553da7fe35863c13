// The blocks of a subtree of Open MPI's in-order binomial tree, as gather/binomial and
// scatter/binomial hold them: in vrank order (vrank = rank - root mod p) in one buffer, so that a
// subtree's blocks travel as one message. Vrank v's subtree is vranks v .. v + n - 1.
#pragma once

#include <algorithm>
#include <cstdint>

#include "algorithms/params.hpp"
#include "algorithms/topology/tree.hpp"
#include "algorithms/virtual_trees.hpp"
#include "comm/buffer.hpp"

namespace collsim {

// n for vrank v on p processes: v's lowest set bit, cut at p; the root's (v = 0) is p.
inline std::size_t subtree_blocks(std::int64_t vrank, int p) {
  if (vrank == 0) return static_cast<std::size_t>(p);
  return static_cast<std::size_t>(std::min<std::int64_t>(vrank & -vrank, p - vrank));
}

// A rank's place in the tree (its vrank and node) and where it holds its subtree's blocks of m
// bytes: the root, when it is rank 0, in `whole` (its receive or send buffer of p blocks, already
// in vrank order); another root in a temporary of p blocks; an inner rank (even vrank) in a
// temporary of its subtree's; a leaf (odd vrank) in `own`, its single block. Temporaries hold real
// bytes unless the buffer they stand for is virtual.
struct Subtree {
  Storage storage;
  Buffer blocks;
  std::int64_t vrank = 0;
  TreeNode node;
};

inline Subtree binomial_subtree(int rank, int p, const AlgorithmParams& params, Buffer whole, Buffer own) {
  const int root = params.root;
  const std::size_t m = own.size();
  const std::int64_t vrank = (rank - root + p) % p;
  Subtree s;
  s.vrank = vrank;
  s.node = in_order_node(rank, p, params);
  if (rank == root && root == 0) {
    s.blocks = whole;
  } else if (rank == root) {
    s.storage = Storage(static_cast<std::size_t>(p) * m, !whole.is_virtual());
    s.blocks = s.storage.view();
  } else if (vrank % 2 == 0) {
    s.storage = Storage(subtree_blocks(vrank, p) * m, !own.is_virtual());
    s.blocks = s.storage.view();
  } else {
    s.blocks = own;
  }
  return s;
}

}  // namespace collsim
