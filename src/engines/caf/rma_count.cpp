// The PMPI interposer behind rma_count.hpp. Single-threaded counters: the engine's processes call
// MPI from one thread (OpenCoarrays asks for MPI_THREAD_FUNNELED at most).
#include "engines/caf/rma_count.hpp"

#include <mpi.h>

namespace {
collsim::caf::RmaCounts counts;

std::int64_t bytes_of(int count, MPI_Datatype type) {
  int size = 0;
  PMPI_Type_size(type, &size);
  return static_cast<std::int64_t>(count) * size;
}
}  // namespace

extern "C" {

const collsim::caf::RmaCounts* collsim_rma_counts() { return &counts; }

int MPI_Put(const void* origin, int origin_count, MPI_Datatype origin_type, int target, MPI_Aint displacement,
            int target_count, MPI_Datatype target_type, MPI_Win win) {
  ++counts.puts;
  counts.put_bytes += bytes_of(origin_count, origin_type);
  return PMPI_Put(origin, origin_count, origin_type, target, displacement, target_count, target_type, win);
}

int MPI_Get(void* origin, int origin_count, MPI_Datatype origin_type, int target, MPI_Aint displacement,
            int target_count, MPI_Datatype target_type, MPI_Win win) {
  ++counts.gets;
  counts.get_bytes += bytes_of(origin_count, origin_type);
  return PMPI_Get(origin, origin_count, origin_type, target, displacement, target_count, target_type, win);
}

int MPI_Win_lock(int type, int target, int assertion, MPI_Win win) {
  ++counts.locks;
  return PMPI_Win_lock(type, target, assertion, win);
}

int MPI_Win_unlock(int target, MPI_Win win) {
  ++counts.unlocks;
  return PMPI_Win_unlock(target, win);
}

int MPI_Win_lock_all(int assertion, MPI_Win win) {
  ++counts.lock_alls;
  return PMPI_Win_lock_all(assertion, win);
}

int MPI_Win_flush(int target, MPI_Win win) {
  ++counts.flushes;
  return PMPI_Win_flush(target, win);
}

int MPI_Win_flush_all(MPI_Win win) {
  ++counts.flushes;
  return PMPI_Win_flush_all(win);
}

int MPI_Win_flush_local(int target, MPI_Win win) {
  ++counts.flushes;
  return PMPI_Win_flush_local(target, win);
}

int MPI_Barrier(MPI_Comm comm) {
  ++counts.barriers;
  return PMPI_Barrier(comm);
}

}  // extern "C"
