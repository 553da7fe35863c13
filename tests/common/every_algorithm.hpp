// Parameterising a test suite over every registered algorithm, so an algorithm added to the
// registry is tested in every engine without touching the tests.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

#include "algorithms/operation.hpp"
#include "common/collsim_test.hpp"
#include "registry/registry.hpp"

namespace collsim_test {

// The reductions the suites run a reducing algorithm with, in turn: int32 sum (checked exactly),
// double sum (within the descriptor's floating-point bound), float max and int32 lor (exact; an
// operator mixed up with another fails, mpi-native included) and, where the algorithm keeps rank
// order, the non-commutative int64 `affine` (checked exactly, order included). One (ignored)
// entry for the other operations.
inline std::vector<Reduction> test_reductions(const AlgorithmInfo& a) {
  if (!operation_info(a.op).reduces) return {AlgorithmParams{}.reduction};
  std::vector<Reduction> out{{Datatype::int32, ReduceOp::sum},
                             {Datatype::float64, ReduceOp::sum},
                             {Datatype::float32, ReduceOp::max},
                             {Datatype::int32, ReduceOp::lor}};
  if (a.keeps_rank_order) out.push_back({Datatype::int64, ReduceOp::affine});
  return out;
}

// The bytes of a case of `units`: as many bytes, or for a reducing operation as many elements of
// r's type (whole elements are all it takes; zero and odd counts stay zero and odd).
inline std::size_t test_bytes(const AlgorithmInfo& a, std::size_t units, Reduction r) {
  return operation_info(a.op).reduces ? units * size_of(r.type) : units;
}

// About `bytes` bytes: for a reducing operation, whole elements of r's type (at least one).
inline std::size_t about_bytes(const AlgorithmInfo& a, std::size_t bytes, Reduction r) {
  if (!operation_info(a.op).reduces || bytes == 0) return bytes;
  const std::size_t t = size_of(r.type);
  return bytes < t ? t : bytes / t * t;
}

// The bytes of a test case of `size`: for a reducing operation, sizes below `elements_below`
// count elements of r's type (zero, one and odd counts stay so) and larger ones are about that
// many bytes, so that protocol limits are crossed at the same sizes as for the other operations.
inline std::size_t case_bytes(const AlgorithmInfo& a, std::size_t size, Reduction r, std::size_t elements_below) {
  return size < elements_below ? test_bytes(a, size, r) : about_bytes(a, size, r);
}

inline std::vector<const AlgorithmInfo*> every_algorithm() {
  std::vector<const AlgorithmInfo*> out;
  for (const auto& a : all_algorithms()) out.push_back(&a);
  return out;
}

// Whether a call of `a` may have size `bytes`: a barrier moves no data, its size is 0.
inline bool takes_size(const AlgorithmInfo& a, std::size_t bytes) {
  return bytes == 0 || operation_info(a.op).moves_data;
}

// Whether `root` is worth a run of its own: operations without a root run with root 0 only.
inline bool takes_root(const AlgorithmInfo& a, int root) { return root == 0 || operation_info(a.op).rooted; }

// How many blocks of `bytes` the largest buffer of a call of `a` on p processes holds: p for
// gather, scatter, allgather, alltoall and reduce_scatter, 1 for the others. Tests that bound a
// call's memory divide their sizes by it.
inline std::size_t blocks_in_largest_buffer(const AlgorithmInfo& a, int p) {
  std::size_t most = 1;
  for (int rank : {0, p - 1}) {
    const BufferSizes b = operation_info(a.op).layout(CallShape{rank, p, 0, 1, {}});
    most = std::max({most, b.data, b.result});
  }
  return most;
}

// The process counts of `procs` on which `a` runs.
inline std::vector<int> procs_for(const AlgorithmInfo& a, std::vector<int> procs) {
  std::erase_if(procs, [&](int p) { return !runs_on(a, p); });
  return procs;
}

// "bcast/binomial" -> "bcast_binomial" (test names allow only letters, digits and '_').
inline std::string algorithm_test_name(const ::testing::TestParamInfo<const AlgorithmInfo*>& info) {
  std::string n(info.param->name);
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

// The roots to run `a` from on p processes: those of `wanted` that are ranks of p for a rooted
// operation, 0 alone for the others (they have no root).
inline std::vector<int> roots_for(const AlgorithmInfo& a, int p, std::initializer_list<int> wanted) {
  if (!operation_info(a.op).rooted) return {0};
  std::vector<int> out;
  for (int r : wanted)
    if (r >= 0 && r < p && std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
  return out;
}

// Every rank of p for a rooted operation, 0 alone for the others.
inline std::vector<int> every_root(const AlgorithmInfo& a, int p) {
  if (!operation_info(a.op).rooted) return {0};
  std::vector<int> out;
  for (int r = 0; r < p; ++r) out.push_back(r);
  return out;
}

// The same by name, for suites whose parameter is the algorithm's name.
// The names of the algorithms Open MPI has too (the mpi-native suites compare with them).
inline std::vector<std::string> open_mpi_algorithm_names() {
  std::vector<std::string> out;
  for (const auto& a : all_algorithms())
    if (a.in_open_mpi()) out.emplace_back(a.name);
  return out;
}

inline std::vector<std::string> every_algorithm_name() {
  std::vector<std::string> out;
  for (const auto& a : all_algorithms()) out.emplace_back(a.name);
  return out;
}

// bcast -> "bcast", for suites whose parameter is an operation.
inline std::string operation_test_name(const ::testing::TestParamInfo<Operation>& info) {
  return std::string(to_string(info.param));
}

inline std::string name_test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string n = info.param;
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

}  // namespace collsim_test

namespace collsim {
// GoogleTest prints a parameter with this (found by argument-dependent lookup) instead of the
// pointer's address.
inline void PrintTo(const AlgorithmInfo* a, std::ostream* os) { *os << (a ? a->name : "(none)"); }
}  // namespace collsim
