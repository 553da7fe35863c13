// Helpers shared by the tests that run under mpirun: the world's shape, and running a coroutine
// to completion on an engine whose awaits never suspend.
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>

#include "comm/task.hpp"
#include "common/collsim_test.hpp"

namespace collsim_test {

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

inline int world_size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

// Runs `task` on the spot (MpiComm completes every await inside start()) and rethrows what it
// threw.
inline void run_now(Task<> task) {
  start(task);
  ASSERT_TRUE(task.done()) << "the task suspended on an engine that never suspends";
  rethrow_if_failed(task);
}

// True on every rank when `ok` is true on every rank: keeps ranks taking the same branch.
inline bool all_ranks(bool ok) {
  int mine = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

}  // namespace collsim_test
