// Clock synchronisation for timed MPI runs: each rank's offset to rank 0's MPI_Wtime, and a
// wait for a date on that common clock.
//
// The timing protocol starts every rank of a call at one common date (not at the exit of a
// barrier, whose exit times differ by rank and by barrier algorithm) and converts each rank's
// finish to rank 0's clock. The offsets come from ping-pongs with rank 0: the sample with the
// smallest round trip is kept, since its midpoint is the least disturbed by delays, and half of
// that round trip bounds its error.
#pragma once

#include <mpi.h>

namespace collsim {

// The clock the timing protocol reads: MPI_Wtime, or in tests a clock deliberately set off from
// it, since the ranks of one machine share one clock and an offset applied with the wrong sign
// would go unseen there.
using WallClock = double (*)();

class ClockSync {
 public:
  // Collective over `comm`: rank 0 serves the other ranks one by one, `rounds` ping-pongs each.
  ClockSync(MPI_Comm comm, int rounds, WallClock clock = &MPI_Wtime);

  // Rank 0's clock minus this rank's (0 on rank 0).
  double offset_s() const { return offset_; }
  // Round trip of the sample kept on this rank, and the largest one over all ranks.
  double rtt_s() const { return rtt_; }
  double worst_rtt_s() const { return worst_rtt_; }

  double to_reference(double local_wtime) const { return local_wtime + offset_; }
  double to_local(double reference_wtime) const { return reference_wtime - offset_; }

 private:
  double offset_ = 0;
  double rtt_ = 0;
  double worst_rtt_ = 0;
};

// Blocks until clock() reaches `wtime`. Sleeps for most of the wait and spins (yielding the
// core) only near the end: on an oversubscribed machine a spinning rank would steal the core
// from ranks still on their way to the date. Returns how late the caller arrived: > 0 when the
// date had already passed.
double wait_until(double wtime, WallClock clock = &MPI_Wtime);

}  // namespace collsim
