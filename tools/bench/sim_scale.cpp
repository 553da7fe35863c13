// Scale benchmark of the sim engine: one binomial broadcast (virtual bytes) on 2^k ranks in one
// SimGrid simulation.
//
// Prints the simulated time, the wall time, the peak resident memory of the simulation process
// (the engine forks it: getrusage(RUSAGE_CHILDREN) once it has been waited for) and the derived
// costs per rank and per message. Unless --platform is given it writes its own platform, a flat
// <cluster> (1.25 GBps, 10 us split-duplex private links, 3 GBps / 5 us loopback) with enough
// hosts for the ranks, into a temporary file that it removes. The protocol is the platform's, else
// the engine's default (tcp+shm), as for a user who chooses none. There, under the ideal protocol,
// unsegmented, one rank per host, without --cfg, every rank's finish time is checked against the
// closed form (CM02 without cross traffic: a route costs L = 20 us plus its bytes at the sender's
// up link, which a rank's k concurrent sends share, so each ends L + k*m/bw after they start).
// --trace records the run's events (comm/trace.hpp) and prints how many came back, to show what
// tracing costs. Run:
//   build/release/bin/sim_scale [log2_ranks=16] [bytes=1MiB] [segment=0]
//       [--protocol ideal|tcp|tcp+shm] [--ranks-per-host N] [--platform FILE] [--cfg KEY:VALUE]...
//       [--trace]
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/segmentation.hpp"
#include "algorithms/topology/tree.hpp"
#include "comm/trace.hpp"
#include "engines/sim/protocol.hpp"
#include "engines/sim/sim_engine.hpp"
#include "registry/registry.hpp"
#include "support/units.hpp"

namespace {

using namespace collsim;

// The generated platform's links (each route between two hosts crosses two of them).
constexpr double kLinkLatency = 10e-6;
constexpr double kBandwidth = 1.25e9;

[[noreturn]] void usage(const std::string& problem) {
  std::fprintf(stderr,
               "sim_scale: %s\nusage: sim_scale [log2_ranks 0..20] [bytes] [segment] [--protocol NAME] "
               "[--ranks-per-host N] [--platform FILE] [--cfg KEY:VALUE]... [--trace]\n",
               problem.c_str());
  std::exit(2);
}

// A temporary platform file that is removed when this goes out of scope.
class TempPlatform {
 public:
  TempPlatform(std::size_t hosts) {
    const char* dir = std::getenv("TMPDIR");
    path_ = std::string(dir && *dir ? dir : "/tmp") + "/sim_scale-XXXXXX.xml";
    const int fd = ::mkstemps(path_.data(), 4);
    if (fd < 0) {
      std::fprintf(stderr, "sim_scale: cannot create a platform file in %s: %s\n", path_.c_str(), std::strerror(errno));
      std::exit(2);
    }
    const std::string xml =
        "<?xml version='1.0'?>\n"
        "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
        "<platform version=\"4.1\">\n"
        "  <cluster id=\"scale\" prefix=\"node-\" suffix=\"\" radical=\"0-" +
        std::to_string(hosts - 1) +
        "\" speed=\"1Gf\" bw=\"1.25GBps\" lat=\"10us\" sharing_policy=\"SPLITDUPLEX\" loopback_bw=\"3GBps\" "
        "loopback_lat=\"5us\"/>\n"
        "</platform>\n";
    const bool ok = ::write(fd, xml.data(), xml.size()) == static_cast<ssize_t>(xml.size());
    ::close(fd);
    if (!ok) {
      std::fprintf(stderr, "sim_scale: cannot write %s\n", path_.c_str());
      std::remove(path_.c_str());
      std::exit(2);
    }
  }
  ~TempPlatform() { std::remove(path_.c_str()); }
  TempPlatform(const TempPlatform&) = delete;
  TempPlatform& operator=(const TempPlatform&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Every rank's finish time under the closed form (see the file comment), rank order.
std::vector<double> closed_form(int procs, double bytes) {
  const double route = 2 * kLinkLatency;
  std::vector<double> received(static_cast<std::size_t>(procs), 0.0), finish(received.size(), 0.0);
  for (int r = 0; r < procs; ++r) {  // a parent's rank is below its children's (root 0)
    const TreeNode node = binomial_tree(r, procs, 0);
    const auto k = static_cast<double>(node.children.size());
    const double done = received[static_cast<std::size_t>(r)] + (k > 0 ? route + k * bytes / kBandwidth : 0.0);
    finish[static_cast<std::size_t>(r)] = done;
    for (int c : node.children) received[static_cast<std::size_t>(c)] = done;
  }
  return finish;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> positional;
  SimConfig config;
  config.protocol = "";  // the platform's, else tcp+shm: what a user gets without --protocol
  bool own_platform = true;
  bool trace = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(a + " needs a value");
      return argv[++i];
    };
    if (a == "--protocol") {
      config.protocol = value();
      if (!is_protocol_name(config.protocol))
        usage("--protocol '" + config.protocol + "' is not one of " + protocol_names());
    } else if (a == "--ranks-per-host") {
      const std::string v = value();
      char* end = nullptr;
      const long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || n < 1 || n > (1 << 20)) usage("--ranks-per-host '" + v + "' is not 1..2^20");
      config.map_by = {models::MapBy::Policy::ppr_node, static_cast<int>(n)};
    } else if (a == "--platform") {
      config.platform_file = value();
      own_platform = false;
    } else if (a == "--cfg") {
      config.cfg.push_back(value());
    } else if (a == "--trace") {
      trace = true;
    } else if (a.rfind("--", 0) == 0) {
      usage("unknown option " + a);
    } else {
      positional.push_back(a);
    }
  }
  if (positional.size() > 3) usage("too many arguments");
  const std::string log2_text = positional.size() > 0 ? positional[0] : "16";
  char* end = nullptr;
  const long log2p = std::strtol(log2_text.c_str(), &end, 10);
  if (log2_text.empty() || *end != '\0' || log2p < 0 || log2p > 20)
    usage("log2_ranks '" + log2_text + "' is not 0..20");
  const auto bytes = positional.size() > 1 ? parse_bytes(positional[1]) : std::optional<std::size_t>(1 << 20);
  if (!bytes) usage("bytes '" + positional[1] + "' is not a size");
  const auto segment = positional.size() > 2 ? parse_bytes(positional[2]) : std::optional<std::size_t>(0);
  if (!segment) usage("segment '" + positional[2] + "' is not a size");

