// Memory for the model engine's large arrays (its tables by rank, event buckets, message pools),
// backed by transparent huge pages.
//
// A run of a million ranks touches these arrays in no memory order. With 4 KiB pages most of
// those touches miss the TLB, and in a virtual machine each miss is a nested page walk; memory
// from malloc gets 4 KiB pages wherever the system's THP setting is "madvise" (Debian's
// default). So blocks of 2 MiB and more are mapped here directly, in whole 2 MiB pages, with
// huge pages asked for (only a hint: the kernel may decline); what it gains at 2^20 ranks is
// measured in tools/bench/README.md ("Stop 24").
// Smaller blocks, and every block under AddressSanitizer (so that it still sees them), come from
// operator new.
#pragma once

#include <cstddef>
#include <vector>

namespace collsim::huge_pages {

void* allocate(std::size_t bytes);
void release(void* block, std::size_t bytes) noexcept;
// Asks for huge pages over the whole 2 MiB pages of [data, data + bytes), for an array that must
// come from the standard allocator (one handed on in a RunResult).
void advise(const void* data, std::size_t bytes);

template <class T>
struct Allocator {
  using value_type = T;
  Allocator() = default;
  template <class U>
  Allocator(const Allocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(huge_pages::allocate(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { release(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const Allocator<U>&) const noexcept {
    return true;
  }
};

template <class T>
using Vector = std::vector<T, Allocator<T>>;

}  // namespace collsim::huge_pages
