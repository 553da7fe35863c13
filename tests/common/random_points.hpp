// Random coarray points (experiment/results/coarray_point.hpp) for the property test that every engine
// runs: shapes of rank 1 to 7, sections with negative strides and scalar subscripts, element
// sizes 1, 2, 3, 4, 8 and 16, PUT and GET, blocking and not, 1 to 3 statements, both GET
// behaviours, registered or not, origin and target anywhere among the images, and (ended_in_turn)
// every segment end.
//
// B is not drawn blindly: a uniform B almost never lands on Table 1's boundaries, and cases 2
// and 3 need NL < NR, which random pairs give less often than the others. So each point aims at
// one case (point_case: round robin over the caller's index, every other round on the case's
// edge), draws pairs until that case is reachable, and builds B from the pair's NL and NR: the
// boundaries B = NR, B = NL, the edges B = NL + 1, B = NR - 1, or a B inside the case (a multiple
// of NL in case 3, 1 in case 4, Omni's default). NR = NL comes from the pairs themselves. Coverage tallies what was
// hit, so each test can assert that every case and every boundary kind was exercised, not just drawn for.
//
// Every draw comes from the caller's Rng: the same seed gives the same points on every rank of an
// MPI run.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

#include "algorithms/coarray/scheme.hpp"
#include "common/collsim_test.hpp"
#include "common/random_sections.hpp"
#include "experiment/results/coarray_point.hpp"

