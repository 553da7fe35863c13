// Strided layouts (comm/strided.hpp): block offsets, reach, normalization of Fortran sections'
// layouts, the pieces a transfer is cut into, and the contract checks of a strided put or get,
// on examples worked out by hand.
#include "comm/strided.hpp"

#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "algorithms/coarray/section.hpp"
#include "common/test_algorithm.hpp"
#include "engines/model/model_engine.hpp"

namespace collsim {
namespace {

TEST(Strided, OffsetsAndReachOfANest) {
  // 2 x 3 blocks of 4 B: inner step 10, outer step -100, first at 250.
  const Strided s{250, 4, {{3, 10}, {2, -100}}};
  EXPECT_EQ(s.blocks(), 6u);
  EXPECT_EQ(s.bytes(), 24u);
  const std::vector<std::int64_t> want = {250, 260, 270, 150, 160, 170};
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(s.block_offset(i), want[i]) << i;
  EXPECT_EQ(s.lowest(), 150);
  EXPECT_EQ(s.end(), 274);
}

TEST(Strided, NormalizedFoldsContiguousDimensions) {
  // Elements of 8 B, 500 adjacent (step 8): one block of 4000 B; then 50 columns of 8000 B apart.
  EXPECT_EQ(normalized({0, 8, {{500, 8}, {50, 8000}}}).str(), "50 x 4000 B at 0, steps 50x8000");
  // A dimension continuing the previous one's progression merges: 10 x 16, then 3 x 160 = 30 x 16.
  EXPECT_EQ(normalized({0, 8, {{10, 16}, {3, 160}}}).str(), "30 x 8 B at 0, steps 30x16");
  // Dimensions of one element go; a wholly contiguous layout is one block.
  EXPECT_EQ(normalized({8, 8, {{1, 800}, {4, 8}}}).str(), "1 x 32 B at 8");
  EXPECT_EQ(normalized({0, 8, {{0, 8}, {5, 80}}}).blocks(), 0u);
}

TEST(Strided, SectionLayoutsHaveNlByteBlocks) {
  using coarray::parse_section;
  using coarray::parse_shape;
  // a(1:1000:2,1:50) of a(1000,100), real(8): blocks of 8 B, 16 B apart, and as a column is
  // 8000 B = 500 x 16 B, the columns continue the progression: one dimension of 25000.
  const coarray::Section a = parse_section("1:1000:2,1:50", parse_shape("1000,100", 8));
  EXPECT_EQ(a.layout().str(), "25000 x 8 B at 0, steps 25000x16");
  EXPECT_EQ(a.layout().block, a.contiguous_bytes());
  // b(100:1:-1): 100 blocks of 8 B from byte 792 down.
  const coarray::Section b = parse_section("100:1:-1", parse_shape("100", 8));
  EXPECT_EQ(b.layout().str(), "100 x 8 B at 792, steps 100x-8");
  EXPECT_EQ(b.layout().lowest(), 0);
  EXPECT_EQ(b.layout().end(), 800);
  // a(2:3,1:4:3,2:3) of a(4,4,4): blocks of 2 elements (16 B), rows 1 and 4 (3 x 32 B apart),
  // planes 2 and 3 (128 B apart), the first at 1*8 + 1*128 = 136.
  const coarray::Section c = parse_section("2:3,1:4:3,2:3", parse_shape("4,4,4", 8));
  EXPECT_EQ(c.layout().str(), "4 x 16 B at 136, steps 2x96 2x128");
}

TEST(Strided, PiecesAreContiguousOnBothSides) {
  // Local: 2 blocks of 16 B at 0 and 100; remote: 4 blocks of 8 B, 20 apart from 1000.
  const StridedTransfer t{{0, 16, {{2, 100}}}, {1000, 8, {{4, 20}}}};
  std::vector<std::tuple<std::size_t, std::size_t, std::size_t>> got;
  for_each_piece(t, [&](std::size_t l, std::size_t r, std::size_t n) { got.emplace_back(l, r, n); });
  const std::vector<std::tuple<std::size_t, std::size_t, std::size_t>> want = {
      {0, 1000, 8}, {8, 1020, 8}, {100, 1040, 8}, {108, 1060, 8}};
  EXPECT_EQ(got, want);
  EXPECT_EQ(piece_count(t), 4u);
}

TEST(Strided, ProblemsNameTheBlocks) {
  const Strided s{0, 8, {{4, 16}}};  // bytes 0 to 56
  EXPECT_EQ(strided_problem(s, 56, true), "");
  EXPECT_EQ(strided_problem(s, 55, false), "blocks 4 x 8 B at 0, steps 4x16 reach bytes 0 to 56 of memory of 55 bytes");
  const Strided back{8, 8, {{2, -16}}};  // a block at -8
  EXPECT_NE(strided_problem(back, 100, false).find("reach bytes -8 to 16"), std::string::npos);
  const Strided overlapping{0, 8, {{3, 4}}};                // blocks at 0, 4, 8 of 8 B
  EXPECT_EQ(strided_problem(overlapping, 100, false), "");  // read only: allowed
  EXPECT_EQ(strided_problem(overlapping, 100, true),
            "blocks 3 x 8 B at 0, steps 3x4 overlap at byte 4 (MPI leaves overlapping writes of one put or get "
            "undefined)");
  EXPECT_EQ(strided_problem(Strided{0, 8, {{0, 8}}}, 0, true), "");  // empty: nothing to check
}

// The front's check of a strided put, one wording for every engine (here the model's): a remote
// layout reaching past the window is refused before the engine sees it.
Task<> put_past_the_window(Comm& comm, RankBuffers, const AlgorithmParams&) {
  const Window w = co_await comm.win_allocate(16);
  const StridedTransfer t{{0, 24, {}}, {0, 8, {{3, 16}}}};
  (void)co_await comm.put_strided(w, 0, Buffer::virtual_of(24), t);
  co_await comm.win_free(w);
}

TEST(Strided, FrontRefusesAPutPastTheWindow) {
  const AlgorithmInfo algorithm = collsim_test::test_algorithm("test/strided_past_the_window", &put_past_the_window);
  RunSpec spec;
  spec.algorithm = &algorithm;
  spec.procs = 1;
  spec.real_bytes = false;
  std::string error;
  try {
    run_model(ModelConfig{}, spec);
  } catch (const EngineError& e) {
    error = e.what();
  }
  EXPECT_NE(error.find("rank 0: strided put to rank 0 (window 0): remote blocks 3 x 8 B at 0, steps 3x16 reach bytes "
                       "0 to 40 of memory of 16 bytes (the window)"),
            std::string::npos)
      << error;
}

}  // namespace
}  // namespace collsim
