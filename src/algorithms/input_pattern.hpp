// The inputs of collective calls and the comparisons that check their results.
//
// Byte-moving operations carry a pattern that differs by rank and by position with no period (a
// hash of rank and offset); result buffers start filled with its complement, so a byte never
// written, a segment or block swapped, duplicated or shifted, or one taken from the wrong rank, is
// caught. Reducing operations carry typed values from the same hash, chosen so that a wrong
// operand or a lost contribution changes the result: integers use the whole word (odd for prod,
// so products never become 0), floats have a full mantissa in [-1, 1) times 1, 2, 4 or 8 (prod:
// [0.5, 2)), logical operators see about a quarter of zeros. The scale makes a sum round at nearly
// every addition, so that its bits show the grouping of the operands (with values in [-1, 1)
// alone, sums of up to three operands are exact whatever the grouping). Integer results are checked exactly.
// Floating-point sums and products are checked against the exact result (long double, rank order) within the bound of
// any order of evaluation: |got - exact| <= gamma(p-1) * sum |x_i| for sums, gamma(p-1) * |exact| for
// products, gamma(k) = k*u / (1 - k*u), u the unit roundoff of the type. min and max are exact.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "comm/buffer.hpp"
#include "comm/reduction.hpp"

namespace collsim {

// The byte that rank `rank` contributes at position `i`: byte i % 8 of a 64-bit hash of
// (rank, i / 8). No 8-byte word repeats within a rank's pattern, and ranks' patterns are unrelated.
std::byte pattern_byte(int rank, std::size_t i);

// Writes `stream`'s pattern bytes [first, first + out.size()), complemented if asked.
void fill_pattern(std::span<std::byte> out, int stream, std::size_t first, bool complement);

// "" when `got` holds stream's pattern bytes [first, first + got.size()); else the first
// difference: "rank R: byte B of the WHAT is 0x.., expected 0x..", B counted from `base`.
std::string compare_pattern(std::span<const std::byte> got, int stream, std::size_t first, int rank, const char* what,
                            std::size_t base);

// Rank `rank`'s elements [first, first + n) of a reduction input, n = out.size() / size of the type.
void fill_elements(std::span<std::byte> out, Reduction r, int rank, std::size_t first);

// Bytes a correct reduction result does not hold in practice: all ones (NaN in floating point,
// -1 in integers, which random inputs almost never reduce to in every element).
void fill_poison(std::span<std::byte> out);

// "" when `got` holds elements [first, first + n) of the reduction of ranks 0..size-1's inputs,
// x_0 (+) x_1 (+) ... (+) x_{size-1} (within the bound above for floats); else the first element
// that does not: "rank R: element E of the WHAT is V, expected W (bound B)".
std::string check_reduced(std::span<const std::byte> got, Reduction r, int size, std::size_t first, int rank,
                          const char* what);

}  // namespace collsim
