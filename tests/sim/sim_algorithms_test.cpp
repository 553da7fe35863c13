// Every registered algorithm in the sim engine with real bytes checked: process counts up to
// more ranks than hosts, several roots, sizes around the edge cases (empty, one byte, odd, not a
// multiple of the segment, both sides of the eager limit) and a few large messages.
#include <gtest/gtest.h>

#include "algorithms/registry.hpp"
#include "common/every_algorithm.hpp"
#include "sim_test_util.hpp"

namespace collsim {
namespace {

struct Case {
  std::size_t bytes;
  std::size_t segment;  // used only by algorithms that honour it
};

std::vector<RunSpec> cases(const AlgorithmInfo& a, const std::vector<int>& procs) {
  const Case sizes[] = {{0, 0}, {1, 0}, {1001, 0}, {10000, 1024}, {65535, 0}, {65536, 8192}, {100003, 4096}};
  std::vector<RunSpec> specs;
  for (int p : procs) {
    std::vector<int> roots{0};
    for (int r : {p - 1, p / 2})
      if (std::find(roots.begin(), roots.end(), r) == roots.end()) roots.push_back(r);
    for (int root : roots)
      for (const Case& c : sizes) {
        RunSpec s;
        s.algorithm = &a;
        s.procs = p;
        s.bytes = c.bytes;
        s.params.root = root;
        s.params.segment = a.uses_segment ? c.segment : 0;
        specs.push_back(s);
      }
  }
  return specs;
}

void check(const SimConfig& config, const std::vector<RunSpec>& specs) {
  const auto results = test::run_all(config, specs);
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const RunSpec& s = specs[i];
    const RunResult& r = results[i];
    EXPECT_TRUE(r.data_error.empty()) << describe(s) << ": " << r.data_error;
    ASSERT_EQ(r.finish_s.size(), static_cast<std::size_t>(s.procs)) << describe(s);
    if (s.bytes > 0 && s.procs > 1) {
      EXPECT_GT(r.time_s, 0) << describe(s);
    }
    for (double f : r.finish_s) EXPECT_LE(f, r.time_s) << describe(s);
  }
}

class EveryAlgorithm : public ::testing::TestWithParam<const AlgorithmInfo*> {};

TEST_P(EveryAlgorithm, OneRankPerHost) {
  check(test::exact("test/star16.xml", 1), cases(*GetParam(), {1, 2, 3, 5, 8, 13, 16}));
}

TEST_P(EveryAlgorithm, SeveralRanksPerHost) {
  check(test::exact("test/star16.xml", 3), cases(*GetParam(), {3, 13, 33}));
}

TEST_P(EveryAlgorithm, LargeMessagesOnGrisou) {
  const AlgorithmInfo& a = *GetParam();
  const std::size_t big = std::size_t{4} << 20;
  std::vector<RunSpec> specs;
  for (auto [p, root, bytes, segment] :
       {std::tuple{8, 5, big, std::size_t{8192}}, std::tuple{5, 2, big + 3, std::size_t{0}},
        std::tuple{33, 32, std::size_t{1} << 20, std::size_t{65536}}}) {
    RunSpec s;
    s.algorithm = &a;
    s.procs = p;
    s.bytes = bytes;
    s.params.root = root;
    s.params.segment = a.uses_segment ? segment : 0;
    specs.push_back(s);
  }
  SimConfig c;  // SimGrid's default network model, two ranks per node as in the paper's runs
  c.platform_file = test::platform("grisou.xml");
  c.ranks_per_node = 2;
  check(c, specs);
}

// Virtual buffers must not change the simulated times, under CM02 and under LV08 (default).
TEST_P(EveryAlgorithm, VirtualBytesTimeLikeRealBytes) {
  const AlgorithmInfo& a = *GetParam();
  std::vector<RunSpec> specs;
  for (int p : {5, 33})
    for (std::size_t m : {std::size_t{1}, std::size_t{70001}, std::size_t{1} << 18})
      for (bool real : {true, false}) {
        RunSpec s;
        s.algorithm = &a;
        s.procs = p;
        s.bytes = m;
        s.real_bytes = real;
        s.params.root = p / 2;
        s.params.segment = a.uses_segment ? 8192 : 0;
        specs.push_back(s);
      }
  SimConfig lv08;
  lv08.platform_file = test::platform("grisou.xml");
  lv08.ranks_per_node = 2;
  for (const SimConfig& c : {test::exact("test/star16.xml", 3), lv08}) {
    const auto results = test::run_all(c, specs);
    for (std::size_t i = 0; i < specs.size(); i += 2) {
      const RunResult& real = results[i];
      const RunResult& virt = results[i + 1];
      EXPECT_TRUE(real.data_error.empty()) << describe(specs[i]) << ": " << real.data_error;
      // Measurements start at different dates of one simulation. SimGrid resolves time to
      // about 1 ns (surf/precision), which shows when 1-byte copies and transfers overlap.
      const double tolerance = real.time_s * 1e-9 + 5e-9;
      EXPECT_NEAR(virt.time_s, real.time_s, tolerance) << describe(specs[i]);
      ASSERT_EQ(virt.finish_s.size(), real.finish_s.size());
      for (std::size_t k = 0; k < real.finish_s.size(); ++k)
        EXPECT_NEAR(virt.finish_s[k], real.finish_s[k], tolerance) << describe(specs[i]) << " rank " << k;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sim, EveryAlgorithm, ::testing::ValuesIn(testing::every_algorithm()),
                         testing::algorithm_test_name);

}  // namespace
}  // namespace collsim
