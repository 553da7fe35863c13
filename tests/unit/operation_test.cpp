// The operation descriptors (operation.hpp) and the reduction arithmetic (comm/reduction.hpp):
// every operation's buffers, filled for every rank and combined by a reference implementation of
// its MPI semantics written here, pass the descriptor's check; any changed byte fails it.
#include <gtest/gtest.h>

#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "algorithms/input_pattern.hpp"
#include "algorithms/operation.hpp"
#include "algorithms/rank_data.hpp"

namespace collsim {
namespace {

template <class T>
std::vector<std::byte> raw(std::initializer_list<T> values) {
  std::vector<std::byte> out(values.size() * sizeof(T));
  std::memcpy(out.data(), values.begin(), out.size());
  return out;
}

template <class T>
T element(const std::vector<std::byte>& v, std::size_t i) {
  T x;
  std::memcpy(&x, v.data() + i * sizeof(T), sizeof(T));
  return x;
}

Buffer view(std::vector<std::byte>& v) { return {v.data(), v.size()}; }

TEST(Reduction, ArithmeticPerTypeAndOperator) {
  auto run = [](Reduction r, std::vector<std::byte> in, std::vector<std::byte> inout) {
    apply(r, view(in), view(inout));
    return inout;
  };
  auto sum32 = run({Datatype::int32, ReduceOp::sum}, raw<std::int32_t>({INT32_MAX, -5}), raw<std::int32_t>({1, 7}));
  EXPECT_EQ(element<std::int32_t>(sum32, 0), INT32_MIN);  // wraps
  EXPECT_EQ(element<std::int32_t>(sum32, 1), 2);
  auto prod = run({Datatype::float64, ReduceOp::prod}, raw<double>({1.5, -2}), raw<double>({4, 0.25}));
  EXPECT_EQ(element<double>(prod, 0), 6.0);
  EXPECT_EQ(element<double>(prod, 1), -0.5);
  auto mn = run({Datatype::float32, ReduceOp::min}, raw<float>({1.5f, -2}), raw<float>({4, -3}));
  EXPECT_EQ(element<float>(mn, 0), 1.5f);
  EXPECT_EQ(element<float>(mn, 1), -3.0f);
  auto mx = run({Datatype::int64, ReduceOp::max}, raw<std::int64_t>({-1, 9}), raw<std::int64_t>({-4, 2}));
  EXPECT_EQ(element<std::int64_t>(mx, 0), -1);
  EXPECT_EQ(element<std::int64_t>(mx, 1), 9);
  auto land = run({Datatype::int32, ReduceOp::land}, raw<std::int32_t>({3, 0, 5}), raw<std::int32_t>({7, 1, 0}));
  EXPECT_EQ(element<std::int32_t>(land, 0), 1);
  EXPECT_EQ(element<std::int32_t>(land, 1), 0);
  EXPECT_EQ(element<std::int32_t>(land, 2), 0);
  auto lxor = run({Datatype::int32, ReduceOp::lxor}, raw<std::int32_t>({3, 0}), raw<std::int32_t>({7, 1}));
  EXPECT_EQ(element<std::int32_t>(lxor, 0), 0);
  EXPECT_EQ(element<std::int32_t>(lxor, 1), 1);
  auto bx = run({Datatype::byte, ReduceOp::bxor}, raw<std::uint8_t>({0xf0}), raw<std::uint8_t>({0x3c}));
  EXPECT_EQ(element<std::uint8_t>(bx, 0), 0xcc);
  auto bo = run({Datatype::int64, ReduceOp::bor}, raw<std::int64_t>({0x10}), raw<std::int64_t>({0x01}));
  EXPECT_EQ(element<std::int64_t>(bo, 0), 0x11);
  auto ba = run({Datatype::int32, ReduceOp::band}, raw<std::int32_t>({0x1f}), raw<std::int32_t>({0x31}));
  EXPECT_EQ(element<std::int32_t>(ba, 0), 0x11);
}

// affine: (a, b) is x -> a*x + b mod 2^32, and in (+) inout is in after inout.
std::int64_t affine(std::uint32_t a, std::uint32_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) | (static_cast<std::uint64_t>(b) << 32));
}
std::int64_t compose(std::int64_t f, std::int64_t g) {
  std::vector<std::byte> in = raw<std::int64_t>({f}), inout = raw<std::int64_t>({g});
  apply({Datatype::int64, ReduceOp::affine}, view(in), view(inout));
  return element<std::int64_t>(inout, 0);
}

