// Textbook Hockney formulas (Thakur, Rabenseifner and Gropp 2005; the seed's Section III), for the
// algorithms the literature gives one for: one (alpha, beta), no segments except the pipeline's,
// no contention; reductions cost gamma (FormulaCosts::reduce_gamma) per byte combined. The registry
// entries point at them (AlgorithmInfo::textbook); the formulas derived from the implementation sit
// beside their entries (src/registry/<operation>.cpp).
#pragma once

#include <cstddef>

#include "algorithms/operation.hpp"
#include "models/formula.hpp"

namespace collsim::models {

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

}  // namespace collsim::models
