#include "engines/run.hpp"

#include <algorithm>

#include "algorithms/collectives.hpp"

namespace collsim {

namespace {

Task<> call_then_gather(Comm& comm, RankBuffers buffers, const RunSpec& spec) {
  co_await spec.algorithm->run(comm, buffers, spec.params);
  const bool root = comm.rank() == spec.params.root;
  Storage block(spec.then_gather, spec.real_bytes);
  Storage all(root ? spec.then_gather * static_cast<std::size_t>(comm.size()) : 0, spec.real_bytes);
  AlgorithmParams p;
  p.root = spec.params.root;
  co_await gather_basic_linear(comm, block.view(), all.view(), p);
}

}  // namespace

// Not a coroutine itself: a plain call hands back the algorithm's own task, so a rank holds no
// wrapper frame (a model run holds millions of ranks' frames at once).
Task<> run_call(Comm& comm, RankBuffers buffers, const RunSpec& spec) {
  if (spec.then_gather == 0) return spec.algorithm->run(comm, buffers, spec.params);
  return call_then_gather(comm, buffers, spec);
}

RankWork::RankWork(const RunSpec& spec, int rank) : spec_(&spec), rank_(rank) {
  if (spec.program)
    program_ = spec.program->rank(rank, spec.procs);
  else if (spec.real_bytes)
    data_ = std::make_unique<RankData>(spec.algorithm->op, call_shape(spec, rank), true);
}

RankBuffers RankWork::buffers() {
  if (data_) return data_->buffers();
  return RankData::virtual_buffers(spec_->algorithm->op, call_shape(*spec_, rank_));
}

Task<> RankWork::run(Comm& comm) {
  if (program_) return run_program(comm);
  if (spec_->timing.kind == Timing::Kind::osu) return run_osu(comm);
  return run_call(comm, buffers(), *spec_);
}

// osu_bcast's loop (Timing), on every rank. The first call starts at the common date, so its
// return is also the rank's finish under the collective timing.
Task<> RankWork::run_osu(Comm& comm) {
  const Timing& timing = spec_->timing;
  AlgorithmParams barrier_params;
  const AlgorithmInfo& barrier = fixed_choice(Operation::barrier, comm.size(), 0, true, 0, barrier_params);
  const double start = comm.now();
  double timed = 0;
  for (int i = 0; i < timing.skip + timing.iterations; ++i) {
    const double t0 = comm.now();
    co_await run_call(comm, buffers(), *spec_);
    const double t1 = comm.now();
    if (i == 0) timed_s_ = t1 - start;
    if (i >= timing.skip) timed += t1 - t0;
    co_await barrier.run(comm, RankBuffers{}, barrier_params);
  }
  osu_s_ = timed / timing.iterations;
}

Task<> RankWork::run_program(Comm& comm) {
  co_await program_->setup(comm);
  if (comm.warms_up()) {
    co_await program_->run(comm);
    co_await comm.barrier();
  }
  const double start = comm.now();
  co_await program_->run(comm);
  timed_s_ = comm.now() - start;
  co_await program_->finish(comm);
}

Task<> RankWork::setup(Comm& comm) {
  if (program_) co_await program_->setup(comm);
}

Task<> RankWork::call(Comm& comm) {
  if (program_)
    co_await program_->run(comm);
  else
    co_await run_call(comm, buffers(), *spec_);
}

Task<> RankWork::finish(Comm& comm) {
  if (program_) co_await program_->finish(comm);
}

std::string RankWork::check() const {
  if (program_) return program_->check();
  return data_ ? data_->check() : std::string();
}

const char* to_string(Timing::Kind kind) { return kind == Timing::Kind::osu ? "osu" : "collective"; }

std::optional<Timing::Kind> parse_timing(std::string_view text) {
  for (Timing::Kind k : {Timing::Kind::collective, Timing::Kind::osu})
    if (text == to_string(k)) return k;
  return std::nullopt;
}

std::optional<OsuTimes> osu_times(const std::vector<double>& osu_s) {
  if (osu_s.empty()) return std::nullopt;
  OsuTimes t;
  t.min_s = *std::min_element(osu_s.begin(), osu_s.end());
  t.max_s = *std::max_element(osu_s.begin(), osu_s.end());
  double sum = 0;
  for (double s : osu_s) sum += s;
  t.avg_s = sum / static_cast<double>(osu_s.size());
  return t;
}

double call_time(const RunSpec& spec, const std::vector<double>& finish_s) {
  if (finish_s.empty()) return 0;
  if (spec.timed_on_root) return finish_s.at(static_cast<std::size_t>(spec.params.root));
  return *std::max_element(finish_s.begin(), finish_s.end());
}

CallShape call_shape(const RunSpec& spec, int rank) {
  return {rank, spec.procs, spec.params.root, spec.bytes, spec.params.reduction};
}

std::string describe(const RunSpec& spec) {
  if (spec.program) return spec.program->describe(spec.procs);
  std::string s =
      std::string(spec.algorithm ? spec.algorithm->name : "?") + " on " + std::to_string(spec.procs) + " processes (";
  if (!spec.algorithm || operation_info(spec.algorithm->op).rooted)
    s += "root " + std::to_string(spec.params.root) + ", ";
  s += std::to_string(spec.bytes) + " bytes";
  if (spec.params.segment) s += ", segment " + std::to_string(spec.params.segment);
  if (spec.algorithm && operation_info(spec.algorithm->op).reduces)
    s += ", " + std::string(to_string(spec.params.reduction.type)) + " " +
         std::string(to_string(spec.params.reduction.op));
  if (spec.then_gather) s += ", then a linear gather of " + std::to_string(spec.then_gather) + " bytes";
  if (spec.timed_on_root) s += ", timed on the root";
  if (spec.timing.kind == Timing::Kind::osu)
    s += ", OSU timing: " + std::to_string(spec.timing.skip) + " warm-up + " + std::to_string(spec.timing.iterations) +
         " timed calls";
  return s + ")";
}

}  // namespace collsim
