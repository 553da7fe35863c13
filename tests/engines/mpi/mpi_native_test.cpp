// The mpi-native engine: Open MPI's own collective forced to each registered algorithm, checked
// against ours on identical inputs (both right, and byte for byte the same results), its forcing
// kept to its own communicator, its refusals, and its measured rows.
//
// That the forcing really selects the algorithm (and the segment, fanout and radix) is checked
// message by message in mpi_pattern_test.cpp, with Open MPI's message monitoring.
#include <cctype>
#include <climits>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/every_algorithm.hpp"
#include "common/mpi_test_util.hpp"
#include "engines/mpi/algorithm_call.hpp"
#include "engines/mpi/call_timer.hpp"
#include "engines/mpi/measure.hpp"
#include "engines/mpi/mpi_comm.hpp"
#include "engines/mpi/mpi_t.hpp"
#include "engines/mpi/native_call.hpp"
#include "registry/registry.hpp"

namespace collsim {
namespace {

using collsim_test::world_size;

// A reducing algorithm takes its reductions (collsim_test::test_reductions) in turn, one per call;
// sizes below 64 KiB count its elements, larger ones are about that many bytes.
RunSpec spec_for(const AlgorithmInfo& algo, int root, std::size_t bytes, std::size_t segment) {
  static std::size_t turn = 0;
  const std::vector<Reduction> reductions = collsim_test::test_reductions(algo);
  RunSpec spec;
  spec.algorithm = &algo;
  spec.procs = world_size();
  spec.params.reduction = reductions[turn++ % reductions.size()];
  spec.bytes = bytes < 65536 ? collsim_test::test_bytes(algo, bytes, spec.params.reduction)
                             : collsim_test::about_bytes(algo, bytes, spec.params.reduction);
  spec.params.root = root;
  spec.params.segment = algo.takes(Knob::segment) ? segment : 0;
  return spec;
}

int cvar(const std::string& name) {
  const auto v = mpi_t::read_int(name);
  EXPECT_TRUE(v.has_value()) << name;
  return v.value_or(-1);
}

TEST(NativeSupport, OpenMpiRunsEveryRegisteredAlgorithmUnderItsOwnName) {
  for (const auto& a : all_algorithms()) {
    AlgorithmParams params;
    params.segment = a.takes(Knob::segment) ? 8192 : 0;
    if (a.in_open_mpi())
      EXPECT_EQ(native_support(a, params, 100000), "") << a.name;
    else
      EXPECT_NE(native_support(a, params, 100000).find("collsim's own"), std::string::npos) << a.name;
  }
}

TEST(NativeSupport, SizesBeyondAnIntCountAreRefused) {
  const AlgorithmInfo& binomial = *find_algorithm("bcast/binomial");
  const std::size_t too_big = static_cast<std::size_t>(INT_MAX) + 1;
  EXPECT_NE(native_support(binomial, {}, too_big).find("int count of MPI_Bcast"), std::string::npos);
  AlgorithmParams params;
  params.segment = too_big;
  EXPECT_NE(native_support(binomial, params, 10).find("segment"), std::string::npos);
  // Refused before any communication or allocation, alike on every rank.
  RunSpec spec = spec_for(binomial, 0, too_big, 0);
  EXPECT_THROW(NativeCall(MPI_COMM_WORLD, spec), InputError);
}

TEST(ForcedComm, LaterCommunicatorsAreNotForced) {
  const int algorithm = cvar("coll_tuned_bcast_algorithm");
  const int segment = cvar("coll_tuned_bcast_algorithm_segmentsize");
  const int fanout = cvar("coll_tuned_bcast_algorithm_chain_fanout");
  const int radix = cvar("coll_tuned_bcast_algorithm_knomial_radix");
  const int gather = cvar("coll_tuned_gather_algorithm");
  const int alltoall = cvar("coll_tuned_alltoall_algorithm");
  const int max_requests = cvar("coll_tuned_alltoall_algorithm_max_requests");
  {
    AlgorithmParams params;
    params.segment = 1024;
    params.fanout = 3;
    ForcedComm chain(MPI_COMM_WORLD, *find_algorithm("bcast/chain"), params);
    ForcedComm linear_sync(MPI_COMM_WORLD, *find_algorithm("gather/linear_sync"), params);
    EXPECT_EQ(cvar("coll_tuned_bcast_algorithm"), algorithm);
    EXPECT_EQ(cvar("coll_tuned_bcast_algorithm_segmentsize"), segment);
    EXPECT_EQ(cvar("coll_tuned_bcast_algorithm_chain_fanout"), fanout);
    EXPECT_EQ(cvar("coll_tuned_gather_algorithm"), gather);
    params.max_requests = 2;
    ForcedComm linear_sync_alltoall(MPI_COMM_WORLD, *find_algorithm("alltoall/linear_sync"), params);
    EXPECT_EQ(cvar("coll_tuned_alltoall_algorithm"), alltoall);
    EXPECT_EQ(cvar("coll_tuned_alltoall_algorithm_max_requests"), max_requests);

    // Open MPI reads the radix at each call: it is set while a k-nomial communicator is in use.
    params.radix = 3;
    ForcedComm knomial(MPI_COMM_WORLD, *find_algorithm("bcast/knomial"), params);
    EXPECT_EQ(cvar("coll_tuned_bcast_algorithm_knomial_radix"), 3);
  }
  EXPECT_EQ(cvar("coll_tuned_bcast_algorithm_knomial_radix"), radix);
}

TEST(ForcedComm, FitsOnlyCallsWithItsAlgorithmAndKnobs) {
  const AlgorithmInfo& chain = *find_algorithm("bcast/chain");
  AlgorithmParams params;
  params.segment = 1024;
  params.fanout = 2;
  ForcedComm forced(MPI_COMM_WORLD, chain, params);
  RunSpec spec = spec_for(chain, world_size() - 1, 5000, 1024);
  spec.params.fanout = 2;
  EXPECT_TRUE(forced.fits(spec));
  spec.params.radix = 7;  // chain has no radix
  EXPECT_TRUE(forced.fits(spec));
  spec.params.fanout = 3;
  EXPECT_FALSE(forced.fits(spec));
  EXPECT_THROW(NativeCall(forced, spec), InputError);
  spec.params.fanout = 2;
  spec.params.segment = 2048;
  EXPECT_FALSE(forced.fits(spec));
  spec = spec_for(*find_algorithm("bcast/pipeline"), 0, 5000, 1024);
  EXPECT_FALSE(forced.fits(spec));
}

TEST(MeasureNative, MeasuresWithTheDataRight) {
  MeasureOptions options;
  options.warmup = 1;
  options.stop.min_runs = options.stop.max_runs = 3;
  RunSpec spec = spec_for(*find_algorithm("gather/linear_sync"), world_size() / 2, 3000, 1024);
  const MpiMeasurement m = measure_native(MPI_COMM_WORLD, spec, options);
  EXPECT_EQ(m.summary.runs, 3u);
  EXPECT_EQ(m.data, "ok");
  EXPECT_GT(m.summary.median, 0.0);
  EXPECT_EQ(measure_engine(MPI_COMM_WORLD, Engine::mpi_native, spec, options).data, "ok");
  EXPECT_THROW((void)measure_engine(MPI_COMM_WORLD, Engine::model, spec, options), InputError);
}

// "" when the two ranks' buffers hold the same bytes, else the first difference.
std::string first_difference(const char* what, Buffer ours, Buffer native) {
  if (ours.size() != native.size())
    return std::string(what) + ": " + std::to_string(ours.size()) + " bytes (ours) against " +
           std::to_string(native.size()) + " (Open MPI's)";
  for (std::size_t i = 0; i < ours.size(); ++i)
    if (ours.data()[i] != native.data()[i]) {
      char line[128];
      std::snprintf(line, sizeof line, "%s: byte %zu is 0x%02x in ours, 0x%02x in Open MPI's", what, i,
                    static_cast<unsigned>(ours.data()[i]), static_cast<unsigned>(native.data()[i]));
      return line;
    }
  return {};
}

// One clock synchronisation, one communicator for ours and one forced communicator per knob
// setting for the whole suite: each is collective and costs milliseconds on a busy machine.
class NativeEquivalence : public ::testing::TestWithParam<std::string> {
 public:
  static void SetUpTestSuite() {
    timer_ = new CallTimer(MPI_COMM_WORLD);
    comm_ = new MpiComm(MPI_COMM_WORLD);
    forced_ = new std::map<std::string, std::unique_ptr<ForcedComm>>;
  }
  static void TearDownTestSuite() {
    delete forced_;
    delete comm_;
    delete timer_;
  }

