// The critical path (experiment/trace/critical_path.hpp) of sim engine traces, on every algorithm under
// each protocol profile: whatever order the profile completes a send in (on arrival, at its post,
// once the socket buffer has room, after the rendezvous handshake, while its data leaves), the
// walk passes, its steps tile [0, finish] and the shares add up to it. One simulation per
// profile runs every algorithm's points (a few seconds in all).
// Platform: platforms/test/star16.xml under CM02 without cross traffic (common/sim_test_util.hpp).
#include <gtest/gtest.h>

#include <deque>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/critical_path_checks.hpp"
#include "common/every_algorithm.hpp"
#include "common/sim_test_util.hpp"
#include "experiment/trace/critical_path.hpp"
#include "registry/registry.hpp"

namespace collsim {
namespace {

struct Profile {
  const char* name;
  int per_host;  // 2: tcp+shm puts two ranks on a host, shm between them
  std::vector<std::string> options;
  // The waits before a local completion that some chain holds (so the sizes cover them).
  std::set<PathStep::Handover> waits;
};

TEST(SimCriticalPath, EveryAlgorithmUnderEveryProfileTilesTheFinishTime) {
  // Sizes about the eager limits (ideal 65535, tcp 65480, shm 4040 bytes), whole and in segments:
  // eager; rendezvous; rendezvous segments of 64 KiB (tcp/interface:fifo: the data of the second
  // child waits for the interface, the send done before it leaves); segments eager under tcp,
  // rendezvous under shm.
  const std::pair<std::size_t, std::size_t> sizes[] = {{1001, 0}, {100000, 0}, {262144, 65536}, {40000, 8192}};
  // tcp with a small socket buffer opened on first use: eager sends wait for room or for the
  // connection, and rendezvous data is partly on the wire when its send completes.
  using H = PathStep::Handover;
  const Profile profiles[] = {{"ideal", 1, {}, {}},
                              {"tcp", 1, {}, {}},
                              {"tcp+shm", 2, {}, {}},
                              {"tcp", 1, {"tcp/interface:fifo"}, {H::handshake}},
                              {"tcp+shm", 2, {"tcp/interface:fifo"}, {H::handshake}},
                              {"tcp", 1, {"tcp/buffer:20KiB", "tcp/connect:first_use"}, {H::room, H::leaving}}};
  std::vector<RunSpec> specs;
  for (const AlgorithmInfo* a : collsim_test::every_algorithm())
    for (int p : collsim_test::procs_for(*a, {4, 8}))
      for (auto [bytes, segment] : sizes) {
        if (!collsim_test::takes_size(*a, bytes)) continue;
        RunSpec s;
        s.algorithm = a;
        s.procs = p;
        s.real_bytes = false;
        s.bytes = collsim_test::case_bytes(*a, bytes, s.params.reduction, 4096);
        s.params.segment = a->takes(Knob::segment) ? segment : 0;
        specs.push_back(s);
      }
  for (const Profile& profile : profiles) {
    SimConfig config = collsim_test::exact("test/star16.xml", profile.per_host, profile.name);
    config.protocol_options = profile.options;
    std::deque<TraceBuffer> buffers(specs.size());
    std::vector<RunSpec> traced = specs;
    for (std::size_t i = 0; i < traced.size(); ++i) traced[i].trace = &buffers[i];
    const std::vector<RunResult> results = collsim_test::run_all(config, traced);
    std::set<PathStep::Handover> waited;
    for (std::size_t i = 0; i < specs.size(); ++i) {
      std::string what = describe(specs[i]) + " under " + profile.name;
      for (const std::string& o : profile.options) what += " " + o;
      CriticalPath path;
      try {
        path = critical_path(buffers[i].events());
      } catch (const std::exception& e) {
        ADD_FAILURE() << what << ": " << e.what();
        continue;
      }
      EXPECT_EQ(path.finish, results[i].time_s) << what;
      collsim_test::expect_tiled(path, what, true);
      for (const PathStep& step : path.steps)
        if (step.kind == PathStep::Kind::handed_over && step.to > step.from) waited.insert(step.handover);
    }
    for (PathStep::Handover h : profile.waits)
      EXPECT_TRUE(waited.count(h)) << profile.name << ": no chain waits for handover " << static_cast<int>(h);
  }
}

}  // namespace
}  // namespace collsim
