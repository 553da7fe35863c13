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
  if (!program_) return run_call(comm, buffers(), *spec_);
  return run_program(comm);
}

Task<> RankWork::run_program(Comm& comm) {
  co_await program_->setup(comm);
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
  return s + ")";
}

}  // namespace collsim
