// Whole reads and writes on a pipe between a parent and the child processes it forks (the sim
// engine's simulation, the sweep's workers): retried after EINTR and short transfers.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <string_view>

namespace collsim {

// Reads exactly n bytes; false at end of file or on an error.
inline bool read_exact(int fd, void* to, std::size_t n) {
  char* p = static_cast<char*>(to);
  while (n > 0) {
    const ssize_t k = ::read(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}

// Writes all of data; false on an error (the reader is gone).
inline bool write_all(int fd, std::string_view data) {
  const char* p = data.data();
  std::size_t left = data.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace collsim
