// The operation descriptors (operation.hpp) and the reduction arithmetic (comm/reduction.hpp):
// every operation's buffers, filled for every rank and combined by a reference implementation of
// its MPI semantics written here, pass the descriptor's check; any changed byte fails it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <span>
#include <string>
#include <type_traits>
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

// What `in (+) inout` must be for one pair of elements, from the operator's definition, written
// apart from apply(): plain C++ on the scalars, integers wrapped through their unsigned type.
template <class T>
T expected_pair(ReduceOp op, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    const U ua = static_cast<U>(a), ub = static_cast<U>(b);
    switch (op) {
      case ReduceOp::sum: return static_cast<T>(static_cast<U>(ua + ub));
      case ReduceOp::prod: return static_cast<T>(static_cast<U>(ua * ub));
      case ReduceOp::min: return a <= b ? a : b;
      case ReduceOp::max: return a >= b ? a : b;
      case ReduceOp::land: return (a != 0 && b != 0) ? 1 : 0;
      case ReduceOp::lor: return (a != 0 || b != 0) ? 1 : 0;
      case ReduceOp::lxor: return ((a != 0) + (b != 0)) == 1 ? 1 : 0;
      case ReduceOp::band: return static_cast<T>(ua & ub);
      case ReduceOp::bor: return static_cast<T>(ua | ub);
      case ReduceOp::bxor: return static_cast<T>(ua ^ ub);
      case ReduceOp::affine:
        if constexpr (sizeof(T) == 8) {
          // a after b, as maps x -> slope*x + offset: a(b(x)) = sa*(sb*x + ob) + oa.
          const std::uint64_t sa = ua & 0xffffffffu, oa = ua >> 32, sb = ub & 0xffffffffu, ob = ub >> 32;
          return static_cast<T>(((sa * sb) & 0xffffffffu) | (((sa * ob + oa) & 0xffffffffu) << 32));
        }
        break;
    }
  } else {
    switch (op) {
      case ReduceOp::sum: return a + b;
      case ReduceOp::prod: return a * b;
      case ReduceOp::min: return a <= b ? a : b;
      case ReduceOp::max: return a >= b ? a : b;
      default: break;
    }
  }
  ADD_FAILURE() << "no definition of " << to_string(op) << " here";
  return T{};
}

// Random elements of T, a quarter of them zero (for the logical operators), others of every size.
template <class T>
std::vector<T> random_elements(std::mt19937_64& rng, std::size_t n) {
  std::vector<T> v(n);
  for (T& x : v) {
    const std::uint64_t w = rng();
    if ((w & 3) == 0) {
      x = T{};
    } else if constexpr (std::is_floating_point_v<T>) {
      x = static_cast<T>(
          std::ldexp(static_cast<double>(w >> 11) / 9007199254740992.0 - 0.5, static_cast<int>(w % 20) - 10));
    } else {
      x = static_cast<T>(w >> (w % 3 == 0 ? 56 : 0));
    }
  }
  return v;
}

template <class T>
void expect_every_operator(Datatype type) {
  std::mt19937_64 rng(static_cast<std::uint64_t>(type) + 1);
  constexpr std::size_t n = 257;
  for (int o = 0; o <= static_cast<int>(ReduceOp::affine); ++o) {
    const Reduction r{type, static_cast<ReduceOp>(o)};
    if (!reduction_error(r).empty()) continue;
    const std::vector<T> a = random_elements<T>(rng, n), b = random_elements<T>(rng, n);
    std::vector<std::byte> in(n * sizeof(T)), inout(n * sizeof(T));
    std::memcpy(in.data(), a.data(), in.size());
    std::memcpy(inout.data(), b.data(), inout.size());
    apply(r, view(in), view(inout));
    int wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const T want = expected_pair(r.op, a[i], b[i]), got = element<T>(inout, i);
      if (std::memcmp(&got, &want, sizeof(T)) != 0 && ++wrong <= 3)
        ADD_FAILURE() << to_string(type) << " " << to_string(r.op) << ": element " << i << " is " << +got
                      << ", expected " << +want << " (in " << +a[i] << ", inout " << +b[i] << ")";
    }
    EXPECT_EQ(wrong, 0) << to_string(type) << " " << to_string(r.op);
  }
}

