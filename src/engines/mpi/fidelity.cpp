#include "engines/mpi/fidelity.hpp"

#include <algorithm>
#include <map>
#include <memory>

#include "engines/mpi/algorithm_call.hpp"
#include "engines/mpi/mpi_comm.hpp"
#include "engines/mpi/native_call.hpp"

namespace collsim {

namespace {
double median_of(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}
}  // namespace

PairedSeries measure_interleaved(CallTimer& timer, CollectiveCall& first, CollectiveCall& second,
                                 const MeasureOptions& options) {
  PairedSeries out;
  auto timed = [&](CollectiveCall& call, std::vector<double>* into) {
    const CallTiming t = timer.time(call);
    if (!t.data_error.empty()) out.data = t.data_error;
    if (!into) return;
    into->push_back(t.time_s);
    if (t.late_ranks > 0) ++out.late_runs;
  };
  for (int i = 0; i < options.warmup && out.data == "ok"; ++i) {
    timed(first, nullptr);
    timed(second, nullptr);
  }
  // Every rank holds the same timings, so every rank stops at the same pair.
  for (std::size_t pair = 0; out.data == "ok"; ++pair) {
    if (pair % 2 == 0) {
      timed(first, &out.first_s);
      timed(second, &out.second_s);
    } else {
      timed(second, &out.second_s);
      timed(first, &out.first_s);
    }
    if (options.stop.done(summarize(out.first_s)) && options.stop.done(summarize(out.second_s))) break;
  }
  return out;
}

namespace {
// A size as the algorithm's operation takes it (see FidelityOptions::sizes).
std::size_t size_for(const AlgorithmInfo& algorithm, std::size_t bytes, const FidelityOptions& options) {
  const OperationInfo& info = operation_info(algorithm.op);
  if (!info.moves_data) return 0;
  if (!info.reduces) return bytes;
  const std::size_t element = size_of(options.reduction.type);
  return std::max(bytes / element, std::size_t{1}) * element;
}
}  // namespace

RunSpec fidelity_spec(const AlgorithmInfo& algorithm, std::size_t bytes, int procs, const FidelityOptions& options) {
  const OperationInfo& info = operation_info(algorithm.op);
  RunSpec spec;
  spec.algorithm = &algorithm;
  spec.procs = procs;
  spec.bytes = size_for(algorithm, bytes, options);
  if (info.rooted) spec.params.root = options.root;
  if (info.reduces) spec.params.reduction = options.reduction;
  if (algorithm.takes(Knob::segment))
    spec.params.segment = algorithm.op == Operation::gather ? options.gather_segment : options.segment;
  return spec;
}

std::vector<std::size_t> fidelity_sizes(const AlgorithmInfo& algorithm, const FidelityOptions& options) {
  std::vector<std::size_t> out;
  for (std::size_t bytes : options.sizes) {
    const std::size_t s = size_for(algorithm, bytes, options);
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  }
  return out;
}

std::vector<const AlgorithmInfo*> fidelity_algorithms(MPI_Comm comm, const FidelityOptions& options) {
  int procs = 1;
  MPI_Comm_size(comm, &procs);
  std::vector<const AlgorithmInfo*> algorithms = options.algorithms;
  if (algorithms.empty())
    for (const auto& a : all_algorithms())
      if (runs_on(a, procs) && a.in_open_mpi()) algorithms.push_back(&a);
  if (options.sizes.empty()) throw InputError("fidelity: no sizes to measure");

  // Refuse up front rather than after an hour of measuring.
  for (const AlgorithmInfo* a : algorithms) {
    if (!runs_on(*a, procs))
      throw InputError("fidelity: " + std::string(a->name) + " does not run on " + std::to_string(procs) +
                       " processes");
    for (std::size_t bytes : fidelity_sizes(*a, options)) {
      const RunSpec spec = fidelity_spec(*a, bytes, procs, options);
      check_fits(comm, spec);
      if (std::string why = native_support(*a, spec.params, bytes); !why.empty())
        throw InputError("mpi-native " + describe(spec) + ": " + why);
    }
  }
  return algorithms;
}

std::vector<FidelityPoint> measure_fidelity(MPI_Comm comm, const FidelityOptions& options,
                                            const std::function<void(const FidelityPoint&)>& on_point) {
  int procs = 1;
  MPI_Comm_size(comm, &procs);
  const std::vector<const AlgorithmInfo*> algorithms = fidelity_algorithms(comm, options);
  MpiComm ours_comm(comm);
  CallTimer timer(comm, options.measure.timer);
  std::vector<FidelityPoint> points;
  for (const AlgorithmInfo* a : algorithms) {
    const RunSpec first = fidelity_spec(*a, options.sizes.front(), procs, options);
    ForcedComm forced(comm, *a, first.params);
    for (std::size_t bytes : fidelity_sizes(*a, options)) {
      FidelityPoint p;
      p.spec = fidelity_spec(*a, bytes, procs, options);
      AlgorithmCall ours(ours_comm, p.spec);
      NativeCall native(forced, p.spec);
      const PairedSeries series = measure_interleaved(timer, ours, native, options.measure);
      p.ours = summarize(series.first_s);
      p.native = summarize(series.second_s);
      p.ratio = p.native.median > 0 ? p.ours.median / p.native.median : 0;
      std::vector<double> ratios;
      for (std::size_t i = 0; i < series.first_s.size() && i < series.second_s.size(); ++i)
        if (series.second_s[i] > 0) ratios.push_back(series.first_s[i] / series.second_s[i]);
      p.paired_ratio = median_of(ratios);
      p.ci_met = options.measure.stop.met(p.ours) && options.measure.stop.met(p.native);
      p.late_runs = series.late_runs;
      p.data = series.data;
      points.push_back(p);
      if (on_point) on_point(points.back());
    }
  }
  return points;
}

std::vector<FidelitySummary> summarize_fidelity(const std::vector<FidelityPoint>& points) {
  std::vector<FidelitySummary> out;
  std::map<const AlgorithmInfo*, std::vector<double>> ratios, paired;
  for (const auto& p : points) {
    if (ratios.find(p.spec.algorithm) == ratios.end()) {
      out.push_back({});
      out.back().algorithm = p.spec.algorithm;
    }
    ratios[p.spec.algorithm].push_back(p.ratio);
    paired[p.spec.algorithm].push_back(p.paired_ratio);
  }
  for (auto& s : out) {
    const auto& r = ratios[s.algorithm];
    s.median_ratio = median_of(r);
    s.median_paired_ratio = median_of(paired[s.algorithm]);
    s.min_ratio = *std::min_element(r.begin(), r.end());
    s.max_ratio = *std::max_element(r.begin(), r.end());
    s.points = static_cast<int>(r.size());
  }
  return out;
}

}  // namespace collsim