 protected:
  const AlgorithmInfo& algorithm() const { return *find_algorithm(GetParam()); }

  // Every rank asks for the same settings in the same order, so the duplications match.
  ForcedComm& forced_for(const RunSpec& spec) {
    const std::string key = std::string(spec.algorithm->name) + "/" + std::to_string(spec.params.segment) + "/" +
                            std::to_string(spec.params.fanout) + "/" + std::to_string(spec.params.radix) + "/" +
                            std::to_string(spec.params.max_requests);
    auto& slot = (*forced_)[key];
    if (!slot) slot = std::make_unique<ForcedComm>(MPI_COMM_WORLD, *spec.algorithm, spec.params);
    return *slot;
  }

  // Ours and Open MPI's on the same input: both right on every rank, and the same bytes.
  void expect_same(const RunSpec& spec) {
    try {
      AlgorithmCall ours(*comm_, spec);
      NativeCall native(forced_for(spec), spec);
      const CallTiming a = timer_->time(ours);
      const CallTiming b = timer_->time(native);
      EXPECT_EQ(a.data_error, "") << "ours: " << describe(spec);
      EXPECT_EQ(b.data_error, "") << "Open MPI's: " << describe(spec);
      const RankBuffers x = ours.data()->buffers(), y = native.data()->buffers();
      EXPECT_EQ(first_difference("data", x.data, y.data), "") << describe(spec);
      EXPECT_EQ(first_difference("gathered", x.result, y.result), "") << describe(spec);
    } catch (const std::exception& e) {
      // Engine failures are agreed on, so every rank lands here together.
      ADD_FAILURE() << describe(spec) << ": " << e.what();
    }
  }

