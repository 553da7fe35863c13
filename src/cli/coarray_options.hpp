// The options that describe a coarray point (experiment/coarray_point.hpp), shared by
// `collsim coarray`, `collsim-mpi coarray` and collsim-caf: the statement (--put/--get, the
// sections and shapes as in Fortran, the element size), the runtime (--buffer, --registered,
// --get-behaviour) and the segment (--nonblocking N, --statements N).
#pragma once

#include <vector>

#include "cli/options.hpp"
#include "experiment/coarray_point.hpp"

namespace collsim::cli {

std::vector<OptionDef> coarray_point_options();
// The point the options describe; UsageError for a bad option, InputError (exit 2 too) for a
// bad section, naming it.
CoarrayPoint read_coarray_point(const ParsedOptions& o);

// Two paragraphs for --help: how sections are written and what the cases are.
extern const char* const kCoarraySectionsHelp;

}  // namespace collsim::cli
