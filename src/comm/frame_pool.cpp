#include "comm/frame_pool.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <new>

#include "support/sanitizers.hpp"

namespace collsim::frame_pool {

namespace {

constexpr bool kPooled = !kAddressSanitizer;

constexpr std::size_t kGrain = 16;      // size classes are multiples of this
constexpr std::size_t kLargest = 4096;  // larger frames go to operator new
// Slabs start at 2 MiB and double up to 128 MiB, so a small run maps little and a large one maps
// few times: each mmap next to a slab another thread is faulting in splits or merges the mapping
// under its lock, which stalls that thread's page faults (a 2^20-rank model run built its frames
// 1.5x slower with fixed 2 MiB slabs than with large ones, measured cold). Untouched slab memory
// is only address space.
constexpr std::size_t kFirstSlab = std::size_t{2} << 20;
constexpr std::size_t kLargestSlab = std::size_t{128} << 20;

struct FreeFrame {
  FreeFrame* next;
};

struct Pool {
  std::array<FreeFrame*, kLargest / kGrain + 1> free{};
  char* bump = nullptr;
  std::size_t left = 0;
  std::size_t next_slab = kFirstSlab;

  void* carve(std::size_t size) {
    if (left < size) {
      void* slab = mmap(nullptr, next_slab, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (slab == MAP_FAILED) throw std::bad_alloc();
      madvise(slab, next_slab, MADV_HUGEPAGE);  // a hint: fewer page faults when the kernel agrees
      bump = static_cast<char*>(slab);
      left = next_slab;
      next_slab = std::min(2 * next_slab, kLargestSlab);
    }
    void* p = bump;
    bump += size;
    left -= size;
    return p;
  }
};

thread_local Pool pool;

std::size_t size_class(std::size_t bytes) { return (bytes + kGrain - 1) / kGrain; }

}  // namespace

void* allocate(std::size_t bytes) {
  if (!kPooled || bytes > kLargest) return ::operator new(bytes);
  const std::size_t c = size_class(bytes);
  if (FreeFrame* f = pool.free[c]) {
    pool.free[c] = f->next;
    return f;
  }
  return pool.carve(c * kGrain);
}

void release(void* frame, std::size_t bytes) noexcept {
  if (!kPooled || bytes > kLargest) {
    ::operator delete(frame);
    return;
  }
  auto* f = static_cast<FreeFrame*>(frame);
  const std::size_t c = size_class(bytes);
  f->next = pool.free[c];
  pool.free[c] = f;
}

}  // namespace collsim::frame_pool
