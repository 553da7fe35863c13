#include "algorithms/coarray/section.hpp"

#include <algorithm>
#include <charconv>
#include <utility>

namespace collsim::coarray {

namespace {

constexpr std::int64_t kLimit = std::int64_t{1} << 62;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  for (std::size_t at = 0;;) {
    const std::size_t end = s.find(sep, at);
    parts.push_back(s.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at));
    if (end == std::string_view::npos) return parts;
    at = end + 1;
  }
}

// 'text', or "text" with quote '"'. (Built by appending: GCC 12 warns, wrongly, on "'" + string.)
std::string quoted(std::string_view text, char quote = '\'') {
  std::string q(1, quote);
  q.append(text);
  q.push_back(quote);
  return q;
}

// Parses all of `s` as a decimal integer, or says why not through `problem`.
bool parse_int(std::string_view s, std::int64_t& value, std::string& problem) {
  s = trim(s);
  std::string_view digits = s;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);  // from_chars takes '-' only
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  // Past 2^62 the count rule (u - l + s) / s could overflow: no array is that large anyway.
  if (ec == std::errc::result_out_of_range || (ec == std::errc() && (value > kLimit || value < -kLimit))) {
    problem = quoted(s) + " is out of range (2^62 at most)";
    return false;
  }
  if (ec != std::errc() || end != digits.data() + digits.size() || digits.empty()) {
    problem = quoted(s) + " is not an integer";
    return false;
  }
  return true;
}

std::string join(const std::vector<std::size_t>& v) {
  std::string s;
  for (std::size_t x : v) {
    if (!s.empty()) s += ',';
    s += std::to_string(x);
  }
  return s;
}

// "1 subscript", "3 subscripts".
std::string count_of(std::size_t n, const char* noun) { return std::to_string(n) + " " + noun + (n == 1 ? "" : "s"); }

std::string dimension(std::size_t d) { return "dimension " + std::to_string(d + 1) + ": "; }

// Bytes per contiguous run. Walking dimensions from the first, the run grows while a dimension is
// taken whole and unstrided (all of its extent, stride 1; a dimension of extent 1 is whole
// whatever its subscript). The first dimension that is not whole still extends the run by its
// count if its elements are adjacent and ascending in memory (stride 1, or a single element),
// and ends it: the next element along it, or along any later dimension, is not adjacent. A
// negative stride over two or more elements walks memory backwards, so it ends the run before it.
std::size_t contiguous_length(const Shape& shape, const std::vector<Triplet>& dims) {
  std::size_t run = shape.element_bytes;
  for (std::size_t d = 0; d < dims.size(); ++d) {
    const std::size_t n = dims[d].count();
    const bool adjacent = dims[d].stride == 1 || n == 1;
    if (!adjacent) break;
    run *= n;
    if (n != shape.extents[d]) break;
  }
  return run;
}

}  // namespace

std::size_t Shape::elements() const {
  std::size_t n = 1;
  for (std::size_t e : extents) n *= e;
  return n;
}

std::string Shape::str() const { return join(extents); }

void validate(const Shape& shape) {
  const std::string what = "shape " + shape.str() + ": ";
  if (shape.extents.empty()) throw SectionError("a coarray shape needs at least one extent");
  if (shape.rank() > kMaxRank)
    throw SectionError(what + std::to_string(shape.rank()) + " dimensions (at most " + std::to_string(kMaxRank) + ")");
  for (std::size_t d = 0; d < shape.extents.size(); ++d)
    if (shape.extents[d] == 0) throw SectionError(what + dimension(d) + "extent 0 (extents are 1 or more)");
  if (shape.element_bytes == 0) throw SectionError(what + "element size 0 bytes (1 or more)");
  // Offsets are signed 64-bit sums (a negative stride steps back), so the array's bytes must fit.
  std::size_t bytes = shape.element_bytes;
  for (std::size_t e : shape.extents)
    if (__builtin_mul_overflow(bytes, e, &bytes) || bytes > static_cast<std::size_t>(kLimit))
      throw SectionError(what + "more than 2^62 bytes");
}

