// Reductions in Open MPI's order: each reducing algorithm of ours (reduce, allreduce,
// reduce_scatter: every registered one, so new ones are picked up) against Open MPI's forced to
// it, on a double sum of the same inputs. Floating-point addition is not associative, so the
// result's bits show the grouping of the operands; ours must be bit for bit Open MPI's, not merely
// within the rounding bound the result check allows (mpi_native_test compares bytes too, but
// takes double sum for only some of its calls).
//
// The control below shows that the inputs do tell groupings apart: two algorithms that group the
// operands differently get different bits.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/operation.hpp"
#include "common/every_algorithm.hpp"
#include "common/mpi_test_util.hpp"
#include "engines/mpi/algorithm_call.hpp"
#include "engines/mpi/mpi_comm.hpp"
#include "engines/mpi/native_call.hpp"
#include "registry/registry.hpp"

namespace collsim {
namespace {

using collsim_test::world_size;

constexpr Reduction kDoubleSum{Datatype::float64, ReduceOp::sum};

// Reducing algorithms of ours that deliberately reduce in another order than Open MPI's, and why.
// None today: every one follows Open MPI's order (and mpi_native_test holds them to its bytes).
const std::map<std::string_view, std::string_view> kOtherOrder = {};

std::vector<std::string> reducing_algorithms() {
  std::vector<std::string> names;
  for (const auto& a : all_algorithms())
    if (operation_info(a.op).reduces && a.in_open_mpi()) names.emplace_back(a.name);  // compared with Open MPI's
  return names;
}

RunSpec double_sum(const AlgorithmInfo& a, int root, std::size_t elements, std::size_t segment) {
  RunSpec spec;
  spec.algorithm = &a;
  spec.procs = world_size();
  spec.params.reduction = kDoubleSum;
  spec.bytes = collsim_test::test_bytes(a, elements, kDoubleSum);
  spec.params.root = root;
  spec.params.segment = a.takes(Knob::segment) ? segment : 0;
  return spec;
}

// Runs the call (AlgorithmCall or NativeCall) once and hands back this rank's result bytes,
// checked against the reduction's bound.
template <class Call>
std::vector<std::byte> result_of(Call& call) {
  call.prepare();
  call.run(MPI_Wtime());
  EXPECT_EQ(call.check(), "") << call.describe();
  const Buffer r = call.data()->buffers().result;
  return std::vector<std::byte>(r.data(), r.data() + r.size());
}

// The index of the first double that differs, or -1.
long first_different_element(const std::vector<std::byte>& a, const std::vector<std::byte>& b) {
  if (a.size() != b.size()) return 0;
  for (std::size_t i = 0; i + sizeof(double) <= a.size(); i += sizeof(double))
    if (std::memcmp(a.data() + i, b.data() + i, sizeof(double)) != 0) return static_cast<long>(i / sizeof(double));
  return -1;
}

std::string element_text(const std::vector<std::byte>& bytes, long k) {
  if (k < 0 || static_cast<std::size_t>(k + 1) * sizeof(double) > bytes.size()) return "(none)";
  double v;
  std::memcpy(&v, bytes.data() + k * sizeof(double), sizeof v);
  char s[40];
  std::snprintf(s, sizeof s, "%.17g", v);
  return s;
}

class ReductionOrder : public ::testing::TestWithParam<std::string> {
 protected:
  const AlgorithmInfo& algorithm() const { return *find_algorithm(GetParam()); }
};

TEST_P(ReductionOrder, DoubleSumIsBitForBitOpenMpis) {
  const AlgorithmInfo& a = algorithm();
  const int p = world_size();
  if (const auto other = kOtherOrder.find(a.name); other != kOtherOrder.end())
    GTEST_SKIP() << a.name << " reduces in another order than Open MPI's: " << other->second;
  if (!runs_on(a, p)) GTEST_SKIP() << "Open MPI's fails on " << p;
  MpiComm ours_comm(MPI_COMM_WORLD);
  std::map<std::size_t, std::unique_ptr<ForcedComm>> forced;  // per segment size
  struct Size {
    std::size_t elements, segment;
  };
  // One element, odd counts, fewer elements than processes, segments that are and are not a
  // whole number of doubles (1000 bytes: 125), and 1 MiB (a few roots only).
  const std::vector<Size> sizes{{1, 0}, {7, 0}, {1001, 0}, {1001, 1024}, {10007, 1000}, {131075, 8192}};
  for (Size s : sizes) {
    const std::vector<int> roots =
        s.elements > 65536 ? collsim_test::roots_for(a, p, {0, p - 1}) : collsim_test::every_root(a, p);
    for (int root : roots) {
      const RunSpec spec = double_sum(a, root, s.elements, s.segment);
      try {
        auto& f = forced[spec.params.segment];
        if (!f) f = std::make_unique<ForcedComm>(MPI_COMM_WORLD, a, spec.params);
        AlgorithmCall ours(ours_comm, spec);
        NativeCall native(*f, spec);
        const auto x = result_of(ours);
        const auto y = result_of(native);
        EXPECT_EQ(x.size(), y.size()) << describe(spec);
        const long k = first_different_element(x, y);
        EXPECT_EQ(k, -1) << describe(spec) << ": element " << k << " is " << element_text(x, k) << " in ours, "
                         << element_text(y, k) << " in Open MPI's";
      } catch (const std::exception& e) {
        // Engine failures are agreed on, so every rank lands here together.
        ADD_FAILURE() << describe(spec) << ": " << e.what();
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, ReductionOrder, ::testing::ValuesIn(reducing_algorithms()),
                         collsim_test::name_test_name);

// The control: on 3 or more processes the inputs give other bits when grouped otherwise. Linear
// reduces x0 + (x1 + (x2 + ...)), binomial (root 0) groups x0 with x1 first, so some element of
// the two results differs; Open MPI's two forced algorithms differ in the same way.
TEST(ReductionOrderControl, OtherGroupingsGiveOtherBits) {
  const int p = world_size();
  if (p < 3) GTEST_SKIP() << "with 2 operands every order gives the same bits";
  const RunSpec linear = double_sum(*find_algorithm("reduce/linear"), 0, 1001, 0);
  const RunSpec binomial = double_sum(*find_algorithm("reduce/binomial"), 0, 1001, 0);
  MpiComm ours_comm(MPI_COMM_WORLD);
  AlgorithmCall ours_linear(ours_comm, linear), ours_binomial(ours_comm, binomial);
  NativeCall native_linear(MPI_COMM_WORLD, linear), native_binomial(MPI_COMM_WORLD, binomial);
  const auto a = result_of(ours_linear);
  const auto b = result_of(ours_binomial);
  const auto c = result_of(native_linear);
  const auto d = result_of(native_binomial);
  if (collsim_test::world_rank() != 0) return;  // the root holds the results
  EXPECT_NE(first_different_element(a, b), -1) << "ours: linear and binomial give the same bits";
  EXPECT_NE(first_different_element(c, d), -1) << "Open MPI's: linear and binomial give the same bits";
}

}  // namespace
}  // namespace collsim
