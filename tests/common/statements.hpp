// Coarray statements for the transfer tests: hand examples of every Table 1 case, the bytes a
// PUT or GET must leave (from the element enumeration of random_sections.hpp), and time equality
// up to rounding.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "algorithms/coarray/coarray_transfer.hpp"
#include "common/collsim_test.hpp"
#include "common/random_sections.hpp"
#include "models/coarray_cost.hpp"

namespace collsim_test {

using namespace collsim::coarray;

inline const models::CoarrayCosts kCosts{{1e-6, 1e-9}, 2e9};
// The same with a per-operation overhead at the origin of 0.3 us + 0.5 ns/B: above beta (1 ns/B)
// for small operations, below it for large ones, so both sides of max(o, beta*n) are reached.
inline const models::CoarrayCosts kCostsWithOverheads{{1e-6, 1e-9}, 2e9, {{{0, 0.3e-6, 0.5e-9}}}};
// And a copy's per-call cost c0 = 0.2 us and win_sync's F = 0.7 us besides.
inline const models::CoarrayCosts kCostsWithCallCosts{{1e-6, 1e-9}, 2e9,   {{{0, 0.3e-6, 0.5e-9}}}, {}, 0,
                                                      0.2e-6,       0.7e-6};
// And a get's own overhead, a table unlike the puts' (0.4 us + 0.2 ns/B up to 4 KiB, 1 us from
// there): the engine and the closed form must charge it to gets, each piece and unit of its size,
// and never to puts or flushes.
inline const models::CoarrayCosts kCostsWithGetOverhead{{1e-6, 1e-9},
                                                        2e9,
                                                        {{{0, 0.3e-6, 0.5e-9}}},
                                                        {},
                                                        0,
                                                        0.2e-6,
                                                        0.7e-6,
                                                        models::Overhead{{{0, 0.4e-6, 0.2e-9}, {4096, 1e-6, 0}}}};
// Every way a PUT statement completes.
inline constexpr coarray::PutMode kPutModes[] = {coarray::PutMode::blocking, coarray::PutMode::nonblocking,
                                                 coarray::PutMode::nowait, coarray::PutMode::double_buffered};

struct Statement {
  Section local, remote;
  CoarrayOptions options;
};

inline Statement statement(const std::string& local, const std::string& local_shape, const std::string& remote,
                           const std::string& remote_shape, std::size_t buffer_bytes, bool registered = false) {
  return {parse_section(local, parse_shape(local_shape, 8)), parse_section(remote, parse_shape(remote_shape, 8)),
          CoarrayOptions{buffer_bytes, registered, GetBehaviour::table1}};
}

// Local array bytes 1, 2, 3, ... (mod 251, never 0), so a byte out of place shows.
inline std::vector<std::byte> pattern(std::size_t bytes) {
  std::vector<std::byte> v(bytes);
  for (std::size_t i = 0; i < bytes; ++i) v[i] = static_cast<std::byte>(1 + i % 251);
  return v;
}

// What the remote coarrays hold after the PUTs: the local section's elements at the remote
// section's offsets, in Fortran order, in each of the nputs coarrays; zero elsewhere.
inline std::vector<std::byte> expected_put(const Statement& s, const std::vector<std::byte>& local, std::size_t nputs) {
  const std::size_t coarray = s.remote.shape().bytes(), eb = s.local.shape().element_bytes;
  std::vector<std::byte> want(nputs * coarray);
  const std::vector<std::size_t> from = enumerate(s.local), to = enumerate(s.remote);
  for (std::size_t i = 0; i < nputs; ++i)
    for (std::size_t e = 0; e < from.size(); ++e)
      for (std::size_t b = 0; b < eb; ++b) want[i * coarray + to[e] + b] = local[from[e] + b];
  return want;
}

inline std::vector<std::byte> expected_get(const Statement& s, const std::vector<std::byte>& remote) {
  const std::size_t eb = s.local.shape().element_bytes;
  std::vector<std::byte> want(s.local.shape().bytes());
  const std::vector<std::size_t> to = enumerate(s.local), from = enumerate(s.remote);
  for (std::size_t e = 0; e < from.size(); ++e)
    for (std::size_t b = 0; b < eb; ++b) want[to[e] + b] = remote[from[e] + b];
  return want;
}

// Equal up to the rounding of sums taken in another order.
inline bool same_time(double a, double b) { return std::abs(a - b) <= 1e-12 * std::abs(b) + 1e-21; }

// "1:20:2,1:6 / 1:10,2:7 B 130 case 3"
inline std::string describe(const Statement& s) {
  const Scheme scheme = choose_scheme(s.local, s.remote, s.options.buffer_bytes, s.options.registered);
  return s.local.str() + " / " + s.remote.str() + " B " + std::to_string(s.options.buffer_bytes) + " case " +
         std::to_string(scheme.table_case);
}

struct HandExample {
  Statement statement;
  int table_case;  // -1: any
};

inline std::vector<HandExample> hand_examples() {
  return {
      // NL 8 (every other element of a column), NR 480 (six whole columns).
      {statement("1:20:2,:", "20,6", ":,2:7", "10,8", 1000, true), 0},
      {statement("1:20:2,:", "20,6", ":,2:7", "10,8", 1000), 2},
      {statement("1:20:2,:", "20,6", ":,2:7", "10,8", 480), 2},  // NR = B
      {statement("1:20:2,:", "20,6", ":,2:7", "10,8", 130), 3},  // units 128, 128, 128, 96
      {statement("1:20:2,:", "20,6", ":,2:7", "10,8", 9), 3},    // one piece per unit
      // NL 480, NR 80 (every other column).
      {statement(":,:", "10,6", ":,1:12:2", "10,12", 100), 1},
      {statement(":,:", "10,6", ":,1:12:2", "10,12", 80), 1},  // NR = B
      {statement(":,:", "10,6", ":,1:12:2", "10,12", 50), 4},  // units 50, 30
      {statement(":,:", "10,6", ":,:", "10,6", 100), 4},       // NL = NR = 480
      {statement(":,:", "10,6", ":,:", "10,6", 480), 1},       // NR = NL = B
      // Backwards and scalar subscripts; an empty section.
      {statement("10:1:-1,3", "10,4", "3,:", "5,10", 100), 1},
      {statement("5:4,:", "10,4", "3:2,1:4", "5,10", 100), -1},
  };
}

}  // namespace collsim_test
