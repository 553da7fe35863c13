// The mpi-native engine: Open MPI's own MPI_Bcast / MPI_Gather, forced to the algorithm of the
// same name and ID as ours (AlgorithmInfo::ompi_id) with the same knobs, timed by the same
// protocol as our algorithms. Its numbers say how far our implementation of an algorithm is from
// Open MPI's on the same machine, the same bytes and the same timing.
//
// How the forcing works (Open MPI 4.1's coll/tuned component):
//  - coll_tuned_use_dynamic_rules must be true when MPI_Init runs: coll/tuned ignores forced
//    algorithms otherwise, and the variable is read-only through MPI_T once MPI is up.
//    enable_native_forcing() puts it in the environment (OMPI_MCA_coll_tuned_use_dynamic_rules=1)
//    before MPI_Init; an explicit setting there is left alone and a 0 makes mpi-native refuse.
//    With nothing forced, coll/tuned then uses its fixed decision as before, so nothing else
//    changes.
//  - coll/tuned copies the forced algorithm, segment size, chain fanout and max requests into a
//    communicator's module when the communicator is created. ForcedComm writes the MPI_T control
//    variables coll_tuned_<op>_algorithm and, for the knobs the algorithm takes only,
//    coll_tuned_<op>_algorithm_segmentsize, _chain_fanout and _max_requests (alltoall/linear_sync),
//    duplicates the communicator, and writes the previous values back, so communicators created
//    later (the timing protocol's own) are not forced.
//  - The k-nomial radix (coll_tuned_bcast_algorithm_knomial_radix) is not copied: Open MPI reads
//    the process-wide value at every call. ForcedComm sets it again before each call (outside
//    the timed part) and puts the previous value back when it goes.
//  - gather/linear_sync's first-segment size is coll_tuned_gather_algorithm_segmentsize.
// Forcing is checked message by message with Open MPI's pml monitoring
// (tests/engines/mpi/mpi_pattern_test.cpp, `collsim-mpi run`): for every algorithm, and for other roots,
// process counts, segments, fanouts and radices, Open MPI's forced collective sends the same
// number of messages, of the same sizes, between the same ranks as ours, and a different
// segment, fanout or radix changes that. (Open MPI's own tracing of its algorithm choice,
// coll_base_verbose, is compiled out of release builds such as Debian's.)
//
// Requirements, each refused with an InputError that says what is wrong: Open MPI's coll/tuned
// component (the algorithm names and IDs are checked against its enumeration), dynamic rules on,
// no other collective component that would take precedence over tuned (coll selection or
// priorities), and message and segment sizes that fit the int counts of MPI_Bcast/MPI_Gather.
// On one process Open MPI serves collectives from coll/self (no algorithm to force): the call is
// still Open MPI's MPI_Bcast / MPI_Gather on the same buffers.
#pragma once

#include <mpi.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/rank_data.hpp"
#include "engines/mpi/call_timer.hpp"
#include "engines/run.hpp"

namespace collsim {

// Call before MPI_Init. Sets OMPI_MCA_coll_tuned_use_dynamic_rules=1 unless the environment
// already says something.
void enable_native_forcing();

// "" when Open MPI can be forced to run `algorithm` with `params` on `bytes`, else why not (one
// line, e.g. "Open MPI's coll_tuned_bcast_algorithm has no algorithm 9"). Needs MPI initialised.
std::string native_support(const AlgorithmInfo& algorithm, const AlgorithmParams& params, std::size_t bytes);

// A duplicate of a communicator on which Open MPI runs one algorithm with given knobs.
class ForcedComm {
 public:
  // Collective over `comm`. Throws InputError (before any communication, with the same verdict
  // on every rank) when native_support() refuses.
  ForcedComm(MPI_Comm comm, const AlgorithmInfo& algorithm, const AlgorithmParams& params);
  ~ForcedComm();
  ForcedComm(const ForcedComm&) = delete;
  ForcedComm& operator=(const ForcedComm&) = delete;

  MPI_Comm handle() const { return comm_; }
  const AlgorithmInfo& algorithm() const { return *algorithm_; }
  // Whether a call of `spec` runs what this communicator was forced to (same algorithm and
  // knobs; root and size may differ).
  bool fits(const RunSpec& spec) const;
  // Sets what Open MPI reads at each call rather than at communicator creation (the k-nomial
  // radix, scatter's max_requests). Untimed: the calls do it before every call.
  void apply_call_knobs() const;

 private:
  const AlgorithmInfo* algorithm_;
  AlgorithmParams params_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::vector<std::pair<std::string, int>> saved_call_knobs_;  // process-wide values to put back
};

// Open MPI's collective as the CollectiveCall that the timing protocol runs: MPI_Bcast or
// MPI_Gather of MPI_BYTE on the buffers of RankData (the same inputs and checks as ours).
class NativeCall final : public CollectiveCall {
 public:
  // Collective over `comm` (duplicated and forced). Throws InputError like AlgorithmCall, and
  // when Open MPI cannot run the spec (see native_support).
  NativeCall(MPI_Comm comm, const RunSpec& spec);
  // Runs on `forced`, which must outlive the call and fit the spec (else InputError): many calls
  // then share one duplicate.
  NativeCall(ForcedComm& forced, const RunSpec& spec);
  NativeCall(const NativeCall&) = delete;
  NativeCall& operator=(const NativeCall&) = delete;

  void prepare() override;
  // Throws EngineError with MPI's message when the collective returns an error.
  void run(double start_wtime) override;
  std::string check() override;
  std::string describe() const override;
  double time_from(const std::vector<double>& finish_s) const override { return call_time(spec_, finish_s); }

  const RunSpec& spec() const { return spec_; }
  // The last prepared call's buffers (nullptr before the first prepare()).
  RankData* data() { return data_ ? &*data_ : nullptr; }

 private:
  void linear_gather();

  RunSpec spec_;
  std::unique_ptr<ForcedComm> owned_;
  ForcedComm* forced_;
  int rank_ = 0;
  std::optional<RankData> data_;
  std::vector<std::byte> gather_block_, gather_all_;  // spec.then_gather's buffers
};

}  // namespace collsim
