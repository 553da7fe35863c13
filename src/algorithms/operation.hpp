// The collective operations, one descriptor each: what a call of the operation is.
//
// A descriptor says which buffers a rank hands to the call and their sizes, what the inputs are
// and what the call must leave in them, Open MPI's name and tag for it, and how the call's size
// is meant. Everything that depends on the operation reads its descriptor: the buffers and
// checks of a run (rank_data.hpp), the CLI and scenarios, the native MPI call (engines/mpi); a
// new collective is one descriptor here plus its algorithms in the registry.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "comm/buffer.hpp"
#include "comm/reduction.hpp"

namespace collsim {

enum class Operation { bcast, gather, scatter, reduce, allreduce, allgather, alltoall, barrier, reduce_scatter };

// The buffers one rank hands to a collective: `data` is its input (bcast: the buffer itself, in
// at the root and out elsewhere), `result` its output (empty where the operation has none). The
// sizes for `bytes` are the descriptor's: see OperationInfo::layout.
struct RankBuffers {
  Buffer data;
  Buffer result;
};

// One call as a rank sees it: who it is, the root, the size and the reduction.
struct CallShape {
  int rank = 0;
  int size = 1;
  int root = 0;
  std::size_t bytes = 0;  // as OperationInfo::bytes_mean says
  Reduction reduction;    // reducing operations only
};

struct BufferSizes {
  std::size_t data = 0, result = 0;
};

// Written with designated initialisers (operation.cpp): a member left out keeps the default here.
struct OperationInfo {
  Operation op = Operation::bcast;
  std::string_view name;      // "allreduce": the first part of algorithm names, option values
  std::string_view mpi_name;  // "MPI_Allreduce"
  int tag = 0;                // the tag of its messages (params.hpp), one per operation
  int ompi_colltype = 0;      // Open MPI's COLLTYPE index (coll_base_functions.h), as rules files name it
  // Whether the message size Open MPI's dynamic rules compare is `bytes` times the communicator
  // size (the operation's total of all processes' blocks, coll_tuned_decision_dynamic.c) rather
  // than `bytes` itself.
  bool ompi_rules_size_per_process = false;
  bool rooted = false;      // has a root
  bool reduces = false;     // combines data with a reduction operator (datatype and op apply)
  bool moves_data = false;  // false for barrier: no buffers, the size must be 0
  // What the size of a call means, for help and tables: "the message", "bytes per process", ...
  std::string_view bytes_mean;
  // Buffer sizes of `shape.rank` (rank-dependent: only the root of a gather gets a result).
  BufferSizes (*layout)(const CallShape& shape) = nullptr;
  // Bytes this rank's data or result buffer holds: fills the input with the call's input and the
  // result with bytes the correct result never has.
  void (*fill)(const CallShape& shape, RankBuffers buffers) = nullptr;
  // "" when the buffers hold what the call must leave there; else the first difference, e.g.
  // "rank 3: byte 8192 of the broadcast buffer is 0x12, expected 0x7f".
  std::string (*check)(const CallShape& shape, RankBuffers buffers) = nullptr;
};

std::span<const OperationInfo> all_operations();
const OperationInfo& operation_info(Operation op);
const OperationInfo* find_operation(std::string_view name);  // nullptr if none
std::string_view to_string(Operation op);
// "bcast, gather, ...", for error messages.
std::string operation_names();

// Empty when `bytes` and `reduction` make a valid call of `op`; else why not, e.g.
// "6 bytes are not a whole number of int32 elements" or "band applies to integer and byte types,
// not float". Non-reducing operations ignore `reduction`.
std::string call_error(const OperationInfo& op, std::size_t bytes, Reduction reduction);

// The reduction a reducing operation runs when none is given: float sum (as the OSU benchmarks).
inline constexpr Reduction kDefaultReduction{Datatype::float32, ReduceOp::sum};

}  // namespace collsim
