// The timing protocol on real MPI: one collective call started by every rank at a common date
// and timed to the last rank's finish, on rank 0's clock.
//
// What is timed is a CollectiveCall, so the same protocol (and the repetition loop built on it in
// measure.hpp) serves our coroutine algorithms (AlgorithmCall) and any other implementation of
// a collective, such as Open MPI's own MPI_Bcast forced to one of its algorithms.
#pragma once

#include <mpi.h>

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "comm/trace.hpp"
#include "engines/mpi/clock_sync.hpp"

namespace collsim {

// One rank's side of the thing being timed.
class CollectiveCall {
 public:
  virtual ~CollectiveCall() = default;
  // Untimed, before every call: fresh input and output buffers, so each call is checked on its
  // own and never finds the previous call's result already in place.
  virtual void prepare() = 0;
  // The timed part. `start_wtime` is the common start date on this rank's clock (MPI_Wtime
  // unless TimerOptions::clock says otherwise).
  virtual void run(double start_wtime) = 0;
  // Untimed, after every call: "" when this rank's output is right, else the first wrong byte.
  virtual std::string check() = 0;
  // Names the call in error messages: "bcast/binomial on 4 processes (root 0, 8 bytes)".
  virtual std::string describe() const = 0;
  // The call's time from every rank's finish: the last one unless the call says otherwise.
  virtual double time_from(const std::vector<double>& finish_s) const;
  // The next run() records this rank's events into `sink` (comm/trace.hpp), the runs after it
  // nothing. Times are from the common start date converted to this rank's clock, so the clock
  // offsets are applied and the ranks' events share one time axis. Throws InputError when the
  // call cannot be traced: the default, as a collective inside MPI shows none of its messages.
  virtual void trace_next_run(TraceSink* sink);
};

struct TimerOptions {
  int sync_rounds = 32;  // ping-pongs per rank for the clock offsets
  // How far ahead of its clock rank 0 sets the start date: at first initial_lead_s, then twice
  // the longest time the date took to reach a rank over the last lead_window calls, within
  // [min_lead_s, max_lead_s]. Long enough that ranks are rarely late, short enough not to
  // make every call wait for nothing.
  double initial_lead_s = 1e-3;
  double min_lead_s = 1e-4;
  double max_lead_s = 0.25;
  int lead_window = 8;
  // Clocks drift apart between nodes (a few microseconds per second), so the offsets are measured
  // again when the last synchronisation is older than both resync_min_interval_s and
  // 1 / resync_max_overhead times what it took (the cost of a sync grows with the ranks).
  double resync_min_interval_s = 1.0;
  double resync_max_overhead = 0.05;
  // How long a rank whose call threw waits for the others to finish theirs before it aborts the
  // job: they may be blocked forever on a message it will never send.
  double patience_s = 10;
  // What every date of the protocol is read from (tests set it off from MPI_Wtime by rank).
  WallClock clock = &MPI_Wtime;
};

struct CallTiming {
  double time_s = 0;             // latest finish over the ranks
  std::vector<double> finish_s;  // per rank: finish minus the common start, on rank 0's clock
  int late_ranks = 0;            // ranks that reached the start date after it had passed
  double max_late_s = 0;         // how late the latest of them was (their lateness is in time_s)
  std::string data_error;        // lowest rank's first wrong byte; empty when every rank is right
};

class CallTimer {
 public:
  // Collective over `comm`: duplicates it for the protocol's own messages and synchronises clocks.
  explicit CallTimer(MPI_Comm comm, const TimerOptions& options = {});
  ~CallTimer();
  CallTimer(const CallTimer&) = delete;
  CallTimer& operator=(const CallTimer&) = delete;

  // Collective: prepares, runs and checks `call` once. Every rank returns the same CallTiming.
  // A call that throws on any rank throws EngineError on every rank, with the lowest failing
  // rank's message (or aborts the job if the other ranks stay stuck in the call).
  CallTiming time(CollectiveCall& call);

  const ClockSync& clock() const { return *clock_; }
  double lead_s() const { return lead_; }
  // Clock synchronisations so far, the one at construction included.
  int syncs() const { return syncs_; }

 private:
  // Lowest rank whose call threw, lowest rank whose output was wrong (size_ when none), and
  // whether rank 0 asked for a clock synchronisation.
  struct Agreement {
    int failed_rank = 0;
    int wrong_rank = 0;
    bool resync = false;
  };
  Agreement agree(bool failed, bool wrong, const std::string& failure, bool resync = false);
  void synchronise_clocks();
  std::string text_from(int rank, const std::string& mine);

  MPI_Comm ctrl_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  TimerOptions options_;
  double lead_ = 0;
  std::deque<double> delivery_s_;  // per recent call: latest arrival after the date was chosen
  std::unique_ptr<ClockSync> clock_;
  double synced_at_ = 0;    // rank 0's clock at the end of the last synchronisation
  double sync_cost_s_ = 0;  // how long it took
  int syncs_ = 0;
};

}  // namespace collsim
