// Every registered algorithm in the model engine, real bytes checked.
#include <gtest/gtest.h>

#include "algorithms/registry.hpp"
#include "engines/model/model_engine.hpp"

namespace collsim {
namespace {

struct Case {
  int procs;
  std::size_t bytes;
  std::size_t segment;
};

void run_case(const AlgorithmInfo& a, const Case& c, int root) {
  RunSpec s;
  s.algorithm = &a;
  s.procs = c.procs;
  s.bytes = c.bytes;
  s.params.root = root;
  s.params.segment = c.segment;
  ModelConfig config;
  const RunResult r = run_model(config, s);
  EXPECT_TRUE(r.data_error.empty()) << describe(s) << ": " << r.data_error;
  EXPECT_EQ(r.finish_s.size(), static_cast<std::size_t>(c.procs));
  if (c.bytes > 0 && c.procs > 1) {
    EXPECT_GT(r.time_s, 0) << describe(s);
  }
}

class EveryAlgorithm : public ::testing::TestWithParam<const AlgorithmInfo*> {};

TEST_P(EveryAlgorithm, MovesTheRightBytesForEveryRoot) {
  const AlgorithmInfo& a = *GetParam();
  for (int p : {1, 2, 3, 5, 8, 13, 16})
    for (int root = 0; root < p; ++root)
      for (Case c : {Case{p, 0, 0}, Case{p, 1, 0}, Case{p, 1001, 0}, Case{p, 10000, 1024}})
        run_case(a, c, root);
}

TEST_P(EveryAlgorithm, MovesTheRightBytesAtLargerScale) {
  const AlgorithmInfo& a = *GetParam();
  for (int p : {33, 64, 100})
    for (int root : {0, 1, p / 2, p - 1})
      for (Case c : {Case{p, 1, 0}, Case{p, 12345, 4096}}) run_case(a, c, root);
  const std::size_t big = std::size_t{4} << 20;
  run_case(a, Case{8, big, 8192}, 5);
  run_case(a, Case{5, big + 3, 0}, 2);
}

std::vector<const AlgorithmInfo*> algorithms() {
  std::vector<const AlgorithmInfo*> out;
  for (const auto& a : all_algorithms()) out.push_back(&a);
  return out;
}

std::string test_name(const ::testing::TestParamInfo<const AlgorithmInfo*>& info) {
  std::string n(info.param->name);
  for (char& ch : n)
    if (ch == '/') ch = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Model, EveryAlgorithm, ::testing::ValuesIn(algorithms()), test_name);

}  // namespace
}  // namespace collsim
