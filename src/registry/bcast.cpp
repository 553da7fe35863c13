// The registry's broadcast entries, and their formulas derived from our implementation (= Open MPI's call sequence; the
// algorithms are described in algorithms/collectives.hpp). Notation: P processes, m bytes, t(x) = alpha + beta*x, c(k)
// = gamma(k+1)/gamma(2) (models/formula.hpp), c(0) = 0. Every formula is 0 for one process or no bytes, where MPI_Bcast
// returns at once.
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "algorithms/collectives.hpp"
#include "algorithms/segmentation.hpp"
#include "algorithms/virtual_trees.hpp"
#include "models/ring_paths.hpp"
#include "registry/entries.hpp"

namespace collsim {

namespace models {
namespace {

bool trivial(const FormulaInput& in) { return in.procs <= 1 || in.bytes == 0; }
double c(const FormulaInput& in, std::size_t k) { return in.costs.gamma.sends(static_cast<int>(k)); }
int vrank(int rank, const FormulaInput& in) { return (rank - in.params.root + in.procs) % in.procs; }

// A tree as tree_bcast reads it, parents before children: each rank's parent (an index into
// these), its place among the parent's children (1-based) and its number of children.
struct FlatTree {
  std::vector<int> rank;
  std::vector<std::uint32_t> parent, place, children;
  std::uint32_t widest = 0;  // the most children of a rank
};

FlatTree flatten(TreeFn tree, int procs, const AlgorithmParams& params) {
  FlatTree f;
  std::vector<int> ranks{params.root};
  f.parent.push_back(0);
  f.place.push_back(0);
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    f.rank.push_back(ranks[i]);
    const TreeNode node = tree(ranks[i], procs, params);
    f.children.push_back(static_cast<std::uint32_t>(node.children.size()));
    f.widest = std::max(f.widest, f.children.back());
    for (std::size_t j = 0; j < node.children.size(); ++j) {
      ranks.push_back(node.children[j]);
      f.parent.push_back(static_cast<std::uint32_t>(i));
      f.place.push_back(static_cast<std::uint32_t>(j + 1));
    }
  }
  return f;
}

// The tree of (tree, P, root, fanout, radix), flattened once per thread for the last few asked:
// select evaluates each tree at one P for every size and segment (270 times per P by default),
// and asking the tree for each rank costs more than the formula. Up to kCachedProcs processes
// (3 MB a tree); larger trees are walked as they are asked.
constexpr int kCachedProcs = 1 << 18;
const FlatTree& cached_tree(TreeFn tree, int procs, const AlgorithmParams& params) {
  struct Entry {
    TreeFn tree;
    int procs, root, fanout, radix;
    FlatTree flat;
  };
  thread_local std::vector<Entry> cache;  // most recent last
  for (auto it = cache.begin(); it != cache.end(); ++it)
    if (it->tree == tree && it->procs == procs && it->root == params.root && it->fanout == params.fanout &&
        it->radix == params.radix) {
      std::rotate(it, it + 1, cache.end());
      return cache.back().flat;
    }
  if (cache.size() == 8) cache.erase(cache.begin());
  cache.push_back({tree, procs, params.root, params.fanout, params.radix, flatten(tree, procs, params)});
  return cache.back().flat;
}

// tree_bcast's terms of one rank: D, s and F(n-1) (below).
struct Terms {
  double D, s, F_last;
};

// The generic segmented tree broadcast (chain, pipeline, binary, binomial, knomial) on `tree`,
// with n segments of s bytes, the last one l <= s bytes; t = t(s), t_l = t(l).
//
// A rank forwards segment i at F(i) = max(A(i), S(i-1)): once it has arrived (A) and its sends of
// segment i-1 are done (S(i-1) = F(i-1) + c(k)*t for k children); its j-th child (1-based, in
// the order it serves them) then holds it at F(i) + c(j)*t. The root forwards at F(i) = i*c(k)*t.
// By induction over the tree, for full segments F_v(i) = D_v + i*s_v with
//   D_v = D_u + c(j)*t (the first segment's arrival), s_v = max(s_u, c(k_v)*t)
// (a rank sends at the pace of the slowest rank above it, or its own): max over i of two lines.
// The short last segment: F_v(n-1) = max(F_u(n-1) + c(j)*t_l, D_v + (n-2)*s_v + c(k_v)*t).
// A rank is done when its last sends are: F_v(n-1) + c(k_v)*t_l (a leaf, k = 0: when the last
// segment arrived). The call takes the largest of those.
// Ranks sharing a node's link (FormulaCosts::node_ranks > 1, block placement): a rank's pace is
// at least c(K)*t - alpha for the K sends per segment its node's ranks make to other nodes, which
// leave over one link (trees of up to kCachedProcs processes; larger ones are walked without it).
// Sends that share the link fairly (FormulaCosts::fair_sharing: the sim engine) end together:
// every child of a rank with k children holds a segment c(k)*t after its parent sent it, the
// first as late as the last. With ranks sharing a node's link, a child on another node holds
// the last of n >= 2 segments c(K)*t_l after it was sent, K the node's sends to other nodes per
// segment (the c of the parent's pace): by then the link carries the streams of all the node's
// ranks, where the first segment left before the node's other ranks had anything to send (under
// the sim engine's tcp, single segments of two ranks of one node do not slow each other).
// A child on its parent's node, where messages inside a node are priced apart
// (FormulaCosts::intra, measured), holds a segment t_in after its parent forwarded it, not c(j)*t
// (the loopback or shared memory does not cross the node's link); the parent's pace is unchanged.
// Without contention (c = 1) this is (H + n - 1)*t for a tree of height H, and
// (H + n - 2)*t + t_l with a short last segment; c(k) = k (one port) charges a rank with k
// children k transfers per segment, and its j-th child receives after j of them.
// Where an eager send is done once handed over (FormulaCosts::eager_handover: tcp), the sends of
// a segment are done alpha before the last of them arrives, and the next segment's sends start
// then: S(i) = F(i) + c(k)*t - alpha, while the j-th child still holds it at F(i) + c(j)*t. A
// pipeline's pace is then c(k)*t - alpha per segment (beta*m_s for one child: the latency is
// paid once per level, in D, not once per segment), and a rank is done alpha before its last
// child has the last segment.
double tree_bcast(const FormulaInput& in, TreeFn tree) {
  if (trivial(in)) return 0;
  const Segmentation seg(in.bytes, in.params.segment);
  const std::size_t n = seg.count();
  const auto s_bytes = static_cast<double>(seg.segment_bytes()), l_bytes = static_cast<double>(seg.length(n - 1));
  const double t = in.t(s_bytes), t_l = in.t(l_bytes);
  // The sends of one segment to k children, c(k) = ck: how long they hold the rank (0 for a leaf).
  const double lat = in.overlapped(s_bytes), lat_l = in.overlapped(l_bytes);
  auto sends = [&](double ck) { return ck > 0 ? ck * t - lat : 0; };
  auto last_sends = [&](double ck) { return ck > 0 ? ck * t_l - lat_l : 0; };
  const double full_steps = n >= 2 ? static_cast<double>(n - 2) : 0;
  // A rank with k children, the j-th child of the rank with terms u, from cj = c(j) and ck = c(k):
  // its terms, and its finish taken into the call's.
  double finish = 0;
  // A child on its parent's node, where that is priced apart (FormulaCosts::intra), holds a
  // segment one transfer inside the node after its parent sent it.
  const double t_in = in.costs.intra ? in.costs.intra_transfer(s_bytes) : 0;
  const double t_in_l = in.costs.intra ? in.costs.intra_transfer(l_bytes) : 0;
  // The last segment arrives c(j_last)*t_l after it was sent (cj_last: the last segment's c,
  // FormulaCosts::fair_sharing with ranks sharing a node's link); one segment is the first.
  auto child = [&](const Terms& u, double cj, double ck, bool inside = false, double cj_last = 0) {
    if (n == 1 || cj_last == 0) cj_last = cj;
    const double arrive = inside ? t_in : cj * t, arrive_l = inside ? t_in_l : cj_last * t_l;
    Terms v{u.D + arrive, std::max(u.s, sends(ck)), 0};
    v.F_last = n == 1 ? u.F_last + arrive_l : std::max(u.F_last + arrive_l, v.D + full_steps * v.s + sends(ck));
    finish = std::max(finish, v.F_last + last_sends(ck));
    return v;
  };
  auto root_c = [&](double ck) {
    const double pace = sends(ck);
    finish = static_cast<double>(n - 1) * pace + last_sends(ck);
    return Terms{0, pace, static_cast<double>(n - 1) * pace};
  };
  auto root = [&](std::size_t k) { return root_c(c(in, k)); };

  if (in.procs <= kCachedProcs) {
    const FlatTree& f = cached_tree(tree, in.procs, in.params);
    std::vector<double> cs(f.widest + 1);
    for (std::size_t k = 0; k < cs.size(); ++k) cs[k] = c(in, k);
    // With ranks sharing a node's link, a rank's sends take the pace of all its node's sends to
    // other nodes (c of their count): it is held until the link has carried them.
    const auto shared = static_cast<std::size_t>(std::max(in.costs.node_ranks, 1));
    std::vector<std::uint32_t> leaving;  // by node: its ranks' children on other nodes
    if (shared > 1) {
      leaving.assign(static_cast<std::size_t>(in.procs) / shared + 1, 0);
      for (std::size_t i = 1; i < f.rank.size(); ++i) {
        const auto from = static_cast<std::size_t>(f.rank[f.parent[i]]) / shared;
        if (static_cast<std::size_t>(f.rank[i]) / shared != from) ++leaving[from];
      }
    }
    auto pace_of = [&](std::size_t i) {
      const std::size_t k = f.children[i];
      if (shared == 1 || k == 0) return cs[k];
      return std::max(cs[k], c(in, leaving[static_cast<std::size_t>(f.rank[i]) / shared]));
    };
    std::vector<Terms> terms(f.parent.size());
    terms[0] = root_c(pace_of(0));
    for (std::size_t i = 1; i < terms.size(); ++i) {
      const std::uint32_t up = f.parent[i];
      const bool fair = in.costs.fair_sharing;
      terms[i] = child(terms[up], cs[fair ? f.children[up] : f.place[i]], pace_of(i),
                       in.costs.inside_node(f.rank[up], f.rank[i]), fair ? pace_of(up) : 0);
    }
    return finish;
  }
  struct Node {
    TreeNode node;  // its children, each asked of the tree once
    Terms terms;
  };
  TreeNode top = tree(in.params.root, in.procs, in.params);
  const Terms at_root = root(top.children.size());
  std::vector<Node> stack;
  stack.push_back({std::move(top), at_root});
  while (!stack.empty()) {
    const Node u = std::move(stack.back());
    stack.pop_back();
    for (std::size_t j = 1; j <= u.node.children.size(); ++j) {
      TreeNode node = tree(u.node.children[j - 1], in.procs, in.params);
      const std::size_t place = in.costs.fair_sharing ? u.node.children.size() : j;
      const Terms v = child(u.terms, c(in, place), c(in, node.children.size()));
      if (!node.children.empty()) stack.push_back({std::move(node), v});
    }
  }
  return finish;
}

// The root isends the whole message to the P-1 others at once and waits: gamma(P) * t(m).
double derived_bcast_basic_linear(const FormulaInput& in) {
  return trivial(in) ? 0 : c(in, static_cast<std::size_t>(in.procs - 1)) * in.t(static_cast<double>(in.bytes));
}

double derived_bcast_chain(const FormulaInput& in) { return tree_bcast(in, chain_node); }
double derived_bcast_pipeline(const FormulaInput& in) { return tree_bcast(in, pipeline_node); }
double derived_bcast_binary_tree(const FormulaInput& in) { return tree_bcast(in, binary_node); }
double derived_bcast_binomial(const FormulaInput& in) { return tree_bcast(in, binomial_node); }
double derived_bcast_knomial(const FormulaInput& in) { return tree_bcast(in, knomial_node); }

// split_binary_tree: halves of L = ceil(m/2) and R = floor(m/2) bytes, each cut into segments.
// Phase 1 uses blocking sends only, so every cost is a sum: the root sends left segment i then
// right segment i, one after the other; a relay forwards segment i at F(i) = max(A(i), S(i-1)) to
// its children one after the other; a leaf is done when its last segment arrives. A send of x
// bytes holds its sender o(x) = t(x) - lat(x) (lat: the latency that runs on after an eager
// hand-over, FormulaCosts::eager_handover; else 0) and arrives lat(x) after it is done: the j-th
// child holds segment i at F(i) + j*o_i + lat_i, and S(i) = F(i) + k*o_i. Where ranks share a
// node's link (FormulaCosts::node_ranks > 1, block placement), a send to another node holds its
// sender c(n)*t - lat instead, n being the node's ranks that send to other nodes in that phase
// (their blocking sends run side by side, one each). Rank v's phase 1 ends at E_v (its last send
// done, or its last arrival). Phase 2: the left rank v (odd vrank) and v+1 swap halves with
// sendrecv, and both are done at max(E_v + t'(L), E_{v+1} + t'(R)), t' = c(n)*t for a swap
// between nodes whose sender's node has n such swaps, else t (a message inside a node priced
// apart, FormulaCosts::intra, takes its own Hockney there and in phase 1); a rendezvous half (a regime above
// the first) also waits for its receiver to post, at its E. With P even the root then sends the
// right half to the last vrank: E_root + t'(R), and that rank is done at max(E_last, that).
// Evaluated segment by segment down each subtree (the two halves' segment counts may differ by
// one, so the closed form of tree_bcast does not apply); cost O(P * segments).
// With serial receives (one port), a swap transfer into rank b also waits until b's last
// phase-1 segment has arrived (b's port is busy until then): it starts at max(E_a, last_b). The
// model engine agrees except where a rank posts its swap before its pair's parent posts the
// pair's last segment (or, P even, the root sends the last vrank its right half before that rank's
// parent has sent it its last left segment): the port, granted in the order sends are posted,
// takes that message first and delays the segment. This happens from 4 processes on; the engine is
// then up to 20% slower and the formula a lower bound (tests/registry/formula_agreement_test.cpp).
double derived_bcast_split_binary_tree(const FormulaInput& in) {
  if (trivial(in)) return 0;
  const std::size_t L = (in.bytes + 1) / 2, R = in.bytes / 2;
  if (R == 0 || in.params.segment > R) return derived_bcast_pipeline(in);  // Open MPI 4.1's fallback
  const std::array<Segmentation, 2> seg{Segmentation(L, in.params.segment), Segmentation(R, in.params.segment)};

  const int P = in.procs;
  const int shared = std::max(in.costs.node_ranks, 1);
  auto node = [&](int rank) { return rank / shared; };
  auto rank_of = [&](int v) { return (v + in.params.root) % P; };
  // Phase 1's sends from each node to other nodes: how many of its ranks make them.
  std::vector<int> senders(static_cast<std::size_t>(P / shared + 1), 0);
  std::vector<int> swaps(senders.size(), 0);  // phase 2's transfers leaving each node for another
  if (shared > 1) {
    for (int r = 0; r < P; ++r) {
      const TreeNode tn = binary_node(r, P, in.params);
      const bool off = std::any_of(tn.children.begin(), tn.children.end(), [&](int ch) { return node(ch) != node(r); });
      if (off) ++senders[static_cast<std::size_t>(node(r))];
    }
    auto swap_from = [&](int a, int b) {
      if (node(a) != node(b)) ++swaps[static_cast<std::size_t>(node(a))];
    };
    for (int v = 1; v + 1 < P; v += 2) {
      swap_from(rank_of(v), rank_of(v + 1));
      swap_from(rank_of(v + 1), rank_of(v));
    }
    if (P % 2 == 0) swap_from(in.params.root, rank_of(P - 1));
  }
  // A transfer from rank `from` to rank `to` on another node takes c(n) transfers' time for the n
  // its node's link carries at once (`count`, by node); one inside a node, or with a link per rank.
  auto shares = [&](const std::vector<int>& count, int from, int to) {
    if (shared == 1 || node(from) == node(to)) return 1.0;
    return c(in, static_cast<std::size_t>(count[static_cast<std::size_t>(node(from))]));
  };
  // How long a send of segment i of `half` from rank `from` to rank `to` holds its sender, and the
  // latency after it (a message inside a node priced apart, FormulaCosts::intra: by its own).
  auto hold = [&](int half, std::size_t i, int from, int to) {
    const auto x = static_cast<double>(seg[half].length(i));
    if (in.costs.inside_node(from, to)) return in.costs.intra_transfer(x) - in.costs.intra_overlapped(x);
    return shares(senders, from, to) * in.t(x) - in.overlapped(x);
  };
  auto lat = [&](int half, std::size_t i, int from, int to) {
    const auto x = static_cast<double>(seg[half].length(i));
    return in.costs.inside_node(from, to) ? in.costs.intra_overlapped(x) : in.overlapped(x);
  };

  std::vector<double> end(static_cast<std::size_t>(P), 0);   // E by vrank
  std::vector<double> last(static_cast<std::size_t>(P), 0);  // last phase-1 arrival by vrank
  // The root's blocking sends: left child (half 0) and right child (half 1), segment by segment.
  const TreeNode top = binary_node(in.params.root, P, in.params);
  const std::size_t children = std::min<std::size_t>(top.children.size(), 2);
  std::vector<std::vector<double>> arrivals(children);
  double clock = 0;
  for (std::size_t i = 0; i < seg[0].count(); ++i)
    for (std::size_t ch = 0; ch < children; ++ch) {
      const int half = static_cast<int>(ch);
      if (i >= seg[half].count()) continue;
      clock += hold(half, i, in.params.root, top.children[ch]);
      arrivals[ch].push_back(clock + lat(half, i, in.params.root, top.children[ch]));
    }
  end[0] = clock;

  // Each subtree relays its half; (rank, arrival times of its segments).
  struct Pending {
    int rank;
    std::vector<double> arrive;
  };
  for (std::size_t ch = 0; ch < children; ++ch) {
    const int half = static_cast<int>(ch);
    std::vector<Pending> stack{{top.children[ch], std::move(arrivals[ch])}};
    while (!stack.empty()) {
      Pending v = std::move(stack.back());
      stack.pop_back();
      const TreeNode tn = binary_node(v.rank, P, in.params);
      const std::size_t k = tn.children.size(), n = v.arrive.size();
      std::vector<std::vector<double>> down(k, std::vector<double>(n));
      double sent = 0;  // S(i-1)
      for (std::size_t i = 0; i < n; ++i) {
        sent = std::max(v.arrive[i], sent);
        for (std::size_t j = 0; j < k; ++j) {
          sent += hold(half, i, v.rank, tn.children[j]);
          down[j][i] = sent + lat(half, i, v.rank, tn.children[j]);
        }
      }
      const auto me = static_cast<std::size_t>(vrank(v.rank, in));
      end[me] = k == 0 ? v.arrive.back() : sent;
      last[me] = v.arrive.back();
      for (std::size_t j = 0; j < k; ++j) stack.push_back({tn.children[j], std::move(down[j])});
    }
  }

  // A swap transfer of `bytes` from vrank a to vrank b: when it has arrived. It starts once a's
  // phase 1 is done, a rendezvous once b has posted too, a serial receiver's once b's last
  // segment is in.
  auto swap = [&](std::size_t a, std::size_t b, std::size_t bytes) {
    const auto x = static_cast<double>(bytes);
    const int from = rank_of(static_cast<int>(a)), to = rank_of(static_cast<int>(b));
    double ready = end[a];
    if (in.costs.regime_of(x) > 0) ready = std::max(ready, end[b]);
    if (in.costs.serial_receive) ready = std::max(ready, last[b]);
    if (in.costs.inside_node(from, to)) return ready + in.costs.intra_transfer(x);
    return ready + shares(swaps, from, to) * in.t(x);
  };
  double finish = end[0];
  for (std::size_t a = 1; a + 1 < static_cast<std::size_t>(P); a += 2)
    finish = std::max({finish, swap(a, a + 1, L), swap(a + 1, a, R)});
  if (P % 2 == 0) {
    const auto lone = static_cast<std::size_t>(P - 1);
    finish = std::max({finish, swap(0, lone, R), end[lone]});
  }
  return finish;
}

// scatter_allgather(_ring)'s blocks: ceil(m/P) bytes each, the last ones short or empty.
struct Blocks {
  std::uint64_t m, block;
  std::uint64_t bytes(std::uint64_t first, std::uint64_t n) const {
    const std::uint64_t begin = first * block;
    return begin >= m ? 0 : std::min(m - begin, n * block);
  }
};

// The binomial scatter: a rank blocking-receives its subtree's blocks (none if they are empty),
// then blocking-sends each child its subtree's blocks, largest subtree first, skipping empty
// ones. Each receive completes when its send does (receives are posted at once), so a rank's
// clock is a sum of transfers from the moment its data arrived. Returns the scatter's end per
// vrank (its last send, or its arrival).
std::vector<double> scatter_ends(const FormulaInput& in, const Blocks& b) {
  const std::int64_t P = in.procs;
  std::vector<double> arrive(static_cast<std::size_t>(P), 0), end(static_cast<std::size_t>(P), 0);
  for (std::int64_t v = 0; v < P; ++v) {  // a parent's vrank is below its children's
    std::uint64_t held = v == 0 ? b.m : 0;
    std::int64_t mask = 1;
    for (; mask < P; mask <<= 1)
      if (v & mask) {
        held = b.bytes(static_cast<std::uint64_t>(v), static_cast<std::uint64_t>(mask));
        break;
      }
    double clock = held > 0 ? arrive[static_cast<std::size_t>(v)] : 0;
    for (mask >>= 1; mask > 0; mask >>= 1) {
      if (v + mask >= P) continue;
      const std::uint64_t beyond = b.block * static_cast<std::uint64_t>(mask);
      if (held <= beyond) continue;
      clock += in.t(static_cast<double>(held - beyond));
      arrive[static_cast<std::size_t>(v + mask)] = clock;
      held = beyond;
    }
    end[static_cast<std::size_t>(v)] = clock;
  }
  return end;
}

// sendrecv between a and b holding x and y bytes to send: both are done when both transfers
// are, max(T_a + t(x), T_b + t(y)) (each posts its receive, then sends; a receive completes when
// its message arrives).
double swap_done(const FormulaInput& in, double Ta, std::uint64_t x, double Tb, std::uint64_t y) {
  return std::max(Ta + in.t(static_cast<double>(x)), Tb + in.t(static_cast<double>(y)));
}

// scatter_allgather: the scatter above, then recursive doubling step by step: for mask = 1, 2, 4,
// ... each pair (v, v^mask) swaps what it holds (swap_done); where P is not a power of two the
// ranks whose partner does not exist receive the missing blocks from their own group by
// recursive halving, blocking sends and receives (the receiver is done at max(its clock,
// sender's clock + t)). Below P bytes it is basic_linear, as the algorithm. Cost O(P log P).
double derived_bcast_scatter_allgather(const FormulaInput& in) {
  if (trivial(in)) return 0;
  const std::int64_t P = in.procs;
  if (in.bytes < static_cast<std::size_t>(P)) return derived_bcast_basic_linear(in);
  const Blocks b{in.bytes, (in.bytes + static_cast<std::uint64_t>(P) - 1) / static_cast<std::uint64_t>(P)};
  std::vector<double> T = scatter_ends(in, b);
  const auto N = static_cast<std::size_t>(P);
  std::vector<std::uint64_t> held(N), last(N, 0);
  for (std::size_t v = 0; v < N; ++v) held[v] = b.bytes(v, 1);

  for (std::int64_t mask = 1; mask < P; mask <<= 1) {
    std::vector<double> next = T;
    std::vector<std::uint64_t> next_held = held;
    for (std::int64_t v = 0; v < P; ++v) {
      const std::int64_t partner = v ^ mask;
      if (partner >= P) continue;
      const auto a = static_cast<std::size_t>(v), p = static_cast<std::size_t>(partner);
      next[a] = swap_done(in, T[a], held[a], T[p], held[p]);
      last[a] = b.bytes(static_cast<std::uint64_t>(partner / mask * mask), static_cast<std::uint64_t>(mask));
      next_held[a] = held[a] + last[a];
    }
    T = std::move(next);
    held = std::move(next_held);
    // The groups cut off by P, half by half; within one half step each rank has one peer.
    for (std::int64_t half = mask >> 1; half > 0; half >>= 1) {
      std::vector<double> after = T;
      for (std::int64_t v = 0; v < P; ++v) {
        const std::int64_t my_group = v / mask * mask, their_group = (v ^ mask) / mask * mask;
        if (their_group + mask <= P) continue;
        const std::int64_t have_all = P - my_group - mask, missing = my_group + mask;
        const std::int64_t peer = v ^ half, subgroup = v / (half << 1) * (half << 1);
        if (peer < v && peer < subgroup + have_all && v >= subgroup + have_all) {
          const auto a = static_cast<std::size_t>(v), s = static_cast<std::size_t>(peer);
          after[s] = T[s] + in.t(static_cast<double>(last[s]));
          after[a] = std::max(T[a], after[s]);
          last[a] = b.bytes(static_cast<std::uint64_t>(missing), static_cast<std::uint64_t>(mask));
          held[a] += last[a];
        }
      }
      T = std::move(after);
    }
  }
  return *std::max_element(T.begin(), T.end());
}

// scatter_allgather_ring: the scatter, then P-1 ring steps; in step s rank v sends block v-s+1
// to v+1 and receives block v-s from v-1 (sendrecv), so it is done at
// max(T_v + t(|block v-s+1|), T_{v-1} + t(|block v-s|)): the longest path of ring_paths.hpp,
// O(P) (its block v-s is diagonal v-s's). With every block of b bytes that is
// max_v T_v + (P-1)*t(b).
double derived_bcast_scatter_allgather_ring(const FormulaInput& in) {
  if (trivial(in)) return 0;
  const std::int64_t P = in.procs;
  if (in.bytes < static_cast<std::size_t>(P)) return derived_bcast_basic_linear(in);
  const Blocks b{in.bytes, (in.bytes + static_cast<std::uint64_t>(P) - 1) / static_cast<std::uint64_t>(P)};
  std::vector<double> cost(static_cast<std::size_t>(P));
  for (std::size_t d = 0; d < cost.size(); ++d) cost[d] = in.t(static_cast<double>(b.bytes(d, 1)));
  return ring_longest_path(scatter_ends(in, b), cost, static_cast<std::size_t>(P - 1));
}

constexpr std::array kEntries{
    AlgorithmInfo{.name = "bcast/basic_linear",
                  .op = Operation::bcast,
                  .ompi_id = 1,
                  .knobs = kNoKnobs,
                  .summary = "the root isends the whole message to every rank at once",
                  .run = &as_bcast<bcast_basic_linear>,
                  .max_procs = kAnyProcs,
                  .tree = linear_node,
                  .textbook = textbook_bcast_basic_linear,
                  .derived = derived_bcast_basic_linear,
                  .receives_first = true,
                  .keeps_rank_order = false},
    AlgorithmInfo{.name = "bcast/chain",
                  .op = Operation::bcast,
                  .ompi_id = 2,
                  .knobs = kSegment | kFanout,
                  .summary = "fanout chains off the root, segments pipelined along them (generic tree bcast)",
                  .run = &as_bcast<bcast_chain>,
                  .max_procs = kAnyProcs,
                  .tree = chain_node,
                  .textbook = nullptr,
                  .derived = derived_bcast_chain,
                  .receives_first = true,
                  .keeps_rank_order = false},
    AlgorithmInfo{.name = "bcast/pipeline",
                  .op = Operation::bcast,
                  .ompi_id = 3,
                  .knobs = kSegment,
                  .summary = "one chain through all ranks, segments pipelined (generic tree bcast)",
                  .run = &as_bcast<bcast_pipeline>,
                  .max_procs = kAnyProcs,
                  .tree = pipeline_node,
                  .textbook = textbook_bcast_pipeline,
                  .derived = derived_bcast_pipeline,
                  .receives_first = true,
                  .keeps_rank_order = false},
    AlgorithmInfo{.name = "bcast/split_binary_tree",
                  .op = Operation::bcast,
                  .ompi_id = 4,
                  .knobs = kSegment,
                  .summary = "halves down the two subtrees of a binary tree, then swapped between pairs",
                  .run = &as_bcast<bcast_split_binary_tree>,
                  .max_procs = kAnyProcs,
                  .tree = binary_node,
                  .textbook = nullptr,
                  .derived = derived_bcast_split_binary_tree,
                  .receives_first = true,
                  .keeps_rank_order = false},
    AlgorithmInfo{.name = "bcast/binary_tree",
                  .op = Operation::bcast,
                  .ompi_id = 5,
                  .knobs = kSegment,
                  .summary = "breadth-first binary tree, segments pipelined (generic tree bcast)",
                  .run = &as_bcast<bcast_binary_tree>,
                  .max_procs = kAnyProcs,
                  .tree = binary_node,
                  .textbook = textbook_bcast_binary_tree,
                  .derived = derived_bcast_binary_tree,
                  .receives_first = true,
                  .keeps_rank_order = false},
    AlgorithmInfo{.name = "bcast/binomial",
                  .op = Operation::bcast,
                  .ompi_id = 6,
                  .knobs = kSegment,
                  .summary = "binomial tree, segmented pipeline through it (generic tree bcast)",
                  .run = &as_bcast<bcast_binomial>,
                  .max_procs = kAnyProcs,
                  .tree = binomial_node,
                  .textbook = textbook_bcast_binomial,
                  .derived = derived_bcast_binomial,
                  .receives_first = true,
                  .keeps_rank_order = false},
    AlgorithmInfo{.name = "bcast/knomial",
                  .op = Operation::bcast,
                  .ompi_id = 7,
                  .knobs = kSegment | kRadix,
                  .summary = "k-nomial tree of the given radix, segments pipelined (generic tree bcast)",
                  .run = &as_bcast<bcast_knomial>,
                  .max_procs = kAnyProcs,
                  .tree = knomial_node,
                  .textbook = nullptr,
                  .derived = derived_bcast_knomial,
                  .receives_first = true,
                  .keeps_rank_order = false},
    AlgorithmInfo{.name = "bcast/scatter_allgather",
                  .op = Operation::bcast,
                  .ompi_id = 8,
                  .knobs = kNoKnobs,
                  .summary = "binomial scatter of p blocks, then recursive-doubling allgather",
                  .run = &as_bcast<bcast_scatter_allgather>,
                  .max_procs = kAnyProcs,
                  .tree = scatter_node,
                  .textbook = textbook_bcast_scatter_allgather,
                  .derived = derived_bcast_scatter_allgather,
                  .receives_first = false,
                  .keeps_rank_order = false},
    AlgorithmInfo{.name = "bcast/scatter_allgather_ring",
                  .op = Operation::bcast,
                  .ompi_id = 9,
                  .knobs = kNoKnobs,
                  .summary = "binomial scatter of p blocks, then ring allgather",
                  .run = &as_bcast<bcast_scatter_allgather_ring>,
                  .max_procs = kAnyProcs,
                  .tree = scatter_node,
                  .textbook = textbook_bcast_scatter_allgather_ring,
                  .derived = derived_bcast_scatter_allgather_ring,
                  .receives_first = false,
                  .keeps_rank_order = false},
};

}  // namespace
}  // namespace models

std::span<const AlgorithmInfo> bcast_entries() { return models::kEntries; }

}  // namespace collsim
