// Derived formulas of the algorithms built from other collectives (nested_formulas.hpp). Notation
// as in models/: P processes, m bytes, t(x) = alpha + beta*x.
#include "registry/nested_formulas.hpp"

#include <cstddef>
#include <string>

#include "models/formulas.hpp"
#include "registry/registry.hpp"
#include "support/input_error.hpp"

namespace collsim::models {

namespace {

// The derived formula of `algorithm` for a nested call of `bytes` from `root` with `params`
// (the caller's reduction kept); there is none to compose with until the entry has one.
double nested(const AlgorithmInfo& algorithm, const FormulaInput& in, std::size_t bytes, AlgorithmParams params) {
  if (!algorithm.derived)
    throw InputError(std::string(algorithm.name) + " has no derived formula, which the nested call needs");
  FormulaInput call = in;
  call.bytes = bytes;
  params.reduction = in.params.reduction;
  call.params = params;
  return algorithm.derived(call);
}

// The communicator's own collective, as nested_collective.cpp runs it: the algorithm and knobs
// Open MPI 4.1's fixed decision picks for `bytes` on P processes (reduce: for whether the
// reduction commutes), from `root`.
double derived_fixed_choice(Operation op, const FormulaInput& in, std::size_t bytes, int root) {
  AlgorithmParams params;
  const AlgorithmInfo& a = fixed_choice(op, in.procs, bytes, is_commutative(in.params.reduction.op), root, params);
  return nested(a, in, bytes, params);
}

}  // namespace

// linear: the gather of the blocks to rank 0, then the bcast of all P*m bytes from it, each with
// the algorithm Open MPI 4.1's fixed decision picks, so the sum of their derived formulas. Rank
// 0's gather ends last (every other rank's ends when its data has left, no later than it
// arrives at 0), and no message of the gather is in flight then; the bcast's other ranks act
// only on what reaches them from rank 0, so the bcast runs as if everyone started it when rank
// 0 does. The sum is exact where both parts are: under one port the bcast's scatter_allgather
// (16..31 processes, P*m >= 1 MiB) is a lower bound (derived_bcast.cpp), and so is this there:
// the engine is up to about a quarter slower on 21..31 processes
// (tests/model/formula_agreement_test.cpp).
double derived_allgather_linear(const FormulaInput& in) {
  if (in.procs <= 1 || in.bytes == 0) return 0;
  return derived_fixed_choice(Operation::gather, in, in.bytes, 0) +
         derived_fixed_choice(Operation::bcast, in, in.bytes * static_cast<std::size_t>(in.procs), 0);
}

// nonoverlapping: a reduce to rank 0, then a broadcast from it (as allreduce/basic_linear,
// derived_allreduce.cpp, which says why the two times add up), with the communicator's reduce and
// bcast: Open MPI 4.1's fixed decisions for m bytes.
double derived_allreduce_nonoverlapping(const FormulaInput& in) {
  if (in.procs <= 1 || in.bytes == 0) return 0;
  return derived_fixed_choice(Operation::reduce, in, in.bytes, 0) +
         derived_fixed_choice(Operation::bcast, in, in.bytes, 0);
}

// non-overlapping: the communicator's reduce of the vector (M bytes) to rank 0, then a linear
// scatterv from it: the P-1 blocking sends of scatter/basic_linear. As for allreduce's
// nonoverlapping (above) every rank has finished the reduce when rank 0 has, so
// the two times add up: exact under both port models wherever the reduce's formula is.
double derived_reduce_scatter_non_overlapping(const FormulaInput& in) {
  if (in.procs <= 1 || in.bytes == 0) return 0;
  FormulaInput scatter = in;
  scatter.params.root = 0;
  return derived_fixed_choice(Operation::reduce, in, static_cast<std::size_t>(in.procs) * in.bytes, 0) +
         derived_scatter_basic_linear(scatter);
}

}  // namespace collsim::models
