// Sections: parsing with Fortran's defaults, counts and offsets, contiguous lengths on hand
// examples, and every error message.
#include "algorithms/coarray/section.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace collsim::coarray {
namespace {

Section section(const std::string& text, const std::string& shape, std::size_t element_bytes = 8) {
  return parse_section(text, parse_shape(shape, element_bytes));
}

// The message of the SectionError `f` throws ("" if it throws none).
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const SectionError& e) {
    return e.what();
  }
  return "";
}

std::string section_error(const std::string& text, const std::string& shape) {
  return error_of([&] { section(text, shape); });
}

TEST(Section, ParsesTripletsWithFortranDefaults) {
  const Section s = section("1:1000:2,1:50", "1000,100");
  EXPECT_EQ(s.str(), "1:1000:2,1:50");
  EXPECT_EQ(s.section_shape(), (std::vector<std::size_t>{500, 50}));
  EXPECT_EQ(s.elements(), 25000u);
  EXPECT_EQ(s.bytes(), 200000u);

  EXPECT_EQ(section(":,:", "1000,100").str(), "1:1000,1:100");
  EXPECT_EQ(section(":10, 3:", "1000,100").str(), "1:10,3:100");
  EXPECT_EQ(section("::2,::-1", "9,4").str(), "1:9:2,1:4:-1");  // Fortran: omitted bounds are lbound, ubound
  EXPECT_EQ(section(" +5 : 2 : -1 ", "9").str(), "5:2:-1");
  EXPECT_EQ(section("10:1:-1", "10").elements(), 10u);
  EXPECT_EQ(section("1:10:-1", "10").elements(), 0u);
  EXPECT_EQ(section("1:10:3", "10").elements(), 4u);  // 1 4 7 10
  EXPECT_EQ(section("1:10:4", "9").elements(), 3u);   // 1 5 9: only selected subscripts must be in bounds
}

TEST(Section, CountsFollowFortransRule) {
  // max(0, (u - l + s) / s), truncating.
  EXPECT_EQ((Triplet{1, 11, 5}).count(), 3u);  // 1 6 11
  EXPECT_EQ((Triplet{1, 10, 5}).count(), 2u);  // 1 6
  EXPECT_EQ((Triplet{5, 4, 1}).count(), 0u);
  EXPECT_EQ((Triplet{10, 1, -3}).count(), 4u);  // 10 7 4 1
  EXPECT_EQ((Triplet{10, 2, -3}).count(), 3u);  // 10 7 4
  EXPECT_EQ((Triplet{10, 2, -3}).last(), 4);
}

TEST(Section, ScalarSubscriptsDropTheirDimension) {
  const Section s = section("5,:,2:3", "10,20,3");
  EXPECT_TRUE(s.dims()[0].scalar);
  EXPECT_EQ(s.section_shape(), (std::vector<std::size_t>{20, 2}));
  EXPECT_EQ(s.elements(), 40u);
  EXPECT_EQ(s.str(), "5,1:20,2:3");
  EXPECT_TRUE(section("3,4", "5,5").section_shape().empty());  // one element, rank 0
}

TEST(Section, EmptyTripletSelectsNothing) {
  const Section s = section("5:4,:", "10,3");
  EXPECT_EQ(s.elements(), 0u);
  EXPECT_EQ(s.section_shape(), (std::vector<std::size_t>{0, 3}));
  EXPECT_EQ(s.contiguous_bytes(), 8u);
  EXPECT_TRUE(s.element_offsets().empty());
  // An empty triplet's bounds need not lie in the dimension.
  EXPECT_EQ(section("200:100,:", "10,3").elements(), 0u);
}

TEST(Section, ElementOffsetsAreColumnMajorInFortranOrder) {
  // a(2:4:2, 3:1:-1) of a(4,3): (2,3) (4,3) (2,2) (4,2) (2,1) (4,1); offset ((i-1) + 4(j-1)) * 8.
  EXPECT_EQ(section("2:4:2,3:1:-1", "4,3").element_offsets(), (std::vector<std::size_t>{72, 88, 40, 56, 8, 24}));
  EXPECT_EQ(section("2,:", "4,3", 4).element_offsets(), (std::vector<std::size_t>{4, 20, 36}));
}

