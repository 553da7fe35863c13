#include "algorithms/nested_collective.hpp"

#include <limits>
#include <span>

#include "algorithms/registry.hpp"

namespace collsim {

namespace {

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

// Per band of communicator sizes, the algorithm for each band of message sizes. A step applies
// while the bytes are below `below`; each band ends with a step that always applies.
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

// The registry's entry Open MPI 4.1 picks for this call, with its knobs.
const AlgorithmInfo& fixed_algorithm(Operation op, int procs, std::size_t bytes, AlgorithmParams& params, int root) {
  const FixedChoice choice = ompi41_fixed_choice(op, procs, bytes);
  params = choice.params;
  params.root = root;
  return *find_algorithm(op, choice.ompi_id);
}

}  // namespace

FixedChoice ompi41_fixed_choice(Operation op, int procs, std::size_t bytes) {
  FixedChoice c{op == Operation::bcast ? pick(b41::bands, procs, bytes) : pick(g41::bands, procs, bytes), {}};
  c.params.segment = 0;
  // Open MPI 4.1 runs it with fanout 0, which its chain raises to 1.
  if (op == Operation::bcast && c.ompi_id == bc::chain) c.params.fanout = 1;
  return c;
}

Task<> communicator_gather(Comm& comm, Buffer block, Buffer gathered, int root) {
  AlgorithmParams params;
  const AlgorithmInfo& a = fixed_algorithm(Operation::gather, comm.size(), block.size(), params, root);
  co_await a.run(comm, RankBuffers{block, gathered}, params);
}

Task<> communicator_bcast(Comm& comm, Buffer data, int root) {
  AlgorithmParams params;
  const AlgorithmInfo& a = fixed_algorithm(Operation::bcast, comm.size(), data.size(), params, root);
  co_await a.run(comm, RankBuffers{data, {}}, params);
}

}  // namespace collsim
