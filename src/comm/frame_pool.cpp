#include "comm/frame_pool.hpp"

#include <sys/mman.h>

#include <array>
#include <new>

namespace collsim::frame_pool {

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kPooled = false;
#else
constexpr bool kPooled = true;
#endif

constexpr std::size_t kGrain = 16;      // size classes are multiples of this
constexpr std::size_t kLargest = 4096;  // larger frames go to operator new
constexpr std::size_t kSlab = std::size_t{2} << 20;

struct FreeFrame {
  FreeFrame* next;
};

struct Pool {
  std::array<FreeFrame*, kLargest / kGrain + 1> free{};
  char* bump = nullptr;
  std::size_t left = 0;

  void* carve(std::size_t size) {
    if (left < size) {
      void* slab = mmap(nullptr, kSlab, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (slab == MAP_FAILED) throw std::bad_alloc();
      madvise(slab, kSlab, MADV_HUGEPAGE);  // a hint: fewer page faults when the kernel agrees
      bump = static_cast<char*>(slab);
      left = kSlab;
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
