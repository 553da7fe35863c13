// The data every engine moves and checks (RankData): the input pattern must tell every byte apart,
// so that a segment or block moved to the wrong place is seen whatever its size, and check() must
// name the first wrong byte.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "algorithms/input_pattern.hpp"
#include "algorithms/rank_data.hpp"
#include "engines/model/model_engine.hpp"
#include "registry/registry.hpp"

namespace collsim {
namespace {

std::vector<std::byte> pattern(int rank, std::size_t first, std::size_t n) {
  std::vector<std::byte> out(n);
  for (std::size_t k = 0; k < n; ++k) out[k] = pattern_byte(rank, first + k);
  return out;
}

// Segments and blocks of the sizes the suites use (the 64 KiB segment and 512 KiB block among
// them, where an earlier pattern repeated) differ from every other one of the same size.
TEST(Pattern, EqualSizedPiecesOfOneRankDiffer) {
  for (std::size_t size : {std::size_t{1}, std::size_t{2}, std::size_t{8}, std::size_t{1000}, std::size_t{1024},
                           std::size_t{8192}, std::size_t{65536}, std::size_t{524288}}) {
    const int pieces = size < 1024 ? 64 : 9;
    std::vector<std::vector<std::byte>> seen;
    for (int k = 0; k < pieces; ++k) seen.push_back(pattern(3, static_cast<std::size_t>(k) * size, size));
    for (int a = 0; a < pieces; ++a)
      for (int b = a + 1; b < pieces; ++b) {
        // Single bytes are 256 values: only longer pieces must all differ.
        if (size == 1) continue;
        EXPECT_NE(seen[static_cast<std::size_t>(a)], seen[static_cast<std::size_t>(b)])
            << "pieces " << a << " and " << b << " of " << size << " bytes";
      }
  }
}

// A shift by d bytes leaves about 1/256 of the bytes in place by chance, whatever d: no period.
TEST(Pattern, NoShiftReproducesIt) {
  const std::size_t n = 1 << 16;
  const std::vector<std::byte> base = pattern(0, 0, n);
  for (std::size_t d :
       {std::size_t{1}, std::size_t{7}, std::size_t{8}, std::size_t{256}, std::size_t{4096}, std::size_t{65536},
        std::size_t{131072}, std::size_t{524288}, std::size_t{1} << 20, std::size_t{1} << 24, std::size_t{1} << 32}) {
    const std::vector<std::byte> shifted = pattern(0, d, n);
    std::size_t same = 0;
    for (std::size_t i = 0; i < n; ++i) same += base[i] == shifted[i];
    EXPECT_LT(same, n / 64) << "shift " << d;  // 1/256 expected; a period would give all n
  }
}

TEST(Pattern, RanksContributeDifferentBytes) {
  const std::size_t n = 1 << 16;
  for (int a = 0; a < 8; ++a)
    for (int b = a + 1; b < 8; ++b) {
      const std::vector<std::byte> pa = pattern(a, 0, n), pb = pattern(b, 0, n);
      std::size_t same = 0;
      for (std::size_t i = 0; i < n; ++i) same += pa[i] == pb[i];
      EXPECT_LT(same, n / 64) << "ranks " << a << " and " << b;
    }
}

std::span<std::byte> bytes_of(Buffer b) { return {b.data(), b.size()}; }

// What a correct broadcast leaves in a non-root's buffer, then the same with two 64 KiB segments
// swapped, and with one segment written twice: check() passes the first and names the first
// wrong byte of the others.
TEST(RankDataCheck, BroadcastWithASwappedOrDuplicatedSegmentFails) {
  const std::size_t seg = 65536, bytes = 8 * seg;
  RankData root(Operation::bcast, {1, 4, 1, bytes, {}}, true);
  RankData leaf(Operation::bcast, {2, 4, 1, bytes, {}}, true);
  const std::span<std::byte> src = bytes_of(root.buffers().data), dst = bytes_of(leaf.buffers().data);
  EXPECT_EQ(root.check(), "");
  EXPECT_EQ(leaf.check().rfind("rank 2: byte 0 of the broadcast buffer is 0x", 0), 0u) << "never written";

  std::copy(src.begin(), src.end(), dst.begin());
  EXPECT_EQ(leaf.check(), "");

  std::swap_ranges(dst.begin() + 1 * seg, dst.begin() + 2 * seg, dst.begin() + 3 * seg);
  EXPECT_EQ(leaf.check().rfind("rank 2: byte 65536 of the broadcast buffer is ", 0), 0u) << leaf.check();

  std::copy(src.begin(), src.end(), dst.begin());
  std::copy(src.begin() + 2 * seg, src.begin() + 3 * seg, dst.begin() + 5 * seg);
  EXPECT_EQ(leaf.check().rfind("rank 2: byte 327680 of the broadcast buffer is ", 0), 0u) << leaf.check();

  // Shifted by one segment: the first byte already differs.
  std::copy(src.begin(), src.end() - seg, dst.begin() + seg);
  std::copy(src.begin(), src.begin() + seg, dst.begin());
  EXPECT_EQ(leaf.check().rfind("rank 2: byte 65536 ", 0), 0u) << leaf.check();
}

// The root's gathered buffer with the 512 KiB blocks of ranks 1 and 2 swapped.
TEST(RankDataCheck, GatherWithSwappedBlocksFails) {
  const std::size_t block = 524288;
  const int p = 4;
  std::vector<RankData> ranks;
  for (int r = 0; r < p; ++r) ranks.emplace_back(Operation::gather, CallShape{r, p, 0, block, {}}, true);
  const std::span<std::byte> gathered = bytes_of(ranks[0].buffers().result);
  ASSERT_EQ(gathered.size(), p * block);
  for (int r = 0; r < p; ++r) {
    const std::span<std::byte> mine = bytes_of(ranks[static_cast<std::size_t>(r)].buffers().data);
    std::copy(mine.begin(), mine.end(), gathered.begin() + static_cast<std::ptrdiff_t>(r * block));
  }
  EXPECT_EQ(ranks[0].check(), "");
  std::swap_ranges(gathered.begin() + block, gathered.begin() + 2 * block, gathered.begin() + 2 * block);
  EXPECT_EQ(ranks[0].check().rfind("rank 0: byte 524288 of the gathered buffer is ", 0), 0u) << ranks[0].check();
  // A sender whose own block was changed is reported too.
  bytes_of(ranks[3].buffers().data)[7] ^= std::byte{1};
  EXPECT_EQ(ranks[3].check().rfind("rank 3: byte 7 of the send block (changed by the gather) is ", 0), 0u);
}

// End to end: an algorithm that sends the root's 64 KiB segments 1 and 2 in each other's place
// moves the right amount of data with the right sizes, and only the data check can see it.
Task<> swapping_bcast(Comm& comm, RankBuffers b, const AlgorithmParams& params) {
  const std::size_t seg = params.segment, n = b.data.size() / seg;
  auto source_of = [](std::size_t k) { return k == 1 ? std::size_t{2} : k == 2 ? std::size_t{1} : k; };
  if (comm.rank() == params.root) {
    for (int peer = 0; peer < comm.size(); ++peer)
      if (peer != params.root)
        for (std::size_t k = 0; k < n; ++k)
          co_await comm.send(b.data.slice(source_of(k) * seg, seg), peer, static_cast<int>(k));
  } else {
    for (std::size_t k = 0; k < n; ++k)
      co_await comm.recv(b.data.slice(k * seg, seg), params.root, static_cast<int>(k));
  }
}

TEST(RankDataCheck, AnEngineRunWithSwappedSegmentsReportsWrongBytes) {
  const AlgorithmInfo swapping{"test/swapping_bcast", Operation::bcast, 0, true, "", &swapping_bcast};
  RunSpec s;
  s.algorithm = &swapping;
  s.procs = 3;
  s.bytes = 4 * 65536;
  s.params.segment = 65536;
  s.params.root = 2;
  const RunResult r = run_model(ModelConfig{}, s);
  EXPECT_EQ(r.data_error.rfind("rank 0: byte 65536 of the broadcast buffer is ", 0), 0u) << r.data_error;
}

}  // namespace
}  // namespace collsim
