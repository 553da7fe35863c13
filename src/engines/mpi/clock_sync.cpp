#include "engines/mpi/clock_sync.hpp"

#include <sched.h>
#include <time.h>

#include <limits>

#include "engines/mpi/mpi_util.hpp"

namespace collsim {

namespace {
constexpr int kTurnTag = 1;
constexpr int kPingTag = 2;
constexpr int kPongTag = 3;
}  // namespace

ClockSync::ClockSync(MPI_Comm comm, int rounds, WallClock clock) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (rank == 0) {
    for (int r = 1; r < size; ++r) {
      // Ranks wait for their turn asleep, so the pair at work has the cores to itself.
      mpi_check(MPI_Send(nullptr, 0, MPI_BYTE, r, kTurnTag, comm), "MPI_Send (clock sync)");
      for (int k = 0; k < rounds; ++k) {
        mpi_check(MPI_Recv(nullptr, 0, MPI_BYTE, r, kPingTag, comm, MPI_STATUS_IGNORE), "MPI_Recv (clock sync)");
        const double t = clock();
        mpi_check(MPI_Send(&t, 1, MPI_DOUBLE, r, kPongTag, comm), "MPI_Send (clock sync)");
      }
    }
  } else {
    MPI_Request turn;
    mpi_check(MPI_Irecv(nullptr, 0, MPI_BYTE, 0, kTurnTag, comm, &turn), "MPI_Irecv (clock sync)");
    wait_sleeping(turn);
    rtt_ = std::numeric_limits<double>::infinity();
    for (int k = 0; k < rounds; ++k) {
      const double sent = clock();
      mpi_check(MPI_Send(nullptr, 0, MPI_BYTE, 0, kPingTag, comm), "MPI_Send (clock sync)");
      double reference = 0;
      mpi_check(MPI_Recv(&reference, 1, MPI_DOUBLE, 0, kPongTag, comm, MPI_STATUS_IGNORE), "MPI_Recv (clock sync)");
      const double received = clock();
      if (received - sent < rtt_) {
        rtt_ = received - sent;
        offset_ = reference - (sent + received) / 2;
      }
    }
  }
  mpi_check(MPI_Allreduce(&rtt_, &worst_rtt_, 1, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce");
}

double wait_until(double wtime, WallClock clock) {
  // Sleeps can overshoot by a scheduler tick on a busy machine: stop sleeping this far ahead.
  constexpr double kSpinWindow = 1e-3;
  double now = clock();
  const double late = now - wtime;
  while (wtime - now > kSpinWindow) {
    const double nap = wtime - now - kSpinWindow;
    timespec pause;
    pause.tv_sec = static_cast<time_t>(nap);
    pause.tv_nsec = static_cast<long>((nap - static_cast<double>(pause.tv_sec)) * 1e9);
    nanosleep(&pause, nullptr);
    now = clock();
  }
  while (clock() < wtime) sched_yield();
  return late;
}

}  // namespace collsim
