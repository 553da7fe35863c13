// What every critical path (experiment/trace/critical_path.hpp) must be, whichever engine traced the run:
// steps that follow each other from 0 to the finish, shares that add up to it, a copying share
// that is the copy steps' time. The model and sim engines' tests run it on every algorithm.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "common/collsim_test.hpp"
#include "experiment/trace/critical_path.hpp"

namespace collsim_test {

// `local_work`: the engine spends time outside messages and copies (LogGP's overheads o, the sim
// engine's send overheads and hand-overs); without it, `other` is rounding only.
inline void expect_tiled(const CriticalPath& path, const std::string& what, bool local_work) {
  ASSERT_FALSE(path.steps.empty()) << what;
  EXPECT_EQ(path.steps.front().from, 0) << what;
  EXPECT_EQ(path.steps.back().to, path.finish) << what;
  double copying = 0;
  for (std::size_t i = 0; i < path.steps.size(); ++i) {
    const PathStep& s = path.steps[i];
    EXPECT_LE(s.from, s.to) << what << " step " << i;
    if (i + 1 < path.steps.size()) {
      EXPECT_EQ(s.to, path.steps[i + 1].from) << what << " step " << i;
    }
    if (s.kind == PathStep::Kind::copy) copying += s.to - s.from;
    EXPECT_GE(s.shares.latency, 0) << what;
    EXPECT_GE(s.shares.transfer, 0) << what;
    EXPECT_GE(s.shares.waiting, 0) << what;
  }
  EXPECT_EQ(path.shares.copying, copying) << what;
  EXPECT_EQ(path.shares.total(), path.finish) << what;
  if (!local_work) {
    EXPECT_NEAR(path.shares.other, 0, 1e-12 + 1e-9 * path.finish) << what;
  }
  EXPECT_GE(path.shares.other, -1e-12 * path.finish) << what;
}

}  // namespace collsim_test
