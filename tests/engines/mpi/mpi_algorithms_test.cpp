// Every registered algorithm on real MPI, its bytes checked on every rank: several roots (all of
// them on small runs), empty, tiny, odd and segment-straddling sizes, and messages up to 4 MiB.
// The list comes from the registry, so a newly registered algorithm is tested here at once.
#include <cctype>
#include <string>
#include <vector>

#include "common/every_algorithm.hpp"
#include "common/mpi_test_util.hpp"
#include "engines/mpi/algorithm_call.hpp"
#include "engines/mpi/call_timer.hpp"
#include "engines/mpi/mpi_comm.hpp"
#include "registry/registry.hpp"

namespace collsim {
namespace {

using collsim_test::world_size;

std::vector<int> roots(const AlgorithmInfo& a, int p) {
  if (p <= 5) return collsim_test::every_root(a, p);
  return collsim_test::roots_for(a, p, {0, p / 2, p - 1});
}

int takes_root_or_0(const AlgorithmInfo& a, int root) { return collsim_test::takes_root(a, root) ? root : 0; }

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

// A reducing algorithm takes its reductions (collsim_test::test_reductions) in turn, one per call;
// sizes below 64 KiB count its elements, larger ones are about that many bytes.
RunSpec spec_for(const AlgorithmInfo& algo, int root, Size size) {
  static std::size_t turn = 0;
  const std::vector<Reduction> reductions = collsim_test::test_reductions(algo);
  RunSpec spec;
  spec.algorithm = &algo;
  spec.procs = world_size();
  spec.params.reduction = reductions[turn++ % reductions.size()];
  spec.bytes = size.bytes < 65536 ? collsim_test::test_bytes(algo, size.bytes, spec.params.reduction)
                                  : collsim_test::about_bytes(algo, size.bytes, spec.params.reduction);
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

// The two_proc algorithms run on 1 or 2 processes only (model_algorithms_test checks they refuse more).
#define SKIP_WHERE_OPEN_MPI_FAILS() \
  if (!runs_on(algorithm(), world_size())) GTEST_SKIP() << "Open MPI's fails on " << world_size()

TEST_P(MpiAlgorithm, SmallAndOddSizesFromEveryRoot) {
  SKIP_WHERE_OPEN_MPI_FAILS();
  const AlgorithmInfo& a = algorithm();
  const std::vector<Size> sizes{{0, 0}, {1, 0}, {1001, 0}, {1001, 1024}, {10000, 1024}, {65539, 8192}, {3, 1}};
  for (int root : roots(a, world_size()))
    for (Size s : sizes)
      if (collsim_test::takes_size(a, s.bytes)) expect_right(spec_for(a, root, s));
}

TEST_P(MpiAlgorithm, LargeMessages) {
  SKIP_WHERE_OPEN_MPI_FAILS();
  const AlgorithmInfo& a = algorithm();
  const int p = world_size();
  if (!operation_info(a.op).moves_data) GTEST_SKIP() << a.name << " moves no data";
  // Sizes of the largest buffer: a block of an operation whose buffers hold p of them is its
  // p-th part, so every buffer stays within 4 MiB however many ranks run.
  const std::size_t per = collsim_test::blocks_in_largest_buffer(a, p);
  // One root each: filling and checking megabytes dominates the sanitizer build's run time.
  expect_right(spec_for(a, 0, {(4u << 20) / per, 0}));
  expect_right(spec_for(a, takes_root_or_0(a, p - 1), {(4u << 20) / per, 256u << 10}));
  expect_right(spec_for(a, takes_root_or_0(a, p / 2), {((1u << 20) + 7) / per, 64u << 10}));
}

TEST_P(MpiAlgorithm, OtherFanoutsRadicesAndMaxRequests) {
  SKIP_WHERE_OPEN_MPI_FAILS();
  if (!operation_info(algorithm().op).moves_data) GTEST_SKIP() << algorithm().name << " moves no data";
  const int root = takes_root_or_0(algorithm(), world_size() - 1);
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
  for (int max_requests : {1, 2, 3, 7, 8}) {
    RunSpec spec = spec_for(algorithm(), root, {10000, 1024});
    spec.params.max_requests = max_requests;
    expect_right(spec);
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, MpiAlgorithm, ::testing::ValuesIn(collsim_test::every_algorithm_name()),
                         collsim_test::name_test_name);

}  // namespace
}  // namespace collsim
