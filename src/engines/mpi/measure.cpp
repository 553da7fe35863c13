#include "engines/mpi/measure.hpp"

#include <algorithm>

#include "engines/mpi/algorithm_call.hpp"
#include "engines/mpi/native_call.hpp"

namespace collsim {

namespace {
void validate(const MeasureOptions& o) {
  if (o.warmup < 0) throw InputError("warm-up calls must be >= 0");
  if (o.stop.min_runs < 1) throw InputError("--min-runs must be at least 1");
  if (o.stop.max_runs < o.stop.min_runs)
    throw InputError("--max-runs " + std::to_string(o.stop.max_runs) + " is below --min-runs " +
                     std::to_string(o.stop.min_runs));
  if (!(o.stop.ci_target > 0)) throw InputError("--ci-target must be above 0");
}
}  // namespace

MpiMeasurement measure(MPI_Comm comm, CollectiveCall& call, const MeasureOptions& options) {
  validate(options);
  CallTimer timer(comm, options.timer);
  MpiMeasurement out;
  std::string wrong;
  for (int i = 0; i < options.warmup && wrong.empty(); ++i) wrong = timer.time(call).data_error;

  // Every rank holds the same timings, so every rank takes the same decision to stop without
  // another message.
  Summary summary;
  if (options.trace && wrong.empty()) call.trace_next_run(options.trace);
  while (wrong.empty()) {
    const CallTiming t = timer.time(call);
    wrong = t.data_error;
    out.samples_s.push_back(t.time_s);
    if (t.late_ranks > 0) {
      ++out.late_runs;
      out.max_late_s = std::max(out.max_late_s, t.max_late_s);
    }
    summary = summarize(out.samples_s);
    if (options.stop.done(summary)) break;
  }

  out.summary = summary;
  out.ci_met = options.stop.met(summary);
  out.data = wrong.empty() ? "ok" : wrong;
  out.lead_s = timer.lead_s();
  out.clock_rtt_s = timer.clock().worst_rtt_s();
  return out;
}

MpiMeasurement measure_algorithm(MPI_Comm comm, const RunSpec& spec, const MeasureOptions& options) {
  validate(options);
  AlgorithmCall call(comm, spec);
  return measure(comm, call, options);
}

MpiMeasurement measure_native(MPI_Comm comm, const RunSpec& spec, const MeasureOptions& options) {
  validate(options);
  NativeCall call(comm, spec);
  return measure(comm, call, options);
}

std::unique_ptr<CollectiveCall> make_call(MPI_Comm comm, Engine engine, const RunSpec& spec) {
  switch (engine) {
    case Engine::mpi: return std::make_unique<AlgorithmCall>(comm, spec);
    case Engine::mpi_native: return std::make_unique<NativeCall>(comm, spec);
    default: throw InputError(not_an_engine(engine_name(engine), {Engine::mpi, Engine::mpi_native}, "an MPI engine"));
  }
}

MpiMeasurement measure_engine(MPI_Comm comm, Engine engine, const RunSpec& spec, const MeasureOptions& options) {
  validate(options);
  const auto call = make_call(comm, engine, spec);
  return measure(comm, *call, options);
}

RunResult run_mpi(MPI_Comm comm, const RunSpec& spec, const TimerOptions& options) {
  AlgorithmCall call(comm, spec);
  if (spec.trace) call.trace_next_run(spec.trace);
  CallTimer timer(comm, options);
  CallTiming t = timer.time(call);
  RunResult r;
  r.time_s = t.time_s;
  r.finish_s = std::move(t.finish_s);
  r.data_error = std::move(t.data_error);
  return r;
}

}  // namespace collsim
