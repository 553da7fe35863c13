#include "algorithms/ompi41_decision.hpp"

#include <limits>
#include <span>

namespace collsim {

namespace {

constexpr std::size_t KiB = 1024;
constexpr std::size_t MiB = 1024 * KiB;

// Per band of communicator sizes, the algorithm for each band of decision sizes. A step applies
// while m is below `below`; each band ends with a step that always applies.
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

// Open MPI's bcast IDs and gather IDs, by name, for the tables below.
namespace bc {
constexpr int basic_linear = 1, chain = 2, pipeline = 3, split_binary_tree = 4, binary_tree = 5, binomial = 6,
              knomial = 7, scatter_allgather = 8;
}
namespace ga {
constexpr int basic_linear = 1, binomial = 2, linear_sync = 3;
}

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

// The other operations' tables, by Open MPI ID, as the reference writes them ("= 2" rows are a
// band of their own between the bands below and above 2 processes).
// allreduce, commutative operator: 1 basic_linear, 2 nonoverlapping, 3 recursive_doubling, 4 ring, 5 segmented_ring, 6
// rabenseifner
namespace allreduce_commutative {
constexpr Step r0[] = {{8, 4}, {4096, 3}, {8192, 4}, {16384, 3}, {65536, 4}, {262144, 5}, {kAll, 6}};
constexpr Step r1[] = {{16, 4}, {8192, 3}, {kAll, 6}};
constexpr Step r2[] = {{8192, 3}, {kAll, 6}};
constexpr Step r3[] = {{64, 5}, {4096, 3}, {kAll, 6}};
constexpr Step r4[] = {{128, 5}, {kAll, 6}};
constexpr Step r5[] = {{262144, 3}, {kAll, 6}};
constexpr Step r6[] = {{131072, 2}, {262144, 3}, {kAll, 6}};
constexpr Step r7[] = {{4096, 2}, {kAll, 6}};
constexpr Step r8[] = {{2048, 2}, {16384, 3}, {kAll, 6}};
constexpr Step r9[] = {{2048, 2}, {4096, 5}, {16384, 3}, {kAll, 6}};
constexpr Step r10[] = {{2048, 2}, {16384, 5}, {32768, 3}, {kAll, 6}};
constexpr Band bands[] = {{4, r0},   {8, r1},   {16, r2},   {32, r3},   {64, r4},        {128, r5},
                          {256, r6}, {512, r7}, {2048, r8}, {4096, r9}, {kAllProcs, r10}};
}  // namespace allreduce_commutative

// allreduce, non-commutative operator
namespace allreduce_noncommutative {
constexpr Step r0[] = {{131072, 3}, {kAll, 1}};
constexpr Step r1[] = {{kAll, 3}};
constexpr Step r2[] = {{1048576, 3}, {kAll, 2}};
constexpr Step r3[] = {{kAll, 3}};
constexpr Step r4[] = {{131072, 2}, {524288, 3}, {kAll, 2}};
constexpr Step r5[] = {{4096, 2}, {524288, 3}, {kAll, 2}};
constexpr Step r6[] = {{2048, 2}, {kAll, 3}};
constexpr Band bands[] = {{4, r0}, {8, r1}, {16, r2}, {128, r3}, {256, r4}, {512, r5}, {kAllProcs, r6}};
}  // namespace allreduce_noncommutative

// reduce, commutative: 1 linear, 2 chain, 3 pipeline, 4 binary, 5 binomial, 6 in-order_binary, 7 rabenseifner
namespace reduce_commutative {
constexpr Step r0[] = {{8, 7}, {16, 4}, {32, 3}, {262144, 1}, {524288, 3}, {1048576, 2}, {kAll, 3}};
constexpr Step r1[] = {{4096, 4}, {65536, 2}, {262144, 5}, {524288, 1}, {1048576, 5}, {kAll, 1}};
constexpr Step r2[] = {{8192, 4}, {kAll, 5}};
constexpr Step r3[] = {{4096, 4}, {kAll, 5}};
constexpr Step r4[] = {{kAll, 5}};
constexpr Step r5[] = {{8192, 5}, {16384, 6}, {kAll, 5}};
constexpr Step r6[] = {{kAll, 5}};
constexpr Step r7[] = {{512, 5}, {1024, 6}, {8192, 5}, {16384, 6}, {kAll, 5}};
constexpr Step r8[] = {{16, 5}, {32, 6}, {1024, 5}, {2048, 6}, {8192, 5}, {16384, 6}, {kAll, 5}};
constexpr Band bands[] = {{4, r0},   {8, r1},    {16, r2},   {32, r3},       {256, r4},
                          {512, r5}, {2048, r6}, {4096, r7}, {kAllProcs, r8}};
}  // namespace reduce_commutative

// reduce, non-commutative operator
namespace reduce_noncommutative {
constexpr Step r0[] = {{8, 6}, {kAll, 1}};
constexpr Step r1[] = {{kAll, 1}};
constexpr Step r2[] = {{1024, 6}, {8192, 1}, {16384, 6}, {262144, 1}, {kAll, 6}};
constexpr Step r3[] = {{kAll, 6}};
constexpr Step r4[] = {{512, 6}, {1024, 1}, {kAll, 6}};
constexpr Step r5[] = {{kAll, 6}};
constexpr Band bands[] = {{4, r0}, {8, r1}, {16, r2}, {128, r3}, {256, r4}, {kAllProcs, r5}};
}  // namespace reduce_noncommutative

// reduce_scatter, commutative: 1 non-overlapping, 2 recursive_halving, 3 ring, 4 butterfly
namespace reduce_scatter_commutative {
constexpr Step r0[] = {{65536, 3}, {131072, 4}, {kAll, 3}};
constexpr Step r1[] = {{8, 1}, {262144, 2}, {kAll, 3}};
constexpr Step r2[] = {{262144, 2}, {kAll, 3}};
constexpr Step r3[] = {{64, 1}, {2048, 2}, {524288, 4}, {kAll, 3}};
constexpr Step r4[] = {{256, 1}, {512, 2}, {2048, 4}, {4096, 2}, {kAll, 4}};
constexpr Step r5[] = {{256, 1}, {512, 2}, {kAll, 4}};
constexpr Step r6[] = {{256, 1}, {1024, 2}, {kAll, 4}};
constexpr Step r7[] = {{512, 1}, {2048, 2}, {8192, 4}, {16384, 2}, {kAll, 4}};
constexpr Step r8[] = {{512, 1}, {4096, 2}, {16384, 4}, {32768, 2}, {kAll, 4}};
constexpr Step r9[] = {{512, 1}, {4096, 2}, {kAll, 4}};
constexpr Step r10[] = {{1024, 1}, {8192, 2}, {kAll, 4}};
constexpr Band bands[] = {{4, r0},   {8, r1},    {32, r2},   {64, r3},   {128, r4},       {256, r5},
                          {512, r6}, {1024, r7}, {2048, r8}, {4096, r9}, {kAllProcs, r10}};
}  // namespace reduce_scatter_commutative

// reduce_scatter, non-commutative operator
namespace reduce_scatter_noncommutative {
constexpr Step r0[] = {{kAll, 1}};
constexpr Band bands[] = {{kAllProcs, r0}};
}  // namespace reduce_scatter_noncommutative

// allgather: 1 linear, 2 bruck, 3 recursive_doubling, 4 ring, 5 neighbor, 6 two_proc
namespace allgather41 {
constexpr Step r0[] = {{kAll, 6}};
constexpr Step r1[] = {{kAll, 3}};
constexpr Step r2[] = {{1024, 3}, {65536, 5}, {kAll, 4}};
constexpr Step r3[] = {{512, 3}, {65536, 5}, {kAll, 4}};
constexpr Step r4[] = {{512, 3}, {131072, 5}, {524288, 4}, {1048576, 5}, {kAll, 4}};
constexpr Step r5[] = {{32, 3}, {128, 2}, {1024, 3}, {131072, 5}, {524288, 4}, {1048576, 5}, {kAll, 4}};
constexpr Step r6[] = {{64, 3}, {256, 2}, {2048, 3}, {kAll, 5}};
constexpr Step r7[] = {{4, 3}, {8, 2}, {16, 3}, {32, 2}, {256, 3}, {512, 2}, {4096, 3}, {kAll, 5}};
constexpr Step r8[] = {{32, 2}, {128, 3}, {512, 2}, {4096, 3}, {kAll, 5}};
constexpr Step r9[] = {{2, 3}, {8, 2}, {16, 3}, {512, 2}, {4096, 3}, {kAll, 5}};
constexpr Band bands[] = {{2, r1},   {3, r0},    {32, r1},   {64, r2},   {128, r3},      {256, r4},
                          {512, r5}, {1024, r6}, {2048, r7}, {4096, r8}, {kAllProcs, r9}};
}  // namespace allgather41

// alltoall: 1 linear, 2 pairwise, 3 modified_bruck, 4 linear_sync, 5 two_proc
namespace alltoall41 {
constexpr Step r0[] = {{2, 2},    {4, 5},     {16, 2},     {64, 5},      {256, 2},
                       {4096, 5}, {32768, 2}, {262144, 4}, {1048576, 5}, {kAll, 2}};
constexpr Step r1[] = {{8192, 4}, {16384, 1}, {65536, 4}, {524288, 1}, {1048576, 2}, {kAll, 1}};
constexpr Step r2[] = {{262144, 4}, {kAll, 1}};
constexpr Step r3[] = {{4, 4}, {512, 3}, {8192, 4}, {32768, 1}, {262144, 4}, {524288, 1}, {kAll, 4}};
constexpr Step r4[] = {{512, 3}, {524288, 1}, {kAll, 4}};
constexpr Step r5[] = {{1024, 3}, {2048, 1}, {4096, 4}, {262144, 1}, {kAll, 2}};
constexpr Step r6[] = {{1024, 3}, {2048, 4}, {262144, 1}, {kAll, 2}};
constexpr Step r7[] = {{1024, 3}, {8192, 4}, {32768, 1}, {kAll, 2}};
constexpr Step r8[] = {{512, 3}, {8192, 4}, {16384, 1}, {131072, 4}, {262144, 1}, {kAll, 2}};
constexpr Step r9[] = {{512, 3}, {1024, 4}, {2048, 1}, {16384, 4}, {262144, 1}, {kAll, 4}};
constexpr Step r10[] = {{1024, 3}, {4096, 4}, {8192, 1}, {131072, 4}, {kAll, 1}};
constexpr Step r11[] = {{2048, 3}, {8192, 4}, {16384, 1}, {32768, 4}, {65536, 1}, {kAll, 4}};
constexpr Band bands[] = {{2, r1},   {3, r0},   {8, r1},    {16, r2},   {32, r3},    {64, r4},        {128, r5},
                          {256, r6}, {512, r7}, {1024, r8}, {2048, r9}, {4096, r10}, {kAllProcs, r11}};
}  // namespace alltoall41

// scatter: 1 basic_linear, 2 binomial, 3 linear_nb
namespace scatter41 {
constexpr Step r0[] = {{2, 3}, {131072, 1}, {262144, 3}, {kAll, 1}};
constexpr Step r1[] = {{2048, 2}, {4096, 1}, {8192, 2}, {32768, 1}, {1048576, 3}, {kAll, 1}};
constexpr Step r2[] = {{16384, 2}, {1048576, 3}, {kAll, 1}};
constexpr Step r3[] = {{16384, 2}, {32768, 1}, {kAll, 3}};
constexpr Step r4[] = {{512, 2}, {8192, 3}, {16384, 2}, {kAll, 3}};
constexpr Step r5[] = {{512, 2}, {kAll, 3}};
constexpr Band bands[] = {{4, r0}, {8, r1}, {16, r2}, {32, r3}, {64, r4}, {kAllProcs, r5}};
}  // namespace scatter41

// barrier (communicator size only): 1 linear, 2 double_ring, 3 recursive_doubling, 4 bruck, 5 two_proc, 6 tree
namespace barrier41 {
constexpr Step r0[] = {{kAll, 3}};
constexpr Step r1[] = {{kAll, 1}};
constexpr Step r2[] = {{kAll, 3}};
constexpr Step r3[] = {{kAll, 4}};
constexpr Step r4[] = {{kAll, 6}};
constexpr Step r5[] = {{kAll, 4}};
constexpr Step r6[] = {{kAll, 6}};
constexpr Step r7[] = {{kAll, 4}};
constexpr Band bands[] = {{4, r0}, {8, r1}, {64, r2}, {256, r3}, {512, r4}, {1024, r5}, {4096, r6}, {kAllProcs, r7}};
}  // namespace barrier41

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

std::size_t ompi41_decision_bytes(Operation op, int procs, std::size_t bytes) {
  return op == Operation::reduce_scatter ? bytes * static_cast<std::size_t>(procs) : bytes;
}

FixedChoice ompi41_fixed_choice(Operation op, int procs, std::size_t m, bool commutative) {
  int id = 0;
  switch (op) {
    case Operation::bcast: id = pick(b41::bands, procs, m); break;
    case Operation::gather: id = pick(g41::bands, procs, m); break;
    case Operation::scatter: id = pick(scatter41::bands, procs, m); break;
    case Operation::reduce:
      id =
          pick(commutative ? std::span<const Band>(reduce_commutative::bands) : reduce_noncommutative::bands, procs, m);
      break;
    case Operation::allreduce:
      id = pick(commutative ? std::span<const Band>(allreduce_commutative::bands) : allreduce_noncommutative::bands,
                procs, m);
      break;
    case Operation::allgather: id = pick(allgather41::bands, procs, m); break;
    case Operation::alltoall: id = pick(alltoall41::bands, procs, m); break;
    case Operation::barrier: id = pick(barrier41::bands, procs, 0); break;
    case Operation::reduce_scatter:
      id = pick(
          commutative ? std::span<const Band>(reduce_scatter_commutative::bands) : reduce_scatter_noncommutative::bands,
          procs, m);
      break;
  }
  FixedChoice c{id, {}};
  c.params.segment = 0;
  c.params.max_requests = 0;
  // Open MPI 4.1 runs its chains with fanout 0, which they raise to 1.
  c.params.fanout = 1;
  return c;
}

}  // namespace collsim
