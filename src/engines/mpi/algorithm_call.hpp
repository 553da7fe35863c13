// AlgorithmCall: one of our coroutine algorithms (from the registry) as the CollectiveCall that
// the timing protocol runs, over an MpiComm, on real bytes checked after every call.
#pragma once

#include <mpi.h>

#include <memory>
#include <optional>
#include <string>

#include "algorithms/rank_data.hpp"
#include "engines/mpi/call_timer.hpp"
#include "engines/mpi/mpi_comm.hpp"
#include "engines/run.hpp"

namespace collsim {

// Throws InputError when `spec` cannot run on `comm`: no algorithm, procs other than the
// communicator's size, or a root outside it.
void check_fits(MPI_Comm comm, const RunSpec& spec);

class AlgorithmCall final : public CollectiveCall {
 public:
  // Collective over `comm`. Throws InputError when the spec does not fit the communicator (no
  // algorithm, procs other than its size, root outside it). Bytes are always real, whatever
  // spec.real_bytes says: MPI moves real memory, so it might as well be checked.
  AlgorithmCall(MPI_Comm comm, const RunSpec& spec);
  // Runs over `comm` (which must outlive this call) instead of a communicator of its own: many
  // short calls in a row then skip a collective MPI_Comm_dup each.
  AlgorithmCall(MpiComm& comm, const RunSpec& spec);
  ~AlgorithmCall() override;
  AlgorithmCall(const AlgorithmCall&) = delete;
  AlgorithmCall& operator=(const AlgorithmCall&) = delete;

  void prepare() override;
  // Throws what the algorithm throws (CommError on a size mismatch), and EngineError when the
  // algorithm suspends or leaves requests behind.
  void run(double start_wtime) override;
  std::string check() override;
  std::string describe() const override { return collsim::describe(spec_); }
  double time_from(const std::vector<double>& finish_s) const override { return call_time(spec_, finish_s); }
  // Only the algorithm's own part of the call is traced: not prepare()'s setup nor check().
  void trace_next_run(TraceSink* sink) override { trace_next_ = sink; }

  const RunSpec& spec() const { return spec_; }
  MpiComm& comm() { return *comm_; }
  // The last prepared call's buffers (nullptr before the first prepare(), or for a program).
  RankData* data() { return work_ ? work_->data() : nullptr; }

 private:
  void run_now(Task<> task);  // to completion, rethrowing what it threw

  RunSpec spec_;
  // Before the comm, so that they outlive it: a failed call's receives into these buffers are
  // cancelled when the comm goes.
  std::optional<RankWork> work_;
  std::unique_ptr<MpiComm> owned_;
  MpiComm* comm_;
  TraceSink* trace_next_ = nullptr;
};

}  // namespace collsim
