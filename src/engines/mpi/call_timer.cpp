#include "engines/mpi/call_timer.hpp"

#include <time.h>

#include <algorithm>
#include <cstdio>
#include <exception>

#include "engines/mpi/mpi_util.hpp"
#include "engines/run.hpp"

namespace collsim {

double CollectiveCall::time_from(const std::vector<double>& finish_s) const {
  return finish_s.empty() ? 0 : *std::max_element(finish_s.begin(), finish_s.end());
}

void CollectiveCall::trace_next_run(TraceSink*) {
  throw InputError(describe() + ": cannot be traced (its messages are inside MPI)");
}

CallTimer::CallTimer(MPI_Comm comm, const TimerOptions& options) : options_(options), lead_(options.initial_lead_s) {
  // The protocol's messages travel apart from the timed call's, so neither can match the other.
  mpi_check(MPI_Comm_dup(comm, &ctrl_), "MPI_Comm_dup");
  MPI_Comm_rank(ctrl_, &rank_);
  MPI_Comm_size(ctrl_, &size_);
  synchronise_clocks();
}

void CallTimer::synchronise_clocks() {
  const double began = options_.clock();
  clock_ = std::make_unique<ClockSync>(ctrl_, options_.sync_rounds, options_.clock);
  synced_at_ = options_.clock();
  sync_cost_s_ = synced_at_ - began;
  ++syncs_;
}

CallTimer::~CallTimer() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Comm_free(&ctrl_);
}

namespace {
std::string on_rank(int rank, const char* what) {
  std::string text = what;
  // CommError messages already start with the rank; others (bad_alloc, ...) get it here.
  if (text.rfind("rank ", 0) == 0) return text;
  return "rank " + std::to_string(rank) + ": " + text;
}
}  // namespace

CallTimer::Agreement CallTimer::agree(bool failed, bool wrong, const std::string& failure, bool resync) {
  // One reduction carries everything; rank 0's wish to resync rides on it as a 0 under MIN.
  int mine[3] = {failed ? rank_ : size_, wrong ? rank_ : size_, resync ? 0 : 1};
  int lowest[3] = {size_, size_, 1};
  MPI_Request request;
  mpi_check(MPI_Iallreduce(mine, lowest, 3, MPI_INT, MPI_MIN, ctrl_, &request), "MPI_Iallreduce");
  if (!failed) {
    mpi_check(MPI_Wait(&request, MPI_STATUS_IGNORE), "MPI_Wait");
  } else {
    // A rank that threw may have left the others waiting for messages it will never send; they
    // would never reach this reduction. Wait for them a while, then take the whole job down
    // rather than hang until some outer timeout.
    const double deadline = options_.clock() + options_.patience_s;
    int done = 0;
    while (true) {
      mpi_check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (done) break;
      if (options_.clock() > deadline) {
        std::fprintf(stderr,
                     "collsim mpi engine: %s\ncollsim mpi engine: the other ranks did not finish "
                     "the call within %g s; aborting the job\n",
                     failure.c_str(), options_.patience_s);
        std::fflush(stderr);
        MPI_Abort(ctrl_, 3);
      }
      const timespec pause{0, 100'000};
      nanosleep(&pause, nullptr);
    }
  }
  return {lowest[0], lowest[1], lowest[2] == 0};
}

std::string CallTimer::text_from(int rank, const std::string& mine) {
  unsigned long length = rank == rank_ ? mine.size() : 0;
  mpi_check(MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG, rank, ctrl_), "MPI_Bcast");
  std::string text = rank == rank_ ? mine : std::string(length, '\0');
  mpi_check(MPI_Bcast(text.data(), static_cast<int>(length), MPI_CHAR, rank, ctrl_), "MPI_Bcast");
  return text;
}

CallTiming CallTimer::time(CollectiveCall& call) {
  std::string failure;
  try {
    call.prepare();
  } catch (const std::exception& e) {
    failure = on_rank(rank_, e.what());
  }
  const bool stale =
      rank_ == 0 && options_.clock() - synced_at_ >
                        std::max(options_.resync_min_interval_s, sync_cost_s_ / options_.resync_max_overhead);
  // Also the barrier before the date is chosen: once it returns every rank is ready to go.
  Agreement ready = agree(!failure.empty(), false, failure, stale);
  if (ready.failed_rank < size_) throw EngineError(call.describe() + ": " + text_from(ready.failed_rank, failure));
  if (ready.resync) synchronise_clocks();

  double start = 0;
  if (rank_ == 0) start = options_.clock() + lead_;
  mpi_check(MPI_Bcast(&start, 1, MPI_DOUBLE, 0, ctrl_), "MPI_Bcast");
  const double local_start = clock_->to_local(start);
  const double late = wait_until(local_start, options_.clock);

  double finish = 0;
  std::string wrong;
  try {
    call.run(local_start);
    // The same clock rate everywhere is assumed, so a local difference is a difference on rank
    // 0's clock too.
    finish = options_.clock() - local_start;
    wrong = call.check();
  } catch (const std::exception& e) {
    failure = on_rank(rank_, e.what());
  }
  Agreement done = agree(!failure.empty(), !wrong.empty(), failure);
  if (done.failed_rank < size_) throw EngineError(call.describe() + ": " + text_from(done.failed_rank, failure));

  CallTiming timing;
  if (done.wrong_rank < size_) timing.data_error = text_from(done.wrong_rank, wrong);
  const double mine[2] = {finish, late};
  std::vector<double> all(2 * static_cast<std::size_t>(size_));
  mpi_check(MPI_Allgather(mine, 2, MPI_DOUBLE, all.data(), 2, MPI_DOUBLE, ctrl_), "MPI_Allgather");
  timing.finish_s.resize(static_cast<std::size_t>(size_));
  for (std::size_t r = 0; r < timing.finish_s.size(); ++r) {
    timing.finish_s[r] = all[2 * r];
    if (all[2 * r + 1] > 0) {
      ++timing.late_ranks;
      timing.max_late_s = std::max(timing.max_late_s, all[2 * r + 1]);
    }
  }
  timing.time_s = call.time_from(timing.finish_s);
  // Every rank sees the same arrivals, so every rank keeps the same lead (only rank 0 uses it).
  double delivery = 0;
  for (std::size_t r = 0; r < timing.finish_s.size(); ++r) delivery = std::max(delivery, lead_ + all[2 * r + 1]);
  delivery_s_.push_back(delivery);
  while (delivery_s_.size() > static_cast<std::size_t>(std::max(1, options_.lead_window))) delivery_s_.pop_front();
  const double longest = *std::max_element(delivery_s_.begin(), delivery_s_.end());
  lead_ = std::clamp(2 * longest, options_.min_lead_s, options_.max_lead_s);
  return timing;
}

}  // namespace collsim
