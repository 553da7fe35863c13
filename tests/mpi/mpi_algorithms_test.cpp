// Every registered algorithm on real MPI, its bytes checked on every rank: several roots (all of
// them on small runs), empty, tiny, odd and segment-straddling sizes, and messages up to 4 MiB.
// The list comes from the registry, so a newly registered algorithm is tested here at once.
#include <cctype>
#include <string>
#include <vector>

#include "algorithms/registry.hpp"
#include "common/every_algorithm.hpp"
#include "engines/mpi/algorithm_call.hpp"
#include "engines/mpi/call_timer.hpp"
#include "engines/mpi/mpi_comm.hpp"
#include "mpi_test_util.hpp"

namespace collsim {
namespace {

using test::world_size;

std::vector<int> roots(int p) {
  if (p <= 5) {
    std::vector<int> all;
    for (int r = 0; r < p; ++r) all.push_back(r);
    return all;
  }
  return {0, p / 2, p - 1};
}

struct Size {
  std::size_t bytes;
  std::size_t segment;
};

// One call through the timing protocol; its data and timing must be right on every rank.
void expect_right(CallTimer& timer, MpiComm& comm, const RunSpec& spec) {
  try {
    AlgorithmCall call(comm, spec);
    const CallTiming t = timer.time(call);
    EXPECT_EQ(t.data_error, "") << describe(spec);
    EXPECT_EQ(t.finish_s.size(), static_cast<std::size_t>(spec.procs)) << describe(spec);
    for (double f : t.finish_s) EXPECT_GE(f, 0.0) << describe(spec);
  } catch (const std::exception& e) {
    // Engine failures are agreed on, so every rank lands here together.
    ADD_FAILURE() << describe(spec) << ": " << e.what();
  }
}

// A reducing algorithm takes its reductions (testing::test_reductions) in turn, one per call;
// sizes below 64 KiB count its elements, larger ones are about that many bytes.
RunSpec spec_for(const AlgorithmInfo& algo, int root, Size size) {
  static std::size_t turn = 0;
  const std::vector<Reduction> reductions = testing::test_reductions(algo);
  RunSpec spec;
  spec.algorithm = &algo;
  spec.procs = world_size();
  spec.params.reduction = reductions[turn++ % reductions.size()];
  spec.bytes = size.bytes < 65536 ? testing::test_bytes(algo, size.bytes, spec.params.reduction)
                                  : testing::about_bytes(algo, size.bytes, spec.params.reduction);
  spec.params.root = root;
  spec.params.segment = size.segment;
  return spec;
}

// One clock synchronisation and one communicator for the whole suite: on an oversubscribed
// machine each costs tens of milliseconds at 8 ranks, and the suite makes hundreds of calls.
class MpiAlgorithm : public ::testing::TestWithParam<std::string> {
 public:
  static void SetUpTestSuite() {
    timer_ = new CallTimer(MPI_COMM_WORLD);
    comm_ = new MpiComm(MPI_COMM_WORLD);
  }
  static void TearDownTestSuite() {
    delete comm_;
    delete timer_;
  }

 protected:
  const AlgorithmInfo& algorithm() const { return *find_algorithm(GetParam()); }
  void expect_right(const RunSpec& spec) { collsim::expect_right(*timer_, *comm_, spec); }

  static inline CallTimer* timer_ = nullptr;
  static inline MpiComm* comm_ = nullptr;
};

TEST_P(MpiAlgorithm, SmallAndOddSizesFromEveryRoot) {
  const std::vector<Size> sizes{{0, 0}, {1, 0}, {1001, 0}, {1001, 1024}, {10000, 1024}, {65539, 8192}, {3, 1}};
  for (int root : roots(world_size()))
    for (Size s : sizes) expect_right(spec_for(algorithm(), root, s));
}

TEST_P(MpiAlgorithm, LargeMessages) {
  const int p = world_size();
  // Sizes of the whole result: a gather's block is its p-th part, so the root's buffer stays
  // within 4 MiB however many ranks run.
  const std::size_t per = algorithm().op == Operation::gather ? static_cast<std::size_t>(p) : 1;
  // One root each: filling and checking megabytes dominates the sanitizer build's run time.
  expect_right(spec_for(algorithm(), 0, {(4u << 20) / per, 0}));
  expect_right(spec_for(algorithm(), p - 1, {(4u << 20) / per, 256u << 10}));
  expect_right(spec_for(algorithm(), p / 2, {((1u << 20) + 7) / per, 64u << 10}));
}

TEST_P(MpiAlgorithm, OtherFanoutsAndRadices) {
  const int root = world_size() - 1;
  for (int fanout : {1, 2, 3}) {
    RunSpec spec = spec_for(algorithm(), root, {10000, 1024});
    spec.params.fanout = fanout;
    expect_right(spec);
  }
  for (int radix : {2, 3, 5}) {
    RunSpec spec = spec_for(algorithm(), root, {10000, 1024});
    spec.params.radix = radix;
    expect_right(spec);
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, MpiAlgorithm, ::testing::ValuesIn(testing::every_algorithm_name()),
                         testing::name_test_name);

}  // namespace
}  // namespace collsim
