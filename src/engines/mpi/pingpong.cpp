#include "engines/mpi/pingpong.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>

#include "algorithms/input_pattern.hpp"
#include "engines/mpi/mpi_util.hpp"
#include "engines/run.hpp"

namespace collsim {

namespace {

constexpr int kTagCount = 71;  // rank 0 -> peer: how many timed round trips this size gets
constexpr int kTagPing = 72;
constexpr int kTagPong = 73;

// The message's bytes: rank 0's pattern of the collectives (no period, so a shifted or truncated
// message shows); the receive buffer starts as its complement.
unsigned char pattern_byte(std::size_t i) { return static_cast<unsigned char>(collsim::pattern_byte(0, i)); }

void fill_pattern(std::vector<unsigned char>& buffer, std::size_t bytes) {
  for (std::size_t i = 0; i < bytes; ++i) buffer[i] = pattern_byte(i);
}
void fill_complement(std::vector<unsigned char>& buffer, std::size_t bytes) {
  for (std::size_t i = 0; i < bytes; ++i) buffer[i] = static_cast<unsigned char>(~pattern_byte(i));
}
// "" when buffer[0, bytes) holds the pattern, otherwise the first wrong byte.
std::string check_pattern(const std::vector<unsigned char>& buffer, std::size_t bytes, const std::string& who) {
  for (std::size_t i = 0; i < bytes; ++i)
    if (buffer[i] != pattern_byte(i))
      return who + ": " + std::to_string(bytes) + "-byte message, byte " + std::to_string(i) + " is " +
             std::to_string(buffer[i]) + ", expected " + std::to_string(pattern_byte(i));
  return {};
}

std::string processor_name() {
  char name[MPI_MAX_PROCESSOR_NAME];
  int length = 0;
  MPI_Get_processor_name(name, &length);
  return std::string(name, static_cast<std::size_t>(length));
}

}  // namespace

PingPongFit fit_pingpong(const std::vector<PingPongPoint>& points, std::size_t fit_from) {
  PingPongFit fit;
  if (points.empty()) return fit;
  const auto smallest = std::min_element(
      points.begin(), points.end(), [](const PingPongPoint& a, const PingPongPoint& b) { return a.bytes < b.bytes; });
  fit.latency_s = smallest->one_way_s;
  fit.latency_bytes = smallest->bytes;

  std::vector<const PingPongPoint*> sorted;
  for (const auto& p : points) sorted.push_back(&p);
  std::sort(sorted.begin(), sorted.end(),
            [](const PingPongPoint* a, const PingPongPoint* b) { return a->bytes < b->bytes; });
  const std::size_t largest = sorted.back()->bytes;
  if (fit_from == 0) fit_from = largest / 16;
  std::vector<const PingPongPoint*> used;
  for (const PingPongPoint* p : sorted)
    if (p->bytes >= fit_from) used.push_back(p);
  if (used.size() < 2) used.assign(sorted.end() - std::min<std::ptrdiff_t>(2, std::ssize(sorted)), sorted.end());
  fit.fit_from = used.front()->bytes;
  fit.fit_to = used.back()->bytes;
  fit.fit_points = static_cast<int>(used.size());
  if (used.size() < 2) return fit;

  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const PingPongPoint* p : used) {
    const double x = static_cast<double>(p->bytes), y = p->one_way_s;
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  const double n = static_cast<double>(used.size());
  const double denominator = n * sxx - sx * sx;
  if (denominator <= 0) return fit;
  const double slope = (n * sxy - sx * sy) / denominator;
  fit.intercept_s = (sy - slope * sx) / n;
  fit.bandwidth_Bps = slope > 0 ? 1 / slope : 0;
  return fit;
}

PingPongResult measure_pingpong(MPI_Comm comm, const PingPongOptions& options) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (size < 2) throw InputError("pingpong needs at least 2 processes (mpirun -np 2)");
  if (options.peer < 1 || options.peer >= size)
    throw InputError("pingpong: --peer " + std::to_string(options.peer) + " is not a rank from 1 to " +
                     std::to_string(size - 1));
  if (options.sizes.empty()) throw InputError("pingpong: no sizes to measure");
  const std::size_t largest = *std::max_element(options.sizes.begin(), options.sizes.end());
  if (largest > static_cast<std::size_t>(INT_MAX))
    throw InputError("pingpong: " + std::to_string(largest) + " bytes is beyond an int count");
  if (options.min_runs < 1 || options.max_runs < options.min_runs || options.warmup < 0)
    throw InputError("pingpong: need 1 <= min runs <= max runs and warm-up >= 0");

