#include "engines/mpi/trace_gather.hpp"

#include <climits>
#include <map>
#include <numeric>
#include <string>
#include <tuple>
#include <type_traits>

#include "engines/mpi/mpi_util.hpp"
#include "engines/run.hpp"

namespace collsim {

// Every rank runs the same executable (one mpirun of collsim-mpi), so an event's bytes mean the
// same on all of them: the record is the struct itself.
static_assert(std::is_trivially_copyable_v<TraceEvent>);

std::vector<TraceEvent> gather_trace(MPI_Comm comm, const std::vector<TraceEvent>& mine) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  // Every rank learns every count, so all of them refuse an oversized trace together.
  const long long count = static_cast<long long>(mine.size());
  std::vector<long long> counts(static_cast<std::size_t>(size));
  mpi_check(MPI_Allgather(&count, 1, MPI_LONG_LONG, counts.data(), 1, MPI_LONG_LONG, comm), "MPI_Allgather (trace)");
  const long long total = std::accumulate(counts.begin(), counts.end(), 0LL);
  if (total > INT_MAX)
    throw EngineError("the trace holds " + std::to_string(total) + " events, more than the " + std::to_string(INT_MAX) +
                      " one gather moves");

  MPI_Datatype record = MPI_DATATYPE_NULL;
  mpi_check(MPI_Type_contiguous(static_cast<int>(sizeof(TraceEvent)), MPI_BYTE, &record), "MPI_Type_contiguous");
  mpi_check(MPI_Type_commit(&record), "MPI_Type_commit");
  std::vector<int> sizes, offsets;
  std::vector<TraceEvent> all;
  if (rank == 0) {
    all.resize(static_cast<std::size_t>(total));
    int at = 0;
    for (long long c : counts) {
      sizes.push_back(static_cast<int>(c));
      offsets.push_back(at);
      at += static_cast<int>(c);
    }
  }
  const int rc = MPI_Gatherv(mine.data(), static_cast<int>(count), record, all.data(), sizes.data(), offsets.data(),
                             record, 0, comm);
  MPI_Type_free(&record);
  mpi_check(rc, "MPI_Gatherv (trace)");
  pair_messages(all);
  return all;
}

void pair_messages(std::vector<TraceEvent>& events) {
  // (sender, receiver, tag, ordinal) -> message id; per end, how many it posted so far.
  using Key = std::tuple<int, int, int, std::int64_t>;
  std::map<Key, std::int64_t> ids;
  std::map<std::tuple<int, int, int, bool>, std::int64_t> posted;  // (rank, peer, tag, receive?) -> count
  // The message of each request id of each rank since its post (ids are reused after a wait).
  std::map<std::pair<int, std::int64_t>, std::int64_t> live;
  for (TraceEvent& e : events) {
    const bool send = e.op == OpKind::isend, receive = e.op == OpKind::irecv;
    if (!send && !receive) continue;
    if (e.kind == TraceKind::post) {
      const std::int64_t ordinal = posted[{e.rank, e.peer, e.tag, receive}]++;
      const Key key = send ? Key{e.rank, e.peer, e.tag, ordinal} : Key{e.peer, e.rank, e.tag, ordinal};
      live[{e.rank, e.request}] = ids.try_emplace(key, static_cast<std::int64_t>(ids.size())).first->second;
    } else if (e.kind == TraceKind::request_done) {
      const auto it = live.find({e.rank, e.request});
      if (it == live.end()) continue;
      e.message = it->second;
      live.erase(it);
    }
  }
}

}  // namespace collsim