namespace collsim_test {

using namespace collsim::coarray;

struct PointLimits {
  std::size_t max_array_bytes = 1 << 14;  // each coarray or local array
  std::size_t max_transfers = 512;        // puts or gets of the whole segment (B = 1 moves byte by byte)
};

// A conformable pair with elements of 1 to 16 bytes and arrays of rank 1 to 7 (5 section
// dimensions and 2 scalar subscripts at most), small enough for `limits`.
inline Pair random_sized_pair(Rng& rng, const PointLimits& limits) {
  static constexpr std::array<std::size_t, 6> sizes = {1, 2, 3, 4, 8, 16};
  for (;;) {
    const std::size_t element_bytes = sizes[uniform(rng, 0, sizes.size() - 1)];
    std::vector<std::size_t> counts(uniform(rng, 0, 5));
    // Many dimensions of up to 6 elements each would make arrays of megabytes.
    const std::size_t most = counts.size() > 3 ? 3 : 6;
    for (std::size_t& c : counts) c = uniform(rng, 0, 40) == 0 ? 0 : uniform(rng, 1, most);
    Pair p{random_section(rng, counts, element_bytes), random_section(rng, counts, element_bytes)};
    if (p.local.shape().bytes() <= limits.max_array_bytes && p.remote.shape().bytes() <= limits.max_array_bytes)
      return p;
  }
}

// A B that puts (nl, nr) in Table 1's case `table_case` (1 to 4); 0 when no B does. With `edge`,
// a B on the case's edge: B = NR or B = NL (case 1), B = NR (2), B = NL + 1 or NR - 1 (3),
// B = NL or NR - 1 (4); else any B of the case, edges included.
inline std::size_t buffer_for_case(Rng& rng, int table_case, std::size_t nl, std::size_t nr, bool edge) {
  std::vector<std::size_t> edges, inside;
  switch (table_case) {
    case 1:  // NR <= B, NR <= NL
      if (nr > nl) break;
      edges = {nr, nl};
      inside = {nl + 1, uniform(rng, nr, 2 * nl + 1), kDefaultBufferBytes};
      break;
    case 2:  // NL < NR <= B
      if (nl >= nr) break;
      edges = {nr};
      inside = {nr + 1, uniform(rng, nr, 2 * nr), kDefaultBufferBytes};
      break;
    case 3:  // NL < B < NR
      if (nl + 1 >= nr) break;
      edges = {nl + 1, nr - 1};
      inside = {uniform(rng, nl + 1, nr - 1)};
      if (nr / nl >= 3) inside.push_back(nl * uniform(rng, 2, nr / nl - 1));  // the unit is B exactly
      break;
    case 4:  // B < NR, B <= NL
      if (nr < 2) break;
      edges = {std::min(nr - 1, nl)};  // B = NL when NL < NR, else B = NR - 1
      inside = {1, uniform(rng, 1, std::min(nr - 1, nl))};
      break;
    default: break;
  }
  if (edges.empty()) return 0;
  if (!edge) edges.insert(edges.end(), inside.begin(), inside.end());
  return edges[uniform(rng, 0, edges.size() - 1)];
}

// A point aiming at Table 1's case `table_case` (0 to 4), on its edge (buffer_for_case) or not,
// between two distinct images of `procs`.
inline CoarrayPoint random_point(Rng& rng, int table_case, bool edge, int procs, const PointLimits& limits = {}) {
  for (;;) {
    CoarrayPoint p;
    Pair pair = random_sized_pair(rng, limits);
    p.local = pair.local, p.remote = pair.remote;
    const std::size_t nl = p.local.contiguous_bytes(), nr = p.remote.contiguous_bytes();
    if (table_case == 0) {
      p.options.registered = true;
      p.options.buffer_bytes = uniform(rng, 1, 2 * std::max(nl, nr) + 1);  // plays no part
    } else {
      p.options.buffer_bytes = buffer_for_case(rng, table_case, nl, nr, edge);
      if (p.options.buffer_bytes == 0) continue;  // this pair cannot reach the case
    }
    p.get = uniform(rng, 0, 1) == 1;
    p.mode = static_cast<PutMode>(uniform(rng, 0, 3));  // blocking, or one of the three non-blocking modes
    p.options.get = uniform(rng, 0, 1) == 1 ? GetBehaviour::omni : GetBehaviour::table1;
    p.statements = uniform(rng, 1, 3);
    p.origin = static_cast<int>(uniform(rng, 0, static_cast<std::size_t>(procs - 1)));
    p.target = static_cast<int>(uniform(rng, 0, static_cast<std::size_t>(procs - 2)));
    if (p.target >= p.origin) ++p.target;
    if (p.plan().transfers > limits.max_transfers) continue;
    return p;
  }
}

// Point i of a property test: its case, and whether on the case's edge.
inline int point_case(int i) { return i % 5; }
inline bool point_edge(int i) { return (i / 5) % 2 == 0; }

// What a set of points exercised. Cases and boundaries count non-empty sections only (an empty
// section moves nothing, whatever its scheme); the B boundaries only buffered cases (B plays no
// part in case 0).
// Point i of a property test with its segment's end: sync memory, sync all and sync images in
// turn (the index, not the Rng, decides, so the points drawn stay those drawn before).
inline CoarrayPoint ended_in_turn(CoarrayPoint p, int i) {
  static constexpr std::array<SyncKind, 3> kinds = {SyncKind::memory, SyncKind::all, SyncKind::images};
  p.sync = kinds[static_cast<std::size_t>(i) % kinds.size()];
  return p;
}

struct Coverage {
  enum Boundary { nr_is_b, nl_is_b, nr_is_nl };
  static constexpr std::array<const char*, 3> kBoundaryNames = {"NR=B", "NL=B", "NR=NL"};

  std::array<int, 5> cases{};
  std::array<int, 3> boundaries{};
  std::array<std::array<int, 3>, 5> by_case{};
  std::array<int, 8> array_ranks{};  // of local and remote arrays
  std::array<int, 17> element_bytes{};
  int points = 0, empty = 0, get = 0, put_nonblocking = 0, omni = 0, negative_stride = 0, scalar = 0;
  std::array<int, 4> put_modes{};  // PUTs by PutMode
  std::array<int, 4> statements{};

