#include "engines/mpi/algorithm_call.hpp"

#include <utility>

namespace collsim {

void check_fits(MPI_Comm comm, const RunSpec& spec) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  if (!spec.algorithm && !spec.program) throw InputError("no algorithm given");
  if (spec.procs != size)
    throw InputError(describe(spec) + ": the communicator has " + std::to_string(size) + " processes");
  if (spec.program) return;
  if (spec.params.root < 0 || spec.params.root >= size)
    throw InputError(describe(spec) + ": root " + std::to_string(spec.params.root) + " is not a rank of " +
                     std::to_string(size) + " processes");
}

namespace {
const RunSpec& validated(MPI_Comm comm, const RunSpec& spec) {
  check_fits(comm, spec);
  return spec;
}
}  // namespace

AlgorithmCall::AlgorithmCall(MPI_Comm comm, const RunSpec& spec)
    : spec_(validated(comm, spec)), owned_(std::make_unique<MpiComm>(comm)), comm_(owned_.get()) {
  spec_.real_bytes = true;
}

AlgorithmCall::AlgorithmCall(MpiComm& comm, const RunSpec& spec) : spec_(validated(comm.handle(), spec)), comm_(&comm) {
  spec_.real_bytes = true;
}

AlgorithmCall::~AlgorithmCall() {
  // Only a failed call leaves requests; a borrowed comm lives on, so they must not outlive the
  // buffers they point into.
  if (comm_->active_requests() != 0) comm_->cancel_all();
}

void AlgorithmCall::prepare() {
  work_.reset();  // free the last call's buffers before allocating the next ones
  work_.emplace(spec_, comm_->rank());
  comm_->set_epoch(MPI_Wtime());
  run_now(work_->setup(*comm_));
}

void AlgorithmCall::run(double start_wtime) {
  if (!work_) throw EngineError("AlgorithmCall::run before prepare");
  comm_->set_epoch(start_wtime);
  // Traced (when asked) for this run only, whether it returns or throws; a borrowed comm's own
  // sink, if any, is left alone otherwise.
  TraceSink* const sink = std::exchange(trace_next_, nullptr);
  struct Untrace {
    MpiComm* comm;
    ~Untrace() {
      if (comm) comm->set_trace(nullptr);
    }
  } untrace{sink ? comm_ : nullptr};
  if (sink) comm_->set_trace(sink);
  run_now(work_->call(*comm_));
  try {
    comm_->check_returned();
  } catch (const CommError& e) {
    throw EngineError(e.what());
  }
}

std::string AlgorithmCall::check() {
  if (!work_) return "no call was prepared";
  run_now(work_->finish(*comm_));
  return work_->check();
}

void AlgorithmCall::run_now(Task<> task) {
  collsim::start(task);
  // MpiComm completes every await on the spot, so the whole task has run by now.
  if (!task.done())
    throw EngineError("rank " + std::to_string(comm_->rank()) +
                      ": the algorithm suspended, which the mpi engine never asks for");
  rethrow_if_failed(task);
}

}  // namespace collsim
