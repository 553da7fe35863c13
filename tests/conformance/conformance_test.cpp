// The conformance suite on the engines that run in one process: the model engine under each of
// its cost models and the sim engine under its protocol profiles. (Real MPI:
// conformance_mpi_test.cpp.) Every case of conformance_cases.cpp runs on every engine for each
// process count it allows.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "conformance/conformance_cases.hpp"
#include "conformance/conformance_run.hpp"
#include "engines/model/model_engine.hpp"
#include "engines/sim/sim_engine.hpp"

namespace collsim::conformance {
namespace {

struct Engine {
  std::string name;
  std::function<RunResult(const RunSpec&)> run;
};

ModelConfig model(ModelConfig::Kind kind, bool one_port) {
  ModelConfig c;
  c.kind = kind;
  c.hockney = {2e-6, 1e-9};
  c.two_level.intra = {0.5e-6, 0.2e-9};
  c.two_level.inter = {2e-6, 1e-9};
  c.two_level.placement = models::block_placement(2);
  c.loggp = {3e-6, 1e-6, 1.5e-6, 1e-9};
  c.one_port = one_port;
  c.copy_bandwidth = 5e9;
  return c;
}

SimConfig sim(const std::string& protocol) {
  SimConfig c;
  c.platform_file = std::string(COLLSIM_SOURCE_DIR) + "/platforms/test/star16.xml";
  c.map_by = {models::MapBy::Policy::ppr_node, 2};
  c.protocol = protocol;
  return c;
}

std::vector<Engine> engines() {
  std::vector<Engine> list;
  for (auto [name, kind, one_port] : {std::tuple{"model_hockney", ModelConfig::Kind::hockney, false},
                                      std::tuple{"model_hockney_one_port", ModelConfig::Kind::hockney, true},
                                      std::tuple{"model_two_level", ModelConfig::Kind::two_level, false},
                                      std::tuple{"model_loggp", ModelConfig::Kind::loggp, false}}) {
    const ModelConfig c = model(kind, one_port);
    list.push_back({name, [c](const RunSpec& s) { return run_model(c, s); }});
  }
  for (const char* protocol : {"ideal", "tcp+shm"}) {
    const SimConfig c = sim(protocol);
    list.push_back(
        {std::string("sim_") + (std::string(protocol) == "ideal" ? "ideal" : "tcp_shm"), [c](const RunSpec& s) {
           RunResult out;
           run_sim(c, std::span<const RunSpec>(&s, 1), [&](std::size_t, const RunResult& r) { out = r; });
           return out;
         }});
  }
  return list;
}

class Conformance : public ::testing::TestWithParam<std::tuple<std::size_t, std::size_t>> {};

TEST_P(Conformance, Case) {
  const Engine engine = engines()[std::get<0>(GetParam())];
  const Case& c = cases()[std::get<1>(GetParam())];
  for (int procs = c.min_procs; procs <= c.max_procs; ++procs) {
    const RunSpec spec = spec_of(c, procs);
    std::string error;
    try {
      const RunResult r = engine.run(spec);
      EXPECT_EQ(r.data_error, "") << engine.name << " on " << procs;
    } catch (const EngineError& e) {
      error = e.what();
    }
    EXPECT_EQ(verdict(c, procs, error), "") << engine.name << " on " << procs << " processes";
  }
}

std::string name_of(const ::testing::TestParamInfo<std::tuple<std::size_t, std::size_t>>& info) {
  std::string name = engines()[std::get<0>(info.param)].name + "_" +
                     std::string(cases()[std::get<1>(info.param)].algorithm.name.substr(12));
  return name;
}

INSTANTIATE_TEST_SUITE_P(AllEngines, Conformance,
                         ::testing::Combine(::testing::Range<std::size_t>(0, 6),
                                            ::testing::Range<std::size_t>(0, cases().size())),
                         name_of);

TEST(Conformance, EveryEngineIsListed) { EXPECT_EQ(engines().size(), 6u); }

}  // namespace
}  // namespace collsim::conformance
