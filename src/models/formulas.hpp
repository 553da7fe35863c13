// Closed-form predictions of every algorithm: textbook Hockney formulas (textbook_formulas.cpp)
// and formulas derived from our implementation, which is Open MPI's call sequence
// (derived_bcast.cpp, derived_gather.cpp, derived_scatter.cpp, derived_reduce.cpp,
// derived_barrier.cpp, derived_allgather.cpp, derived_alltoall.cpp, derived_allreduce.cpp,
// derived_reduce_scatter.cpp). Each definition sits next to its derivation. The formulas of the
// algorithms built from other collectives read the registry, and are beside it
// (registry/nested_formulas.hpp).
//
// The derived formulas follow the seed's Section IV: segments move in buffered (eager) mode, so a
// send costs alpha + beta*m whether or not its receive is posted (Hockney has no rendezvous; the
// mpi engines' rendezvous costs are calibrated into alpha and beta); the non-blocking sends of one
// segment to k children cost gamma(k+1)/gamma(2) transfers, the i-th of them arriving after
// gamma(i+1)/gamma(2); blocking sends to k ranks cost k transfers; a receive completes when its
// message has arrived. Local copies are free. Under the model engine with the same Hockney
// parameters and gamma measured in it, the derived formulas give its time exactly (relative
// 1e-9), except where a formula's comment says otherwise (tests/model/formula_agreement_test).
//
// A formula for an algorithm with segments, fanout or radix reads them from FormulaInput::params,
// and applies the same fallbacks as the algorithm (split_binary_tree to the pipeline,
// scatter_allgather to basic_linear below p bytes).
#pragma once

#include <cstddef>

#include "algorithms/operation.hpp"
#include "models/formula.hpp"

namespace collsim::models {

// Textbook (Thakur, Rabenseifner and Gropp 2005; the seed's Section III): one (alpha, beta), no
// segments except the pipeline's, no contention; reductions cost gamma (FormulaCosts::reduce_gamma)
// per byte combined.
double textbook_bcast_basic_linear(const FormulaInput& in);
double textbook_bcast_pipeline(const FormulaInput& in);
double textbook_bcast_binary_tree(const FormulaInput& in);
double textbook_bcast_binomial(const FormulaInput& in);
double textbook_bcast_scatter_allgather(const FormulaInput& in);
double textbook_bcast_scatter_allgather_ring(const FormulaInput& in);
double textbook_gather_basic_linear(const FormulaInput& in);
double textbook_gather_binomial(const FormulaInput& in);
double textbook_scatter_basic_linear(const FormulaInput& in);
double textbook_scatter_binomial(const FormulaInput& in);
double textbook_reduce_binomial(const FormulaInput& in);
double textbook_reduce_rabenseifner(const FormulaInput& in);
double textbook_allgather_bruck(const FormulaInput& in);
double textbook_allgather_recursive_doubling(const FormulaInput& in);
double textbook_allgather_ring(const FormulaInput& in);
double textbook_alltoall_pairwise(const FormulaInput& in);
double textbook_alltoall_modified_bruck(const FormulaInput& in);
double textbook_barrier_recursive_doubling(const FormulaInput& in);
double textbook_barrier_bruck(const FormulaInput& in);
double textbook_allreduce_recursive_doubling(const FormulaInput& in);
double textbook_allreduce_ring(const FormulaInput& in);
double textbook_allreduce_rabenseifner(const FormulaInput& in);
double textbook_reduce_scatter_recursive_halving(const FormulaInput& in);
double textbook_reduce_scatter_ring(const FormulaInput& in);

// Derived from the implementation.
double derived_bcast_basic_linear(const FormulaInput& in);
double derived_bcast_chain(const FormulaInput& in);
double derived_bcast_pipeline(const FormulaInput& in);
double derived_bcast_split_binary_tree(const FormulaInput& in);
double derived_bcast_binary_tree(const FormulaInput& in);
double derived_bcast_binomial(const FormulaInput& in);
double derived_bcast_knomial(const FormulaInput& in);
double derived_bcast_scatter_allgather(const FormulaInput& in);
double derived_bcast_scatter_allgather_ring(const FormulaInput& in);
double derived_gather_basic_linear(const FormulaInput& in);
double derived_gather_binomial(const FormulaInput& in);
double derived_gather_linear_sync(const FormulaInput& in);
double derived_scatter_basic_linear(const FormulaInput& in);
double derived_scatter_binomial(const FormulaInput& in);
double derived_scatter_linear_nb(const FormulaInput& in);
double derived_reduce_linear(const FormulaInput& in);
double derived_reduce_chain(const FormulaInput& in);
double derived_reduce_pipeline(const FormulaInput& in);
double derived_reduce_binary(const FormulaInput& in);
double derived_reduce_binomial(const FormulaInput& in);
double derived_reduce_in_order_binary(const FormulaInput& in);
double derived_reduce_rabenseifner(const FormulaInput& in);
double derived_barrier_linear(const FormulaInput& in);
double derived_barrier_double_ring(const FormulaInput& in);
double derived_barrier_recursive_doubling(const FormulaInput& in);
double derived_barrier_bruck(const FormulaInput& in);
double derived_barrier_two_proc(const FormulaInput& in);
double derived_barrier_tree(const FormulaInput& in);
double derived_allgather_bruck(const FormulaInput& in);
double derived_allgather_recursive_doubling(const FormulaInput& in);
double derived_allgather_ring(const FormulaInput& in);
double derived_allgather_neighbor(const FormulaInput& in);
double derived_allgather_two_proc(const FormulaInput& in);
double derived_alltoall_linear(const FormulaInput& in);
double derived_alltoall_pairwise(const FormulaInput& in);
double derived_alltoall_modified_bruck(const FormulaInput& in);
double derived_alltoall_linear_sync(const FormulaInput& in);
double derived_alltoall_two_proc(const FormulaInput& in);
double derived_allreduce_recursive_doubling(const FormulaInput& in);
double derived_allreduce_ring(const FormulaInput& in);
double derived_allreduce_segmented_ring(const FormulaInput& in);
double derived_allreduce_basic_linear(const FormulaInput& in);
double derived_allreduce_rabenseifner(const FormulaInput& in);
double derived_reduce_scatter_recursive_halving(const FormulaInput& in);
double derived_reduce_scatter_ring(const FormulaInput& in);
double derived_reduce_scatter_butterfly(const FormulaInput& in);

}  // namespace collsim::models
