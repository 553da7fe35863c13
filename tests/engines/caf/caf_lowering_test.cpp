// How a section as written (CafDim) becomes the rank-7 triplets of the Fortran statement, and
// the checks done before anything runs. No MPI: these are the C++ side's own rules.
#include <gtest/gtest.h>

#include <vector>

#include "engines/caf/caf_call.hpp"

namespace {

using collsim::caf::CafAssignment;
using collsim::caf::CafDim;
using collsim::caf::CafSide;

CafDim triplet(std::int64_t extent, std::int64_t lower, std::int64_t upper, std::int64_t stride = 1) {
  return CafDim{1, extent, lower, upper, stride, false};
}
CafDim scalar(std::int64_t extent, std::int64_t k) { return CafDim{1, extent, k, k, 1, true}; }

// The offsets (0-based, array element order of the section) of every element a side selects,
// from the written dims and from the lowered triplets: they must be the same list.
std::vector<std::int64_t> written_offsets(const std::vector<CafDim>& dims) {
  std::vector<std::int64_t> out{0};
  std::int64_t inner = 1;
  for (const CafDim& d : dims) {
    // Array element order: for each subscript of this dimension, all of the earlier ones.
    std::vector<std::int64_t> next;
    const std::int64_t n = d.scalar ? 1 : (d.upper - d.lower) / d.stride + 1;
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t o : out) next.push_back(o + (d.lower + j * d.stride - d.lbound) * inner);
    out.swap(next);
    inner *= d.extent;
  }
  return out;
}

std::vector<std::int64_t> lowered_offsets(const CafSide& s) {
  std::vector<CafDim> dims;
  for (int d = 0; d < collsim::caf::kCafDims; ++d)
    dims.push_back(CafDim{1, s.extent[d], s.lower[d], s.upper[d], s.stride[d], false});
  return written_offsets(dims);
}

void expect_same_elements(const std::vector<CafDim>& dims) {
  const CafSide s = collsim::caf::lower_side(dims);
  EXPECT_EQ(written_offsets(dims), lowered_offsets(s));
}

TEST(CafLowering, PadsAtTheFront) {
  // a(1:500, 1:50) of a(1000, 100): stays rank 2, after five leading dimensions of extent 1.
  const CafSide s = collsim::caf::lower_side({triplet(1000, 1, 500), triplet(100, 1, 50)});
  for (int d = 0; d < 5; ++d) {
    EXPECT_EQ(s.extent[d], 1);
    EXPECT_EQ(s.lower[d], 1);
    EXPECT_EQ(s.upper[d], 1);
    EXPECT_EQ(s.stride[d], 1);
  }
  EXPECT_EQ(s.extent[5], 1000);
  EXPECT_EQ(s.upper[5], 500);
  EXPECT_EQ(s.extent[6], 100);
  EXPECT_EQ(s.upper[6], 50);
}

TEST(CafLowering, ScalarSubscriptFoldsIntoTheDimensionBefore) {
  // a(1:500, 5): rank 1 in Fortran, contiguous; folded it is a(4001:4500) of a(100000).
  const CafSide s = collsim::caf::lower_side({triplet(1000, 1, 500), scalar(100, 5)});
  EXPECT_EQ(s.extent[6], 100000);
  EXPECT_EQ(s.lower[6], 4001);
  EXPECT_EQ(s.upper[6], 4500);
  EXPECT_EQ(s.stride[6], 1);
  EXPECT_EQ(s.extent[5], 1);
}

TEST(CafLowering, LeadingScalarFoldsIntoTheDimensionAfter) {
  // a(5, 1:50): one element per column, stride 1000 elements.
  const CafSide s = collsim::caf::lower_side({scalar(1000, 5), triplet(100, 1, 50)});
  EXPECT_EQ(s.extent[6], 100000);
  EXPECT_EQ(s.lower[6], 5);
  EXPECT_EQ(s.upper[6], 49005);
  EXPECT_EQ(s.stride[6], 1000);
}

