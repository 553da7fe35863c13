#include "selection/decision.hpp"

#include <array>
#include <cstdint>
#include <limits>
#include <span>

#include "engines/run.hpp"
#include "experiment/units.hpp"

namespace collsim::selection {

bool operator==(const Choice& a, const Choice& b) {
  if (a.algorithm != b.algorithm) return false;
  if (a.algorithm == nullptr) return true;
  for (const KnobInfo& k : all_knobs())
    if (a.algorithm->takes(k.knob) && get_knob(a.params, k.knob) != get_knob(b.params, k.knob)) return false;
  return true;
}

std::string to_string(const Choice& choice) {
  if (choice.algorithm == nullptr) return "(none)";
  std::string out(choice.algorithm->name);
  for (const KnobInfo& k : all_knobs()) {
    if (!choice.algorithm->takes(k.knob)) continue;
    const long long v = get_knob(choice.params, k.knob);
    // Appended piece by piece: GCC 12 misreports `" " + std::string` chains (-Wrestrict).
    out += ' ';
    out += k.name;
    out += ' ';
    out += k.knob == Knob::segment ? format_bytes(static_cast<std::size_t>(v)) : std::to_string(v);
  }
  return out;
}

std::string_view to_string(OmpiVersion v) {
  switch (v) {
    case OmpiVersion::v3_1: return "3.1";
    case OmpiVersion::v4_1: return "4.1";
  }
  return "?";
}

namespace {

// The registry's entries by Open MPI ID, looked up once: a decision runs per MPI call, so it
// indexes an array instead of searching the registry.
struct ById {
  std::array<const AlgorithmInfo*, 10> bcast{};
  std::array<const AlgorithmInfo*, 4> gather{};
};

const ById& by_id() {
  static const ById table = [] {
    ById t;
    for (int id = 1; id < 10; ++id) t.bcast[static_cast<std::size_t>(id)] = find_algorithm(Operation::bcast, id);
    for (int id = 1; id < 4; ++id) t.gather[static_cast<std::size_t>(id)] = find_algorithm(Operation::gather, id);
    return t;
  }();
  return table;
}

Choice make(Operation op, int id, std::size_t segment, int fanout = 4) {
  const ById& t = by_id();
  Choice c;
  c.algorithm = op == Operation::bcast ? t.bcast[static_cast<std::size_t>(id)] : t.gather[static_cast<std::size_t>(id)];
  c.params.segment = segment;
  c.params.fanout = fanout;
  return c;
}

// Open MPI's bcast IDs and gather IDs, by name, for the tables below.
namespace bc {
constexpr int basic_linear = 1, chain = 2, pipeline = 3, split_binary_tree = 4, binary_tree = 5, binomial = 6,
              knomial = 7, scatter_allgather = 8;
}
namespace ga {
constexpr int basic_linear = 1, binomial = 2, linear_sync = 3;
}

constexpr std::size_t KiB = 1024;
constexpr std::size_t MiB = 1024 * KiB;

// 3.1: thresholds in message bytes, and lines p < a*m + b fitted to measurements (Open MPI's
// comparison is in double: the process count and the bytes converted, the product rounded).
Choice bcast_3_1(int procs, std::size_t bytes) {
  using namespace bc;
  if (bytes < 2048) return make(Operation::bcast, binomial, 0);
  if (bytes < 370728) return make(Operation::bcast, split_binary_tree, 1 * KiB);
  const double m = static_cast<double>(bytes), p = procs;
  if (p < 1.6134e-6 * m + 2.1102) return make(Operation::bcast, pipeline, 128 * KiB);
  if (procs < 13) return make(Operation::bcast, split_binary_tree, 8 * KiB);
  if (p < 2.3679e-6 * m + 1.1787) return make(Operation::bcast, pipeline, 64 * KiB);
  if (p < 3.2118e-6 * m + 8.7936) return make(Operation::bcast, pipeline, 16 * KiB);
  return make(Operation::bcast, pipeline, 8 * KiB);
}

Choice gather_3_1(int procs, std::size_t bytes) {
  using namespace ga;
  if (bytes > 92160) return make(Operation::gather, linear_sync, 32 * KiB);
  if (bytes > 6000) return make(Operation::gather, linear_sync, 1 * KiB);
  if (procs > 60 || (procs > 10 && bytes < 1024)) return make(Operation::gather, binomial, 0);
  return make(Operation::gather, basic_linear, 0);
}

// 4.1: per band of communicator sizes, the algorithm for each band of message sizes. A step
// applies while the bytes are below `below`; each band ends with a step that always applies.
struct Step {
  std::size_t below;
  int id;
};
struct Band {
  int procs_below;
  std::span<const Step> steps;
};

constexpr std::size_t kAll = std::numeric_limits<std::size_t>::max();
constexpr int kAllProcs = std::numeric_limits<int>::max();

namespace b41 {
using namespace bc;
constexpr Step p4[] = {{32, pipeline},     {256, binary_tree},        {512, pipeline},
                       {1 * KiB, knomial}, {32 * KiB, basic_linear},  {128 * KiB, binary_tree},
                       {256 * KiB, chain}, {512 * KiB, basic_linear}, {1 * MiB, binomial},
                       {kAll, binary_tree}};
constexpr Step p8[] = {{64, binary_tree},   {128, binomial},         {2 * KiB, binary_tree},
                       {8 * KiB, binomial}, {1 * MiB, basic_linear}, {kAll, chain}};
constexpr Step p16[] = {{8, knomial},         {64, binary_tree},   {4 * KiB, knomial}, {16 * KiB, binary_tree},
                        {32 * KiB, binomial}, {kAll, basic_linear}};
constexpr Step p32[] = {{4 * KiB, knomial}, {1 * MiB, binomial}, {kAll, scatter_allgather}};
constexpr Step p64[] = {{2 * KiB, binomial}, {kAll, knomial}};
constexpr Step p128[] = {{kAll, knomial}};
constexpr Step p256[] = {
    {2, binomial}, {16 * KiB, binary_tree}, {32 * KiB, basic_linear}, {64 * KiB, binary_tree}, {kAll, knomial}};
constexpr Step p1024[] = {{16 * KiB, knomial}, {32 * KiB, split_binary_tree}, {kAll, knomial}};
constexpr Step p2048[] = {{512 * KiB, knomial}, {kAll, scatter_allgather}};
constexpr Step p4096[] = {{256 * KiB, knomial}, {kAll, scatter_allgather}};
constexpr Step rest[] = {{8 * KiB, knomial}, {16 * KiB, binary_tree}, {256 * KiB, knomial}, {kAll, scatter_allgather}};
constexpr Band bands[] = {{4, p4},     {8, p8},       {16, p16},     {32, p32},     {64, p64},        {128, p128},
                          {256, p256}, {1024, p1024}, {2048, p2048}, {4096, p4096}, {kAllProcs, rest}};
}  // namespace b41

namespace g41 {
using namespace ga;
constexpr Step p4[] = {{2, linear_sync},         {4, basic_linear},     {32 * KiB, binomial},
                       {64 * KiB, basic_linear}, {128 * KiB, binomial}, {kAll, linear_sync}};
constexpr Step p8[] = {
    {1 * KiB, binomial}, {8 * KiB, basic_linear}, {32 * KiB, binomial}, {256 * KiB, basic_linear}, {kAll, linear_sync}};
constexpr Step binomial_only[] = {{kAll, binomial}};
constexpr Step p512[] = {{2 * KiB, binomial}, {8 * KiB, basic_linear}, {kAll, binomial}};
constexpr Band bands[] = {{4, p4}, {8, p8}, {256, binomial_only}, {512, p512}, {kAllProcs, binomial_only}};
}  // namespace g41

int pick(std::span<const Band> bands, int procs, std::size_t bytes) {
  for (const Band& band : bands) {
    if (procs >= band.procs_below) continue;
    for (const Step& s : band.steps)
      if (bytes < s.below) return s.id;
    return band.steps.back().id;
  }
  return bands.back().steps.back().id;
}

}  // namespace

Choice ompi_fixed_decision(OmpiVersion v, Operation op, int procs, std::size_t bytes) {
  if (procs < 1) throw InputError("a decision needs at least 1 process, not " + std::to_string(procs));
  if (v == OmpiVersion::v3_1) return op == Operation::bcast ? bcast_3_1(procs, bytes) : gather_3_1(procs, bytes);
  if (op == Operation::bcast) {
    const int id = pick(b41::bands, procs, bytes);
    // Open MPI 4.1 runs it with fanout 0, which its chain raises to 1.
    return make(op, id, 0, id == bc::chain ? 1 : 4);
  }
  return make(op, pick(g41::bands, procs, bytes), 0);
}

}  // namespace collsim::selection
