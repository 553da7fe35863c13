// Strided memory layouts: what one put or get of an MPI derived datatype covers (Comm's
// put_strided / get_strided). A layout is equal-sized contiguous blocks at offsets that nest
// like MPI_Type_create_hvector: block i of dimension d is `step` bytes (signed) after block i-1,
// innermost dimension first, as a Fortran array section walks memory. One layout describes the
// origin's memory, another the target's; both hold the same number of bytes, in the same order,
// but their blocks may differ in size (the bytes are paired in order, as MPI pairs the typemaps
// of the origin and target datatypes).
//
// Engines move a strided transfer as pieces: the longest stretches contiguous on both sides at
// once (for_each_piece), which is what an MPI library's one-sided component issues one RDMA for
// when the datatypes are not contiguous (models/coarray_cost.hpp states the cost and its source).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace collsim {

struct StridedDim {
  std::size_t count = 1;
  std::int64_t step = 0;  // bytes from one block (or sub-layout) of this dimension to the next
};

struct Strided {
  std::int64_t first = 0;        // byte offset of the first block
  std::size_t block = 0;         // bytes per contiguous block
  std::vector<StridedDim> dims;  // innermost first; none: one block

  std::size_t blocks() const;
  std::size_t bytes() const { return blocks() * block; }
  // Byte offset of block `index` (0-based, in order).
  std::int64_t block_offset(std::size_t index) const;
  // The lowest offset a block starts at and the end of the highest block (first, first when empty).
  std::int64_t lowest() const;
  std::int64_t end() const;
  std::string str() const;  // "3 x 8 B at 16, steps 32" for messages
};

// The same blocks, fewer and longer: dimensions of one element dropped, a dimension whose step is
// the block's length folded into the block, and a dimension folded into the next when the next
// steps over all of it. An empty layout (a count of 0) keeps its zero.
Strided normalized(Strided layout);

// The two sides of a strided transfer: `local` in the origin's buffer, `remote` in the target's
// window memory (offsets from its start).
struct StridedTransfer {
  Strided local, remote;
};

// "" when `layout` is a valid side of a transfer in memory of `size` bytes, else why not: a block
// outside the memory, or (with `written`) two blocks that overlap, which MPI leaves undefined for
// the side a put or get writes.
std::string strided_problem(const Strided& layout, std::size_t size, bool written);

// Calls f(local_offset, remote_offset, bytes) for every piece of the transfer, in order: the
// stretches contiguous on both sides. Both sides must hold the same number of bytes.
template <class F>
void for_each_piece(const StridedTransfer& t, F&& f) {
  const std::size_t total = t.local.bytes();
  std::size_t li = 0, ri = 0, lat = 0, rat = 0;  // block index and bytes of it used, each side
  for (std::size_t done = 0; done < total;) {
    const std::size_t n = std::min(t.local.block - lat, t.remote.block - rat);
    f(static_cast<std::size_t>(t.local.block_offset(li) + static_cast<std::int64_t>(lat)),
      static_cast<std::size_t>(t.remote.block_offset(ri) + static_cast<std::int64_t>(rat)), n);
    done += n;
    if ((lat += n) == t.local.block) ++li, lat = 0;
    if ((rat += n) == t.remote.block) ++ri, rat = 0;
  }
}
// How many pieces for_each_piece gives.
std::size_t piece_count(const StridedTransfer& t);

}  // namespace collsim
