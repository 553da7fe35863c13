// Scale benchmark of the model engine: a binomial broadcast on 2^k ranks in one process.
//
// Prints the simulated time (checked against the closed form H * (alpha + beta*m)), the wall
// and CPU time (user + system: the machine is shared, so wall time alone misleads), the peak
// resident memory and the derived costs per rank and per message. Run:
//   build/release/bin/model_scale [log2_ranks=20] [bytes=1MiB] [segment=0]
//   build/release/bin/model_scale --trace-overhead [log2_ranks=18]
// The second form measures what the trace seam costs: the same run with no sink (tracing off, as
// every run that asks for no trace) and with a sink that only counts the events, alternated five
// times in one process, and prints the median of each and their ratio. A traced run also starts
// every rank at time 0 (AlgorithmInfo::receives_first), so the ratio includes holding them all.
// Results and where the time and memory go: tools/bench/README.md, "Scale: model engine".
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "algorithms/segmentation.hpp"
#include "algorithms/topology/tree.hpp"
#include "engines/model/model_engine.hpp"
#include "registry/registry.hpp"
#include "support/units.hpp"

namespace {

class CountingSink final : public collsim::TraceSink {
 public:
  void record(const collsim::TraceEvent&) override { ++events; }
  std::size_t events = 0;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int trace_overhead(int log2p) {
  using namespace collsim;
  RunSpec spec;
  spec.algorithm = find_algorithm("bcast/binomial");
  spec.procs = 1 << log2p;
  spec.bytes = 1 << 20;
  spec.real_bytes = false;
  const ModelConfig config;
  CountingSink sink;
  std::vector<double> off, on;
  double time_off = 0, time_on = 0;
  for (int round = 0; round < 5; ++round)
    for (bool traced : {round % 2 == 0, round % 2 != 0}) {
      spec.trace = traced ? &sink : nullptr;
      const auto t0 = std::chrono::steady_clock::now();
      const RunResult r = run_model(config, spec);
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      (traced ? on : off).push_back(wall);
      (traced ? time_on : time_off) = r.time_s;
    }
  std::printf("bcast/binomial on 2^%d ranks, 1MiB, model engine (Hockney), 5 runs each, alternated\n", log2p);
  std::printf("tracing off (no sink)        median %.3f s\n", median(off));
  std::printf("tracing on (counting sink)   median %.3f s  (%zu events per run)\n", median(on), sink.events / 5);
  std::printf("on / off                     %.3f\n", median(on) / median(off));
  std::printf("simulated time off / on      %s / %s  %s\n", format_seconds(time_off).c_str(),
              format_seconds(time_on).c_str(), time_off == time_on ? "same" : "DIFFERENT");
  return time_off == time_on ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace collsim;
  if (argc > 1 && std::strcmp(argv[1], "--trace-overhead") == 0) {
    const int log2p = argc > 2 ? std::atoi(argv[2]) : 18;
    if (log2p < 1 || log2p > 24) {
      std::fprintf(stderr, "usage: model_scale --trace-overhead [log2_ranks 1..24]\n");
      return 2;
    }
    return trace_overhead(log2p);
  }
  const int log2p = argc > 1 ? std::atoi(argv[1]) : 20;
  const auto bytes = argc > 2 ? parse_bytes(argv[2]) : std::optional<std::size_t>(1 << 20);
  const auto segment = argc > 3 ? parse_bytes(argv[3]) : std::optional<std::size_t>(0);
  if (log2p < 0 || log2p > 26 || !bytes || !segment) {
    std::fprintf(stderr, "usage: model_scale [log2_ranks 0..26] [bytes] [segment]\n");
    return 2;
  }
  RunSpec spec;
  spec.algorithm = find_algorithm("bcast/binomial");
  spec.procs = 1 << log2p;
  spec.bytes = *bytes;
  spec.params.segment = *segment;
  spec.real_bytes = false;
  ModelConfig config;

  const auto t0 = std::chrono::steady_clock::now();
  const RunResult r = run_model(config, spec);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const double peak_mib = static_cast<double>(usage.ru_maxrss) / 1024.0;

  const double messages =
      static_cast<double>(spec.procs - 1) * static_cast<double>(Segmentation(spec.bytes, spec.params.segment).count());
  std::printf("bcast/binomial on %d ranks (2^%d), %s, segment %s, model engine (Hockney)\n", spec.procs, log2p,
              format_bytes(spec.bytes).c_str(), format_bytes(*segment).c_str());
  std::printf("simulated time  %s\n", format_seconds(r.time_s).c_str());
  int status = 0;
  if (*segment == 0 || *segment >= spec.bytes) {
    const double expected = binomial_tree_height(spec.procs) * config.hockney.transfer(static_cast<double>(spec.bytes));
    const bool ok = std::fabs(r.time_s - expected) <= 1e-12 * expected;
    std::printf("closed form     %s  (H = %d)  %s\n", format_seconds(expected).c_str(),
                binomial_tree_height(spec.procs), ok ? "match" : "MISMATCH");
    status = ok ? 0 : 1;
  }
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
  const double user = seconds(usage.ru_utime), sys = seconds(usage.ru_stime);
  std::printf("wall time       %.3f s\n", wall);
  // Setup is mostly first touches of fresh memory: a few tenths of a second when the pages were
  // freed lately, several times that when the VM's host must supply them (a first run).
  std::printf(
      "  of which      %.3f s building and starting the ranks, %.3f s event loop (%lld events), "
      "%.3f s freeing\n",
      r.setup_wall_s, r.loop_wall_s, static_cast<long long>(r.events), wall - r.setup_wall_s - r.loop_wall_s);
  std::printf("cpu time        %.3f s  (user %.3f + system %.3f, whole process)\n", user + sys, user, sys);
  std::printf("peak memory     %.1f MiB\n", peak_mib);
  // LogGOPSim, the reference large-scale LogGP simulator, needs about 630 bytes per rank.
  const double bytes_per_rank = peak_mib * 1048576.0 / spec.procs;
  std::printf("per rank        %.0f bytes (LogGOPSim: ~630), %.3f us\n", bytes_per_rank, wall * 1e6 / spec.procs);
  std::printf("per message     %.3f us  (%.0f messages)\n", wall * 1e6 / messages, messages);
  return status;
}