  void add(const CoarrayPoint& p) {
    ++points;
    for (const Section* s : {&p.local, &p.remote}) {
      ++array_ranks.at(s->shape().extents.size());
      for (const Triplet& t : s->dims()) {
        if (t.scalar) ++scalar;
        if (!t.scalar && t.stride < 0) ++negative_stride;
      }
    }
    ++element_bytes.at(p.local.shape().element_bytes);
    ++statements.at(p.statements);
    if (p.get) ++get;
    if (p.get && p.options.get == GetBehaviour::omni) ++omni;
    if (!p.get && is_nonblocking(p.mode)) ++put_nonblocking;
    if (!p.get) ++put_modes.at(static_cast<std::size_t>(p.mode));
    if (p.local.bytes() == 0) {
      ++empty;
      return;
    }
    const Scheme s = p.scheme();
    const std::size_t b = p.options.buffer_bytes;
    ++cases.at(static_cast<std::size_t>(s.table_case));
    auto hit = [&](Boundary k) {
      ++boundaries[k];
      ++by_case[static_cast<std::size_t>(s.table_case)][k];
    };
    if (s.nr == s.nl) hit(nr_is_nl);
    if (s.dma()) return;
    if (s.nr == b) hit(nr_is_b);
    if (s.nl == b) hit(nl_is_b);
  }

  // "points 300 (empty 4): case 0 58 (NR=NL 40), case 1 ... NR=B 55 NL=B 31 NR=NL 120; ..."
  std::string str() const {
    // A stream, not chains of +: GCC 12 warns (-Wrestrict, wrongly) about "text" + std::to_string().
    std::ostringstream out;
    out << "points " << points << " (empty " << empty << "):";
    for (std::size_t c = 0; c < cases.size(); ++c) {
      out << " case " << c << " " << cases[c] << " (";
      for (std::size_t k = 0; k < kBoundaryNames.size(); ++k)
        out << (k ? " " : "") << kBoundaryNames[k] << " " << by_case[c][k];
      out << ")";
    }
    out << "; boundaries";
    for (std::size_t k = 0; k < kBoundaryNames.size(); ++k) out << " " << kBoundaryNames[k] << " " << boundaries[k];
    out << "; array ranks 0..7";
    for (const int n : array_ranks) out << " " << n;
    out << "; element sizes";
    for (std::size_t e = 0; e < element_bytes.size(); ++e)
      if (element_bytes[e]) out << " " << e << ":" << element_bytes[e];
    out << "; GET " << get << " (omni " << omni << "), non-blocking PUT " << put_nonblocking << ", statements 1/2/3 "
        << statements[1] << "/" << statements[2] << "/" << statements[3] << ", negative strides " << negative_stride
        << ", scalar subscripts " << scalar;
    return out.str();
  }

  // Every case and every boundary kind at least `at_least` times; every feasible (case,
  // boundary) pair (NR=B in 1 and 2, NL=B in 1 and 4, NR=NL in 0, 1 and 4) at least once; the
  // drawn dimensions all present (with `shapes`, also every element size and arrays of rank 7,
  // which take more points to come up). "" when so, else what is missing.
  std::string missing(int at_least, bool shapes = true) const {
    std::ostringstream out;
    for (std::size_t c = 0; c < cases.size(); ++c)
      if (cases[c] < at_least) out << " case " << c << ";";
    for (std::size_t k = 0; k < boundaries.size(); ++k)
      if (boundaries[k] < at_least) out << " " << kBoundaryNames[k] << ";";
    static constexpr std::array<std::array<int, 2>, 7> feasible = {
        {{1, nr_is_b}, {2, nr_is_b}, {1, nl_is_b}, {4, nl_is_b}, {0, nr_is_nl}, {1, nr_is_nl}, {4, nr_is_nl}}};
    for (const auto& [c, k] : feasible)
      if (by_case[static_cast<std::size_t>(c)][static_cast<std::size_t>(k)] == 0)
        out << " case " << c << " with " << kBoundaryNames[static_cast<std::size_t>(k)] << ";";
    if (get == 0 || get == points) out << " PUT and GET;";
    if (omni == 0 || omni == get) out << " both GET behaviours;";
    for (std::size_t m = 0; m < put_modes.size(); ++m)
      if (put_modes[m] == 0) out << " PUT " << to_string(static_cast<PutMode>(m)) << ";";
    if (negative_stride == 0) out << " negative strides;";
    if (scalar == 0) out << " scalar subscripts;";
    if (!shapes) return out.str();
    if (array_ranks[7] == 0) out << " arrays of rank 7;";
    for (const std::size_t e : {1, 2, 3, 4, 8, 16})
      if (element_bytes[e] == 0) out << " elements of " << e << " bytes;";
    return out.str();
  }
};

}  // namespace collsim_test
