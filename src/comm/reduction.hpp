// The element types and reduction operators of a collective call, and the local reduction itself.
//
// A reducing collective (reduce, allreduce, reduce_scatter) combines vectors of typed elements;
// the messaging layer's costed `Comm::reduce_local` calls apply() on real bytes. The operations'
// expected results are computed apart from it (algorithms/input_pattern.cpp), so that a wrong
// operator cannot pass its own check. Operands follow Open MPI's
// (and MPI_Reduce_local's) order: `inout = in (+) inout`, `in` being the left operand, which only
// matters for bit-exact floating point and for non-commutative operators.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "comm/buffer.hpp"

namespace collsim {

// MPI_BYTE, MPI_INT32_T, MPI_INT64_T, MPI_FLOAT, MPI_DOUBLE.
enum class Datatype : std::uint8_t { byte, int32, int64, float32, float64 };

// The predefined MPI operators (but MINLOC/MAXLOC), and `affine`: a non-commutative, associative
// operator for tests. An int64 element holds a map x -> a*x + b over 32-bit integers modulo 2^32
// (a in its low half, b in its high half); `f (+) g` is the composition f(g(x)), so a reduction
// in any other order of ranks gives another map. Open MPI runs it as a user-defined operator
// created with commute = 0.
enum class ReduceOp : std::uint8_t { sum, prod, min, max, land, lor, lxor, band, bor, bxor, affine };

struct Reduction {
  Datatype type = Datatype::byte;
  ReduceOp op = ReduceOp::sum;
};

std::string_view to_string(Datatype type);  // "byte", "int32", "int64", "float", "double"
std::string_view to_string(ReduceOp op);    // "sum", "prod", ..., "affine"
std::optional<Datatype> parse_datatype(std::string_view name);
std::optional<ReduceOp> parse_reduce_op(std::string_view name);
// "byte, int32, int64, float, double" and "sum, prod, ...", for help and error messages.
std::string datatype_names();
std::string reduce_op_names();

std::size_t size_of(Datatype type);
bool is_floating(Datatype type);
bool is_commutative(ReduceOp op);
// Empty when `op` applies to `type`; else why not: "band applies to integer types, not float".
std::string reduction_error(Reduction r);

// inout[i] = in[i] (+) inout[i] for every element; sizes must be equal multiples of the element
// size. Does nothing on virtual buffers. Integer arithmetic wraps (two's complement), as Open
// MPI's does in practice.
void apply(Reduction r, Buffer in, Buffer inout);

}  // namespace collsim
