#include "algorithms/input_pattern.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

namespace collsim {

namespace {

// The 8 pattern bytes of word `word` (bytes 8*word .. 8*word+7) of rank `rank`: the SplitMix64
// finaliser, a bijection on 64 bits, applied to a different starting point per rank. Distinct
// words of one rank never repeat (no period below 2^64 words), and two ranks' streams share no
// alignment, so a block or segment of any size moved to the wrong place, or taken from the wrong
// rank, differs from the expected bytes.
std::uint64_t pattern_word(int rank, std::size_t word) {
  std::uint64_t x = static_cast<std::uint64_t>(word) + 0x9e3779b97f4a7c15ull * (static_cast<std::uint64_t>(rank) + 1);
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Calls f(k, pattern_byte(rank, first + k)) for k = 0..n-1 until f returns false; one hash per
// 8 bytes (the buffers checked are up to gigabytes in large runs).
template <class F>
void for_each_pattern_byte(int rank, std::size_t first, std::size_t n, F&& f) {
  std::size_t i = first;
  const std::size_t end = first + n;
  while (i < end) {
    const std::uint64_t w = pattern_word(rank, i >> 3);
    for (unsigned b = static_cast<unsigned>(i & 7); b < 8 && i < end; ++b, ++i)
      if (!f(i - first, static_cast<std::byte>((w >> (8 * b)) & 0xffu))) return;
  }
}

// Element `index` of rank's reduction input. Reduction inputs use the hash of stream -1 - rank,
// unrelated to the byte patterns.
template <class T>
T element(ReduceOp op, int rank, std::size_t index) {
  const std::uint64_t w = pattern_word(-1 - rank, index);
  if (op == ReduceOp::land || op == ReduceOp::lor || op == ReduceOp::lxor)
    return static_cast<T>((w & 3) == 0 ? 0 : (w >> 2) & 0xff);
  if constexpr (std::is_floating_point_v<T>) {
    // Scaling by powers of two is exact, and multiplying is many times faster than ldexp (the
    // suite fills and checks gigabytes of elements).
    constexpr int kBits = std::numeric_limits<T>::digits;
    constexpr double kUnit = 1.0 / static_cast<double>(std::uint64_t{1} << kBits);
    const T u = static_cast<T>(static_cast<double>(w >> (64 - kBits)) * kUnit);  // [0, 1), exact
    // The scale comes from the word's low bits, which u does not use.
    return op == ReduceOp::prod ? static_cast<T>(0.5 + 1.5 * u)
                                : static_cast<T>((2 * u - 1) * static_cast<T>(1u << (w & 3)));
  } else {
    return static_cast<T>(op == ReduceOp::prod ? (w | 1) : w);
  }
}

template <class T>
void fill_typed(std::span<std::byte> out, ReduceOp op, int rank, std::size_t first) {
  for (std::size_t k = 0; k < out.size() / sizeof(T); ++k) {
    const T v = element<T>(op, rank, first + k);
    std::memcpy(out.data() + k * sizeof(T), &v, sizeof(T));
  }
}

template <class F>
void for_type(Datatype type, F&& f) {
  switch (type) {
    case Datatype::byte: f(std::uint8_t{}); break;
    case Datatype::int32: f(std::int32_t{}); break;
    case Datatype::int64: f(std::int64_t{}); break;
    case Datatype::float32: f(float{}); break;
    case Datatype::float64: f(double{}); break;
  }
}

// The reduction of all ranks' elements [0, n), in rank order, and per element the bound the
// result must be within (0: exact). Kept for the next check of the same call: every rank of an
// allreduce checks the same vector, and each rank of a reduce_scatter a block of it.
struct Reference {
  Reduction r{};
  int size = -1;
  std::size_t n = 0;
  std::vector<std::byte> value;  // the elements, in the type
  std::vector<double> bound;     // empty when exact
};

// A floating-point sum or product: the true result, rounded, and the bound on any order of
// evaluation (Higham's gamma_{p-1} times the sum of magnitudes, or the product's magnitude, plus
// the rounding of the true result itself), accumulated in `Exact`.
template <class T, class Exact>
void compute_bounded(Reference& ref) {
  const ReduceOp op = ref.r.op;
  const std::size_t n = ref.n;
  constexpr double u = std::numeric_limits<T>::epsilon() / 2;
  const double k = ref.size - 1, gamma = k * u / (1 - k * u);
  std::vector<Exact> exact(n, op == ReduceOp::sum ? Exact{0} : Exact{1}), magnitude(n, Exact{0});
  for (int r = 0; r < ref.size; ++r)
    for (std::size_t i = 0; i < n; ++i) {
      const Exact x = element<T>(op, r, i);
      if (op == ReduceOp::sum) {
        exact[i] += x;
        magnitude[i] += std::fabs(x);
      } else {
        exact[i] *= x;
      }
    }
  ref.bound.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const T v = static_cast<T>(exact[i]);
    std::memcpy(ref.value.data() + i * sizeof(T), &v, sizeof(T));
    ref.bound[i] = gamma * static_cast<double>(op == ReduceOp::sum ? magnitude[i] : std::fabs(exact[i])) +
                   static_cast<double>(std::fabs(exact[i] - static_cast<Exact>(v)));
  }
}

// The exact operators, from their definitions over the set of the ranks' elements rather than
// from apply(), the pairwise arithmetic the checks are there to test: the least and the greatest
// element, whether all, any or an odd number of them are non-zero, the bitwise fold, the wrapped
// integer sum or product (computed in 64 bits and truncated, which commutes with the wrap), and
// for affine the composed map x -> f_0(f_1(...f_{p-1}(x))) read off its values at 0 and 1. One
// rank's element is its own reduction, as MPI leaves it (a logical operator's 121 stays 121).
template <class T>
void compute_exact(Reference& ref) {
  const ReduceOp op = ref.r.op;
  const std::size_t n = ref.n;
  const int p = ref.size;
  auto store = [&](std::size_t i, auto v) {
    const T x = static_cast<T>(v);
    std::memcpy(ref.value.data() + i * sizeof(T), &x, sizeof(T));
  };
  for (std::size_t i = 0; i < n; ++i) {
    if (p == 1) {  // nothing to combine: the element as it is (a logical operator's too)
      store(i, element<T>(op, 0, i));
      continue;
    }
    if (op == ReduceOp::min || op == ReduceOp::max) {
      T best = element<T>(op, 0, i);
      for (int r = 1; r < p; ++r) {
        const T x = element<T>(op, r, i);
        best = op == ReduceOp::min ? std::min(best, x) : std::max(best, x);
      }
      store(i, best);
      continue;
    }
    if constexpr (std::is_integral_v<T>) {
      int nonzero = 0;
      std::uint64_t sum = 0, prod = 1, all_ones = ~std::uint64_t{0}, any_bit = 0, parity = 0;
      std::uint32_t at0 = 0, at1 = 1;  // the composed affine map at 0 and at 1
      for (int r = p - 1; r >= 0; --r) {
        const T x = element<T>(op, r, i);
        const auto bits = static_cast<std::uint64_t>(static_cast<std::make_unsigned_t<T>>(x));
        nonzero += x != 0;
        sum += bits;
        prod *= bits;
        all_ones &= bits;
        any_bit |= bits;
        parity ^= bits;
        const auto slope = static_cast<std::uint32_t>(bits), offset = static_cast<std::uint32_t>(bits >> 32);
        at0 = slope * at0 + offset;
        at1 = slope * at1 + offset;
      }
      switch (op) {
        case ReduceOp::sum: store(i, sum); break;
        case ReduceOp::prod: store(i, prod); break;
        case ReduceOp::land: store(i, nonzero == p ? 1 : 0); break;
        case ReduceOp::lor: store(i, nonzero > 0 ? 1 : 0); break;
        case ReduceOp::lxor: store(i, nonzero % 2); break;
        case ReduceOp::band: store(i, all_ones); break;
        case ReduceOp::bor: store(i, any_bit); break;
        case ReduceOp::bxor: store(i, parity); break;
        case ReduceOp::affine:
          store(i, static_cast<std::uint64_t>(static_cast<std::uint32_t>(at1 - at0)) |
                       (static_cast<std::uint64_t>(at0) << 32));
          break;
        default: break;  // min and max above
      }
    }
  }
}

template <class T>
void compute(Reference& ref) {
  const ReduceOp op = ref.r.op;
  ref.value.assign(ref.n * sizeof(T), std::byte{});
  ref.bound.clear();
  if constexpr (std::is_floating_point_v<T>) {
    // Float sums are exact in double, many times faster than x87's long double: every float
    // element is a multiple of 2^-23 below 8 in magnitude (see element()), so up to 2^27 ranks'
    // sum fits in 53 bits. Double elements (multiples of 2^-52) and products take long double.
    if (op == ReduceOp::sum && std::is_same_v<T, float>) return compute_bounded<T, double>(ref);
    if (op == ReduceOp::sum || op == ReduceOp::prod) return compute_bounded<T, long double>(ref);
  }
  compute_exact<T>(ref);
}

const Reference& reference(Reduction r, int size, std::size_t n) {
  thread_local Reference ref;
  const bool same = ref.r.type == r.type && ref.r.op == r.op && ref.size == size;
  if (!same || ref.n < n) {
    ref.r = r;
    ref.size = size;
    // The ranks of a reduce_scatter check blocks further and further into one vector: growing by
    // at least half keeps that from recomputing the vector once per rank.
    ref.n = same ? std::max(n, ref.n + ref.n / 2) : n;
    for_type(r.type, [&](auto t) { compute<decltype(t)>(ref); });
  }
  return ref;
}

template <class T>
std::string text_of(T v) {
  char s[64];
  if constexpr (std::is_floating_point_v<T>)
    std::snprintf(s, sizeof s, "%.17g", static_cast<double>(v));
  else if constexpr (std::is_signed_v<T>)
    std::snprintf(s, sizeof s, "%lld", static_cast<long long>(v));
  else
    std::snprintf(s, sizeof s, "%llu", static_cast<unsigned long long>(v));
  return s;
}

}  // namespace

std::byte pattern_byte(int rank, std::size_t i) {
  return static_cast<std::byte>((pattern_word(rank, i >> 3) >> (8 * (i & 7))) & 0xffu);
}

void fill_pattern(std::span<std::byte> out, int stream, std::size_t first, bool complement) {
  const std::byte flip = complement ? std::byte{0xff} : std::byte{0};
  for_each_pattern_byte(stream, first, out.size(), [&](std::size_t k, std::byte b) {
    out[k] = b ^ flip;
    return true;
  });
}

std::string compare_pattern(std::span<const std::byte> got, int stream, std::size_t first, int rank, const char* what,
                            std::size_t base) {
  std::string error;
  for_each_pattern_byte(stream, first, got.size(), [&](std::size_t k, std::byte want) {
    if (got[k] == want) return true;
    char line[160];
    std::snprintf(line, sizeof line, "rank %d: byte %zu of the %s is 0x%02x, expected 0x%02x", rank, base + k, what,
                  static_cast<unsigned>(got[k]), static_cast<unsigned>(want));
    error = line;
    return false;
  });
  return error;
}

void fill_elements(std::span<std::byte> out, Reduction r, int rank, std::size_t first) {
  for_type(r.type, [&](auto t) { fill_typed<decltype(t)>(out, r.op, rank, first); });
}

void fill_poison(std::span<std::byte> out) {
  if (!out.empty()) std::memset(out.data(), 0xff, out.size());
}

std::string check_reduced(std::span<const std::byte> got, Reduction r, int size, std::size_t first, int rank,
                          const char* what) {
  const std::size_t width = size_of(r.type), n = got.size() / width;
  const Reference& ref = reference(r, size, first + n);
  std::string error;
  for_type(r.type, [&](auto t) {
    using T = decltype(t);
    for (std::size_t k = 0; k < n && error.empty(); ++k) {
      T g, want;
      std::memcpy(&g, got.data() + k * width, width);
      std::memcpy(&want, ref.value.data() + (first + k) * width, width);
      const double bound = ref.bound.empty() ? 0 : ref.bound[first + k];
      bool ok;
      if constexpr (std::is_floating_point_v<T>)
        ok = ref.bound.empty() ? std::memcmp(&g, &want, width) == 0 : std::fabs(static_cast<double>(g) - want) <= bound;
      else
        ok = g == want;
      if (ok) continue;
      error = "rank " + std::to_string(rank) + ": element " + std::to_string(first + k) + " of the " + what + " is " +
              text_of(g) + ", expected " + text_of(want);
      if (bound > 0) error += " (within " + text_of(bound) + ")";
    }
  });
  return error;
}

}  // namespace collsim
