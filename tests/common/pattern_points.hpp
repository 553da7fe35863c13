// Small coarray points for every many-image pattern (algorithms/coarray/pattern.hpp) that means
// something on a given image count, for the engines' data checks: PUT blocking from a contiguous
// array, PUT non-blocking (safe, double, nowait) of a strided section through the buffer (cases 1
// and 3), PUT by DMA, and GET strided, each ended in turn by sync memory, sync all and sync images.
// Every image's window (and a GET's local arrays) is then checked against Fortran's assignment.
#pragma once

#include <string>
#include <vector>

#include "experiment/results/coarray_point.hpp"

namespace collsim_test {

inline std::vector<collsim::CoarrayPoint> pattern_points(int images) {
  using namespace collsim::coarray;
  std::vector<collsim::CoarrayPoint> points;
  int turn = 0;
  for (const Pattern pattern : {Pattern::all_to_one, Pattern::ring, Pattern::halo, Pattern::one}) {
    if (!pattern_problem(pattern, images).empty()) continue;
    for (int kind = 0; kind < 6; ++kind) {
      collsim::CoarrayPoint p;
      p.pattern = pattern;
      p.images = images;
      p.origin = images - 1, p.target = 0;  // pattern one only
      p.statements = 2;
      if (kind == 0) {  // contiguous, case 1, one put per statement
        p.local = parse_section(":", parse_shape("40", 8));
        p.remote = parse_section("1:40", parse_shape("50", 8));
      } else {  // strided remote side: NR = 8 B (case 1) or columns of 80 B (case 3 with B = 130)
        p.local = parse_section("1:20:2,:", parse_shape("20,6", 8));
        p.remote = parse_section(":,2:7", parse_shape("10,8", 8));
      }
      p.options.buffer_bytes = kind == 2 ? 130 : 1000;
      p.options.registered = kind == 4;
      p.get = kind == 5;
      if (kind == 1) p.mode = PutMode::nonblocking;
      if (kind == 2) p.mode = PutMode::double_buffered;
      if (kind == 3) p.mode = PutMode::nowait;
      static constexpr SyncKind kEnds[] = {SyncKind::memory, SyncKind::all, SyncKind::images};
      p.sync = kEnds[turn++ % 3];
      points.push_back(p);
    }
  }
  return points;
}

inline std::string pattern_point_name(const collsim::CoarrayPoint& p) {
  return p.describe() + " (" + p.local.str() + " of " + p.local.shape().str() + ", " + p.remote.str() + " of " +
         p.remote.shape().str() + ") on " + std::to_string(p.images) + " images";
}

}  // namespace collsim_test
