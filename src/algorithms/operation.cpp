#include "algorithms/operation.hpp"

#include <array>

#include "algorithms/input_pattern.hpp"
#include "algorithms/params.hpp"

namespace collsim {

namespace {

using Shape = const CallShape&;

std::size_t times(std::size_t bytes, int n) { return bytes * static_cast<std::size_t>(n); }
std::span<std::byte> bytes_of(Buffer b) { return {b.data(), b.size()}; }
std::span<const std::byte> cbytes_of(Buffer b) { return {b.data(), b.size()}; }

// Checks, in order, until one fails.
template <class... F>
std::string first_error(F&&... checks) {
  std::string e;
  ((e.empty() ? (void)(e = checks()) : (void)0), ...);
  return e;
}

// `result` holds block b = stream_of(b)'s pattern from offset offset_of(b), for each of n blocks.
template <class Stream, class Offset>
std::string check_blocks(Shape s, Buffer result, int n, const char* what, Stream stream_of, Offset offset_of) {
  std::string e;
  for (int b = 0; b < n && e.empty(); ++b) {
    const std::size_t at = times(s.bytes, b);
    e = compare_pattern(cbytes_of(result.slice(at, s.bytes)), stream_of(b), offset_of(b), s.rank, what, at);
  }
  return e;
}

template <class Stream, class Offset>
void fill_blocks(Shape s, Buffer out, int n, bool complement, Stream stream_of, Offset offset_of) {
  for (int b = 0; b < n; ++b)
    fill_pattern(bytes_of(out.slice(times(s.bytes, b), s.bytes)), stream_of(b), offset_of(b), complement);
}

auto zero = [](int) { return std::size_t{0}; };

// --- bcast: data is the buffer; the root's pattern everywhere at the end.
BufferSizes bcast_layout(Shape s) { return {s.bytes, 0}; }
void bcast_fill(Shape s, RankBuffers b) { fill_pattern(bytes_of(b.data), s.root, 0, s.rank != s.root); }
std::string bcast_check(Shape s, RankBuffers b) {
  return compare_pattern(cbytes_of(b.data), s.root, 0, s.rank, "broadcast buffer", 0);
}

// --- gather: data is the rank's block; the root's result holds rank r's block at r * bytes.
BufferSizes gather_layout(Shape s) { return {s.bytes, s.rank == s.root ? times(s.bytes, s.size) : 0}; }
void gather_fill(Shape s, RankBuffers b) {
  fill_pattern(bytes_of(b.data), s.rank, 0, false);
  if (s.rank == s.root)
    fill_blocks(
        s, b.result, s.size, true, [](int r) { return r; }, zero);
}
std::string gather_check(Shape s, RankBuffers b) {
  return first_error(
      [&] { return compare_pattern(cbytes_of(b.data), s.rank, 0, s.rank, "send block (changed by the gather)", 0); },
      [&] {
        if (s.rank != s.root) return std::string();
        return check_blocks(
            s, b.result, s.size, "gathered buffer", [](int r) { return r; }, zero);
      });
}

// --- scatter: the root's data holds block r for rank r (the root's pattern from r * bytes);
// every rank's result gets its block.
BufferSizes scatter_layout(Shape s) { return {s.rank == s.root ? times(s.bytes, s.size) : 0, s.bytes}; }
void scatter_fill(Shape s, RankBuffers b) {
  if (s.rank == s.root) fill_pattern(bytes_of(b.data), s.root, 0, false);
  fill_pattern(bytes_of(b.result), s.root, times(s.bytes, s.rank), true);
}
std::string scatter_check(Shape s, RankBuffers b) {
  return first_error(
      [&] {
        return compare_pattern(cbytes_of(b.result), s.root, times(s.bytes, s.rank), s.rank, "scattered block", 0);
      },
      [&] {
        if (s.rank != s.root) return std::string();
        return compare_pattern(cbytes_of(b.data), s.root, 0, s.rank, "send buffer (changed by the scatter)", 0);
      });
}

// --- allgather: data is the rank's block; every result holds rank r's block at r * bytes.
BufferSizes allgather_layout(Shape s) { return {s.bytes, times(s.bytes, s.size)}; }
void allgather_fill(Shape s, RankBuffers b) {
  fill_pattern(bytes_of(b.data), s.rank, 0, false);
  fill_blocks(
      s, b.result, s.size, true, [](int r) { return r; }, zero);
}
std::string allgather_check(Shape s, RankBuffers b) {
  return first_error(
      [&] { return compare_pattern(cbytes_of(b.data), s.rank, 0, s.rank, "send block (changed by the allgather)", 0); },
      [&] {
        return check_blocks(
            s, b.result, s.size, "gathered buffer", [](int r) { return r; }, zero);
      });
}

// --- alltoall: block j of rank i's data (i's pattern from j * bytes) ends as block i of rank j's
// result.
BufferSizes alltoall_layout(Shape s) { return {times(s.bytes, s.size), times(s.bytes, s.size)}; }
void alltoall_fill(Shape s, RankBuffers b) {
  fill_pattern(bytes_of(b.data), s.rank, 0, false);
  fill_blocks(
      s, b.result, s.size, true, [](int i) { return i; }, [&](int) { return times(s.bytes, s.rank); });
}
std::string alltoall_check(Shape s, RankBuffers b) {
  return first_error(
      [&] { return compare_pattern(cbytes_of(b.data), s.rank, 0, s.rank, "send buffer (changed by the alltoall)", 0); },
      [&] {
        return check_blocks(
            s, b.result, s.size, "received buffer", [](int i) { return i; },
            [&](int) { return times(s.bytes, s.rank); });
      });
}

// --- barrier: nothing.
BufferSizes barrier_layout(Shape) { return {}; }
void barrier_fill(Shape, RankBuffers) {}
std::string barrier_check(Shape, RankBuffers) { return {}; }

// --- reduce, allreduce: data is the rank's vector; the result (root's, or everyone's) its
// reduction over all ranks.
std::string input_unchanged(Shape s, RankBuffers b, const char* what) {
  std::vector<std::byte> want(b.data.size());
  fill_elements(want, s.reduction, s.rank, 0);
  for (std::size_t i = 0; i < want.size(); ++i)
    if (want[i] != b.data.data()[i])
      return "rank " + std::to_string(s.rank) + ": byte " + std::to_string(i) + " of the " + what +
             " changed: an algorithm must not write into its input";
  return {};
}
BufferSizes reduce_layout(Shape s) { return {s.bytes, s.rank == s.root ? s.bytes : 0}; }
BufferSizes allreduce_layout(Shape s) { return {s.bytes, s.bytes}; }
void reduce_fill(Shape s, RankBuffers b) {
  fill_elements(bytes_of(b.data), s.reduction, s.rank, 0);
  fill_poison(bytes_of(b.result));
}
std::string reduce_check(Shape s, RankBuffers b) {
  return first_error(
      [&] { return input_unchanged(s, b, "send vector"); },
      [&] { return check_reduced(cbytes_of(b.result), s.reduction, s.size, 0, s.rank, "reduced vector"); });
}

// --- reduce_scatter: data is the rank's vector of size * bytes; rank r's result is block r of
// the reduction (equal blocks: MPI_Reduce_scatter with every count the same).
BufferSizes reduce_scatter_layout(Shape s) { return {times(s.bytes, s.size), s.bytes}; }
std::string reduce_scatter_check(Shape s, RankBuffers b) {
  const std::size_t first = times(s.bytes, s.rank) / size_of(s.reduction.type);
  return first_error(
      [&] { return input_unchanged(s, b, "send vector"); },
      [&] { return check_reduced(cbytes_of(b.result), s.reduction, s.size, first, s.rank, "reduced block"); });
}

// Open MPI's tags are negative; ours are the positive tags of params.hpp.
constexpr std::array kOperations{
    OperationInfo{.op = Operation::bcast,
                  .name = "bcast",
                  .mpi_name = "MPI_Bcast",
                  .tag = tags::bcast,
                  .ompi_colltype = 7,
                  .rooted = true,
                  .moves_data = true,
                  .bytes_mean = "the message",
                  .layout = &bcast_layout,
                  .fill = &bcast_fill,
                  .check = &bcast_check},
    OperationInfo{.op = Operation::gather,
                  .name = "gather",
                  .mpi_name = "MPI_Gather",
                  .tag = tags::gather,
                  .ompi_colltype = 9,
                  .ompi_rules_size_per_process = true,
                  .rooted = true,
                  .moves_data = true,
                  .bytes_mean = "bytes per process",
                  .layout = &gather_layout,
                  .fill = &gather_fill,
                  .check = &gather_check},
    OperationInfo{.op = Operation::scatter,
                  .name = "scatter",
                  .mpi_name = "MPI_Scatter",
                  .tag = tags::scatter,
                  .ompi_colltype = 15,
                  .ompi_rules_size_per_process = true,
                  .rooted = true,
                  .moves_data = true,
                  .bytes_mean = "bytes per process",
                  .layout = &scatter_layout,
                  .fill = &scatter_fill,
                  .check = &scatter_check},
    OperationInfo{.op = Operation::reduce,
                  .name = "reduce",
                  .mpi_name = "MPI_Reduce",
                  .tag = tags::reduce,
                  .ompi_colltype = 11,
                  .rooted = true,
                  .reduces = true,
                  .moves_data = true,
                  .bytes_mean = "the vector",
                  .layout = &reduce_layout,
                  .fill = &reduce_fill,
                  .check = &reduce_check},
    OperationInfo{.op = Operation::allreduce,
                  .name = "allreduce",
                  .mpi_name = "MPI_Allreduce",
                  .tag = tags::allreduce,
                  .ompi_colltype = 2,
                  .reduces = true,
                  .moves_data = true,
                  .bytes_mean = "the vector",
                  .layout = &allreduce_layout,
                  .fill = &reduce_fill,
                  .check = &reduce_check},
    OperationInfo{.op = Operation::allgather,
                  .name = "allgather",
                  .mpi_name = "MPI_Allgather",
                  .tag = tags::allgather,
                  .ompi_colltype = 0,
                  .ompi_rules_size_per_process = true,
                  .moves_data = true,
                  .bytes_mean = "bytes per process",
                  .layout = &allgather_layout,
                  .fill = &allgather_fill,
                  .check = &allgather_check},
    OperationInfo{.op = Operation::alltoall,
                  .name = "alltoall",
                  .mpi_name = "MPI_Alltoall",
                  .tag = tags::alltoall,
                  .ompi_colltype = 3,
                  .ompi_rules_size_per_process = true,
                  .moves_data = true,
                  .bytes_mean = "bytes per pair of processes",
                  .layout = &alltoall_layout,
                  .fill = &alltoall_fill,
                  .check = &alltoall_check},
    OperationInfo{.op = Operation::barrier,
                  .name = "barrier",
                  .mpi_name = "MPI_Barrier",
                  .tag = tags::barrier,
                  .ompi_colltype = 6,
                  .bytes_mean = "nothing (0)",
                  .layout = &barrier_layout,
                  .fill = &barrier_fill,
                  .check = &barrier_check},
    OperationInfo{.op = Operation::reduce_scatter,
                  .name = "reduce_scatter",
                  .mpi_name = "MPI_Reduce_scatter",
                  .tag = tags::reduce_scatter,
                  .ompi_colltype = 12,
                  .ompi_rules_size_per_process = true,
                  .reduces = true,
                  .moves_data = true,
                  .bytes_mean = "bytes per process (its block of the vector)",
                  .layout = &reduce_scatter_layout,
                  .fill = &reduce_fill,
                  .check = &reduce_scatter_check},
};

// operation_info() indexes the table by the enum: one entry per operation, in its order.
static_assert([] {
  for (std::size_t i = 0; i < kOperations.size(); ++i)
    if (kOperations[i].op != static_cast<Operation>(i)) return false;
  return static_cast<std::size_t>(Operation::reduce_scatter) + 1 == kOperations.size();
}());

}  // namespace

std::span<const OperationInfo> all_operations() { return kOperations; }

const OperationInfo& operation_info(Operation op) { return kOperations[static_cast<std::size_t>(op)]; }

const OperationInfo* find_operation(std::string_view name) {
  for (const OperationInfo& o : kOperations)
    if (o.name == name) return &o;
  return nullptr;
}

std::string_view to_string(Operation op) { return operation_info(op).name; }

std::string operation_names() {
  std::string s;
  for (const OperationInfo& o : kOperations) s += (s.empty() ? "" : ", ") + std::string(o.name);
  return s;
}

std::string call_error(const OperationInfo& op, std::size_t bytes, Reduction reduction) {
  if (!op.moves_data) return bytes == 0 ? std::string() : std::string(op.name) + " moves no data: its size must be 0";
  if (!op.reduces) return {};
  if (std::string why = reduction_error(reduction); !why.empty()) return why;
  if (bytes % size_of(reduction.type) != 0)
    return std::to_string(bytes) + " bytes are not a whole number of " + std::string(to_string(reduction.type)) +
           " elements";
  return {};
}

}  // namespace collsim