  RunSpec spec;
  spec.algorithm = find_algorithm("bcast/binomial");
  spec.procs = 1 << log2p;
  spec.bytes = *bytes;
  spec.params.segment = *segment;
  spec.real_bytes = false;
  TraceBuffer events;
  if (trace) spec.trace = &events;
  const auto rph = static_cast<std::size_t>(config.map_by.per);
  const std::size_t hosts = (static_cast<std::size_t>(spec.procs) + rph - 1) / rph;
  std::optional<TempPlatform> platform;
  if (own_platform) {
    platform.emplace(hosts);
    config.platform_file = platform->path();
    // Exactly latency + size / bandwidth on an idle route, max-min sharing (the closed form's model);
    // --cfg options come after these and win.
    config.cfg.insert(config.cfg.begin(), {"network/model:CM02", "network/crosstraffic:0", "network/TCP-gamma:1e15"});
  }

  RunResult result;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    run_sim(config, {&spec, 1}, [&](std::size_t, const RunResult& r) { result = r; });
  } catch (const InputError& e) {
    std::fprintf(stderr, "sim_scale: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sim_scale: %s\n", e.what());
    return 1;
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  rusage usage{};
  getrusage(RUSAGE_CHILDREN, &usage);  // the largest waited-for child: the simulation
  const double peak_mib = static_cast<double>(usage.ru_maxrss) / 1024.0;

  const double messages =
      static_cast<double>(spec.procs - 1) * static_cast<double>(Segmentation(spec.bytes, spec.params.segment).count());
  std::printf("bcast/binomial on %d ranks (2^%ld), %s, segment %s, sim engine, protocol %s, %d ranks per host%s\n",
              spec.procs, log2p, format_bytes(spec.bytes).c_str(), format_bytes(*segment).c_str(),
              result.protocol.c_str(), config.map_by.per, own_platform ? "" : (", " + config.platform_file).c_str());
  std::printf("simulated time  %s\n", format_seconds(result.time_s).c_str());
  int status = 0;
  if (own_platform && rph == 1 && config.protocol == "ideal" && (*segment == 0 || *segment >= spec.bytes) &&
      config.cfg.size() == 3) {
    const std::vector<double> want = closed_form(spec.procs, static_cast<double>(spec.bytes));
    // SimGrid resolves dates to about 1 ns (surf/precision): allow that per hop of the tree.
    const double tolerance = 1e-9 * static_cast<double>(binomial_tree_height(spec.procs) + 1);
    int wrong = 0;
    for (std::size_t r = 0; r < want.size(); ++r)
      if (r >= result.finish_s.size() || std::fabs(result.finish_s[r] - want[r]) > tolerance) ++wrong;
    double expected = 0;
    for (double f : want) expected = std::max(expected, f);
    const bool ok = wrong == 0 && std::fabs(result.time_s - expected) <= tolerance;
    std::printf("closed form     %s  (every rank's finish: %d of %d differ by more than %.0f ns)  %s\n",
                format_seconds(expected).c_str(), wrong, spec.procs, tolerance * 1e9, ok ? "match" : "MISMATCH");
    status = ok ? 0 : 1;
  }
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec);
  };
  std::printf("wall time       %.3f s  (simulation process: %.3f s user, %.3f s system)\n", wall,
              seconds(usage.ru_utime), seconds(usage.ru_stime));
  std::printf("peak memory     %.1f MiB (simulation process)\n", peak_mib);
  std::printf("per rank        %.0f bytes, %.3f us\n", peak_mib * 1048576.0 / spec.procs, wall * 1e6 / spec.procs);
  std::printf("messages        %.0f, %.0f per second of wall time\n", messages, messages / wall);
  if (trace)
    std::printf("trace           %zu events, %.1f per message\n", events.events().size(),
                static_cast<double>(events.events().size()) / messages);
  return status;
}
