// The registry's reduce entries, and their formulas derived from our implementation (= Open MPI's call sequence; the
// algorithms are described in algorithms/collectives.hpp). Notation: P processes, m bytes per vector, t(x) = alpha +
// beta*x, g = FormulaCosts::reduce_gamma seconds per byte reduced (a local reduction of x bytes holds its rank x*g;
// copies are free). Every formula is 0 for no bytes, where MPI_Reduce returns at once, and for one process (coll/self's
// copy). Sends are eager: a transfer starts when its send is posted, whether or not its receive is, and a blocking send
// completes when the data has arrived; a receive completes when its data has arrived (posting one costs nothing).
// FormulaCosts::serial_receive (one port): a rank takes one incoming transfer at a time, in the
// order the sends were posted; a rank that sends one message at a time never waits for its own
// send port.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <vector>

#include "algorithms/collectives.hpp"
#include "algorithms/rabenseifner.hpp"
#include "algorithms/segmentation.hpp"
#include "algorithms/virtual_trees.hpp"
#include "registry/entries.hpp"

namespace collsim {

namespace models {
namespace {

bool trivial(const FormulaInput& in) { return in.procs <= 1 || in.bytes == 0; }
double reduced(const FormulaInput& in, double bytes) { return bytes * in.costs.reduce_gamma; }

// The generic tree reduction (reduce_tree) on `nodes` (by rank), every rank's finish.
//
// Call sequence, with n segments of l_s bytes (element_segment of params.segment):
//  - inner node with children c_0..c_{k-1}: the irecvs are posted ahead (free), and the waits come
//    in the order c_0's segment s, c_1's, ..., c_{k-1}'s, each followed by one reduction of l_s
//    bytes (child 0's lands in the accumulator and is reduced with own data; commutative or not,
//    k reductions per segment), then a blocking send of segment s to the parent. So its clock is
//      post(s) = R(s) with R(s) = fold over i of clock <- max(clock, A_i(s)) + l_s*g, starting
//      from done(s-1) (its previous send's completion; 0 for s = 0),
//    A_i(s) being child i's done(s). The root does the same without the sends: its finish.
//  - leaf: blocking sends in order, post(s) = done(s-1); with 0 < max_requests = L < n, isends:
//    post(s) = 0 for s < L, else max(post(s-1), done(s-L)) (it waits for the oldest slot), and
//    it finishes at the latest done (wait_all).
// done(s) = post(s) + t(l_s) side by side. One port: a parent's receive port takes its children's
// transfers in the order they are posted, so done(s) = max(post(s), port) + t(l_s), the port
// then busy until done(s); the children's posts are merged in time order (a child's next post is
// known once its previous send is placed). A transfer into a rank depends only on that rank's
// children, so the tree is evaluated children first, bottom up. Cost O(P * n * k).
// Side by side this is exact. One port: exact for the pipeline (one child each) and wherever no
// two children of a rank post at the same time. At time 0 (leaves) the ranks post in rank order,
// as the engine starts them; two later posts at one time are taken in the parent's child order,
// whereas the engine takes them in the order of its events, which is the order in which their
// causes were scheduled (a child that waited longer goes first): a child served one transfer
// later then delays its own next segments. This happens from 5 processes on; the formula is then
// an approximation off by either sign: in tests/registry/formula_agreement_test.cpp up to 10.3%
// below the engine (in-order_binary, with roots 0 and p-1) and 4.6% above (middle roots, leaf
// isends); it is checked to within 12%. Exact would need the engine's event order (the order in
// which each post's chain of causes was scheduled), i.e. a simulation.
std::vector<double> tree_reduce(const FormulaInput& in, const std::vector<TreeNode>& nodes) {
  const int P = in.procs;
  const Segmentation seg(in.bytes, element_segment(in.bytes, in.params.segment, size_of(in.params.reduction.type)));
  const std::size_t n = seg.count();
  const auto limit = static_cast<std::size_t>(std::max(in.params.max_requests, 0));
  const bool isends = limit > 0 && n > limit;
  auto len = [&](std::size_t s) { return static_cast<double>(seg.length(s)); };

  std::vector<std::vector<double>> done(static_cast<std::size_t>(P));
  std::vector<double> finish(static_cast<std::size_t>(P), 0);
  auto node = [&](int r) -> const TreeNode& { return nodes[static_cast<std::size_t>(r)]; };
  // Rank r's clock after reducing segment s, from `clock`.
  auto reduce_segment = [&](int r, std::size_t s, double clock) {
    for (int c : node(r).children) clock = std::max(clock, done[static_cast<std::size_t>(c)][s]) + reduced(in, len(s));
    return clock;
  };

  // A child's sends to its parent, one post after another.
  struct Sender {
    int rank;
    std::size_t s = 0;
    double last_post = 0;
  };
  auto next_post = [&](const Sender& c) {
    const std::vector<double>& d = done[static_cast<std::size_t>(c.rank)];
    if (!node(c.rank).children.empty()) return reduce_segment(c.rank, c.s, c.s ? d[c.s - 1] : 0);
    if (!isends) return c.s ? d[c.s - 1] : 0;
    return c.s < limit ? 0 : std::max(c.last_post, d[c.s - limit]);
  };

  // Children before parents, depth first: a rank's done(s) is read by its parent and
  // grandparent only, so it goes back to `spare` once the grandparent is evaluated, and a few
  // ranks per level of the tree hold theirs at a time rather than every rank (P * n doubles:
  // 320 MB at 10000 processes and 4096 segments).
  std::vector<std::vector<double>> spare;
  auto take = [&](int r) {
    std::vector<double>& d = done[static_cast<std::size_t>(r)];
    if (!spare.empty()) {
      d = std::move(spare.back());
      spare.pop_back();
    }
    d.assign(n, 0);
  };
  int top = 0;
  while (node(top).parent >= 0) top = node(top).parent;
  std::vector<int> order;  // ranks in the order evaluated
  for (std::vector<std::pair<int, std::size_t>> path{{top, 0}}; !path.empty();) {
    auto& [r, next_child] = path.back();
    if (next_child < node(r).children.size()) {
      const int c = node(r).children[next_child++];
      path.emplace_back(c, 0);
    } else {
      order.push_back(r);
      path.pop_back();
    }
  }

  for (int v : order) {
    std::vector<Sender> kids;  // in the parent's order
    for (int c : node(v).children) {
      kids.push_back({c});
      take(c);
    }
    double port = 0;
    for (;;) {
      Sender* next = nullptr;
      double when = 0;
      for (Sender& c : kids) {
        if (c.s == n) continue;
        const double post = next_post(c);
        if (!next || post < when || (when == 0 && post == 0 && c.rank < next->rank)) {
          next = &c;
          when = post;
        }
      }
      if (!next) break;
      const double start = in.costs.serial_receive ? std::max(when, port) : when;
      const double end = start + in.t(len(next->s));
      port = end;
      done[static_cast<std::size_t>(next->rank)][next->s] = end;
      next->last_post = when;
      ++next->s;
    }
    for (int c : node(v).children) {
      const std::vector<double>& d = done[static_cast<std::size_t>(c)];
      finish[static_cast<std::size_t>(c)] = *std::max_element(d.begin(), d.end());
      for (int g : node(c).children) spare.push_back(std::move(done[static_cast<std::size_t>(g)]));
    }
  }
  double clock = 0;
  for (std::size_t s = 0; s < n; ++s) clock = reduce_segment(top, s, clock);
  finish[static_cast<std::size_t>(top)] = clock;
  return finish;
}

double tree_reduce_time(const FormulaInput& in, TreeFn tree) {
  if (trivial(in)) return 0;
  std::vector<TreeNode> nodes;
  for (int r = 0; r < in.procs; ++r) nodes.push_back(tree(r, in.procs, in.params));
  const std::vector<double> finish = tree_reduce(in, nodes);
  return *std::max_element(finish.begin(), finish.end());
}

// linear: every non-root blocking-sends its vector at 0, arriving at a(r) = t(m) side by side, or
// one at a time in rank order (the order the sends are posted) at j*t(m) for the j-th non-root.
// The root starts from p-1's vector (its arrival, or at 0 if it is p-1), then for i = p-2 down to
// 0 waits for rank i's (its own: no wait) and reduces m bytes. Side by side: t(m) + (P-1)*m*g;
// one port: (P-1)*(t(m) + m*g) (rank p-1's, or p-2's, vector arrives last and first-needed).
double derived_reduce_linear(const FormulaInput& in) {
  if (trivial(in)) return 0;
  const int P = in.procs, root = in.params.root;
  const double t = in.t(static_cast<double>(in.bytes));
  std::vector<double> arrival(static_cast<std::size_t>(P), 0);
  int j = 0;
  for (int r = 0; r < P; ++r)
    if (r != root) arrival[static_cast<std::size_t>(r)] = in.costs.serial_receive ? ++j * t : t;
  double clock = root == P - 1 ? 0 : arrival[static_cast<std::size_t>(P - 1)];
  for (int i = P - 2; i >= 0; --i)
    clock = std::max(clock, arrival[static_cast<std::size_t>(i)]) + reduced(in, static_cast<double>(in.bytes));
  return clock;  // at or after every arrival, so after every sender's finish
}

double derived_reduce_chain(const FormulaInput& in) { return tree_reduce_time(in, chain_node); }
double derived_reduce_pipeline(const FormulaInput& in) { return tree_reduce_time(in, pipeline_node); }
double derived_reduce_binary(const FormulaInput& in) { return tree_reduce_time(in, binary_node); }
double derived_reduce_binomial(const FormulaInput& in) { return tree_reduce_time(in, in_order_node); }

// in-order_binary: the generic tree reduction on the in-order binary tree, rooted at rank p-1;
// then, if the root is another rank, p-1 blocking-sends it the whole vector: T(p-1) + t(m). The
// root's port is free by then (its own children's segments arrived before it finished its part).
double derived_reduce_in_order_binary(const FormulaInput& in) {
  if (trivial(in)) return 0;
  std::vector<TreeNode> nodes;
  for (int r = 0; r < in.procs; ++r) nodes.push_back(in_order_binary_tree(r, in.procs));
  std::vector<double> finish = tree_reduce(in, nodes);
  const auto top = static_cast<std::size_t>(in.procs - 1);
  if (in.params.root != in.procs - 1) finish[top] += in.t(static_cast<double>(in.bytes));
  return *std::max_element(finish.begin(), finish.end());
}

// rabenseifner (count = m / element size elements; linear below p' = bit_floor(P) elements or for
// a non-commutative operator, as the algorithm). e = P - p'; sizes below are in elements of
// ts bytes, T(x) = t(x*ts), G(x) = x*ts*g.
//  1. Ranks below 2e pair up (sendrecv: post the receive, blocking send, wait): with
//     lh = floor(count/2), rh = count - lh, the odd rank has both halves at
//     X = max(T(lh), T(rh)), reduces rh and sends it back, arriving at B = X + G(rh) + T(rh) (the
//     odd rank's finish); the even rank reduces lh and waits for it: max(X + G(lh), B).
//  2. Step k of the halving: vrank u and its partner u^2^k share a window; u sends the part the
//     partner keeps and receives the part it keeps (K_u elements), so
//     C_u <- max(C_u + T(sent_u), C_partner + T(K_u)) + G(K_u).
//  3. Gather, k from the top step down: a rank whose partner is on the root's side sends its
//     window of step k (done at C + T(K)) and stops; the partner receives it:
//     C <- max(C, C_sender + T(K)). An odd root below 2e first gets rank 0's final piece
//     (C_root <- max(B_root, C_0 + T(piece))) and stands in for vrank 0.
// Each step's senders have finished all their receives (the higher steps) before it, so the steps
// can be evaluated in order. The call ends at the latest finish.
// One port: on a power of two with a count that halves evenly (a multiple of P), every transfer of
// a step has the same size and every rank's clocks are equal, so each transfer into a rank is
// posted after the previous one into it has ended, and in the gather each sender posts when the
// receiver's previous transfer ends: no transfer waits for a port and the formula is exact.
// Otherwise (odd halvings, or e > 0, where a rank that skipped step 1 posts its step-2 transfer
// while its partner's port is still busy with step 1) a transfer can wait for a port, and which
// goes first is the engine's posting order; the formula (side by side, whatever serial_receive
// says) is then a lower bound: every wait in the program is a max, so a transfer delayed by a
// port can only delay what follows (tests/registry/formula_agreement_test.cpp).
double derived_reduce_rabenseifner(const FormulaInput& in) {
  const Reduction red = in.params.reduction;
  const std::size_t ts = size_of(red.type), count = in.bytes / ts;
  if (count == 0) return 0;
  const int P = in.procs, root = in.params.root;
  const int pof2 = static_cast<int>(std::bit_floor(static_cast<unsigned>(P)));
  if (pof2 < 2 || count < static_cast<std::size_t>(pof2) || !is_commutative(red.op)) return derived_reduce_linear(in);
  const int extra = P - pof2;
  auto T = [&](std::size_t elements) { return in.t(static_cast<double>(elements * ts)); };
  auto G = [&](std::size_t elements) { return reduced(in, static_cast<double>(elements * ts)); };

  std::vector<double> finish(static_cast<std::size_t>(P), 0);
  std::vector<double> C(static_cast<std::size_t>(pof2), 0);  // by vrank
  // Step 1.
  const std::size_t lh = count / 2, rh = count - lh;
  const double X = std::max(T(lh), T(rh)), B = X + G(rh) + T(rh);
  for (int r = 1; r < 2 * extra; r += 2) {
    finish[static_cast<std::size_t>(r)] = B;
    C[static_cast<std::size_t>(r / 2)] = std::max(X + G(lh), B);
  }
  // Step 2.
  std::vector<std::vector<Halving>> steps(static_cast<std::size_t>(pof2));
  for (int u = 0; u < pof2; ++u) steps[static_cast<std::size_t>(u)] = rabenseifner_halvings(u, pof2, count);
  const std::size_t K = steps[0].size();
  for (std::size_t k = 0; k < K; ++k) {
    std::vector<double> next(C.size());
    for (int u = 0; u < pof2; ++u) {
      const auto me = static_cast<std::size_t>(u), partner = static_cast<std::size_t>(u ^ (1 << k));
      const Halving& h = steps[me][k];
      next[me] = std::max(C[me] + T(h.sent_count), C[partner] + T(h.keep_count)) + G(h.keep_count);
    }
    C = std::move(next);
  }
  // Step 3.
  const bool odd_root = root < 2 * extra && root % 2 == 1;
  const int vroot = root < 2 * extra ? (odd_root ? 0 : root / 2) : root - extra;
  auto real = [&](int u) { return odd_root && u == 0 ? root : rabenseifner_real_rank(u, extra); };
  if (odd_root) {
    const double sent = C[0] + T(steps[0].back().keep_count);
    finish[0] = sent;
    C[0] = std::max(B, sent);
  }
  std::vector<bool> active(static_cast<std::size_t>(pof2), true);
  for (std::size_t k = K; k-- > 0;) {
    const int mask = 1 << k;
    std::vector<double> next = C;
    for (int u = 0; u < pof2; ++u) {
      const int partner = u ^ mask;
      if (!active[static_cast<std::size_t>(u)] || partner / mask != vroot / mask) continue;
      const double arrival = C[static_cast<std::size_t>(u)] + T(steps[static_cast<std::size_t>(u)][k].keep_count);
      finish[static_cast<std::size_t>(real(u))] = arrival;
      active[static_cast<std::size_t>(u)] = false;
      next[static_cast<std::size_t>(partner)] = std::max(next[static_cast<std::size_t>(partner)], arrival);
    }
    C = std::move(next);
  }
  finish[static_cast<std::size_t>(root)] =
      std::max(finish[static_cast<std::size_t>(root)], C[static_cast<std::size_t>(vroot)]);
  return *std::max_element(finish.begin(), finish.end());
}

constexpr std::array kEntries{
    // reduce: in-order_binary's tree is rooted at p-1 and rabenseifner's is no tree, so they have
    // none (tree nullptr).
    AlgorithmInfo{.name = "reduce/linear",
                  .op = Operation::reduce,
                  .ompi_id = 1,
                  .knobs = kNoKnobs,
                  .summary = "non-roots send; the root receives from p-1 down to 0, reducing in rank order",
                  .run = &as_reduce<reduce_linear>,
                  .max_procs = kAnyProcs,
                  .tree = linear_node,
                  .textbook = nullptr,
                  .derived = derived_reduce_linear,
                  .receives_first = false,
                  .keeps_rank_order = true},
    AlgorithmInfo{.name = "reduce/chain",
                  .op = Operation::reduce,
                  .ompi_id = 2,
                  .knobs = kSegment | kFanout | kMaxRequests,
                  .summary = "fanout chains into the root, segments pipelined (generic tree reduce)",
                  .run = &as_reduce<reduce_chain>,
                  .max_procs = kAnyProcs,
                  .tree = chain_node,
                  .textbook = nullptr,
                  .derived = derived_reduce_chain,
                  .receives_first = false,
                  .keeps_rank_order = false},
    AlgorithmInfo{.name = "reduce/pipeline",
                  .op = Operation::reduce,
                  .ompi_id = 3,
                  .knobs = kSegment | kMaxRequests,
                  .summary = "one chain through all ranks, segments pipelined (generic tree reduce)",
                  .run = &as_reduce<reduce_pipeline>,
                  .max_procs = kAnyProcs,
                  .tree = pipeline_node,
                  .textbook = nullptr,
                  .derived = derived_reduce_pipeline,
                  .receives_first = false,
                  .keeps_rank_order = false},
    AlgorithmInfo{.name = "reduce/binary",
                  .op = Operation::reduce,
                  .ompi_id = 4,
                  .knobs = kSegment | kMaxRequests,
                  .summary = "breadth-first binary tree, segments pipelined (generic tree reduce)",
                  .run = &as_reduce<reduce_binary>,
                  .max_procs = kAnyProcs,
                  .tree = binary_node,
                  .textbook = nullptr,
                  .derived = derived_reduce_binary,
                  .receives_first = false,
                  .keeps_rank_order = false},
    AlgorithmInfo{.name = "reduce/binomial",
                  .op = Operation::reduce,
                  .ompi_id = 5,
                  .knobs = kSegment | kMaxRequests,
                  .summary = "in-order binomial tree, segments pipelined (generic tree reduce)",
                  .run = &as_reduce<reduce_binomial>,
                  .max_procs = kAnyProcs,
                  .tree = in_order_node,
                  .textbook = textbook_reduce_binomial,
                  .derived = derived_reduce_binomial,
                  .receives_first = false,
                  .keeps_rank_order = false},
    AlgorithmInfo{.name = "reduce/in-order_binary",
                  .op = Operation::reduce,
                  .ompi_id = 6,
                  .knobs = kSegment | kMaxRequests,
                  .summary = "in-order binary tree into rank p-1 (rank order kept), then to the root",
                  .run = &as_reduce<reduce_in_order_binary>,
                  .max_procs = kAnyProcs,
                  .tree = nullptr,
                  .textbook = nullptr,
                  .derived = derived_reduce_in_order_binary,
                  .receives_first = false,
                  .keeps_rank_order = true},
    AlgorithmInfo{.name = "reduce/rabenseifner",
                  .op = Operation::reduce,
                  .ompi_id = 7,
                  .knobs = kNoKnobs,
                  .summary = "recursive-halving reduce-scatter, then binomial gather to the root (commutative ops)",
                  .run = &as_reduce<reduce_rabenseifner>,
                  .max_procs = kAnyProcs,
                  .tree = nullptr,
                  .textbook = textbook_reduce_rabenseifner,
                  .derived = derived_reduce_rabenseifner,
                  .receives_first = false,
                  .keeps_rank_order = true},
};

}  // namespace
}  // namespace models

std::span<const AlgorithmInfo> reduce_entries() { return models::kEntries; }

}  // namespace collsim