TEST(Section, ContiguousLengthOnHandExamples) {
  EXPECT_EQ(section("1:1000:2,1:50", "1000,100").contiguous_bytes(), 8u);  // strided first dimension
  EXPECT_EQ(section(":,1:50", "1000,100").contiguous_bytes(), 8000u * 50);
  EXPECT_EQ(section(":,:", "1000,100").contiguous_bytes(), 800000u);
  EXPECT_EQ(section("1:500,:", "1000,100").contiguous_bytes(), 4000u);  // part of a column
  EXPECT_EQ(section(":,1:100:2", "1000,100").contiguous_bytes(), 8000u);
  EXPECT_EQ(section("5,:", "1000,100").contiguous_bytes(), 8u);
  EXPECT_EQ(section(":,5", "1000,100").contiguous_bytes(), 8000u);
  EXPECT_EQ(section(":,:,2", "1000,100,3").contiguous_bytes(), 800000u);
  EXPECT_EQ(section(":,3:3,:", "1000,100,3").contiguous_bytes(), 8000u);  // a count-1 part ends the run
  EXPECT_EQ(section(":,3,:", "1000,100,3").contiguous_bytes(), 8000u);
  EXPECT_EQ(section("1,:", "1,5").contiguous_bytes(), 40u);       // extent 1 is taken whole
  EXPECT_EQ(section("1:1:-1,:", "1,5").contiguous_bytes(), 40u);  // whatever its stride
  EXPECT_EQ(section("10:1:-1", "10").contiguous_bytes(), 8u);     // backwards: runs of one element
  EXPECT_EQ(section("3:3:-1,:", "10,2").contiguous_bytes(), 8u);
  EXPECT_EQ(section(":,2:1:-1", "10,2").contiguous_bytes(), 80u);
  EXPECT_EQ(section("2:3,:", "10,2", 4).contiguous_bytes(), 8u);
}

TEST(Section, ShapeErrors) {
  EXPECT_EQ(error_of([] { parse_shape("10,0", 8); }), "shape \"10,0\": dimension 2: extent 0 (extents are 1 or more)");
  EXPECT_EQ(error_of([] { parse_shape("10,x", 8); }), "shape \"10,x\": dimension 2: 'x' is not an integer");
  EXPECT_EQ(error_of([] { parse_shape("10,", 8); }), "shape \"10,\": dimension 2: '' is not an integer");
  EXPECT_EQ(error_of([] { parse_shape("1,2,3,4,5,6,7,8", 8); }), "shape \"1,2,3,4,5,6,7,8\": 8 dimensions (at most 7)");
  EXPECT_EQ(error_of([] { parse_shape("10", 0); }), "shape 10: element size 0 bytes (1 or more)");
  EXPECT_EQ(error_of([] { parse_shape("99999999999999999999", 1); }),
            "shape \"99999999999999999999\": dimension 1: '99999999999999999999' is out of range (2^62 at most)");
  EXPECT_EQ(
      error_of([] { parse_shape("4611686018427387905", 1); }),
      "shape \"4611686018427387905\": dimension 1: '4611686018427387905' is out of range (2^62 at most)");  // 2^62 + 1
  EXPECT_EQ(error_of([] { parse_shape("4000000000,4000000000", 1); }),
            "shape 4000000000,4000000000: more than 2^62 bytes");
  EXPECT_EQ(parse_shape(" 1000 , 100 ", 8).str(), "1000,100");
}

TEST(Section, OutOfBoundsNamesDimensionBoundAndExtent) {
  EXPECT_EQ(section_error("0:10,:", "1000,100"),
            "section \"0:10,:\" of shape 1000,100: dimension 1: lower bound 0 is outside 1:1000 (extent 1000)");
  EXPECT_EQ(section_error("1:1001,:", "1000,100"),
            "section \"1:1001,:\" of shape 1000,100: dimension 1: upper bound 1001 is outside 1:1000 (extent 1000)");
  EXPECT_EQ(section_error(":,101", "1000,100"),
            "section \":,101\" of shape 1000,100: dimension 2: subscript 101 is outside 1:100 (extent 100)");
  EXPECT_EQ(
      section_error("1:14:4", "10"),
      "section \"1:14:4\" of shape 10: dimension 1: subscript 13 (the last of 1:14:4) is outside 1:10 (extent 10)");
  EXPECT_EQ(section_error("12:1:-1", "10"),
            "section \"12:1:-1\" of shape 10: dimension 1: lower bound 12 is outside 1:10 (extent 10)");
  EXPECT_EQ(section_error("10:0:-1", "10"),
            "section \"10:0:-1\" of shape 10: dimension 1: upper bound 0 is outside 1:10 (extent 10)");
  EXPECT_EQ(section_error("1:10:4", "9"), "");  // 1 5 9: the upper bound 10 is never used
}

