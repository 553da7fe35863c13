// Decision tables written as an Open MPI coll/tuned dynamic rules file, so that a real Open MPI
// runs our selection:
//   mpirun --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename FILE ...
//
// The format is the one Open MPI 4.1 reads (ompi/mca/coll/tuned/coll_tuned_dynamic_file.c; 5.0
// reads the same): whitespace-separated decimal numbers, '#' starting a comment to the end of the
// line. The number of collectives; per collective its ID (the COLLTYPE enumeration of
// ompi/mca/coll/base/coll_base_functions.h: allgather 0, allreduce 2, alltoall 3, barrier 6,
// bcast 7, gather 9, reduce 11, reduce_scatter 12, scatter 15) and its number of communicator
// sizes; per communicator size the size and its number of message sizes; per message size four
// numbers: the size, the algorithm ID (coll_tuned_<op>_algorithm; 0 = Open MPI's fixed
// decision), the fan-in/out (bcast/chain's fanout; unused by the others) and the segment size
// (0 = unsegmented; gather/linear_sync's first segment). The first message size of every
// communicator size must be 0, or Open MPI drops the whole file.
//
// How Open MPI matches a call (coll_tuned_dynamic_rules.c, coll_tuned_decision_dynamic.c): the
// last communicator size <= the communicator's (the first one if all are larger), then the last
// message size <= the call's, where the call's message size is the total bytes: count * type size
// for bcast, reduce and allreduce; that times the communicator size for gather, scatter,
// allgather and alltoall; the sum of the counts times the type size for reduce_scatter; 0 for
// barrier. Those are DecisionTable's lookup semantics except for the operations whose tables are
// in bytes per process (OperationInfo::ompi_rules_size_per_process): their boundaries are written
// multiplied by each row's communicator size, which is exact for communicators of that size; for
// a larger one within the row Open MPI moves a boundary b to b * row size / its size. A table
// built at every communicator size that will run makes the two agree exactly. The rules do not
// see the datatype or the operator: a table of a reducing operation, built for one reduction,
// serves every reduction (Open MPI's algorithms that need a commutative operator fall back by
// themselves).
//
// A file rule takes precedence over an algorithm forced through coll_tuned_<op>_algorithm. The
// k-nomial radix cannot be written: Open MPI takes it from coll_tuned_bcast_algorithm_knomial_radix
// (4 unless set) at every call, so a knomial choice with another radix is refused; likewise a
// max_requests other than 0, which only the version-2 format carries.
#pragma once

#include <filesystem>
#include <span>
#include <string>

#include "selection/decision_table.hpp"

namespace collsim::selection {

// Open MPI's collective ID of `op` (COLLTYPE), from its descriptor: bcast 7, gather 9, ...
int ompi_collective_id(Operation op);

// The file's text for `tables`, at most one per operation, with comments naming each choice.
// Throws InputError for what the format cannot hold (two tables of one operation, a k-nomial
// radix other than 4, a max_requests other than 0, a segment size beyond Open MPI's int).
std::string rules_file_text(std::span<const DecisionTable> tables);

// rules_file_text() written to `path`; throws InputError if the file cannot be written.
void write_rules_file(const std::filesystem::path& path, std::span<const DecisionTable> tables);

}  // namespace collsim::selection
