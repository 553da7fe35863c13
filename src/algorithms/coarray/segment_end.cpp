#include "algorithms/coarray/segment_end.hpp"

#include <stdexcept>

namespace collsim::coarray {

const char* to_string(SyncKind kind) {
  switch (kind) {
    case SyncKind::memory: return "memory";
    case SyncKind::all: return "all";
    case SyncKind::images: return "images";
  }
  return "memory";
}

std::optional<SyncKind> parse_sync(std::string_view name) {
  for (SyncKind k : {SyncKind::memory, SyncKind::all, SyncKind::images})
    if (name == to_string(k)) return k;
  return std::nullopt;
}

Task<> sync_statement(Comm& comm, Window w, const SegmentEnd& end) {
  const int rank = comm.rank();
  switch (end.kind) {
    case SyncKind::memory: co_await comm.sync_memory(w); break;
    case SyncKind::all:
      if (!end.barrier) throw std::invalid_argument("sync all: no barrier given");
      co_await comm.sync_memory(w);
      co_await end.barrier(comm);
      co_await comm.sync_memory(w);
      break;
    case SyncKind::images:
      if (end.partners) {
        if (!end.partners->empty()) co_await comm.sync_images(w, *end.partners);
      } else if (rank == end.origin || rank == end.target) {
        const int partner[] = {rank == end.origin ? end.target : end.origin};
        co_await comm.sync_images(w, partner);
      }
      break;
  }
}

}  // namespace collsim::coarray
