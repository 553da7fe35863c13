#include "algorithms/rank_data.hpp"

namespace collsim {

RankBuffers RankData::virtual_buffers(Operation op, const CallShape& shape) {
  const BufferSizes sizes = operation_info(op).layout(shape);
  return {Buffer::virtual_of(sizes.data), Buffer::virtual_of(sizes.result)};
}

RankData::RankData(Operation op, const CallShape& shape, bool real) : op_(&operation_info(op)), shape_(shape) {
  const BufferSizes sizes = op_->layout(shape);
  data_ = Storage(sizes.data, real);
  result_ = Storage(sizes.result, real);
  if (real) op_->fill(shape_, buffers());
}

std::string RankData::check() {
  if (data_.is_virtual() || result_.is_virtual()) return {};
  return op_->check(shape_, buffers());
}

}  // namespace collsim