TEST(Reduction, AffineIsAssociativeAndNotCommutative) {
  const std::int64_t f = affine(3, 5), g = affine(7, 11), h = affine(0xfffffffbu, 2);
  EXPECT_EQ(compose(f, g), affine(21, 3 * 11 + 5));  // f(g(x)) = 3(7x + 11) + 5
  EXPECT_NE(compose(f, g), compose(g, f));
  EXPECT_EQ(compose(compose(f, g), h), compose(f, compose(g, h)));
  EXPECT_FALSE(is_commutative(ReduceOp::affine));
  EXPECT_TRUE(is_commutative(ReduceOp::sum));
}

TEST(Reduction, NamesAndInvalidCombinations) {
  EXPECT_EQ(parse_datatype("double"), Datatype::float64);
  EXPECT_EQ(parse_reduce_op("bxor"), ReduceOp::bxor);
  EXPECT_FALSE(parse_datatype("int16"));
  EXPECT_FALSE(parse_reduce_op("maxloc"));
  EXPECT_EQ(reduction_error({Datatype::float32, ReduceOp::band}), "band applies to integer and byte types, not float");
  EXPECT_EQ(reduction_error({Datatype::byte, ReduceOp::sum}),
            "sum does not apply to byte (MPI allows only band, bor, bxor on it)");
  EXPECT_EQ(reduction_error({Datatype::float64, ReduceOp::lor}), "lor applies to integer types, not double");
  EXPECT_EQ(reduction_error({Datatype::int32, ReduceOp::affine}).rfind("affine applies to int64 only", 0), 0u);
  EXPECT_EQ(reduction_error({Datatype::float64, ReduceOp::sum}), "");
  EXPECT_EQ(reduction_error({Datatype::byte, ReduceOp::bor}), "");
}

// What the operation must leave, computed here from MPI's definition of each operation on the
// ranks' inputs; reductions in rank order, x_0 (+) (x_1 (+) (... (+) x_{p-1})).
void reference_call(Operation op, std::vector<RankData>& ranks, const CallShape& shape) {
  const int p = shape.size;
  const std::size_t m = shape.bytes;
  auto data = [&](int r) { return ranks[static_cast<std::size_t>(r)].buffers().data; };
  auto result = [&](int r) { return ranks[static_cast<std::size_t>(r)].buffers().result; };
  auto reduced = [&](std::size_t first, std::size_t n) {
    std::vector<std::byte> acc(n);
    copy_bytes(view(acc), data(p - 1).slice(first, n));
    for (int r = p - 2; r >= 0; --r) apply(shape.reduction, data(r).slice(first, n), view(acc));
    return acc;
  };
  for (int r = 0; r < p; ++r) {
    const auto ur = static_cast<std::size_t>(r);
    switch (op) {
      case Operation::bcast: copy_bytes(data(r), data(shape.root)); break;
      case Operation::gather:
        if (r == shape.root)
          for (int s = 0; s < p; ++s) copy_bytes(result(r).slice(static_cast<std::size_t>(s) * m, m), data(s));
        break;
      case Operation::scatter: copy_bytes(result(r), data(shape.root).slice(ur * m, m)); break;
      case Operation::allgather:
        for (int s = 0; s < p; ++s) copy_bytes(result(r).slice(static_cast<std::size_t>(s) * m, m), data(s));
        break;
      case Operation::alltoall:
        for (int s = 0; s < p; ++s)
          copy_bytes(result(r).slice(static_cast<std::size_t>(s) * m, m), data(s).slice(ur * m, m));
        break;
      case Operation::barrier: break;
      case Operation::reduce:
        if (r == shape.root) {
          std::vector<std::byte> v = reduced(0, m);
          copy_bytes(result(r), view(v));
        }
        break;
      case Operation::allreduce: {
        std::vector<std::byte> v = reduced(0, m);
        copy_bytes(result(r), view(v));
        break;
      }
      case Operation::reduce_scatter: {
        std::vector<std::byte> v = reduced(ur * m, m);
        copy_bytes(result(r), view(v));
        break;
      }
    }
  }
}

struct Case {
  Operation op;
  Reduction reduction;
};

