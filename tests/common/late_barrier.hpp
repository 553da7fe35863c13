// A barrier algorithm run with one rank late, for the tests of what a barrier guarantees in
// every engine: no rank leaves before the last one has entered.
#pragma once

#include <memory>
#include <string>

#include "common/collsim_test.hpp"
#include "engines/run.hpp"
#include "registry/registry.hpp"

namespace collsim_test {

// A barrier in which rank `late` first works for a while (a local reduction of `work` bytes,
// charged as the engine charges reductions) and only then enters the barrier.
class LateBarrier final : public RankProgram {
 public:
  LateBarrier(const AlgorithmInfo& a, int late, std::size_t work) : a_(&a), late_(late), work_(work) {}
  std::unique_ptr<ProgramRank> rank(int rank, int) const override {
    return std::make_unique<Rank>(*a_, rank == late_ ? work_ : 0);
  }
  std::string describe(int procs) const override {
    return std::string(a_->name) + " on " + std::to_string(procs) + " processes, rank " + std::to_string(late_) +
           " late";
  }
  double memory_bytes(int) const override { return 0; }  // a barrier holds no buffers

 private:
  struct Rank final : ProgramRank {
    Rank(const AlgorithmInfo& algorithm, std::size_t late_work) : a(&algorithm), work(late_work) {}
    Task<> setup(Comm&) override { co_return; }
    Task<> run(Comm& comm) override {
      if (work > 0) {
        Storage x(work, false), y(work, false);
        co_await comm.reduce_local(x.view(), y.view(), {Datatype::float64, ReduceOp::sum});
      }
      co_await a->run(comm, RankBuffers{}, AlgorithmParams{});
    }
    Task<> finish(Comm&) override { co_return; }
    std::string check() const override { return {}; }
    const AlgorithmInfo* a;
    std::size_t work;
  };
  const AlgorithmInfo* a_;
  int late_;
  std::size_t work_;
};

}  // namespace collsim_test