// Every datatype with every operator MPI allows on it, checked element by element against
// expected_pair; the checks of the operations' results (check_reduced) are computed apart from
// apply() too, so a wrong operator fails here and in every engine's data check.
TEST(Reduction, EveryDatatypeAndOperatorAgainstPlainScalarCode) {
  expect_every_operator<std::uint8_t>(Datatype::byte);
  expect_every_operator<std::int32_t>(Datatype::int32);
  expect_every_operator<std::int64_t>(Datatype::int64);
  expect_every_operator<float>(Datatype::float32);
  expect_every_operator<double>(Datatype::float64);
}

// The descriptor's check of a reduction against plain code over the ranks' inputs: a reduce
// whose result is the right one for another operator fails (max checked as min, lor as land).
TEST(Reduction, ChecksTellOneOperatorFromAnother) {
  const int p = 5;
  constexpr std::size_t n = 64;
  auto inputs = [&](Reduction r) {
    std::vector<std::vector<std::byte>> x(p, std::vector<std::byte>(n * size_of(r.type)));
    for (int k = 0; k < p; ++k) fill_elements(x[static_cast<std::size_t>(k)], r, k, 0);
    return x;
  };
  // float max and min, by plain loops over the ranks.
  const Reduction fmax{Datatype::float32, ReduceOp::max};
  const auto xf = inputs(fmax);
  std::vector<std::byte> hi(n * 4), lo(n * 4);
  for (std::size_t i = 0; i < n; ++i) {
    float h = element<float>(xf[0], i), l = h;
    for (int k = 1; k < p; ++k) {
      const float v = element<float>(xf[static_cast<std::size_t>(k)], i);
      if (v > h) h = v;
      if (v < l) l = v;
    }
    std::memcpy(hi.data() + i * 4, &h, 4);
    std::memcpy(lo.data() + i * 4, &l, 4);
  }
  EXPECT_EQ(check_reduced(hi, fmax, p, 0, 0, "vector"), "");
  EXPECT_NE(check_reduced(lo, fmax, p, 0, 0, "vector"), "");
  // int32 lor and land.
  const Reduction lor{Datatype::int32, ReduceOp::lor};
  const auto xi = inputs(lor);
  std::vector<std::byte> any(n * 4), all(n * 4);
  int differ = 0;
  for (std::size_t i = 0; i < n; ++i) {
    bool some = false, every = true;
    for (int k = 0; k < p; ++k) {
      const bool v = element<std::int32_t>(xi[static_cast<std::size_t>(k)], i) != 0;
      some = some || v;
      every = every && v;
    }
    const std::int32_t s = some, e = every;
    differ += s != e;
    std::memcpy(any.data() + i * 4, &s, 4);
    std::memcpy(all.data() + i * 4, &e, 4);
  }
  ASSERT_GT(differ, 0) << "the inputs do not tell lor from land";
  EXPECT_EQ(check_reduced(any, lor, p, 0, 0, "vector"), "");
  EXPECT_NE(check_reduced(all, lor, p, 0, 0, "vector"), "");
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

// inout[i] = in[i] (+) inout[i] by expected_pair, not by apply().
void combine_by_definition(Reduction r, Buffer in, std::vector<std::byte>& inout) {
  auto each = [&](auto zero) {
    using T = decltype(zero);
    for (std::size_t i = 0; i < inout.size() / sizeof(T); ++i) {
      T a, b;
      std::memcpy(&a, in.data() + i * sizeof(T), sizeof(T));
      std::memcpy(&b, inout.data() + i * sizeof(T), sizeof(T));
      const T c = expected_pair(r.op, a, b);
      std::memcpy(inout.data() + i * sizeof(T), &c, sizeof(T));
    }
  };
  switch (r.type) {
    case Datatype::byte: return each(std::uint8_t{});
    case Datatype::int32: return each(std::int32_t{});
    case Datatype::int64: return each(std::int64_t{});
    case Datatype::float32: return each(float{});
    case Datatype::float64: return each(double{});
  }
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
    for (int r = p - 2; r >= 0; --r) combine_by_definition(shape.reduction, data(r).slice(first, n), acc);
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
      {Operation::reduce, {Datatype::float32, ReduceOp::max}},
      {Operation::allreduce, {Datatype::int32, ReduceOp::lor}},
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