TEST(Section, SyntaxErrors) {
  EXPECT_EQ(section_error("1:10:0,:", "10,2"),
            "section \"1:10:0,:\" of shape 10,2: dimension 1: stride 0 in 1:10:0 (a stride is not zero)");
  EXPECT_EQ(section_error("1:10", "10,2"), "section \"1:10\" of shape 10,2: 1 subscript for 2 dimensions");
  EXPECT_EQ(section_error(":,:,:", "10"), "section \":,:,:\" of shape 10: 3 subscripts for 1 dimension");
  EXPECT_EQ(section_error("-9223372036854775807:9223372036854775807", "10"),
            "section \"-9223372036854775807:9223372036854775807\" of shape 10: dimension 1: "
            "'-9223372036854775807' is out of range (2^62 at most)");
  EXPECT_EQ(section_error("1:x,:", "10,2"), "section \"1:x,:\" of shape 10,2: dimension 1: 'x' is not an integer");
  EXPECT_EQ(section_error("1.5,:", "10,2"), "section \"1.5,:\" of shape 10,2: dimension 1: '1.5' is not an integer");
  EXPECT_EQ(section_error(":,1:2:3:4", "10,2"),
            "section \":,1:2:3:4\" of shape 10,2: dimension 2: '1:2:3:4' is not lower:upper:stride");
  EXPECT_EQ(section_error("1:10:,:", "10,2"),
            "section \"1:10:,:\" of shape 10,2: dimension 1: '1:10:' has an empty stride");
  EXPECT_EQ(section_error(":,,:", "10,2,3"),
            "section \":,,:\" of shape 10,2,3: dimension 2: no subscript (':' takes the whole dimension)");
  EXPECT_EQ(section_error("1,1,1,1,1,1,1,1", "1,1,1,1,1,1,1"),
            "section \"1,1,1,1,1,1,1,1\" of shape 1,1,1,1,1,1,1: 8 subscripts (at most 7)");
}

TEST(Section, BuiltFromTripletsIsValidatedToo) {
  const Shape shape{{10, 2}, 8};
  EXPECT_EQ(error_of([&] {
              Section(shape, {Triplet{1, 11, 1}, Triplet{1, 2, 1}});
            }),
            "section 1:11,1:2 of shape 10,2: dimension 1: upper bound 11 is outside 1:10 (extent 10)");
  EXPECT_EQ(error_of([&] {
              Section(shape, {Triplet{1, 2, 1, true}, Triplet{1, 2, 1}});
            }),
            "section 1,1:2 of shape 10,2: dimension 1: a scalar subscript has lower == upper and stride 1");
  EXPECT_EQ(error_of([&] { Section(Shape{{}, 8}, {}); }), "a coarray shape needs at least one extent");
}

TEST(Section, Conformance) {
  EXPECT_NO_THROW(check_conformable(section(":,1:50", "500,100"), section("1:1000:2,1:50,3", "1000,100,4")));
  EXPECT_NO_THROW(check_conformable(section("5:4", "10"), section("3:2", "7")));
  EXPECT_EQ(error_of([] { check_conformable(section("1:10,3", "10,5"), section("1:5,1:2", "5,2")); }),
            "local section 1:10,3 (shape (10)) does not conform to remote section 1:5,1:2 (shape (5,2))");
  EXPECT_EQ(error_of([] { check_conformable(section("1:2,1:3", "5,5"), section("1:3,1:2", "5,5")); }),
            "local section 1:2,1:3 (shape (2,3)) does not conform to remote section 1:3,1:2 (shape (3,2))");
  EXPECT_EQ(error_of([] { check_conformable(section(":", "4", 8), section(":", "4", 4)); }),
            "local section 1:4 has elements of 8 bytes, remote section 1:4 of 4");
}

}  // namespace
}  // namespace collsim::coarray
