// What the per-operation files of the registry (bcast.cpp, gather.cpp, ...) share. Each of those
// files holds one operation's entries and the formulas derived from their implementation (Open
// MPI's call sequence), each next to its derivation; registry.cpp joins the tables. Adding an
// algorithm: its function (algorithms/), its entry and its derived formula here. Not for use
// outside src/registry/.
//
// The derived formulas follow the seed's Section IV: segments move in buffered (eager) mode, so a
// send costs alpha + beta*m whether or not its receive is posted (Hockney has no rendezvous; the
// mpi engines' rendezvous costs are calibrated into alpha and beta); the non-blocking sends of one
// segment to k children cost gamma(k+1)/gamma(2) transfers, the i-th of them arriving after
// gamma(i+1)/gamma(2); blocking sends to k ranks cost k transfers; a receive completes when its
// message has arrived. Local copies are free. Under the model engine with the same Hockney
// parameters and gamma measured in it, the derived formulas give its time exactly (relative
// 1e-9), except where a formula's comment says otherwise (tests/registry/formula_agreement_test).
// A formula for an algorithm with segments, fanout or radix reads them from FormulaInput::params,
// and applies the same fallbacks as the algorithm (split_binary_tree to the pipeline,
// scatter_allgather to basic_linear below p bytes).
#pragma once

#include <array>
#include <climits>
#include <span>
#include <string_view>

#include "models/formula.hpp"
#include "models/textbook_formulas.hpp"
#include "registry/registry.hpp"

namespace collsim {

// From an operation's signature to AlgorithmFn: which of the rank's buffers it takes.
template <Task<> (*F)(Comm&, Buffer, const AlgorithmParams&)>
Task<> as_bcast(Comm& comm, RankBuffers b, const AlgorithmParams& p) {
  return F(comm, b.data, p);
}

template <Task<> (*F)(Comm&, Buffer, Buffer, const AlgorithmParams&)>
Task<> as_gather(Comm& comm, RankBuffers b, const AlgorithmParams& p) {
  return F(comm, b.data, b.result, p);
}

template <Task<> (*F)(Comm&, Buffer, Buffer, const AlgorithmParams&)>
Task<> as_scatter(Comm& comm, RankBuffers b, const AlgorithmParams& p) {
  return F(comm, b.data, b.result, p);
}

// reduce and allreduce: `data` is the rank's vector, `result` the reduction.
template <Task<> (*F)(Comm&, Buffer, Buffer, const AlgorithmParams&)>
Task<> as_reduce(Comm& comm, RankBuffers b, const AlgorithmParams& p) {
  return F(comm, b.data, b.result, p);
}

template <Task<> (*F)(Comm&, const AlgorithmParams&)>
Task<> as_barrier(Comm& comm, RankBuffers, const AlgorithmParams& p) {
  return F(comm, p);
}

// An entry states every field (designated initialisers, in AlgorithmInfo's order), so that a
// missing property is a choice made in the table, not a default taken silently.
constexpr unsigned kNoKnobs = 0;
constexpr int kAnyProcs = 0;
constexpr int kTwoProcesses = 2;  // the two_proc algorithms
constexpr unsigned kSegment = static_cast<unsigned>(Knob::segment);
constexpr unsigned kFanout = static_cast<unsigned>(Knob::fanout);
constexpr unsigned kRadix = static_cast<unsigned>(Knob::radix);
constexpr unsigned kMaxRequests = static_cast<unsigned>(Knob::max_requests);

// The derived formula of the algorithm `name` (for a formula that runs another's, as
// allreduce/basic_linear runs reduce/linear's and bcast/basic_linear's).
double derived_formula(std::string_view name, const models::FormulaInput& in);

// The derived formula of the communicator's own collective `op` of `bytes` from `root`, as
// nested_collective.cpp runs it: the algorithm and knobs Open MPI 4.1's fixed decision picks for
// `bytes` on in.procs processes (reduce: for whether in's reduction commutes), with in's
// reduction. InputError when that algorithm has no derived formula.
double derived_fixed_choice(Operation op, const models::FormulaInput& in, std::size_t bytes, int root);

// One table per operation, in Open MPI's ID order.
std::span<const AlgorithmInfo> bcast_entries();
std::span<const AlgorithmInfo> gather_entries();
std::span<const AlgorithmInfo> scatter_entries();
std::span<const AlgorithmInfo> barrier_entries();
std::span<const AlgorithmInfo> allgather_entries();
std::span<const AlgorithmInfo> alltoall_entries();
std::span<const AlgorithmInfo> reduce_entries();
std::span<const AlgorithmInfo> allreduce_entries();
std::span<const AlgorithmInfo> reduce_scatter_entries();

}  // namespace collsim
