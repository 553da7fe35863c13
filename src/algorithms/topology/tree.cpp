#include "algorithms/topology/tree.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace collsim {

namespace {

void check_rank(int rank, int size, int root) {
  if (size < 1) throw std::invalid_argument("a tree needs at least 1 process, not " + std::to_string(size));
  if (root < 0 || root >= size)
    throw std::invalid_argument("root " + std::to_string(root) + " is not a rank of " + std::to_string(size) +
                                " processes");
  if (rank < 0 || rank >= size)
    throw std::invalid_argument("rank " + std::to_string(rank) + " is not a rank of " + std::to_string(size) +
                                " processes");
}

int to_vrank(int rank, int size, int root) { return (rank - root + size) % size; }
int to_real(std::int64_t vrank, int size, int root) { return static_cast<int>((vrank + root) % size); }

int clamp_fanout(int fanout) { return std::clamp(fanout, 1, kMaxTreeFanout); }

// Level of `vrank` in Open MPI's breadth-first f-ary tree, and the number of vranks on the
// levels above it (levels hold 1, f, f^2, ... vranks).
struct Level {
  int level = 0;
  std::int64_t width = 1;  // f^level: vranks on this level, and the stride between children
  std::int64_t above = 0;  // vranks on levels 0 .. level-1
};

Level level_of(std::int64_t vrank, int fanout) {
  Level l;
  while (l.above + l.width <= vrank) {
    l.above += l.width;
    l.width *= fanout;
    ++l.level;
  }
  return l;
}

}  // namespace

TreeNode linear_tree(int rank, int size, int root) {
  check_rank(rank, size, root);
  TreeNode node;
  if (rank != root) {
    node.parent = root;
    return node;
  }
  node.children.reserve(static_cast<std::size_t>(size - 1));
  for (int r = 0; r < size; ++r)
    if (r != root) node.children.push_back(r);
  return node;
}

TreeNode chain_tree(int rank, int size, int root, int fanout) {
  check_rank(rank, size, root);
  TreeNode node;
  if (size == 1) return node;
  const int chains = std::min(clamp_fanout(fanout), size - 1);
  // `longest` vranks per chain for the first `long_chains` chains, one fewer for the rest.
  const int longest = (size - 1 + chains - 1) / chains;
  const int long_chains = (size - 1) % chains == 0 ? chains : (size - 1) % chains;
  auto length = [&](int chain) { return chain < long_chains ? longest : longest - 1; };

  const int v = to_vrank(rank, size, root);
  if (v == 0) {
    int head = 1;
    for (int c = 0; c < chains; ++c) {
      node.children.push_back(to_real(head, size, root));
      head += length(c);
    }
    return node;
  }
  int head, len;
  if (v - 1 < long_chains * longest) {
    head = 1 + (v - 1) / longest * longest;
    len = longest;
  } else {
    const int past = v - 1 - long_chains * longest;  // vranks into the short chains
    head = 1 + long_chains * longest + past / (longest - 1) * (longest - 1);
    len = longest - 1;
  }
  node.parent = to_real(v == head ? 0 : v - 1, size, root);
  if (v != head + len - 1) node.children.push_back(to_real(v + 1, size, root));
  return node;
}

TreeNode pipeline_tree(int rank, int size, int root) { return chain_tree(rank, size, root, 1); }

TreeNode kary_tree(int rank, int size, int root, int fanout) {
  check_rank(rank, size, root);
  fanout = clamp_fanout(fanout);
  TreeNode node;
  const std::int64_t v = to_vrank(rank, size, root);
  const Level l = level_of(v, fanout);
  for (int i = 1; i <= fanout; ++i) {
    const std::int64_t child = v + l.width * i;
    if (child >= size) break;
    node.children.push_back(to_real(child, size, root));
  }
  if (v != 0) {
    // The parent sits on the level above, at the same position modulo that level's width.
    const std::int64_t up_width = l.width / fanout;
    const std::int64_t up_start = l.above - up_width;
    node.parent = to_real(up_start + (v - l.above) % up_width, size, root);
  }
  return node;
}

TreeNode binary_tree(int rank, int size, int root) { return kary_tree(rank, size, root, 2); }

