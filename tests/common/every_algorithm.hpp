// Parameterising a test suite over every registered algorithm, so an algorithm added to the
// registry is tested in every engine without touching the tests.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

#include "algorithms/registry.hpp"

namespace collsim::testing {

inline std::vector<const AlgorithmInfo*> every_algorithm() {
  std::vector<const AlgorithmInfo*> out;
  for (const auto& a : all_algorithms()) out.push_back(&a);
  return out;
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
inline std::vector<std::string> every_algorithm_name() {
  std::vector<std::string> out;
  for (const auto& a : all_algorithms()) out.emplace_back(a.name);
  return out;
}

inline std::string name_test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string n = info.param;
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

}  // namespace collsim::testing

namespace collsim {
// GoogleTest prints a parameter with this (found by argument-dependent lookup) instead of the
// pointer's address.
inline void PrintTo(const AlgorithmInfo* a, std::ostream* os) { *os << (a ? a->name : "(none)"); }
}  // namespace collsim
