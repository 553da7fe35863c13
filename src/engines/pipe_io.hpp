// Whole reads and writes on a pipe between a parent and the child processes it forks (the sim
// engine's simulation, the sweep's workers): retried after EINTR and short transfers.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <string_view>

namespace collsim {

// Moves all n bytes through `io` (::read or ::write), resuming after a signal or a partial
// transfer; false at end of file or on an error.
template <class Byte, class Io>
bool all_bytes(int fd, Byte* p, std::size_t n, Io io) {
  while (n > 0) {
    const ssize_t k = io(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}

// Reads exactly n bytes; false at end of file or on an error.
inline bool read_exact(int fd, void* to, std::size_t n) { return all_bytes(fd, static_cast<char*>(to), n, ::read); }

// Writes all of data; false on an error (the reader is gone).
inline bool write_all(int fd, std::string_view data) { return all_bytes(fd, data.data(), data.size(), ::write); }

}  // namespace collsim
