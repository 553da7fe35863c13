#include "engines/mpi/measure.hpp"

#include <algorithm>

#include "engines/mpi/algorithm_call.hpp"

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

  Measurement& m = out.row;
  m.runs = static_cast<int>(summary.runs);
  m.mean_s = summary.mean;
  m.median_s = summary.median;
  m.min_s = summary.min;
  m.max_s = summary.max;
  m.ci95_s = summary.ci95;
  m.time_s = summary.median;
  m.data = wrong.empty() ? "ok" : wrong;
  out.lead_s = timer.lead_s();
  out.clock_rtt_s = timer.clock().worst_rtt_s();
  return out;
}

MpiMeasurement measure_algorithm(MPI_Comm comm, const RunSpec& spec,
                                 const MeasureOptions& options) {
  validate(options);
  AlgorithmCall call(comm, spec);
  MpiMeasurement out = measure(comm, call, options);
  Measurement& m = out.row;
  m.engine = "mpi";
  m.op = std::string(spec.algorithm->name);
  m.procs = spec.procs;
  m.bytes = spec.bytes;
  m.segment = spec.params.segment;
  m.root = spec.params.root;
  return out;
}

RunResult run_mpi(MPI_Comm comm, const RunSpec& spec, const TimerOptions& options) {
  AlgorithmCall call(comm, spec);
  CallTimer timer(comm, options);
  CallTiming t = timer.time(call);
  return RunResult{t.time_s, std::move(t.finish_s), std::move(t.data_error)};
}

}  // namespace collsim
