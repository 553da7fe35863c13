#include "algorithms/ompi41_decision.hpp"

#include <limits>
#include <span>
#include <string_view>

namespace collsim {

namespace {

constexpr std::size_t KiB = 1024;
constexpr std::size_t MiB = 1024 * KiB;

// Per band of communicator sizes, the algorithm for each band of decision sizes. A step applies
// while m is below `below`; each band ends with a step that always applies.
struct Step {
  std::size_t below;
  std::string_view algorithm;  // Open MPI's name within the operation: "pipeline"
};
struct Band {
  int procs_below;
  std::span<const Step> steps;
};

constexpr std::size_t kAll = std::numeric_limits<std::size_t>::max();
constexpr int kAllProcs = std::numeric_limits<int>::max();

// Open MPI's bcast and gather algorithms, by name, for the tables below.
namespace bc {
constexpr std::string_view basic_linear = "basic_linear", chain = "chain", pipeline = "pipeline",
                           split_binary_tree = "split_binary_tree", binary_tree = "binary_tree", binomial = "binomial",
                           knomial = "knomial", scatter_allgather = "scatter_allgather";
}
namespace ga {
constexpr std::string_view basic_linear = "basic_linear", binomial = "binomial", linear_sync = "linear_sync";
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

// The other operations' tables, as the reference writes them with Open MPI's IDs, each ID
// written as the algorithm's name ("= 2" rows are a band of their own between the bands below and
// above 2 processes).
// allreduce, commutative operator
namespace allreduce_commutative {
constexpr Step r0[] = {
    {8, "ring"},     {4096, "recursive_doubling"}, {8192, "ring"},        {16384, "recursive_doubling"},
    {65536, "ring"}, {262144, "segmented_ring"},   {kAll, "rabenseifner"}};
constexpr Step r1[] = {{16, "ring"}, {8192, "recursive_doubling"}, {kAll, "rabenseifner"}};
constexpr Step r2[] = {{8192, "recursive_doubling"}, {kAll, "rabenseifner"}};
constexpr Step r3[] = {{64, "segmented_ring"}, {4096, "recursive_doubling"}, {kAll, "rabenseifner"}};
constexpr Step r4[] = {{128, "segmented_ring"}, {kAll, "rabenseifner"}};
constexpr Step r5[] = {{262144, "recursive_doubling"}, {kAll, "rabenseifner"}};
constexpr Step r6[] = {{131072, "nonoverlapping"}, {262144, "recursive_doubling"}, {kAll, "rabenseifner"}};
constexpr Step r7[] = {{4096, "nonoverlapping"}, {kAll, "rabenseifner"}};
constexpr Step r8[] = {{2048, "nonoverlapping"}, {16384, "recursive_doubling"}, {kAll, "rabenseifner"}};
constexpr Step r9[] = {
    {2048, "nonoverlapping"}, {4096, "segmented_ring"}, {16384, "recursive_doubling"}, {kAll, "rabenseifner"}};
constexpr Step r10[] = {
    {2048, "nonoverlapping"}, {16384, "segmented_ring"}, {32768, "recursive_doubling"}, {kAll, "rabenseifner"}};
constexpr Band bands[] = {{4, r0},   {8, r1},   {16, r2},   {32, r3},   {64, r4},        {128, r5},
                          {256, r6}, {512, r7}, {2048, r8}, {4096, r9}, {kAllProcs, r10}};
}  // namespace allreduce_commutative

// allreduce, non-commutative operator
namespace allreduce_noncommutative {
constexpr Step r0[] = {{131072, "recursive_doubling"}, {kAll, "basic_linear"}};
constexpr Step r1[] = {{kAll, "recursive_doubling"}};
constexpr Step r2[] = {{1048576, "recursive_doubling"}, {kAll, "nonoverlapping"}};
constexpr Step r3[] = {{kAll, "recursive_doubling"}};
constexpr Step r4[] = {{131072, "nonoverlapping"}, {524288, "recursive_doubling"}, {kAll, "nonoverlapping"}};
constexpr Step r5[] = {{4096, "nonoverlapping"}, {524288, "recursive_doubling"}, {kAll, "nonoverlapping"}};
constexpr Step r6[] = {{2048, "nonoverlapping"}, {kAll, "recursive_doubling"}};
constexpr Band bands[] = {{4, r0}, {8, r1}, {16, r2}, {128, r3}, {256, r4}, {512, r5}, {kAllProcs, r6}};
}  // namespace allreduce_noncommutative

// reduce, commutative operator
namespace reduce_commutative {
constexpr Step r0[] = {{8, "rabenseifner"},  {16, "binary"},     {32, "pipeline"},  {262144, "linear"},
                       {524288, "pipeline"}, {1048576, "chain"}, {kAll, "pipeline"}};
constexpr Step r1[] = {{4096, "binary"},   {65536, "chain"},      {262144, "binomial"},
                       {524288, "linear"}, {1048576, "binomial"}, {kAll, "linear"}};
constexpr Step r2[] = {{8192, "binary"}, {kAll, "binomial"}};
constexpr Step r3[] = {{4096, "binary"}, {kAll, "binomial"}};
constexpr Step r4[] = {{kAll, "binomial"}};
constexpr Step r5[] = {{8192, "binomial"}, {16384, "in-order_binary"}, {kAll, "binomial"}};
constexpr Step r6[] = {{kAll, "binomial"}};
constexpr Step r7[] = {
    {512, "binomial"}, {1024, "in-order_binary"}, {8192, "binomial"}, {16384, "in-order_binary"}, {kAll, "binomial"}};
constexpr Step r8[] = {{16, "binomial"},   {32, "in-order_binary"},    {1024, "binomial"}, {2048, "in-order_binary"},
                       {8192, "binomial"}, {16384, "in-order_binary"}, {kAll, "binomial"}};
constexpr Band bands[] = {{4, r0},   {8, r1},    {16, r2},   {32, r3},       {256, r4},
                          {512, r5}, {2048, r6}, {4096, r7}, {kAllProcs, r8}};
}  // namespace reduce_commutative

// reduce, non-commutative operator
namespace reduce_noncommutative {
constexpr Step r0[] = {{8, "in-order_binary"}, {kAll, "linear"}};
constexpr Step r1[] = {{kAll, "linear"}};
constexpr Step r2[] = {{1024, "in-order_binary"},
                       {8192, "linear"},
                       {16384, "in-order_binary"},
                       {262144, "linear"},
                       {kAll, "in-order_binary"}};
constexpr Step r3[] = {{kAll, "in-order_binary"}};
constexpr Step r4[] = {{512, "in-order_binary"}, {1024, "linear"}, {kAll, "in-order_binary"}};
constexpr Step r5[] = {{kAll, "in-order_binary"}};
constexpr Band bands[] = {{4, r0}, {8, r1}, {16, r2}, {128, r3}, {256, r4}, {kAllProcs, r5}};
}  // namespace reduce_noncommutative

// reduce_scatter, commutative operator
namespace reduce_scatter_commutative {
constexpr Step r0[] = {{65536, "ring"}, {131072, "butterfly"}, {kAll, "ring"}};
constexpr Step r1[] = {{8, "non-overlapping"}, {262144, "recursive_halving"}, {kAll, "ring"}};
constexpr Step r2[] = {{262144, "recursive_halving"}, {kAll, "ring"}};
constexpr Step r3[] = {{64, "non-overlapping"}, {2048, "recursive_halving"}, {524288, "butterfly"}, {kAll, "ring"}};
constexpr Step r4[] = {{256, "non-overlapping"},
                       {512, "recursive_halving"},
                       {2048, "butterfly"},
                       {4096, "recursive_halving"},
                       {kAll, "butterfly"}};
constexpr Step r5[] = {{256, "non-overlapping"}, {512, "recursive_halving"}, {kAll, "butterfly"}};
constexpr Step r6[] = {{256, "non-overlapping"}, {1024, "recursive_halving"}, {kAll, "butterfly"}};
constexpr Step r7[] = {{512, "non-overlapping"},
                       {2048, "recursive_halving"},
                       {8192, "butterfly"},
                       {16384, "recursive_halving"},
                       {kAll, "butterfly"}};
constexpr Step r8[] = {{512, "non-overlapping"},
                       {4096, "recursive_halving"},
                       {16384, "butterfly"},
                       {32768, "recursive_halving"},
                       {kAll, "butterfly"}};
constexpr Step r9[] = {{512, "non-overlapping"}, {4096, "recursive_halving"}, {kAll, "butterfly"}};
constexpr Step r10[] = {{1024, "non-overlapping"}, {8192, "recursive_halving"}, {kAll, "butterfly"}};
constexpr Band bands[] = {{4, r0},   {8, r1},    {32, r2},   {64, r3},   {128, r4},       {256, r5},
                          {512, r6}, {1024, r7}, {2048, r8}, {4096, r9}, {kAllProcs, r10}};
}  // namespace reduce_scatter_commutative

// reduce_scatter, non-commutative operator
namespace reduce_scatter_noncommutative {
constexpr Step r0[] = {{kAll, "non-overlapping"}};
constexpr Band bands[] = {{kAllProcs, r0}};
}  // namespace reduce_scatter_noncommutative

// allgather
namespace allgather41 {
constexpr Step r0[] = {{kAll, "two_proc"}};
constexpr Step r1[] = {{kAll, "recursive_doubling"}};
constexpr Step r2[] = {{1024, "recursive_doubling"}, {65536, "neighbor"}, {kAll, "ring"}};
constexpr Step r3[] = {{512, "recursive_doubling"}, {65536, "neighbor"}, {kAll, "ring"}};
constexpr Step r4[] = {
    {512, "recursive_doubling"}, {131072, "neighbor"}, {524288, "ring"}, {1048576, "neighbor"}, {kAll, "ring"}};
constexpr Step r5[] = {
    {32, "recursive_doubling"}, {128, "bruck"}, {1024, "recursive_doubling"}, {131072, "neighbor"}, {524288, "ring"},
    {1048576, "neighbor"},      {kAll, "ring"}};
constexpr Step r6[] = {{64, "recursive_doubling"}, {256, "bruck"}, {2048, "recursive_doubling"}, {kAll, "neighbor"}};
constexpr Step r7[] = {{4, "recursive_doubling"},   {8, "bruck"},   {16, "recursive_doubling"},   {32, "bruck"},
                       {256, "recursive_doubling"}, {512, "bruck"}, {4096, "recursive_doubling"}, {kAll, "neighbor"}};
constexpr Step r8[] = {
    {32, "bruck"}, {128, "recursive_doubling"}, {512, "bruck"}, {4096, "recursive_doubling"}, {kAll, "neighbor"}};
constexpr Step r9[] = {{2, "recursive_doubling"},    {8, "bruck"},      {16, "recursive_doubling"}, {512, "bruck"},
                       {4096, "recursive_doubling"}, {kAll, "neighbor"}};
constexpr Band bands[] = {{2, r1},   {3, r0},    {32, r1},   {64, r2},   {128, r3},      {256, r4},
                          {512, r5}, {1024, r6}, {2048, r7}, {4096, r8}, {kAllProcs, r9}};
}  // namespace allgather41

// alltoall
namespace alltoall41 {
constexpr Step r0[] = {{2, "pairwise"},       {4, "two_proc"},    {16, "pairwise"},    {64, "two_proc"},
                       {256, "pairwise"},     {4096, "two_proc"}, {32768, "pairwise"}, {262144, "linear_sync"},
                       {1048576, "two_proc"}, {kAll, "pairwise"}};
constexpr Step r1[] = {{8192, "linear_sync"}, {16384, "linear"},     {65536, "linear_sync"},
                       {524288, "linear"},    {1048576, "pairwise"}, {kAll, "linear"}};
constexpr Step r2[] = {{262144, "linear_sync"}, {kAll, "linear"}};
constexpr Step r3[] = {{4, "linear_sync"},      {512, "modified_bruck"}, {8192, "linear_sync"}, {32768, "linear"},
                       {262144, "linear_sync"}, {524288, "linear"},      {kAll, "linear_sync"}};
constexpr Step r4[] = {{512, "modified_bruck"}, {524288, "linear"}, {kAll, "linear_sync"}};
constexpr Step r5[] = {
    {1024, "modified_bruck"}, {2048, "linear"}, {4096, "linear_sync"}, {262144, "linear"}, {kAll, "pairwise"}};
constexpr Step r6[] = {{1024, "modified_bruck"}, {2048, "linear_sync"}, {262144, "linear"}, {kAll, "pairwise"}};
constexpr Step r7[] = {{1024, "modified_bruck"}, {8192, "linear_sync"}, {32768, "linear"}, {kAll, "pairwise"}};
constexpr Step r8[] = {{512, "modified_bruck"}, {8192, "linear_sync"}, {16384, "linear"},
                       {131072, "linear_sync"}, {262144, "linear"},    {kAll, "pairwise"}};
constexpr Step r9[] = {{512, "modified_bruck"}, {1024, "linear_sync"}, {2048, "linear"},
                       {16384, "linear_sync"},  {262144, "linear"},    {kAll, "linear_sync"}};
constexpr Step r10[] = {
    {1024, "modified_bruck"}, {4096, "linear_sync"}, {8192, "linear"}, {131072, "linear_sync"}, {kAll, "linear"}};
constexpr Step r11[] = {{2048, "modified_bruck"}, {8192, "linear_sync"}, {16384, "linear"},
                        {32768, "linear_sync"},   {65536, "linear"},     {kAll, "linear_sync"}};
constexpr Band bands[] = {{2, r1},   {3, r0},   {8, r1},    {16, r2},   {32, r3},    {64, r4},        {128, r5},
                          {256, r6}, {512, r7}, {1024, r8}, {2048, r9}, {4096, r10}, {kAllProcs, r11}};
}  // namespace alltoall41

// scatter
namespace scatter41 {
constexpr Step r0[] = {{2, "linear_nb"}, {131072, "basic_linear"}, {262144, "linear_nb"}, {kAll, "basic_linear"}};
constexpr Step r1[] = {{2048, "binomial"},      {4096, "basic_linear"}, {8192, "binomial"},
                       {32768, "basic_linear"}, {1048576, "linear_nb"}, {kAll, "basic_linear"}};
constexpr Step r2[] = {{16384, "binomial"}, {1048576, "linear_nb"}, {kAll, "basic_linear"}};
constexpr Step r3[] = {{16384, "binomial"}, {32768, "basic_linear"}, {kAll, "linear_nb"}};
constexpr Step r4[] = {{512, "binomial"}, {8192, "linear_nb"}, {16384, "binomial"}, {kAll, "linear_nb"}};
constexpr Step r5[] = {{512, "binomial"}, {kAll, "linear_nb"}};
constexpr Band bands[] = {{4, r0}, {8, r1}, {16, r2}, {32, r3}, {64, r4}, {kAllProcs, r5}};
}  // namespace scatter41

// barrier (communicator size only)
namespace barrier41 {
constexpr Step r0[] = {{kAll, "recursive_doubling"}};
constexpr Step r1[] = {{kAll, "linear"}};
constexpr Step r2[] = {{kAll, "recursive_doubling"}};
constexpr Step r3[] = {{kAll, "bruck"}};
constexpr Step r4[] = {{kAll, "tree"}};
constexpr Step r5[] = {{kAll, "bruck"}};
constexpr Step r6[] = {{kAll, "tree"}};
constexpr Step r7[] = {{kAll, "bruck"}};
constexpr Band bands[] = {{4, r0}, {8, r1}, {64, r2}, {256, r3}, {512, r4}, {1024, r5}, {4096, r6}, {kAllProcs, r7}};
}  // namespace barrier41

std::string_view pick(std::span<const Band> bands, int procs, std::size_t bytes) {
  for (const Band& band : bands) {
    if (procs >= band.procs_below) continue;
    for (const Step& s : band.steps)
      if (bytes < s.below) return s.algorithm;
    return band.steps.back().algorithm;
  }
  return bands.back().steps.back().algorithm;
}

}  // namespace

std::size_t ompi41_decision_bytes(Operation op, int procs, std::size_t bytes) {
  return op == Operation::reduce_scatter ? bytes * static_cast<std::size_t>(procs) : bytes;
}

FixedChoice ompi41_fixed_choice(Operation op, int procs, std::size_t m, bool commutative) {
  std::string_view id;
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