Shape parse_shape(std::string_view text, std::size_t element_bytes) {
  const std::string what = "shape " + quoted(text, '"') + ": ";
  const std::vector<std::string_view> items = split(text, ',');
  if (static_cast<int>(items.size()) > kMaxRank)
    throw SectionError(what + std::to_string(items.size()) + " dimensions (at most " + std::to_string(kMaxRank) + ")");
  Shape shape;
  shape.element_bytes = element_bytes;
  for (std::size_t d = 0; d < items.size(); ++d) {
    std::int64_t extent = 0;
    std::string problem;
    if (!parse_int(items[d], extent, problem)) throw SectionError(what + dimension(d) + problem);
    if (extent < 1)
      throw SectionError(what + dimension(d) + "extent " + std::to_string(extent) + " (extents are 1 or more)");
    shape.extents.push_back(static_cast<std::size_t>(extent));
  }
  validate(shape);
  return shape;
}

std::size_t Triplet::count() const {
  if (stride == 0) return 0;
  return static_cast<std::size_t>(std::max<std::int64_t>(0, (upper - lower + stride) / stride));
}

std::string Triplet::str() const {
  if (scalar) return std::to_string(lower);
  std::string s = std::to_string(lower) + ":" + std::to_string(upper);
  return stride == 1 ? s : s + ":" + std::to_string(stride);
}

Section::Section(Shape shape, std::vector<Triplet> dims, std::string_view label)
    : shape_(std::move(shape)), dims_(std::move(dims)) {
  validate(shape_);
  const std::string what =
      "section " + (label.empty() ? str() : quoted(label, '"')) + " of shape " + shape_.str() + ": ";
  if (dims_.size() > static_cast<std::size_t>(kMaxRank))
    throw SectionError(what + std::to_string(dims_.size()) + " subscripts (at most " + std::to_string(kMaxRank) + ")");
  if (dims_.size() != shape_.extents.size())
    throw SectionError(what + count_of(dims_.size(), "subscript") + " for " +
                       count_of(shape_.extents.size(), "dimension"));
  for (std::size_t d = 0; d < dims_.size(); ++d) {
    const Triplet& t = dims_[d];
    const auto extent = static_cast<std::int64_t>(shape_.extents[d]);
    const std::string bounds = " is outside 1:" + std::to_string(extent) + " (extent " + std::to_string(extent) + ")";
    if (t.scalar && (t.upper != t.lower || t.stride != 1))
      throw SectionError(what + dimension(d) + "a scalar subscript has lower == upper and stride 1");
    if (t.stride == 0) throw SectionError(what + dimension(d) + "stride 0 in " + t.str() + " (a stride is not zero)");
    // Fortran asks only the selected subscripts to be in bounds: an empty triplet may name any
    // bounds, and the upper bound of 1:10:4 (last subscript 9) may lie past an extent of 9.
    if (t.count() == 0) continue;
    if (t.scalar && (t.lower < 1 || t.lower > extent))
      throw SectionError(what + dimension(d) + "subscript " + std::to_string(t.lower) + bounds);
    if (t.lower < 1 || t.lower > extent)
      throw SectionError(what + dimension(d) + "lower bound " + std::to_string(t.lower) + bounds);
    if (t.last() < 1 || t.last() > extent)
      throw SectionError(what + dimension(d) +
                         (t.last() == t.upper
                              ? "upper bound " + std::to_string(t.upper)
                              : "subscript " + std::to_string(t.last()) + " (the last of " + t.str() + ")") +
                         bounds);
  }

  elements_ = 1;
  auto span = static_cast<std::int64_t>(shape_.element_bytes);  // bytes between subscripts of dimension d
  for (std::size_t d = 0; d < dims_.size(); ++d) {
    elements_ *= dims_[d].count();
    step_.push_back(dims_[d].stride * span);
    first_ += (dims_[d].lower - 1) * span;
    span *= static_cast<std::int64_t>(shape_.extents[d]);
  }
  contiguous_ = elements_ == 0 ? shape_.element_bytes : contiguous_length(shape_, dims_);
}

std::vector<std::size_t> Section::section_shape() const {
  std::vector<std::size_t> s;
  for (const Triplet& t : dims_)
    if (!t.scalar) s.push_back(t.count());
  return s;
}