  PingPongResult result;
  const std::string mine = processor_name();
  const bool measuring = rank == 0 || rank == options.peer;
  std::string problem;
  if (measuring) {
    // The peer tells rank 0 its host name, so that the report says where the two ran.
    char peer_name[MPI_MAX_PROCESSOR_NAME] = {};
    if (rank == 0) {
      result.host = mine;
      MPI_Status status;
      mpi_check(MPI_Recv(peer_name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, options.peer, kTagCount, comm, &status),
                "MPI_Recv");
      int length = 0;
      MPI_Get_count(&status, MPI_CHAR, &length);
      result.peer_host.assign(peer_name, static_cast<std::size_t>(std::max(length, 0)));
    } else {
      mpi_check(MPI_Send(mine.data(), static_cast<int>(mine.size()), MPI_CHAR, 0, kTagCount, comm), "MPI_Send");
    }

    std::vector<unsigned char> out(std::max<std::size_t>(largest, 1)), in(out.size());
    fill_pattern(out, largest);
    const int other = rank == 0 ? options.peer : 0;
    for (std::size_t bytes : options.sizes) {
      const int count = static_cast<int>(bytes);
      fill_complement(in, bytes);
      if (rank == 0) {
        auto round_trip = [&] {
          const double start = MPI_Wtime();
          mpi_check(MPI_Send(out.data(), count, MPI_BYTE, other, kTagPing, comm), "MPI_Send");
          mpi_check(MPI_Recv(in.data(), count, MPI_BYTE, other, kTagPong, comm, MPI_STATUS_IGNORE), "MPI_Recv");
          return MPI_Wtime() - start;
        };
        double last = 0;
        for (int i = 0; i < options.warmup; ++i) last = round_trip();
        int runs = options.min_runs;
        if (last > 0)
          runs = static_cast<int>(std::clamp(std::ceil(options.time_per_size_s / last),
                                             static_cast<double>(options.min_runs),
                                             static_cast<double>(options.max_runs)));
        mpi_check(MPI_Send(&runs, 1, MPI_INT, other, kTagCount, comm), "MPI_Send");
        std::vector<double> rtt;
        rtt.reserve(static_cast<std::size_t>(runs));
        for (int i = 0; i < runs; ++i) rtt.push_back(round_trip());
        if (problem.empty()) problem = check_pattern(in, bytes, "rank 0");
        PingPongPoint p;
        p.bytes = bytes;
        p.rtt = summarize(rtt);
        p.one_way_s = p.rtt.median / 2;
        p.bandwidth_Bps = p.one_way_s > 0 ? static_cast<double>(bytes) / p.one_way_s : 0;
        result.points.push_back(p);
      } else {
        auto echo = [&] {
          mpi_check(MPI_Recv(in.data(), count, MPI_BYTE, other, kTagPing, comm, MPI_STATUS_IGNORE), "MPI_Recv");
          mpi_check(MPI_Send(in.data(), count, MPI_BYTE, other, kTagPong, comm), "MPI_Send");
        };
        for (int i = 0; i < options.warmup; ++i) echo();
        int runs = 0;
        mpi_check(MPI_Recv(&runs, 1, MPI_INT, other, kTagCount, comm, MPI_STATUS_IGNORE), "MPI_Recv");
        for (int i = 0; i < runs; ++i) echo();
        if (problem.empty()) problem = check_pattern(in, bytes, "rank " + std::to_string(rank));
      }
    }
    if (rank == 0) result.fit = fit_pingpong(result.points, options.fit_from);
  }

  // Everyone learns whether the data was right; the ranks that only wait sleep meanwhile.
  MPI_Request request;
  mpi_check(MPI_Ibarrier(comm, &request), "MPI_Ibarrier");
  wait_sleeping(request);
  int wrong = problem.empty() ? 0 : 1, any_wrong = 0;
  mpi_check(MPI_Allreduce(&wrong, &any_wrong, 1, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
  if (any_wrong) {
    // Rank 0's text if it has one, else the peer's: sent by the lowest rank that saw a problem.
    int first = wrong ? rank : size, lowest = size;
    mpi_check(MPI_Allreduce(&first, &lowest, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
    int length = static_cast<int>(problem.size());
    mpi_check(MPI_Bcast(&length, 1, MPI_INT, lowest, comm), "MPI_Bcast");
    problem.resize(static_cast<std::size_t>(length));
    mpi_check(MPI_Bcast(problem.data(), length, MPI_CHAR, lowest, comm), "MPI_Bcast");
    result.data = problem;
  }
  return result;
}

}  // namespace collsim
