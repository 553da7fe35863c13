// collsim-mpi pingpong: round trips between rank 0 and a peer, per size, and the latency and
// bandwidth a platform file needs.
#include <algorithm>
#include <climits>
#include <iostream>
#include <string>
#include <vector>

#include "cli/mpi_commands.hpp"
#include "engines/mpi/pingpong.hpp"
#include "support/units.hpp"

namespace collsim {
namespace {

const char* const kAbout =
    "Rank 0 sends a message to the peer (rank 1), which sends it straight back; rank 0 times\n"
    "each round trip (RTT). Per size: warm-up round trips, then as many timed ones as fit in\n"
    "--time (within --min-runs and --max-runs); the bytes are checked at both ends. Other\n"
    "ranks, if any, wait asleep. Prints per size the min and median RTT, the one-way time\n"
    "(median RTT / 2) and size / one-way time, then the summary a platform file needs:\n"
    "  latency    half the median RTT of the smallest size (one way)\n"
    "  bandwidth  1 / slope of a least-squares line through the one-way times of the sizes\n"
    "             from --fit-from up (per-message constants, such as the rendezvous\n"
    "             handshake above the eager limit, drop out of a slope)\n"
    "For scripts, the two summary lines end with latency_s=SECONDS and bandwidth_Bps=BYTES/S.\n"
    "Exit status 0 when the data was right, 1 when not, 2 on bad input.";

std::vector<cli::OptionDef> pingpong_options() {
  return {
      {"sizes", "LIST", "message sizes, doubling from A to B (1..4MiB, the default) or listed (1,64KiB,4MiB)"},
      {"peer", "R", "the rank that answers rank 0 (default 1)"},
      {"time", "S", "aim for about S seconds of timed round trips per size (default 0.25)"},
      {"min-runs", "N", "timed round trips per size at least (default 5)"},
      {"max-runs", "N", "timed round trips per size at most (default 1000)"},
      {"warmup", "N",
       "untimed round trips per size first, at least 1: the last sizes the timed ones to --time (default 2)"},
      {"fit-from", "SIZE",
       "fit the bandwidth over the sizes from SIZE up, two of --sizes at least (default: the largest / 16)"},
      {"output", "FILE", "also write one CSV row per size to FILE (also -o FILE)"},
  };
}

std::string rate_text(double bytes_per_s) {
  return fixed(bytes_per_s * 8 / 1e6, 2) + " Mbit/s = " + fixed(bytes_per_s / 1e6, 3) + " MB/s";
}

PingPongOptions read_pingpong(const cli::ParsedOptions& options, int size) {
  PingPongOptions p;
  p.sizes = read_sizes(options, "1..4MiB");
  p.peer = static_cast<int>(options.integer("peer", 1, 1, INT_MAX));
  if (p.peer >= size)
    throw cli::UsageError("--peer " + std::to_string(p.peer) + " is not a rank of " + std::to_string(size) +
                          " processes" + (size < 2 ? " (pingpong needs mpirun -np 2)" : ""));
  p.time_per_size_s = options.real("time", 0.25, 0);
  p.min_runs = static_cast<int>(options.integer("min-runs", 5, 1, 1'000'000));
  p.max_runs = static_cast<int>(options.integer("max-runs", 1000, 1, 1'000'000));
  if (p.max_runs < p.min_runs)
    throw cli::UsageError("--max-runs " + std::to_string(p.max_runs) + " is below --min-runs " +
                          std::to_string(p.min_runs));
  p.warmup = static_cast<int>(options.integer("warmup", 2, 1, 1'000'000));
  if (options.has("fit-from")) {
    p.fit_from = options.bytes("fit-from", 0);
    if (p.fit_from == 0)
      throw cli::UsageError("--fit-from: 0 bytes is no size to fit from (without --fit-from: the largest size / 16)");
    const auto fitted = std::count_if(p.sizes.begin(), p.sizes.end(), [&](std::size_t b) { return b >= p.fit_from; });
    if (fitted < 2)
      throw cli::UsageError("--fit-from " + options.text("fit-from") + ": " + std::to_string(fitted) +
                            " of --sizes from it up, where the bandwidth fit needs 2 (the sizes end at " +
                            format_bytes(*std::max_element(p.sizes.begin(), p.sizes.end())) + ")");
  }
  return p;
}

void write_csv(std::ofstream& csv, const PingPongResult& r) {
  csv << "bytes,runs,min_rtt_s,median_rtt_s,mean_rtt_s,max_rtt_s,one_way_s,bandwidth_Bps\n";
  for (const auto& pt : r.points)
    csv << pt.bytes << "," << pt.rtt.runs << "," << format_real(pt.rtt.min) << "," << format_real(pt.rtt.median) << ","
        << format_real(pt.rtt.mean) << "," << format_real(pt.rtt.max) << "," << format_real(pt.one_way_s) << ","
        << format_real(pt.bandwidth_Bps) << "\n";
  csv.flush();
}

void print_table(const PingPongResult& r, int peer) {
  std::cout << "ping-pong between rank 0 on " << r.host << " and rank " << peer << " on " << r.peer_host
            << ", round trips timed on rank 0\n"
            << padded("size", 9, true) << padded("runs", 6, true) << padded("min RTT", 12, true)
            << padded("median RTT", 12, true) << padded("one-way", 12, true) << "  size/one-way\n";
  for (const auto& pt : r.points)
    std::cout << padded(format_bytes(pt.bytes), 9, true) << padded(std::to_string(pt.rtt.runs), 6, true)
              << padded(format_seconds(pt.rtt.min), 12, true) << padded(format_seconds(pt.rtt.median), 12, true)
              << padded(format_seconds(pt.one_way_s), 12, true) << "  " << rate_text(pt.bandwidth_Bps) << "\n";
  const PingPongFit& f = r.fit;
  std::cout << "latency    " << format_seconds(f.latency_s) << " one way (half the median RTT of "
            << format_bytes(f.latency_bytes) << ")   latency_s=" << format_real(f.latency_s) << "\n";
  std::cout << "bandwidth  " << (f.bandwidth_Bps > 0 ? rate_text(f.bandwidth_Bps) : std::string("unknown"))
            << " (slope over " << format_bytes(f.fit_from) << ".." << format_bytes(f.fit_to) << ", " << f.fit_points
            << " sizes; intercept " << format_seconds(f.intercept_s)
            << ")   bandwidth_Bps=" << format_real(f.bandwidth_Bps) << "\n";
  if (r.data != "ok") std::cout << "data: " << r.data << "\n";
  std::cout.flush();
}

int run_pingpong(int rank, int size, const cli::ParsedOptions& options) {
  const PingPongOptions p = read_pingpong(options, size);
  std::ofstream csv = open_csv(options, rank);

  const PingPongResult r = measure_pingpong(MPI_COMM_WORLD, p);
  if (rank == 0) {
    if (csv.is_open()) write_csv(csv, r);
    print_table(r, p.peer);
  }
  return data_status(r.data == "ok");
}

}  // namespace

cli::Command mpi_pingpong_command(int rank, int size) {
  return mpi_command("pingpong", "mpirun -np 2 collsim-mpi pingpong [options]",
                     "point-to-point latency and bandwidth between rank 0 and another rank", kAbout, pingpong_options(),
                     run_pingpong, rank, size);
}

}  // namespace collsim
