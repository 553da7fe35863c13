// Fidelity of our algorithms to Open MPI's: each algorithm measured against Open MPI's own
// implementation of it (the mpi-native engine) on the same processes, bytes and timing protocol.
//
// The two are measured interleaved, one timed call each in turn, so that the machine's noise
// (other jobs, frequency changes, an oversubscribed core) falls on both alike; the order of the
// pair alternates (ours first, then native first: A B B A A B ...) so that neither always runs
// right after the other. Calls are repeated until both series meet the stop rule (each one's
// 95% confidence interval within the target of its mean, at least min_runs each) or max_runs.
#pragma once

#include <mpi.h>

#include <functional>
#include <string>
#include <vector>

#include "engines/mpi/call_timer.hpp"
#include "engines/mpi/measure.hpp"
#include "engines/run.hpp"
#include "support/statistics.hpp"

namespace collsim {

struct PairedSeries {
  std::vector<double> first_s, second_s;  // timed runs of each call, in order
  int late_runs = 0;                      // runs of either in which a rank started late
  std::string data = "ok";                // "ok", or the first wrong byte (measuring stopped)
};

// Collective: warm-up calls of both, then timed calls alternating between `first` and `second`
// until options.stop is met by both series. Every rank returns the same series.
PairedSeries measure_interleaved(CallTimer& timer, CollectiveCall& first, CollectiveCall& second,
                                 const MeasureOptions& options);

// Defaults of the fidelity benchmark: the setting of the paper the project reproduces.
struct FidelityOptions {
  // Empty: every registered algorithm that runs on the communicator's size (two_proc ones only
  // on 2 processes).
  std::vector<const AlgorithmInfo*> algorithms;
  // The call's size as the operation's descriptor says (bcast: the message; gather: bytes per
  // process); a reducing operation's is rounded down to whole elements of `reduction`'s type (one
  // at least); a barrier has the single size 0.
  std::vector<std::size_t> sizes;
  std::size_t segment = 8192;                             // for the bcasts and reduces that take a segment size
  std::size_t gather_segment = 1024;                      // gather/linear_sync's first segment
  int root = 0;                                           // of the rooted operations
  Reduction reduction{Datatype::float64, ReduceOp::sum};  // of the reducing operations
  MeasureOptions measure;
};

struct FidelityPoint {
  RunSpec spec;
  Summary ours, native;
  double ratio = 0;         // ours.median / native.median
  double paired_ratio = 0;  // median over the pairs of ours / native (the two calls in a row)
  // Both series met the stop rule's confidence target (StopRule::met); false when the calls
  // stopped at max_runs with either interval wider, or at a wrong byte.
  bool ci_met = false;
  int late_runs = 0;
  std::string data = "ok";
};

// The spec that the benchmark measures for `algorithm` at `bytes` on `procs` processes: the
// segment of its kind (none for the algorithms without one), the root where it has one, the
// reduction where it reduces, default fanout, radix and max_requests.
RunSpec fidelity_spec(const AlgorithmInfo& algorithm, std::size_t bytes, int procs, const FidelityOptions& options);

// The sizes the benchmark measures `algorithm` at: options.sizes as fidelity_spec rounds them,
// each once (a barrier: 0 only).
std::vector<std::size_t> fidelity_sizes(const AlgorithmInfo& algorithm, const FidelityOptions& options);

// The algorithms measure_fidelity measures, in its order: options.algorithms, or every registered
// one that runs on the communicator's size. Throws InputError when there are no sizes, or one of
// them cannot run there or Open MPI cannot run it at one of the sizes: what measure_fidelity
// refuses before measuring anything, for a caller to check before it prints anything.
std::vector<const AlgorithmInfo*> fidelity_algorithms(MPI_Comm comm, const FidelityOptions& options);

// Collective over `comm`: every algorithm at every size, ours against Open MPI's. `on_point` is
// called on every rank after each point (e.g. to print progress). Throws InputError as
// fidelity_algorithms does (before measuring anything), EngineError when a call fails.
std::vector<FidelityPoint> measure_fidelity(MPI_Comm comm, const FidelityOptions& options,
                                            const std::function<void(const FidelityPoint&)>& on_point = {});

// Median of the points' ratios per algorithm, in the order the algorithms were measured. Where
// run times are bimodal (ranks sharing a core: a call is fast or slow depending on which ranks
// the scheduler runs), the medians of the two series can land in different modes and their
// ratio jump; the paired ratio, of calls made one after the other, does not.
struct FidelitySummary {
  const AlgorithmInfo* algorithm = nullptr;
  double median_ratio = 0;  // of the points' ratios of medians
  double min_ratio = 0, max_ratio = 0;
  double median_paired_ratio = 0;  // of the points' paired ratios
  int points = 0;
};
std::vector<FidelitySummary> summarize_fidelity(const std::vector<FidelityPoint>& points);

// A median ratio outside [0.85, 1.15] flags an algorithm whose implementation or behaviour
// differs from Open MPI's.
inline constexpr double kFidelityBandLow = 0.85;
inline constexpr double kFidelityBandHigh = 1.15;

}  // namespace collsim