TEST(Operation, ReferenceResultsPassAndAnyChangedByteFails) {
  const std::vector<Case> cases = {
      {Operation::bcast, {}},
      {Operation::gather, {}},
      {Operation::scatter, {}},
      {Operation::allgather, {}},
      {Operation::alltoall, {}},
      {Operation::barrier, {}},
      {Operation::reduce, {Datatype::int32, ReduceOp::sum}},
      {Operation::reduce, {Datatype::float64, ReduceOp::prod}},
      {Operation::allreduce, {Datatype::float32, ReduceOp::sum}},
      {Operation::allreduce, {Datatype::int64, ReduceOp::affine}},
      {Operation::allreduce, {Datatype::int32, ReduceOp::land}},
      {Operation::allreduce, {Datatype::byte, ReduceOp::bxor}},
      {Operation::reduce_scatter, {Datatype::float64, ReduceOp::max}},
      {Operation::reduce_scatter, {Datatype::int32, ReduceOp::bor}},
  };
  for (const Case& c : cases)
    for (int p : {1, 3, 4})
      for (int root : {0, p - 1}) {
        const OperationInfo& info = operation_info(c.op);
        const std::size_t m = info.moves_data ? 40 : 0;
        ASSERT_EQ(call_error(info, m, c.reduction), "");
        const std::string what = std::string(info.name) + " p=" + std::to_string(p) + " root=" + std::to_string(root) +
                                 " " + std::string(to_string(c.reduction.type)) + " " +
                                 std::string(to_string(c.reduction.op));
        std::vector<RankData> ranks;
        for (int r = 0; r < p; ++r) ranks.emplace_back(c.op, CallShape{r, p, root, m, c.reduction}, true);
        reference_call(c.op, ranks, CallShape{0, p, root, m, c.reduction});
        for (int r = 0; r < p; ++r) EXPECT_EQ(ranks[static_cast<std::size_t>(r)].check(), "") << what << " rank " << r;
        // One byte of one rank's output changed (a logical result's low byte may change and stay
        // true, so change the last byte, a sign or high-order byte, instead of the first).
        for (int r = 0; r < p; ++r) {
          RankData& d = ranks[static_cast<std::size_t>(r)];
          Buffer out = d.buffers().result.size() > 0 ? d.buffers().result : d.buffers().data;
          if (out.size() == 0 || (c.op == Operation::bcast && r == root)) continue;
          out.data()[out.size() - 1] ^= std::byte{0x40};
          EXPECT_NE(d.check(), "") << what << " rank " << r << ": a changed byte passed";
          out.data()[out.size() - 1] ^= std::byte{0x40};
        }
      }
}

// Floating-point sums in another grouping (a tree, as most algorithms do) are within the bound;
// a sum that counts one rank twice is not.
TEST(Operation, FloatSumsInAnyOrderPassAndWrongOnesFail) {
  const Reduction r{Datatype::float32, ReduceOp::sum};
  const int p = 13;
  const std::size_t n = 64, m = n * sizeof(float);
  std::vector<std::vector<std::byte>> x(p, std::vector<std::byte>(m));
  for (int k = 0; k < p; ++k) fill_elements(x[static_cast<std::size_t>(k)], r, k, 0);
  // Pairwise: (x0 + x1) + (x2 + x3) + ...
  std::vector<std::vector<std::byte>> level = x;
  while (level.size() > 1) {
    std::vector<std::vector<std::byte>> next;
    for (std::size_t k = 0; k + 1 < level.size(); k += 2) {
      apply(r, view(level[k]), view(level[k + 1]));
      next.push_back(level[k + 1]);
    }
    if (level.size() % 2) next.push_back(level.back());
    level = next;
  }
  EXPECT_EQ(check_reduced(level[0], r, p, 0, 0, "sum"), "");
  apply(r, view(x[5]), view(level[0]));  // rank 5 twice
  EXPECT_EQ(check_reduced(level[0], r, p, 0, 0, "sum").rfind("rank 0: element 0 of the sum is ", 0), 0u);
}

TEST(Operation, CallErrors) {
  EXPECT_EQ(call_error(operation_info(Operation::allreduce), 6, {Datatype::int32, ReduceOp::sum}),
            "6 bytes are not a whole number of int32 elements");
  EXPECT_EQ(call_error(operation_info(Operation::barrier), 8, {}), "barrier moves no data: its size must be 0");
  EXPECT_EQ(call_error(operation_info(Operation::bcast), 7, {Datatype::float32, ReduceOp::band}), "");
  EXPECT_EQ(call_error(operation_info(Operation::reduce), 8, {Datatype::float32, ReduceOp::band}),
            "band applies to integer and byte types, not float");
  EXPECT_EQ(find_operation("reduce_scatter")->mpi_name, "MPI_Reduce_scatter");
  EXPECT_EQ(find_operation("scan"), nullptr);
}

}  // namespace
}  // namespace collsim
