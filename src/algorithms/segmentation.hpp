// How Open MPI cuts a message into segments (coll/base's COLL_BASE_COMPUTED_SEGCOUNT), for bytes.
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

}  // namespace collsim
