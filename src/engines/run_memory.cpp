#include "engines/run_memory.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "algorithms/operation.hpp"
#include "support/units.hpp"

namespace collsim {
namespace {

// Bytes per rank each engine holds besides the payload, rounded up from the largest measured
// (tools/bench/README.md, "Memory per rank"): the model engine's record, frames and requests of
// a rank that runs from time 0 (allreduce/ring: 2.1 KiB at 65536 ranks), or of one that exists
// only while it runs (the broadcasts that receive first: under 100 bytes); the sim engine's actor
// and the pages of its stack it touches (about 17-23 KiB).
constexpr double kModelPerRank = 3 * 1024.0;
constexpr double kModelPerLateRank = 256.0;
constexpr double kSimPerRank = 32 * 1024.0;
// Buffers of the algorithms (temporaries, partial results) and copies of messages in flight,
// over the descriptor's own buffers: at most as much again.
constexpr double kPayloadOverhead = 2.0;

double buffers_of(const RunSpec& spec) {
  const OperationInfo& op = operation_info(spec.algorithm->op);
  // The layout depends on the rank only through the root, so two ranks say it for all.
  const BufferSizes root = op.layout(call_shape(spec, spec.params.root));
  const auto sum = [](const BufferSizes& b) { return static_cast<double>(b.data) + static_cast<double>(b.result); };
  if (spec.procs == 1) return sum(root);
  const int other = spec.params.root == 0 ? 1 : 0;
  return sum(root) + (spec.procs - 1) * sum(op.layout(call_shape(spec, other)));
}

}  // namespace

RunMemory estimate_run_memory(Engine engine, const RunSpec& spec) {
  RunMemory m;
  if (is_formula(engine)) return m;
  if (spec.program) {
    m.payload = spec.program->memory_bytes(spec.procs);
  } else if (spec.real_bytes) {
    m.payload = kPayloadOverhead * buffers_of(spec);
    if (spec.then_gather) m.payload += kPayloadOverhead * static_cast<double>(spec.then_gather) * spec.procs;
  }
  const bool late = spec.algorithm && spec.algorithm->receives_first && !spec.trace;
  const double per_rank = engine == Engine::sim ? kSimPerRank : late ? kModelPerLateRank : kModelPerRank;
  m.engine = per_rank * spec.procs;
  return m;
}

std::uint64_t memory_limit() {
  if (const char* text = std::getenv("COLLSIM_MEMORY_LIMIT")) {
    const auto b = parse_bytes(text);
    if (!b || *b == 0)
      throw InputError(std::string("COLLSIM_MEMORY_LIMIT: '") + text + "' is not a size (e.g. 512MiB, 16GiB)");
    return *b;
  }
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : UINT64_MAX;
}

std::string readable_bytes(double bytes) {
  static constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024 && u < 6) {
    bytes /= 1024;
    ++u;
  }
  char out[32];
  const char* format = u == 0 || bytes >= 100 ? "%.0f%s" : bytes >= 10 ? "%.1f%s" : "%.2f%s";
  std::snprintf(out, sizeof out, format, bytes, units[u]);
  return out;
}

namespace {
std::string limit_text(std::uint64_t limit) {
  return std::getenv("COLLSIM_MEMORY_LIMIT") ? "COLLSIM_MEMORY_LIMIT's " + readable_bytes(static_cast<double>(limit))
                                             : "this machine's " + readable_bytes(static_cast<double>(limit));
}
}  // namespace

void check_memory(const RunMemory& need, const std::string& what, Engine engine, int jobs,
                  const std::string& virtual_hint) {
  const std::uint64_t limit = memory_limit();
  const double total = need.total() * std::max(jobs, 1);
  if (total <= static_cast<double>(limit)) return;
  std::string parts;
  if (need.payload > 0) parts = readable_bytes(need.payload) + " of real payload";
  if (need.engine > 0)
    parts += (parts.empty() ? "" : ", ") + readable_bytes(need.engine) + " for the " +
             std::string(engine_name(engine)) + " engine's ranks";
  std::string remedy;
  if (jobs > 1 && need.total() <= static_cast<double>(limit))
    remedy = "run fewer points at once (--jobs " +
             std::to_string(std::max<long>(1, static_cast<long>(static_cast<double>(limit) / need.total()))) + ")";
  else if (need.payload > need.engine)
    remedy = "use virtual payloads (" + virtual_hint + ") or smaller sizes";
  else
    remedy = "use fewer processes";
  throw InputError(what + " needs about " + readable_bytes(need.total()) + " of memory (" + parts + ")" +
                   (jobs > 1 ? " in each of " + std::to_string(jobs) + " jobs" : "") + ", more than " +
                   limit_text(limit) + ": " + remedy);
}

void check_run_memory(Engine engine, const RunSpec& spec, int jobs) {
  const std::string what =
      (spec.program ? spec.program->describe(spec.procs)
                    : std::string(spec.algorithm->name) + " on " + std::to_string(spec.procs) + " processes") +
      " on engine " + std::string(engine_name(engine));
  check_memory(estimate_run_memory(engine, spec), what, engine, jobs);
}

std::uint64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  unsigned long long size = 0, resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

std::string memory_exceeded(const std::string& what) {
  const std::uint64_t limit = memory_limit();
  const std::uint64_t held = resident_bytes();
  if (held <= limit) return {};
  return what + " took " + readable_bytes(static_cast<double>(held)) + " of memory part-way, more than " +
         limit_text(limit) + ": use fewer processes or virtual payloads";
}

}  // namespace collsim
