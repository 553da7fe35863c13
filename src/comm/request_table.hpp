// The table of a rank's outstanding requests, kept by the Comm front for every engine.
//
// A request id is an index into this table, reused once its request has completed, so engines
// can key their own per-request state by it in a plain vector. The table knows what each
// request is (kind, peer, tag, bytes): enough to check a wait and to say, in a deadlock report,
// what a rank is still waiting for.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace collsim {

// Handle of an outstanding non-blocking operation. A default-constructed request is "null" and
// is always complete.
struct Request {
  std::int64_t id = -1;
  bool is_null() const { return id < 0; }
};

enum class RequestKind : std::uint8_t { send, recv, put, get };

struct RequestInfo {
  RequestKind kind = RequestKind::send;
  bool live = false;
  int peer = -1;
  int tag = 0;
  std::int32_t next_free = -1;  // the table's free list, through released slots
  std::size_t bytes = 0;
};

class RequestTable {
 public:
  std::int64_t allocate(RequestKind kind, int peer, int tag, std::size_t bytes) {
    std::int64_t id;
    if (free_ >= 0) {
      id = free_;
      free_ = slots_[static_cast<std::size_t>(id)].next_free;
    } else {
      id = static_cast<std::int64_t>(slots_.size());
      slots_.emplace_back();
    }
    slots_[static_cast<std::size_t>(id)] = RequestInfo{kind, true, peer, tag, -1, bytes};
    ++live_;
    return id;
  }
  bool outstanding(std::int64_t id) const {
    return id >= 0 && static_cast<std::size_t>(id) < slots_.size() && slots_[static_cast<std::size_t>(id)].live;
  }
  const RequestInfo& operator[](std::int64_t id) const { return slots_[static_cast<std::size_t>(id)]; }
  // The id is handed out again by the next allocate (last released, first reused).
  void release(std::int64_t id) {
    RequestInfo& slot = slots_[static_cast<std::size_t>(id)];
    slot.live = false;
    slot.next_free = free_;
    free_ = static_cast<std::int32_t>(id);
    --live_;
  }
  // Forgets every request (an engine that cancelled them all).
  void clear() {
    slots_.clear();
    free_ = -1;
    live_ = 0;
  }
  // Ids handed out so far: engines size their per-request state to this.
  std::size_t capacity() const { return slots_.size(); }
  std::size_t live() const { return live_; }
  // "recv from 1 (tag 5)", "put to 2 (96 bytes)".
  std::string describe(std::int64_t id) const;
  // The first few outstanding requests, "recv from 1 (tag 5), send to 2 (tag 5), ...".
  std::string describe_live(std::size_t at_most = 4) const;

 private:
  // Released slots are kept, threaded into a free list, rather than listed in a second vector:
  // every rank of a run has a table, and a model run has millions of ranks.
  std::vector<RequestInfo> slots_;
  std::int32_t free_ = -1;
  std::uint32_t live_ = 0;
};

}  // namespace collsim
