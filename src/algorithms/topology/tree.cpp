#include "algorithms/topology/tree.hpp"

#include <algorithm>
#include <bit>

namespace collsim {

namespace {
int to_real(int vrank, int size, int root) { return (vrank + root) % size; }
}  // namespace

TreeNode binomial_tree(int rank, int size, int root) {
  TreeNode node;
  const unsigned vrank = static_cast<unsigned>((rank - root + size) % size);
  if (vrank != 0) {
    const unsigned parent = vrank & ~std::bit_floor(vrank);
    node.parent = to_real(static_cast<int>(parent), size, root);
  }
  for (unsigned mask = vrank == 0 ? 1u : std::bit_floor(vrank) << 1;
       mask < static_cast<unsigned>(size); mask <<= 1) {
    const unsigned child = vrank | mask;
    if (child >= static_cast<unsigned>(size)) break;
    node.children.push_back(to_real(static_cast<int>(child), size, root));
  }
  return node;
}

int binomial_tree_height(int size) {
  // Depth of a vrank is its popcount, so the height is the largest popcount of a number <= x =
  // size - 1: x itself, or x with one set bit cleared and every bit below it set.
  if (size <= 1) return 0;
  const unsigned x = static_cast<unsigned>(size - 1);
  int height = std::popcount(x);
  for (int bit = 0; bit < 32; ++bit)
    if (x & (1u << bit)) height = std::max(height, std::popcount(x >> (bit + 1)) + bit);
  return height;
}

}  // namespace collsim
