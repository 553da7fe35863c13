// How Open MPI cuts a message into segments (coll/base's COLL_BASE_COMPUTED_SEGCOUNT), for bytes,
// and a vector into blocks (COLL_BASE_COMPUTE_BLOCKCOUNT).
//
// A segment size is honoured only when 1 <= segsize < message size; otherwise the whole message
// is one segment. The last segment may be short.
#pragma once

#include <algorithm>
#include <cstddef>

#include "comm/buffer.hpp"

namespace collsim {

class Segmentation {
 public:
  Segmentation(std::size_t bytes, std::size_t segsize)
      : bytes_(bytes), seg_(segsize >= 1 && segsize < bytes ? segsize : bytes) {}

  std::size_t count() const { return seg_ == 0 ? 0 : (bytes_ + seg_ - 1) / seg_; }
  std::size_t segment_bytes() const { return seg_; }
  std::size_t offset(std::size_t i) const { return i * seg_; }
  std::size_t length(std::size_t i) const { return std::min(seg_, bytes_ - offset(i)); }
  Buffer slice(Buffer whole, std::size_t i) const { return whole.slice(offset(i), length(i)); }

 private:
  std::size_t bytes_;
  std::size_t seg_;
};

// The segment size in bytes of an operation on typed elements (reduce, allreduce), where Open MPI
// counts segments in elements (COLL_BASE_COMPUTED_SEGCOUNT): when typesize <= segsize < bytes,
// segsize / typesize elements, one more when the remainder exceeds half an element; otherwise the
// whole message (returned as `bytes`, which Segmentation takes as one segment).
inline std::size_t element_segment(std::size_t bytes, std::size_t segsize, std::size_t typesize) {
  if (typesize == 0 || segsize < typesize || segsize >= bytes) return bytes;
  std::size_t elements = segsize / typesize;
  if (segsize % typesize > typesize / 2) ++elements;
  return elements * typesize;
}

// Open MPI's split of `count` elements into `n` blocks (COLL_BASE_COMPUTE_BLOCKCOUNT): the first
// count mod n blocks hold ceil(count / n) elements, the others floor(count / n). Counted in
// elements, as the reducing algorithms that use it (allreduce's ring) count them.
class BlockSplit {
 public:
  BlockSplit(std::size_t count, std::size_t n) : late_(count / n), split_(count % n) {}

  std::size_t early() const { return split_ == 0 ? late_ : late_ + 1; }  // the longest block
  std::size_t length(std::size_t b) const { return b < split_ ? late_ + 1 : late_; }
  std::size_t offset(std::size_t b) const { return b < split_ ? b * (late_ + 1) : b * late_ + split_; }

 private:
  std::size_t late_;
  std::size_t split_;
};

}  // namespace collsim