TreeNode binomial_tree(int rank, int size, int root) {
  check_rank(rank, size, root);
  TreeNode node;
  const auto v = static_cast<std::uint64_t>(to_vrank(rank, size, root));
  if (v != 0) node.parent = to_real(static_cast<std::int64_t>(v & ~std::bit_floor(v)), size, root);
  for (std::uint64_t mask = v == 0 ? 1 : std::bit_floor(v) << 1; (v | mask) < static_cast<std::uint64_t>(size);
       mask <<= 1)
    node.children.push_back(to_real(static_cast<std::int64_t>(v | mask), size, root));
  return node;
}

TreeNode in_order_binomial_tree(int rank, int size, int root) {
  check_rank(rank, size, root);
  TreeNode node;
  const std::int64_t v = to_vrank(rank, size, root);
  for (std::int64_t mask = 1; mask < size; mask <<= 1) {
    const std::int64_t partner = v ^ mask;
    if (partner < v) {
      node.parent = to_real(partner, size, root);
      break;
    }
    if (partner < size) node.children.push_back(to_real(partner, size, root));
  }
  return node;
}

TreeNode in_order_binary_tree(int rank, int size) {
  check_rank(rank, size, 0);
  TreeNode node;
  // Walk down from the whole range to the subtree that `rank` roots.
  int begin = 0, n = size;
  while (begin + n - 1 != rank) {
    const int half = n / 2;
    node.parent = begin + n - 1;
    if (rank >= begin + half) {
      begin += half;  // child 0: [begin + half, begin + n - 1)
      n -= half + 1;
    } else {
      n = half;  // child 1: [begin, begin + half)
    }
  }
  const int half = n / 2;
  if (n - 1 - half > 0) node.children.push_back(begin + n - 2);
  if (half > 0) node.children.push_back(begin + half - 1);
  return node;
}

TreeNode scatter_binomial_tree(int rank, int size, int root) {
  TreeNode node = in_order_binomial_tree(rank, size, root);
  std::reverse(node.children.begin(), node.children.end());
  return node;
}

TreeNode knomial_tree(int rank, int size, int root, int radix) {
  check_rank(rank, size, root);
  if (radix < 2) throw std::invalid_argument("the k-nomial radix must be at least 2, not " + std::to_string(radix));
  TreeNode node;
  const std::int64_t v = to_vrank(rank, size, root);
  // The first position whose digit is non-zero decides the parent; the positions below it
  // (every position at the root) hold the children.
  std::int64_t mask = 1;
  while (mask < size) {
    if (v % (radix * mask) != 0) {
      node.parent = to_real(v / (radix * mask) * (radix * mask), size, root);
      break;
    }
    mask *= radix;
  }
  for (mask /= radix; mask > 0; mask /= radix)
    for (int d = 1; d < radix; ++d)
      if (v + mask * d < size) node.children.push_back(to_real(v + mask * d, size, root));
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

int chain_tree_height(int size, int fanout) {
  if (size <= 1) return 0;
  const int chains = std::min(clamp_fanout(fanout), size - 1);
  return (size - 1 + chains - 1) / chains;
}

int kary_tree_height(int size, int fanout) {
  if (size <= 1) return 0;
  return level_of(size - 1, clamp_fanout(fanout)).level;
}

int knomial_tree_height(int size, int radix) {
  // Depth of a vrank is its number of non-zero base-radix digits. The deepest vrank <= x = size-1
  // is x itself, or x with one non-zero digit lowered by one and every digit below it at radix-1.
  if (radix < 2) throw std::invalid_argument("the k-nomial radix must be at least 2, not " + std::to_string(radix));
  if (size <= 1) return 0;
  std::vector<int> digits;  // least significant first
  for (std::int64_t x = size - 1; x > 0; x /= radix) digits.push_back(static_cast<int>(x % radix));
  const auto nonzero_from = [&](std::size_t from) {
    return static_cast<int>(
        std::count_if(digits.begin() + static_cast<std::ptrdiff_t>(from), digits.end(), [](int d) { return d != 0; }));
  };
  int height = nonzero_from(0);
  for (std::size_t pos = 0; pos < digits.size(); ++pos)
    if (digits[pos] != 0)
      height = std::max(height, nonzero_from(pos + 1) + (digits[pos] > 1 ? 1 : 0) + static_cast<int>(pos));
  return height;
}

}  // namespace collsim
