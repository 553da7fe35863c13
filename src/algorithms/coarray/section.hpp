// Fortran array sections of a coarray: what a PUT or GET statement moves, as byte offsets.
//
// A Shape is a coarray's extents (1 to 7 dimensions, subscripts 1-based) and element size; a
// Section picks one subscript triplet lower:upper:stride per dimension, or a single subscript,
// which drops that dimension from the section's rank. Elements are listed in Fortran (array
// element) order, the first dimension varying fastest, and memory is column-major, so the
// "contiguous length" of a section (NL for the local side, NR for the remote side) is the byte
// length of the runs its elements fall into when walked in that order. Table 1 of the coarray
// runtime (scheme.hpp) is chosen from NL and NR.
//
// Sections are user input (scenarios, options), so every problem is a SectionError, an
// InputError: one line naming the section and the dimension, exit status 2 in the CLI.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "comm/strided.hpp"
#include "support/input_error.hpp"

namespace collsim::coarray {

inline constexpr int kMaxRank = 7;  // Fortran 2003's rank limit (2008 allows 15)

class SectionError : public InputError {
  using InputError::InputError;
};

struct Shape {
  std::vector<std::size_t> extents;  // 1 to kMaxRank, each at least 1
  std::size_t element_bytes = 1;

  int rank() const { return static_cast<int>(extents.size()); }
  std::size_t elements() const;
  std::size_t bytes() const { return elements() * element_bytes; }
  std::string str() const;  // "1000,100"
};

// "1000,100" with elements of `element_bytes`; throws SectionError.
Shape parse_shape(std::string_view text, std::size_t element_bytes);
// Throws SectionError unless shape has 1 to 7 extents, each at least 1, and elements of 1 byte or more.
void validate(const Shape& shape);

// One dimension of a section. Fortran's count rule: max(0, (upper - lower + stride) / stride),
// with the division truncating; so 5:4 and 1:10:-1 select nothing, 10:1:-1 selects ten.
struct Triplet {
  std::int64_t lower = 1, upper = 1, stride = 1;
  bool scalar = false;  // a single subscript (lower == upper, stride 1)

  std::size_t count() const;
  std::int64_t last() const { return lower + (static_cast<std::int64_t>(count()) - 1) * stride; }
  std::string str() const;  // "1:1000:2", "1:50", "5"
};

class Section {
 public:
  // Throws SectionError when the triplets do not fit the shape; `label` names the section in the
  // message (the text it was parsed from), else the triplets do.
  Section(Shape shape, std::vector<Triplet> dims, std::string_view label = {});
  // The whole of a one-element array of one byte (a placeholder to assign over).
  Section() : Section(Shape{{1}, 1}, {Triplet{}}) {}

  const Shape& shape() const { return shape_; }
  const std::vector<Triplet>& dims() const { return dims_; }
  // Fortran's shape of the section: the element counts of the dimensions that are not scalar subscripts.
  std::vector<std::size_t> section_shape() const;
  std::size_t elements() const { return elements_; }
  std::size_t bytes() const { return elements_ * shape_.element_bytes; }
  // NL or NR: bytes per contiguous run (see contiguous_length in section.cpp); the element size for
  // an empty section.
  std::size_t contiguous_bytes() const { return contiguous_; }
  // Byte offset, from the coarray's first element, of the section's element `index` (0-based, Fortran order).
  std::size_t element_offset(std::size_t index) const;
  std::vector<std::size_t> element_offsets() const;
  // The section's bytes as blocks of NL bytes (comm/strided.hpp), normalized, offsets from the
  // coarray's first element: what an MPI derived datatype of the section covers.
  Strided layout() const;
  std::string str() const;  // "1:1000:2,1:50"

 private:
  Shape shape_;
  std::vector<Triplet> dims_;
  std::vector<std::int64_t> step_;  // bytes between consecutive subscripts of each dimension (signed)
  std::int64_t first_ = 0;          // byte offset of the first element
  std::size_t elements_ = 0;
  std::size_t contiguous_ = 0;
};

// Fortran subscripts, one per dimension of `shape`, comma-separated: "1:1000:2,1:50", ":,5",
// "::2,3:", "10:1:-1". An omitted lower (upper) bound is the dimension's lower (upper) bound,
// whatever the stride's sign, as in Fortran. Throws SectionError.
Section parse_section(std::string_view text, const Shape& shape);

// Fortran conformance of the two sides of an assignment: equal section shapes (scalar subscripts
// dropped) and equal element sizes. Throws SectionError naming both sections and shapes.
void check_conformable(const Section& local, const Section& remote);

// The m-byte runs of a transfer between two conformable sections, m = min(NL, NR): run i starts
// at these byte offsets on each side. Runs are contiguous on both sides and, in order, cover the
// elements in Fortran order. One of NL, NR divides the other (both are products of a leading
// part of the same section shape), so m divides both.
struct RunOffsets {
  std::size_t local = 0, remote = 0;
};
class Runs {
 public:
  Runs(const Section& local, const Section& remote);
  std::size_t run_bytes() const { return run_bytes_; }
  std::size_t count() const { return count_; }
  RunOffsets operator[](std::size_t i) const {
    return {local_->element_offset(i * per_run_), remote_->element_offset(i * per_run_)};
  }

 private:
  const Section* local_;
  const Section* remote_;
  std::size_t run_bytes_ = 0, per_run_ = 1, count_ = 0;
};

}  // namespace collsim::coarray
