// A wrong engine for the coarray property tests to catch: CorruptingProgram runs a coarray point
// and flips one byte of the target's coarrays where a wrong transfer would leave it, so the
// point's data check must fail, naming the image and the coarray. A property test whose check
// cannot fail proves nothing; every engine's property test runs one of these.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "algorithms/coarray/section.hpp"
#include "common/collsim_test.hpp"
#include "experiment/results/coarray_point.hpp"

namespace collsim_test {

using namespace collsim::coarray;

// Runs a point, with one byte of the checked memory flipped as a wrong engine would leave it:
// PUT flips a byte of the target's coarray `coarray` after the segment, GET one of the target's
// coarray `coarray` before the segment reads it. `offset` is the byte within that coarray. Extra
// barriers order the flip after the PUTs (and before the GETs) whatever the engine's timing, and
// win_sync orders the flip (a local store) with the RMA of others. The window is the program's
// only one, and every engine numbers a run's windows from 0 in allocation order.
class CorruptingProgram final : public RankProgram {
 public:
  CorruptingProgram(const CoarrayProgram& inner, std::size_t coarray, std::size_t offset, bool flip)
      : inner_(inner), coarray_(coarray), offset_(offset), flip_(flip) {}
  std::unique_ptr<ProgramRank> rank(int rank, int procs) const override {
    return std::make_unique<Rank>(*this, inner_.rank(rank, procs), rank);
  }
  std::string describe(int procs) const override { return inner_.describe(procs) + ", corrupted"; }
  double memory_bytes(int procs) const override { return inner_.memory_bytes(procs); }

 private:
  class Rank final : public ProgramRank {
   public:
    Rank(const CorruptingProgram& c, std::unique_ptr<ProgramRank> inner, int rank)
        : c_(c), inner_(std::move(inner)), rank_(rank) {}
    Task<> setup(Comm& comm) override {
      co_await inner_->setup(comm);
      if (c_.point().get) flip(comm);
      co_await comm.win_sync(Window{0});
      co_await comm.barrier();
    }
    Task<> run(Comm& comm) override {
      co_await inner_->run(comm);
      co_await comm.barrier();
      if (!c_.point().get) flip(comm);
      co_await comm.win_sync(Window{0});
    }
    Task<> finish(Comm& comm) override { co_await inner_->finish(comm); }
    std::string check() const override { return inner_->check(); }

   private:
    void flip(Comm& comm) {
      if (!c_.flip_ || rank_ != c_.point().target) return;
      const Buffer memory = comm.local(Window{0});
      memory.data()[c_.coarray_ * c_.point().remote.shape().bytes() + c_.offset_] ^= std::byte{0x5a};
    }
    const CorruptingProgram& c_;
    std::unique_ptr<ProgramRank> inner_;
    int rank_;
  };
  const CoarrayPoint& point() const { return inner_.point(); }

  const CoarrayProgram& inner_;
  std::size_t coarray_, offset_;
  bool flip_;
};

// NL 8 (every other element of a column), NR 480 (six whole columns), as in statements.hpp;
// case 0, 2 or 3 (registered, B 1000, B 130); three statements, image 1 to image 2.
//  - PUT: element (1,2) of coarray 2 (bytes 80 to 87) is written, element (1,1) of coarray 3 (bytes
//    0 to 7) must keep its value: flipping byte 83 of coarray 2 (index 1) gives "byte 83 of image
//    2's coarray 2", flipping byte 0 of coarray 3 (index 2) "byte 0 of image 2's coarray 3".
//  - GET: element (1,2) of the target's coarray 2 goes to element (1,1) of the origin's array 2:
//    flipping byte 83 of it gives "byte 3 of image 1's local array 2"; coarray 3's byte 0 is read
//    by nothing.
inline CoarrayPoint hand_point(bool get, int table_case) {
  CoarrayPoint p;
  p.get = get;
  p.local = parse_section("1:20:2,:", parse_shape("20,6", 8));
  p.remote = parse_section(":,2:7", parse_shape("10,8", 8));
  p.options.registered = table_case == 0;
  p.options.buffer_bytes = table_case == 3 ? 130 : 1000;
  p.statements = 3;
  return p;
}

}  // namespace collsim_test
