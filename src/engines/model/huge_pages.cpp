#include "engines/model/huge_pages.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <new>

#include "support/sanitizers.hpp"

namespace collsim::huge_pages {

namespace {

constexpr bool kMapped = !kAddressSanitizer;

constexpr std::size_t kHuge = std::size_t{2} << 20;

std::size_t whole_pages(std::size_t bytes) { return (bytes + kHuge - 1) & ~(kHuge - 1); }

}  // namespace

void* allocate(std::size_t bytes) {
  if (!kMapped || bytes < kHuge) return ::operator new(bytes);
  // The kernel places a mapping whose length is a multiple of 2 MiB on a 2 MiB boundary.
  const std::size_t length = whole_pages(bytes);
  void* block = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (block == MAP_FAILED) throw std::bad_alloc();
  madvise(block, length, MADV_HUGEPAGE);
  return block;
}

void release(void* block, std::size_t bytes) noexcept {
  if (!kMapped || bytes < kHuge) {
    ::operator delete(block);
    return;
  }
  munmap(block, whole_pages(bytes));
}

void advise(const void* data, std::size_t bytes) {
  const auto at = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t begin = (at + kHuge - 1) & ~(kHuge - 1), end = (at + bytes) & ~(kHuge - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

}  // namespace collsim::huge_pages