TEST(CafLowering, KeepsEveryElementInPlace) {
  expect_same_elements({triplet(10, 10, 1, -1)});
  expect_same_elements({triplet(10, 2, 9, 3), scalar(4, 3), triplet(5, 5, 1, -2), scalar(2, 2)});
  expect_same_elements({scalar(3, 2), scalar(4, 4), triplet(6, 1, 6, 5)});
  expect_same_elements({scalar(3, 2), scalar(4, 1)});
  expect_same_elements({CafDim{0, 5, 4, 0, -2, false}, CafDim{-3, 4, -2, -2, 1, true}});
  expect_same_elements({triplet(2, 1, 2), triplet(2, 2, 2), triplet(3, 1, 3, 2), triplet(2, 1, 2), triplet(2, 2, 1, -1),
                        triplet(2, 1, 1), triplet(2, 1, 2)});
}

TEST(CafLowering, ContiguousLengths) {
  using collsim::caf::contiguous_bytes;
  EXPECT_EQ(contiguous_bytes({triplet(1000, 1, 1000), triplet(100, 1, 100)}, 8), 800000);
  EXPECT_EQ(contiguous_bytes({triplet(1000, 1, 1000), triplet(100, 1, 50)}, 8), 400000);
  EXPECT_EQ(contiguous_bytes({triplet(1000, 1, 1000, 2), triplet(100, 1, 100)}, 8), 8);
  EXPECT_EQ(contiguous_bytes({triplet(1000, 1, 500), triplet(100, 1, 100)}, 8), 4000);
  EXPECT_EQ(contiguous_bytes({scalar(1000, 5), triplet(100, 1, 100)}, 8), 8);
  EXPECT_EQ(contiguous_bytes({triplet(1000, 1, 1000), scalar(100, 7), triplet(3, 1, 3)}, 4), 4000);
  EXPECT_EQ(contiguous_bytes({triplet(10, 10, 1, -1)}, 2), 2);
}

TEST(CafLowering, Problems) {
  CafAssignment a;
  a.local = {triplet(1000, 1, 1000, 2), triplet(100, 1, 100)};
  a.remote = {triplet(500, 1, 500), triplet(100, 1, 100)};
  EXPECT_EQ(collsim::caf::assignment_problem(a, 2), "");
  EXPECT_NE(collsim::caf::assignment_problem(a, 1), "");  // no image 2
  CafAssignment b = a;
  b.element_bytes = 3;
  EXPECT_NE(collsim::caf::assignment_problem(b, 2).find("element size 3"), std::string::npos);
  b = a;
  b.remote[0].upper = 499;
  EXPECT_NE(collsim::caf::assignment_problem(b, 2).find("do not conform"), std::string::npos);
  b = a;
  b.local[1].upper = 101;
  EXPECT_NE(collsim::caf::assignment_problem(b, 2).find("outside the bounds"), std::string::npos);
  b = a;
  b.local[0].stride = 0;
  EXPECT_NE(collsim::caf::assignment_problem(b, 2).find("stride 0"), std::string::npos);
  b = a;
  b.target_image = 1;
  EXPECT_NE(collsim::caf::assignment_problem(b, 2), "");
  b = a;
  b.local = {scalar(1000, 1), triplet(100, 1, 100), scalar(2, 1), scalar(2, 1),
             scalar(2, 1),    scalar(2, 1),         scalar(2, 1), scalar(2, 1)};
  EXPECT_NE(collsim::caf::assignment_problem(b, 2).find("dimensions"), std::string::npos);
}

TEST(CafLowering, ElementNames) {
  const std::vector<CafDim> dims{triplet(1000, 1, 1000), CafDim{0, 100, 0, 99, 1, false}};
  EXPECT_EQ(collsim::caf::element_name(dims, 0, 1), "(1,0)");
  EXPECT_EQ(collsim::caf::element_name(dims, 1002, 1), "(3,1)");
  EXPECT_EQ(collsim::caf::element_name(dims, 100000 + 1002, 3), "(3,1) of copy 2");
}

}  // namespace
