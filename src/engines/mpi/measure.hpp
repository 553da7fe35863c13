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

#include "engines/mpi/call_timer.hpp"
#include "engines/mpi/statistics.hpp"
#include "engines/run.hpp"
#include "experiment/measurement.hpp"

namespace collsim {

struct MeasureOptions {
  int warmup = 2;  // untimed calls first: connections, caches and the start-date lead settle
  StopRule stop;
  TimerOptions timer;
  // When set, this rank's events of the first timed call (samples_s[0], the one right after the
  // warm-up) are recorded into it (CollectiveCall::trace_next_run); gather_trace merges them.
  TraceSink* trace = nullptr;
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

inline constexpr const char* kEngineMpi = "mpi";
inline constexpr const char* kEngineMpiNative = "mpi-native";

// measure() for one of our algorithms, with the row's identity filled in (engine "mpi").
MpiMeasurement measure_algorithm(MPI_Comm comm, const RunSpec& spec, const MeasureOptions& options);
// measure() for Open MPI's own collective forced to spec's algorithm and knobs (engine
// "mpi-native"). Throws InputError when Open MPI cannot be forced to it (native_support()).
MpiMeasurement measure_native(MPI_Comm comm, const RunSpec& spec, const MeasureOptions& options);
// The call an engine times: AlgorithmCall ("mpi") or NativeCall ("mpi-native"), over its own
// duplicate of `comm`; InputError for any other engine name or a spec the engine cannot run.
std::unique_ptr<CollectiveCall> make_call(MPI_Comm comm, std::string_view engine, const RunSpec& spec);
// measure() of make_call(), the row's identity filled in.
MpiMeasurement measure_engine(MPI_Comm comm, std::string_view engine, const RunSpec& spec,
                              const MeasureOptions& options);

// Collective: one call of spec's algorithm under the timing protocol, with its data checked.
// Every rank returns the same result; spec.trace, when set, gets this rank's events of the call.
RunResult run_mpi(MPI_Comm comm, const RunSpec& spec, const TimerOptions& options = {});

}  // namespace collsim
