// The table of a rank's outstanding requests, kept by the Comm front for every engine.
//
// A request id is an index into this table, reused once its request has completed, so engines
// can key their own per-request state by it in a plain vector. The table knows what each
// request is (kind, peer, tag): enough to check a wait and to say, in a deadlock report,
// what a rank is still waiting for.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "comm/frame_pool.hpp"

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
};

class RequestTable {
 public:
  RequestTable() = default;
  RequestTable(RequestTable&& other) noexcept
      : slots_(std::exchange(other.slots_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        capacity_(std::exchange(other.capacity_, 0)),
        free_(std::exchange(other.free_, -1)),
        live_(std::exchange(other.live_, 0)) {}
  RequestTable& operator=(RequestTable&& other) noexcept {
    if (this != &other) {
      free_slots();
      slots_ = std::exchange(other.slots_, nullptr);
      size_ = std::exchange(other.size_, 0);
      capacity_ = std::exchange(other.capacity_, 0);
      free_ = std::exchange(other.free_, -1);
      live_ = std::exchange(other.live_, 0);
    }
    return *this;
  }
  ~RequestTable() { free_slots(); }

  std::int64_t allocate(RequestKind kind, int peer, int tag) {
    std::int64_t id;
    if (free_ >= 0) {
      id = free_;
      free_ = slots_[static_cast<std::size_t>(id)].next_free;
    } else {
      if (size_ == capacity_) grow(capacity_ == 0 ? 1 : 2 * capacity_);
      id = size_++;
    }
    slots_[static_cast<std::size_t>(id)] = RequestInfo{kind, true, peer, tag, -1};
    ++live_;
    return id;
  }
  // Room for n requests before the table grows: an engine that builds millions of ranks allocates
  // each one's slots next to its coroutine frame, so that both sit on the same memory pages.
  void reserve(std::int32_t n) {
    if (n > capacity_) grow(n);
  }
  bool outstanding(std::int64_t id) const { return id >= 0 && id < size_ && slots_[static_cast<std::size_t>(id)].live; }
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
    size_ = 0;
    free_ = -1;
    live_ = 0;
  }
  // Ids handed out so far: engines size their per-request state to this.
  std::size_t capacity() const { return size_; }
  std::size_t live() const { return live_; }
  // Where the slots are (null before the first request), for an engine that prefetches them.
  const void* slots() const { return slots_; }
  // "recv from 1 (tag 5)", "put to 2".
  std::string describe(std::int64_t id) const;
  // The first few outstanding requests, "recv from 1 (tag 5), send to 2 (tag 5), ...".
  std::string describe_live(std::size_t at_most = 4) const;

 private:
  static std::size_t bytes_of(std::int32_t slots) { return static_cast<std::size_t>(slots) * sizeof(RequestInfo); }
  void grow(std::int32_t capacity) {
    auto* bigger = static_cast<RequestInfo*>(frame_pool::allocate(bytes_of(capacity)));
    std::uninitialized_copy(slots_, slots_ + size_, bigger);
    free_slots();
    slots_ = bigger;
    capacity_ = capacity;
  }
  void free_slots() {
    if (slots_) frame_pool::release(slots_, bytes_of(capacity_));
  }

  // Every rank of a run has a table, and a model run has millions of ranks, so it is kept to 24
  // bytes (an array and 32-bit counts rather than a vector; released slots threaded into a free
  // list rather than listed in a second vector) and its slots come from the frame pool, without
  // malloc's time and per-block overhead.
  RequestInfo* slots_ = nullptr;
  std::int32_t size_ = 0;
  std::int32_t capacity_ = 0;
  std::int32_t free_ = -1;
  std::uint32_t live_ = 0;
};

}  // namespace collsim
