// The mpi engine's entry points: one timed call (run_mpi, like the simulated engines' runs), and
// a measured point (warm-up, then repetition until the confidence interval is tight).
//
// measure() takes any CollectiveCall, so a point can be measured for our algorithms
// (measure_algorithm, engine "mpi") or for another implementation of the collective plugged in
// the same way (e.g. Open MPI's own, engine "mpi-native").
#pragma once

#include <mpi.h>

#include <vector>

#include "engines/mpi/call_timer.hpp"
#include "engines/mpi/statistics.hpp"
#include "engines/run.hpp"
#include "experiment/measurement.hpp"

namespace collsim {

struct MeasureOptions {
  int warmup = 2;  // untimed calls first: connections, caches and the start-date lead settle
  StopRule stop;
  TimerOptions timer;
};

struct MpiMeasurement {
  Measurement row;                // statistics of the timed runs; time_s is their median
  std::vector<double> samples_s;  // every timed run, in order
  int late_runs = 0;              // timed runs in which a rank reached the start date late
  double max_late_s = 0;          // the latest such arrival; it inflated that run's time
  double lead_s = 0;              // start-date lead at the end
  double clock_rtt_s = 0;         // worst round trip of the kept clock-sync samples
};

// Collective over `comm`: measures `call` and fills row's statistics, runs and data ("ok" or
// the first wrong byte; measuring stops at the first call with a wrong byte). Every rank returns
// the same result. Throws InputError on inconsistent options, EngineError when a call fails.
MpiMeasurement measure(MPI_Comm comm, CollectiveCall& call, const MeasureOptions& options);

// measure() for one of our algorithms, with the row's identity filled in (engine "mpi").
MpiMeasurement measure_algorithm(MPI_Comm comm, const RunSpec& spec,
                                 const MeasureOptions& options);

// Collective: one call of spec's algorithm under the timing protocol, with its data checked.
// Every rank returns the same result.
RunResult run_mpi(MPI_Comm comm, const RunSpec& spec, const TimerOptions& options = {});

}  // namespace collsim
