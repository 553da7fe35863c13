// Buffers: views of message memory that either hold real bytes or only a size.
//
// A "virtual" buffer (data() == nullptr) lets fast parameter sweeps run without allocating or
// touching memory; engines move bytes whenever they are given real ones, so the same algorithm
// can be checked byte for byte. Slicing keeps the mode: a slice of a virtual buffer is virtual.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstring>
#include <vector>

namespace collsim {

class Buffer {
 public:
  Buffer() = default;
  Buffer(std::byte* data, std::size_t size) : data_(data), size_(size) {}
  static Buffer virtual_of(std::size_t size) { return Buffer(nullptr, size); }

  std::byte* data() const { return data_; }
  std::size_t size() const { return size_; }
  bool is_virtual() const { return data_ == nullptr; }

  // Bytes [offset, offset + length) of this buffer.
  Buffer slice(std::size_t offset, std::size_t length) const {
    assert(offset + length <= size_);
    return Buffer(data_ ? data_ + offset : nullptr, length);
  }

 private:
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

// Copies src into dst when both hold bytes (sizes must match).
inline void copy_bytes(Buffer dst, Buffer src) {
  assert(dst.size() == src.size());
  if (!dst.is_virtual() && !src.is_virtual() && dst.size() > 0 && dst.data() != src.data())
    std::memmove(dst.data(), src.data(), dst.size());
}

// Owns the memory behind a Buffer, or nothing for a virtual one.
class Storage {
 public:
  Storage() = default;
  Storage(std::size_t size, bool real) : size_(size) {
    if (real) bytes_.resize(size);
  }
  Buffer view() { return bytes_.empty() && size_ > 0 ? Buffer::virtual_of(size_) : Buffer(bytes_.data(), size_); }
  std::size_t size() const { return size_; }
  bool is_virtual() const { return bytes_.empty() && size_ > 0; }
  std::vector<std::byte>& bytes() { return bytes_; }
  const std::vector<std::byte>& bytes() const { return bytes_; }

 private:
  std::vector<std::byte> bytes_;
  std::size_t size_ = 0;
};

}  // namespace collsim
