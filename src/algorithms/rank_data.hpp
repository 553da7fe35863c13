// The input and expected output of one rank in one collective call, with real or virtual bytes.
//
// Inputs follow a pattern that differs by rank and by position with no period (a hash of rank and
// offset), and result buffers start filled with the complement of what they should end with, so a
// byte that was never written, a segment or block swapped, duplicated or shifted by any distance,
// or one taken from the wrong rank, is caught by check().
#pragma once

#include <cstddef>
#include <string>

#include "algorithms/registry.hpp"
#include "comm/buffer.hpp"

namespace collsim {

// The byte that rank `rank` contributes at position `i`: byte i % 8 of a 64-bit hash of
// (rank, i / 8). No 8-byte word repeats within a rank's pattern, and ranks' patterns are unrelated.
std::byte pattern_byte(int rank, std::size_t i);

class RankData {
 public:
  RankData(Operation op, int rank, int size, int root, std::size_t bytes, bool real);

  RankBuffers buffers() { return {data_.view(), gathered_.view()}; }
  // What buffers() gives with virtual bytes, without a RankData: an engine holding millions of
  // ranks then keeps nothing per rank for their data (there is nothing to own or check).
  static RankBuffers virtual_buffers(Operation op, int rank, int size, int root, std::size_t bytes);
  // Empty when this rank's output is right (or bytes are virtual); otherwise the first
  // difference, e.g. "rank 3: byte 8192 of the broadcast buffer is 0x12, expected 0x7f".
  std::string check() const;

 private:
  Operation op_;
  int rank_, size_, root_;
  std::size_t bytes_;
  Storage data_;
  Storage gathered_;
};

}  // namespace collsim
