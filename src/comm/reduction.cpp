#include "comm/reduction.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <type_traits>

namespace collsim {

namespace {

constexpr std::array<std::string_view, 5> kTypeNames{"byte", "int32", "int64", "float", "double"};
constexpr std::array<std::string_view, 11> kOpNames{"sum",  "prod", "min", "max",  "land",  "lor",
                                                    "lxor", "band", "bor", "bxor", "affine"};

template <class T>
std::string joined(const T& names) {
  std::string s;
  for (std::string_view n : names) s += (s.empty() ? "" : ", ") + std::string(n);
  return s;
}

// Signed integers are combined in their unsigned type, so that overflow wraps instead of being
// undefined.
template <class T, bool = std::is_integral_v<T>>
struct ArithOf {
  using type = T;
};
template <class T>
struct ArithOf<T, true> {
  using type = std::make_unsigned_t<T>;
};
template <class T>
using Arith = typename ArithOf<T>::type;

// One operator on one pair of elements, the operator fixed at compile time so that the loop
// below has no branch per element and vectorises (a switch per element cost ours twice Open MPI's
// time for a double sum of 512 KiB).
template <ReduceOp Op, class T>
T combine(T a, T b) {
  using U = Arith<T>;
  const U ua = static_cast<U>(a), ub = static_cast<U>(b);
  if constexpr (Op == ReduceOp::sum) return static_cast<T>(ua + ub);
  if constexpr (Op == ReduceOp::prod) return static_cast<T>(ua * ub);
  if constexpr (Op == ReduceOp::min) return b < a ? b : a;
  if constexpr (Op == ReduceOp::max) return a < b ? b : a;
  if constexpr (Op == ReduceOp::land) return static_cast<T>((a != T{}) && (b != T{}));
  if constexpr (Op == ReduceOp::lor) return static_cast<T>((a != T{}) || (b != T{}));
  if constexpr (Op == ReduceOp::lxor) return static_cast<T>((a != T{}) != (b != T{}));
  if constexpr (std::is_integral_v<T>) {
    if constexpr (Op == ReduceOp::band) return static_cast<T>(ua & ub);
    if constexpr (Op == ReduceOp::bor) return static_cast<T>(ua | ub);
    if constexpr (Op == ReduceOp::bxor) return static_cast<T>(ua ^ ub);
    if constexpr (Op == ReduceOp::affine && sizeof(T) == 8) {
      // a = (a1, b1) after g = (a2, b2): x -> a1*(a2*x + b2) + b1, modulo 2^32.
      const auto a1 = static_cast<std::uint32_t>(ua), b1 = static_cast<std::uint32_t>(ua >> 32);
      const auto a2 = static_cast<std::uint32_t>(ub), b2 = static_cast<std::uint32_t>(ub >> 32);
      const std::uint32_t slope = a1 * a2, offset = a1 * b2 + b1;
      return static_cast<T>(static_cast<std::uint64_t>(slope) | (static_cast<std::uint64_t>(offset) << 32));
    }
  }
  return b;  // reduction_error() rules the rest out before any call
}

template <ReduceOp Op, class T>
void apply_each(const std::byte* in, std::byte* inout, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    T a, b;
    std::memcpy(&a, in + i * sizeof(T), sizeof(T));  // buffers need not be aligned
    std::memcpy(&b, inout + i * sizeof(T), sizeof(T));
    const T r = combine<Op>(a, b);
    std::memcpy(inout + i * sizeof(T), &r, sizeof(T));
  }
}

template <class T>
void apply_typed(ReduceOp op, const std::byte* in, std::byte* inout, std::size_t n) {
  switch (op) {
    case ReduceOp::sum: return apply_each<ReduceOp::sum, T>(in, inout, n);
    case ReduceOp::prod: return apply_each<ReduceOp::prod, T>(in, inout, n);
    case ReduceOp::min: return apply_each<ReduceOp::min, T>(in, inout, n);
    case ReduceOp::max: return apply_each<ReduceOp::max, T>(in, inout, n);
    case ReduceOp::land: return apply_each<ReduceOp::land, T>(in, inout, n);
    case ReduceOp::lor: return apply_each<ReduceOp::lor, T>(in, inout, n);
    case ReduceOp::lxor: return apply_each<ReduceOp::lxor, T>(in, inout, n);
    case ReduceOp::band: return apply_each<ReduceOp::band, T>(in, inout, n);
    case ReduceOp::bor: return apply_each<ReduceOp::bor, T>(in, inout, n);
    case ReduceOp::bxor: return apply_each<ReduceOp::bxor, T>(in, inout, n);
    case ReduceOp::affine: return apply_each<ReduceOp::affine, T>(in, inout, n);
  }
}

}  // namespace

std::string_view to_string(Datatype type) { return kTypeNames[static_cast<std::size_t>(type)]; }
std::string_view to_string(ReduceOp op) { return kOpNames[static_cast<std::size_t>(op)]; }

std::optional<Datatype> parse_datatype(std::string_view name) {
  for (std::size_t i = 0; i < kTypeNames.size(); ++i)
    if (kTypeNames[i] == name) return static_cast<Datatype>(i);
  return std::nullopt;
}

std::optional<ReduceOp> parse_reduce_op(std::string_view name) {
  for (std::size_t i = 0; i < kOpNames.size(); ++i)
    if (kOpNames[i] == name) return static_cast<ReduceOp>(i);
  return std::nullopt;
}

std::string datatype_names() { return joined(kTypeNames); }
std::string reduce_op_names() { return joined(kOpNames); }

std::size_t size_of(Datatype type) {
  switch (type) {
    case Datatype::byte: return 1;
    case Datatype::int32:
    case Datatype::float32: return 4;
    case Datatype::int64:
    case Datatype::float64: return 8;
  }
  return 1;
}

bool is_floating(Datatype type) { return type == Datatype::float32 || type == Datatype::float64; }

bool is_commutative(ReduceOp op) { return op != ReduceOp::affine; }

std::string reduction_error(Reduction r) {
  const std::string op(to_string(r.op)), type(to_string(r.type));
  switch (r.op) {
    case ReduceOp::band:
    case ReduceOp::bor:
    case ReduceOp::bxor:
      if (is_floating(r.type)) return op + " applies to integer and byte types, not " + type;
      return {};
    case ReduceOp::land:
    case ReduceOp::lor:
    case ReduceOp::lxor:
      if (r.type == Datatype::byte || is_floating(r.type)) return op + " applies to integer types, not " + type;
      return {};
    case ReduceOp::affine:
      if (r.type != Datatype::int64)
        return "affine applies to int64 only (a map x -> a*x + b per element), not " + type;
      return {};
    default:
      if (r.type == Datatype::byte) return op + " does not apply to byte (MPI allows only band, bor, bxor on it)";
      return {};
  }
}

void apply(Reduction r, Buffer in, Buffer inout) {
  if (in.is_virtual() || inout.is_virtual()) return;
  const std::size_t n = inout.size() / size_of(r.type);
  switch (r.type) {
    case Datatype::byte: apply_typed<std::uint8_t>(r.op, in.data(), inout.data(), n); break;
    case Datatype::int32: apply_typed<std::int32_t>(r.op, in.data(), inout.data(), n); break;
    case Datatype::int64: apply_typed<std::int64_t>(r.op, in.data(), inout.data(), n); break;
    case Datatype::float32: apply_typed<float>(r.op, in.data(), inout.data(), n); break;
    case Datatype::float64: apply_typed<double>(r.op, in.data(), inout.data(), n); break;
  }
}

}  // namespace collsim
