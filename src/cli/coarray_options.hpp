// The options that describe a coarray point (experiment/results/coarray_point.hpp), shared by
// `collsim coarray`, `collsim-mpi coarray` and collsim-caf: the statement (--put/--get, the
// sections and shapes as in Fortran, the element size), the runtime (--buffer, --registered,
// --get-behaviour, --packing) and the segment (--statements N, --nonblocking safe|nowait|double,
// --sync memory|all|images, --pattern one|all-to-one|ring|halo).
#pragma once

#include <string>
#include <vector>

#include "cli/options.hpp"
#include "experiment/results/coarray_point.hpp"

namespace collsim::cli {

std::vector<OptionDef> coarray_point_options();
// The options of coarray_point_options that describe Omni's runtime rather than the statement:
// OpenCoarrays has no such buffer, registration, packing or GET variant, and its PUT is always
// blocking, so caf-native refuses them.
extern const std::vector<std::string> kOmniRuntimeOptions;
// "--NAME does not apply to caf-native (...)": the one refusal of an option of kOmniRuntimeOptions.
std::string not_for_caf(const std::string& name);
// The point the options describe; UsageError for a bad option, InputError (exit 2 too) for a
// bad section, naming it.
CoarrayPoint read_coarray_point(const ParsedOptions& o);

// The readable result of a point, as `collsim coarray` and `collsim-mpi coarray` print it: the
// statement and `where` it ran, Table 1's case, NL and NR, the unit, the transfers and copies, the
// time, the `extra` lines (ending in a newline, or empty) and the data. `measured`: the time is a
// median of row.runs runs (their minimum with `time_is_min`), printed with row.min_s and
// row.ci95_s; else it is the one run's time.
std::string coarray_summary(const CoarrayRow& row, const std::string& where, bool measured,
                            const std::string& extra = {}, bool time_is_min = false);

// Two paragraphs for --help: how sections are written and what the cases are.
extern const char* const kCoarraySectionsHelp;

}  // namespace collsim::cli