  static inline CallTimer* timer_ = nullptr;
  static inline MpiComm* comm_ = nullptr;
  static inline std::map<std::string, std::unique_ptr<ForcedComm>>* forced_ = nullptr;
};

std::vector<int> some_roots(const AlgorithmInfo& a, int p) {
  if (p <= 3) return collsim_test::every_root(a, p);
  return collsim_test::roots_for(a, p, {0, p / 2, p - 1});
}

TEST_P(NativeEquivalence, SameBytesAsOpenMpiForRootsAndSizes) {
  const AlgorithmInfo& a = algorithm();
  const int p = world_size();
  // Open MPI's two_proc algorithms fail on more than 2 processes, as ours (model_algorithms_test).
  if (!runs_on(a, p)) GTEST_SKIP() << "Open MPI's fails on " << p;
  // Empty, one byte, odd, not a multiple of the segment, exactly a segment, and 1 MiB in the
  // largest buffer (a block of a p-block operation is its p-th part). A barrier's only size is 0.
  const std::size_t per = collsim_test::blocks_in_largest_buffer(a, p);
  struct Size {
    std::size_t bytes, segment;
  };
  const std::vector<Size> sizes{{0, 0},        {1, 0},       {1001, 0},     {1001, 1024},
                                {10000, 1024}, {8192, 8192}, {65539, 8192}, {(1u << 20) / per, 8192}};
  for (int root : some_roots(a, p))
    for (Size s : sizes)
      if (collsim_test::takes_size(a, s.bytes)) expect_same(spec_for(a, root, s.bytes, s.segment));
}

// The algorithms with a fanout, a radix or max_requests, at other values than the default.
class NativeKnobs : public NativeEquivalence {};

std::vector<std::string> knob_algorithms() {
  std::vector<std::string> names;
  for (const auto& a : all_algorithms())
    if (a.in_open_mpi() && (a.takes(Knob::fanout) || a.takes(Knob::radix) || a.takes(Knob::max_requests)))
      names.emplace_back(a.name);
  return names;
}

TEST_P(NativeKnobs, SameBytesAsOpenMpiForOtherKnobValues) {
  const int root = collsim_test::roots_for(algorithm(), world_size(), {world_size() - 1}).front();
  for (int k : {1, 2, 3, 5}) {
    RunSpec spec = spec_for(algorithm(), root, 10001, 1024);
    if (algorithm().takes(Knob::fanout)) spec.params.fanout = k;
    if (algorithm().takes(Knob::max_requests)) spec.params.max_requests = k;  // leaves have ~40 segments
    if (algorithm().takes(Knob::radix)) {
      if (k < 2) continue;
      spec.params.radix = k;
    }
    expect_same(spec);
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, NativeEquivalence, ::testing::ValuesIn(collsim_test::open_mpi_algorithm_names()),
                         collsim_test::name_test_name);
INSTANTIATE_TEST_SUITE_P(Registry, NativeKnobs, ::testing::ValuesIn(knob_algorithms()), collsim_test::name_test_name);

}  // namespace
}  // namespace collsim
