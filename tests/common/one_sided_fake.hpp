// A Comm for the coarray runtime's tests: rank 0 of a run whose other ranks' window memory lives
// here too, so a PUT or GET statement can run alone and be checked byte for byte. Every
// operation completes at once; a clock follows the model engine's one-sided rules as
// models/coarray_cost.hpp states them, so the closed forms can be checked against the operations
// the coroutines issue, independently of any engine. It counts operations and fails a copy into
// memory that a put still outstanding reads from (the one-buffer caution).
#pragma once

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "comm/comm.hpp"
#include "common/collsim_test.hpp"
#include "models/coarray_cost.hpp"

namespace collsim_test {

using namespace collsim::coarray;

class OneSidedFake final : public Comm {
 public:
  explicit OneSidedFake(models::CoarrayCosts costs, int size = 2) : costs_(costs), size_(size) {}
  int rank() const override { return 0; }
  int size() const override { return size_; }
  double now() const override { return now_; }

  // Rank r's memory of window w.
  std::vector<std::byte>& memory(Window w, int r) { return windows_.at(static_cast<std::size_t>(w.id)).at(r).bytes(); }

  std::size_t puts = 0, gets = 0, copies = 0, flushes = 0, registrations = 0, largest_transfer = 0;

 protected:
  bool start(Op& op) override {
    const double alpha = costs_.hockney.alpha, beta = costs_.hockney.beta;
    const auto n = static_cast<double>(op.buffer.size());
    switch (op.kind) {
      case OpKind::win_allocate: {
        std::vector<Storage> ranks;
        for (int r = 0; r < size_; ++r) ranks.emplace_back(op.bytes, op.real);
        windows_.push_back(std::move(ranks));
        op.window.id = static_cast<int>(windows_.size() - 1);
        op.buffer = windows_.back()[0].view();
        return true;
      }
      case OpKind::put: {
        copy_bytes(remote(op), op.buffer);
        now_ += costs_.overhead.at(op.buffer.size());
        const double start = std::max(now_, port_free_);  // the port injects one put at a time
        port_free_ = start + beta * n;
        record(op, start + alpha + beta * n);
        ++puts;
        return true;
      }
      case OpKind::get:
        copy_bytes(op.buffer, remote(op));
        now_ += costs_.get_table().at(op.buffer.size());
        record(op, now_ + 2 * alpha + beta * n);  // complete when waited for: flushes skip gets
        ++gets;
        return true;
      case OpKind::wait_all:
        for (const Request& r : op.requests)
          if (!r.is_null()) now_ = std::max(now_, done_.at(r.id).at);
        return true;
      case OpKind::copy:
        for (const auto& [id, d] : done_)
          if (d.put && requests().outstanding(id) && overlaps(d.source, op.buffer))
            throw std::logic_error("copy into memory that outstanding " + requests().describe(id) + " reads");
        copy_bytes(op.buffer, op.source);
        now_ += models::copy_time(static_cast<double>(op.buffer.size()), costs_.copy_bandwidth);
        ++copies;
        return true;
      case OpKind::flush: {
        ++flushes;
        now_ += costs_.overhead.at(0);
        double latest = -1;
        for (auto it = unflushed_.begin(); it != unflushed_.end();) {
          if (op.peer != -1 && it->first != op.peer) {
            ++it;
            continue;
          }
          latest = std::max(latest, it->second);
          it = unflushed_.erase(it);
        }
        if (latest >= 0) now_ = std::max(now_, latest) + alpha;
        return true;
      }
      case OpKind::register_memory:
        now_ += costs_.registration.time(op.buffer.size());
        ++registrations;
        return true;
      case OpKind::win_sync:
      case OpKind::win_free:
      case OpKind::barrier: return true;
      default: throw std::logic_error("OneSidedFake: unexpected operation");
    }
  }

 private:
  struct Done {
    double at = 0;
    bool put = false;
    Buffer source;
  };
  static bool overlaps(Buffer a, Buffer b) {
    return !a.is_virtual() && !b.is_virtual() && a.data() < b.data() + b.size() && b.data() < a.data() + a.size();
  }
  Buffer remote(const Op& op) {
    return windows_.at(static_cast<std::size_t>(op.window.id)).at(op.peer).view().slice(op.offset, op.buffer.size());
  }
  void record(const Op& op, double at) {
    done_[op.request.id] = {at, op.kind == OpKind::put, op.buffer};
    if (op.kind == OpKind::put) {
      double& latest = unflushed_.try_emplace(op.peer, at).first->second;
      latest = std::max(latest, at);
    }
    largest_transfer = std::max(largest_transfer, op.buffer.size());
  }

  models::CoarrayCosts costs_;
  int size_;
  double now_ = 0;
  double port_free_ = 0;                       // when the origin's port may inject the next put
  std::vector<std::vector<Storage>> windows_;  // [window][rank]
  std::map<std::int64_t, Done> done_;          // by request id, reused as the front reuses ids
  std::map<int, double> unflushed_;            // target -> latest arrival of its unflushed puts
};

}  // namespace collsim_test