std::size_t Section::element_offset(std::size_t index) const {
  std::int64_t offset = first_;
  for (std::size_t d = 0; d < dims_.size() && index > 0; ++d) {
    const std::size_t n = dims_[d].count();
    offset += static_cast<std::int64_t>(index % n) * step_[d];
    index /= n;
  }
  return static_cast<std::size_t>(offset);
}

Strided Section::layout() const {
  Strided s{first_, shape_.element_bytes, {}};
  for (std::size_t d = 0; d < dims_.size(); ++d) s.dims.push_back({dims_[d].count(), step_[d]});
  return normalized(std::move(s));
}

std::vector<std::size_t> Section::element_offsets() const {
  std::vector<std::size_t> offsets;
  offsets.reserve(elements_);
  for (std::size_t i = 0; i < elements_; ++i) offsets.push_back(element_offset(i));
  return offsets;
}

std::string Section::str() const {
  std::string s;
  for (const Triplet& t : dims_) {
    if (!s.empty()) s += ',';
    s += t.str();
  }
  return s;
}

Section parse_section(std::string_view text, const Shape& shape) {
  validate(shape);
  const std::string what = "section " + quoted(text, '"') + " of shape " + shape.str() + ": ";
  const std::vector<std::string_view> items = split(text, ',');
  if (items.size() > static_cast<std::size_t>(kMaxRank))
    throw SectionError(what + std::to_string(items.size()) + " subscripts (at most " + std::to_string(kMaxRank) + ")");
  if (items.size() != shape.extents.size())
    throw SectionError(what + count_of(items.size(), "subscript") + " for " +
                       count_of(shape.extents.size(), "dimension"));
  std::vector<Triplet> dims;
  for (std::size_t d = 0; d < items.size(); ++d) {
    const std::string_view item = trim(items[d]);
    if (item.empty()) throw SectionError(what + dimension(d) + "no subscript (':' takes the whole dimension)");
    const std::vector<std::string_view> parts = split(item, ':');
    if (parts.size() > 3) throw SectionError(what + dimension(d) + quoted(item) + " is not lower:upper:stride");
    std::string problem;
    Triplet t;
    t.upper = static_cast<std::int64_t>(shape.extents[d]);
    if (parts.size() == 1) {
      if (!parse_int(parts[0], t.lower, problem)) throw SectionError(what + dimension(d) + problem);
      t.upper = t.lower;
      t.scalar = true;
    } else {
      if (!trim(parts[0]).empty() && !parse_int(parts[0], t.lower, problem))
        throw SectionError(what + dimension(d) + problem);
      if (!trim(parts[1]).empty() && !parse_int(parts[1], t.upper, problem))
        throw SectionError(what + dimension(d) + problem);
      if (parts.size() == 3) {
        if (trim(parts[2]).empty()) throw SectionError(what + dimension(d) + quoted(item) + " has an empty stride");
        if (!parse_int(parts[2], t.stride, problem)) throw SectionError(what + dimension(d) + problem);
      }
    }
    dims.push_back(t);
  }
  return Section(shape, std::move(dims), text);
}

void check_conformable(const Section& local, const Section& remote) {
  const std::vector<std::size_t> l = local.section_shape(), r = remote.section_shape();
  if (l != r)
    throw SectionError("local section " + local.str() + " (shape (" + join(l) +
                       ")) does not conform to remote section " + remote.str() + " (shape (" + join(r) + "))");
  if (local.shape().element_bytes != remote.shape().element_bytes)
    throw SectionError("local section " + local.str() + " has elements of " +
                       std::to_string(local.shape().element_bytes) + " bytes, remote section " + remote.str() + " of " +
                       std::to_string(remote.shape().element_bytes));
}

Runs::Runs(const Section& local, const Section& remote) : local_(&local), remote_(&remote) {
  check_conformable(local, remote);
  run_bytes_ = std::min(local.contiguous_bytes(), remote.contiguous_bytes());
  per_run_ = run_bytes_ / local.shape().element_bytes;
  count_ = local.elements() / per_run_;
}

}  // namespace collsim::coarray
