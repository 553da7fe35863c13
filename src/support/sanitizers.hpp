// Whether this build runs under AddressSanitizer. Memory that bypasses operator new (pools, mmap)
// hides use-after-free and overflows from it, so the allocators that keep such memory fall back to
// operator new in that build; and it cannot follow SimGrid's raw context switches.
#pragma once

namespace collsim {

// GCC says so with __SANITIZE_ADDRESS__, Clang with __has_feature.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
inline constexpr bool kAddressSanitizer = __has_feature(address_sanitizer);
#else
inline constexpr bool kAddressSanitizer = false;
#endif

}  // namespace collsim
