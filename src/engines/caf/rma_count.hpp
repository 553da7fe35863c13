// Counts of the MPI one-sided calls a process makes, for showing what a coarray runtime issues
// per statement (OpenCoarrays on Debian: one lock/put/unlock per element of a strided section).
//
// The counting is a PMPI interposer (rma_count.cpp): MPI_Put, MPI_Get, MPI_Win_lock, ... defined
// in the program itself take precedence over libmpi's for every caller, libcaf_openmpi included,
// and forward to PMPI_*. Only programs that want counts link it (collsim-caf-counted and the
// tests), so collsim-caf's timed calls pay nothing. collsim_rma_counts() is weak: null in a
// program without the interposer.
#pragma once

#include <cstdint>

namespace collsim::caf {

struct RmaCounts {
  std::int64_t puts = 0, gets = 0;            // MPI_Put, MPI_Get calls
  std::int64_t put_bytes = 0, get_bytes = 0;  // their origin buffers' bytes
  std::int64_t locks = 0, unlocks = 0;        // MPI_Win_lock / MPI_Win_unlock
  std::int64_t lock_alls = 0, flushes = 0;    // MPI_Win_lock_all, MPI_Win_flush*
  std::int64_t barriers = 0;                  // MPI_Barrier
};

RmaCounts operator-(const RmaCounts& a, const RmaCounts& b);

}  // namespace collsim::caf

// This process's counts so far; only defined where the interposer is linked.
extern "C" const collsim::caf::RmaCounts* collsim_rma_counts() __attribute__((weak));
