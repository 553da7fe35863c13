// The input and expected output of one rank in one collective call, with real or virtual bytes:
// the buffers its operation's descriptor lays out (operation.hpp), filled with the inputs
// (input_pattern.hpp) and checked after the call.
#pragma once

#include <cstddef>
#include <string>

#include "algorithms/operation.hpp"
#include "comm/buffer.hpp"

namespace collsim {

class RankData {
 public:
  RankData(Operation op, const CallShape& shape, bool real);

  RankBuffers buffers() { return {data_.view(), result_.view()}; }
  // What buffers() gives with virtual bytes, without a RankData: an engine holding millions of
  // ranks then keeps nothing per rank for their data (there is nothing to own or check).
  static RankBuffers virtual_buffers(Operation op, const CallShape& shape);
  // Empty when this rank's output is right (or bytes are virtual); otherwise the first
  // difference, e.g. "rank 3: byte 8192 of the broadcast buffer is 0x12, expected 0x7f".
  std::string check();

 private:
  const OperationInfo* op_;
  CallShape shape_;
  Storage data_;
  Storage result_;
};

}  // namespace collsim
