// The derived formulas of the algorithms built from other collectives as the communicator runs
// them (allgather/linear, allreduce/nonoverlapping, reduce_scatter/non-overlapping): the sum of the
// formulas of the registry entries they call, as Open MPI 4.1's fixed decision picks them for the
// nested call (nested_collective.hpp). They read the registry, so they live beside it rather than
// in models/, which the registry's entries point into.
#pragma once

#include "models/formula.hpp"

namespace collsim::models {

double derived_allgather_linear(const FormulaInput& in);
double derived_allreduce_nonoverlapping(const FormulaInput& in);
double derived_reduce_scatter_non_overlapping(const FormulaInput& in);

}  // namespace collsim::models
