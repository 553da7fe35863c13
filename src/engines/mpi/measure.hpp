// The mpi engines' entry points: one timed call (run_mpi, like the simulated engines' runs), and
// a measured point (warm-up, then repetition until the confidence interval is tight).
//
// measure() takes any CollectiveCall, so the same protocol and stop rule measure our algorithms
// (measure_algorithm, engine "mpi") and Open MPI's own MPI_Bcast / MPI_Gather forced to the
// algorithm of the same name (measure_native, engine "mpi-native", see native_call.hpp).
#pragma once

#include <mpi.h>

#include <memory>
#include <string_view>
#include <vector>

#include "engines/engine.hpp"
#include "engines/mpi/call_timer.hpp"
#include "engines/run.hpp"
#include "support/statistics.hpp"

namespace collsim {

struct MeasureOptions {
  int warmup = 2;  // untimed calls first: connections, caches and the start-date lead settle
  StopRule stop;
  TimerOptions timer;
  // When set, this rank's events of the first timed call (samples_s[0], the one right after the
  // warm-up) are recorded into it (CollectiveCall::trace_next_run); gather_trace merges them.
  TraceSink* trace = nullptr;
};

// What measuring a point found; experiment/results/measurement.hpp makes a results row of it.
struct MpiMeasurement {
  Summary summary;                // of the timed runs; the point's time is their median
  bool ci_met = false;            // the stop rule's target was met (StopRule::met), not --max-runs
  std::string data;               // "ok", or the first wrong byte (measuring stopped at that call)
  std::vector<double> samples_s;  // every timed run, in order
  int late_runs = 0;              // timed runs in which a rank reached the start date late
  double max_late_s = 0;          // the latest such arrival; it inflated that run's time
  double lead_s = 0;              // start-date lead at the end
  double clock_rtt_s = 0;         // worst round trip of the kept clock-sync samples
};

// Collective over `comm`: measures `call`. Every rank returns the same result. Throws InputError on inconsistent
// options, EngineError when a call fails.
MpiMeasurement measure(MPI_Comm comm, CollectiveCall& call, const MeasureOptions& options);

// measure() for one of our algorithms (engine "mpi").
MpiMeasurement measure_algorithm(MPI_Comm comm, const RunSpec& spec, const MeasureOptions& options);
// measure() for Open MPI's own collective forced to spec's algorithm and knobs (engine
// "mpi-native"). Throws InputError when Open MPI cannot be forced to it (native_support()).
MpiMeasurement measure_native(MPI_Comm comm, const RunSpec& spec, const MeasureOptions& options);
// The call an engine times: AlgorithmCall ("mpi") or NativeCall ("mpi-native"), over its own
// duplicate of `comm`; InputError for any other engine or a spec the engine cannot run.
std::unique_ptr<CollectiveCall> make_call(MPI_Comm comm, Engine engine, const RunSpec& spec);
// measure() of make_call().
MpiMeasurement measure_engine(MPI_Comm comm, Engine engine, const RunSpec& spec, const MeasureOptions& options);

// Collective: one call of spec's algorithm under the timing protocol, with its data checked.
// Every rank returns the same result; spec.trace, when set, gets this rank's events of the call.
RunResult run_mpi(MPI_Comm comm, const RunSpec& spec, const TimerOptions& options = {});

}  // namespace collsim
