#include "engines/caf/caf_call.hpp"

#include <algorithm>
#include <climits>
#include <cstring>

#include "engines/run.hpp"

extern "C" {
// OpenCoarrays' entry points that gfortran's Fortran main program would call around the program.
void _gfortran_caf_init(int* argc, char*** argv);
void _gfortran_caf_finalize(void);

// caf_kernels.F90
void collsim_caf_setup(const collsim::caf::CafSpec* spec);
void collsim_caf_teardown(const collsim::caf::CafSpec* spec);
void collsim_caf_prepare(const collsim::caf::CafSpec* spec);
void collsim_caf_run(const collsim::caf::CafSpec* spec);
void collsim_caf_check(const collsim::caf::CafSpec* spec, collsim::caf::CafCheck* result);
int collsim_caf_this_image(void);
int collsim_caf_num_images(void);
}

namespace collsim::caf {

RmaCounts operator-(const RmaCounts& a, const RmaCounts& b) {
  RmaCounts d;
  d.puts = a.puts - b.puts;
  d.gets = a.gets - b.gets;
  d.put_bytes = a.put_bytes - b.put_bytes;
  d.get_bytes = a.get_bytes - b.get_bytes;
  d.locks = a.locks - b.locks;
  d.unlocks = a.unlocks - b.unlocks;
  d.lock_alls = a.lock_alls - b.lock_alls;
  d.flushes = a.flushes - b.flushes;
  d.barriers = a.barriers - b.barriers;
  return d;
}

namespace {

// Elements a triplet selects (Fortran: max(0, (upper - lower) / stride + 1)); 1 for a scalar.
std::int64_t count_of(const CafDim& d) {
  if (d.scalar) return 1;
  const std::int64_t n = (d.upper - d.lower) / d.stride + 1;
  return std::max<std::int64_t>(n, 0);
}

bool inside(const CafDim& d, std::int64_t index) { return index >= d.lbound && index - d.lbound < d.extent; }

std::string dim_text(const CafDim& d) {
  if (d.scalar) return std::to_string(d.lower);
  std::string s = std::to_string(d.lower) + ":" + std::to_string(d.upper);
  if (d.stride != 1) s.append(":").append(std::to_string(d.stride));
  return s;
}

std::string section_text(const char* name, const std::vector<CafDim>& side) {
  std::string s = std::string(name) + "(";
  for (std::size_t i = 0; i < side.size(); ++i) s.append(i ? "," : "").append(dim_text(side[i]));
  return s + ")";
}

// The one-line problem with one side, or "".
std::string side_problem(const char* name, const std::vector<CafDim>& side) {
  if (side.empty() || side.size() > kCafDims)
    return std::string(name) + " has " + std::to_string(side.size()) + " dimensions (1 to 7)";
  std::int64_t elements = 1;
  for (std::size_t i = 0; i < side.size(); ++i) {
    const CafDim& d = side[i];
    const std::string where = std::string(name) + " dimension " + std::to_string(i + 1);
    if (d.extent < 1) return where + ": extent " + std::to_string(d.extent) + " (at least 1)";
    if (elements > (std::int64_t{1} << 40) / d.extent) return std::string(name) + ": array too large";
    elements *= d.extent;
    const std::string bounds = std::to_string(d.lbound) + ":" + std::to_string(d.lbound + d.extent - 1);
    if (d.scalar) {
      if (!inside(d, d.lower))
        return where + ": subscript " + std::to_string(d.lower) + " outside the bounds " + bounds;
      continue;
    }
    if (d.stride == 0) return where + ": stride 0";
    const std::int64_t n = count_of(d);
    if (n == 0) return where + ": " + dim_text(d) + " selects no element";
    const std::int64_t last = d.lower + (n - 1) * d.stride;
    if (!inside(d, d.lower) || !inside(d, last))
      return where + ": " + dim_text(d) + " reaches outside the bounds " + bounds;
  }
  return "";
}

std::int64_t declared_elements(const std::vector<CafDim>& side) {
  std::int64_t n = 1;
  for (const CafDim& d : side) n *= d.extent;
  return n;
}

}  // namespace

std::int64_t section_elements(const std::vector<CafDim>& side) {
  std::int64_t n = 1;
  for (const CafDim& d : side) n *= count_of(d);
  return n;
}

std::string assignment_problem(const CafAssignment& a, int images) {
  switch (a.element_bytes) {
    case 1:
    case 2:
    case 4:
    case 8:
    case 16: break;
    default:
      return "element size " + std::to_string(a.element_bytes) +
             " B is not supported (1, 2, 4, 8 or 16: integer(1), integer(2), integer(4), real(8), complex(8))";
  }
  if (std::string p = side_problem("local", a.local); !p.empty()) return p;
  if (std::string p = side_problem("remote", a.remote); !p.empty()) return p;
  // Fortran's conformance: the same extents, in order, once scalar subscripts are dropped.
  std::vector<std::int64_t> l, r;
  for (const CafDim& d : a.local)
    if (!d.scalar) l.push_back(count_of(d));
  for (const CafDim& d : a.remote)
    if (!d.scalar) r.push_back(count_of(d));
  if (l != r) {
    auto shape = [](const std::vector<std::int64_t>& v) {
      std::string s = "(";
      for (std::size_t i = 0; i < v.size(); ++i) s.append(i ? "," : "").append(std::to_string(v[i]));
      return s + ")";
    };
    return "the sections do not conform: local " + section_text("", a.local) + " has shape " + shape(l) + ", remote " +
           section_text("", a.remote) + " has shape " + shape(r);
  }
  if (a.copies < 1) return "copies " + std::to_string(a.copies) + " (at least 1)";
  const std::int64_t bytes = std::max(declared_elements(a.local), declared_elements(a.remote)) * a.copies *
                             static_cast<std::int64_t>(a.element_bytes);
  if (bytes > (std::int64_t{1} << 31)) return "the arrays would take " + std::to_string(bytes) + " B (at most 2 GiB)";
  for (int image : {a.origin_image, a.target_image})
    if (image < 1 || image > images)
      return "image " + std::to_string(image) + " does not exist (images 1 to " + std::to_string(images) + ")";
  if (a.origin_image == a.target_image) return "origin and target are both image " + std::to_string(a.origin_image);
  if (a.pattern != coarray::Pattern::one) return coarray::pattern_problem(a.pattern, images);
  return "";
}

std::int64_t contiguous_bytes(const std::vector<CafDim>& side, int element_bytes) {
  std::int64_t run = element_bytes;
  for (const CafDim& d : side) {
    const std::int64_t n = count_of(d);
    const bool whole = d.extent == 1 || (!d.scalar && d.stride == 1 && n == d.extent);
    if (whole) {
      run *= d.extent;
      continue;
    }
    // A partial dimension ends the run: it extends it by its own elements only if they are adjacent.
    if (n == 1 || d.stride == 1) run *= n;
    break;
  }
  return run;
}

CafSide lower_side(const std::vector<CafDim>& side) {
  // Each triplet dimension heads a group of itself and the scalar dimensions after it (the
  // first group also takes any scalar dimensions before it); a group becomes one dimension whose
  // extent is the product of the group's extents, so every selected element keeps its offset.
  struct Folded {
    std::int64_t extent, lower, upper, stride;
  };
  std::vector<Folded> out;
  const std::size_t first =
      std::find_if(side.begin(), side.end(), [](const CafDim& d) { return !d.scalar; }) - side.begin();
  std::size_t begin = 0;
  while (begin < side.size()) {
    std::size_t head = begin == 0 ? first : begin;  // the group's triplet, side.size() when none
    std::size_t end = head + 1;
    while (end < side.size() && side[end].scalar) ++end;
    end = std::min(end, side.size());
    std::int64_t inner = 1, offset = 0, head_inner = 1;
    for (std::size_t d = begin; d < end; ++d) {
      if (d == head)
        head_inner = inner;
      else
        offset += (side[d].lower - side[d].lbound) * inner;
      inner *= side[d].extent;
    }
    if (head < side.size()) {
      const CafDim& h = side[head];
      out.push_back({inner, 1 + offset + (h.lower - h.lbound) * head_inner,
                     1 + offset + (h.upper - h.lbound) * head_inner, h.stride * head_inner});
    } else {
      out.push_back({inner, 1 + offset, 1 + offset, 1});  // every subscript scalar: one element
    }
    begin = end;
  }
  CafSide s{};
  const std::size_t pad = kCafDims - out.size();
  for (std::size_t d = 0; d < kCafDims; ++d) {
    const Folded f = d < pad ? Folded{1, 1, 1, 1} : out[d - pad];
    s.extent[d] = f.extent;
    s.lower[d] = f.lower;
    s.upper[d] = f.upper;
    s.stride[d] = f.stride;
  }
  return s;
}

CafSpec lower_assignment(const CafAssignment& a) {
  CafSpec s{};
  s.local = lower_side(a.local);
  s.remote = lower_side(a.remote);
  s.element_bytes = a.element_bytes;
  s.copies = a.copies;
  s.get = a.get ? 1 : 0;
  s.origin_image = a.origin_image;
  s.target_image = a.target_image;
  s.sync = static_cast<std::int32_t>(a.sync);
  s.pattern = static_cast<std::int32_t>(a.pattern);
  return s;
}

std::string element_name(const std::vector<CafDim>& side, std::int64_t element, int copies) {
  const std::int64_t per_copy = declared_elements(side);
  std::int64_t rest = element % per_copy;
  std::string s = "(";
  for (std::size_t i = 0; i < side.size(); ++i) {
    s.append(i ? "," : "").append(std::to_string(side[i].lbound + rest % side[i].extent));
    rest /= side[i].extent;
  }
  s += ")";
  if (copies > 1) s += " of copy " + std::to_string(element / per_copy + 1);
  return s;
}

void start_runtime(int* argc, char*** argv) { _gfortran_caf_init(argc, argv); }
void stop_runtime() { _gfortran_caf_finalize(); }
int this_image() { return collsim_caf_this_image(); }
int num_images() { return collsim_caf_num_images(); }

namespace {
std::optional<RmaCounts> counts_now() {
  if (collsim_rma_counts == nullptr) return std::nullopt;
  return *collsim_rma_counts();
}
}  // namespace

CafCall::CafCall(const CafAssignment& a) : a_(a) {
  if (std::string p = assignment_problem(a, num_images()); !p.empty()) throw InputError(p);
  spec_ = lower_assignment(a);
  collsim_caf_setup(&spec_);
}

CafCall::~CafCall() { collsim_caf_teardown(&spec_); }

void CafCall::prepare() {
  collsim_caf_prepare(&spec_);
  if (this_image() == a_.origin_image) before_ = counts_now();
}

void CafCall::run(double /*start_wtime*/) { collsim_caf_run(&spec_); }

std::string CafCall::check() {
  if (before_) counts_ = *counts_now() - *before_;
  CafCheck result{};
  collsim_caf_check(&spec_, &result);
  if (!result.wrong) return "";
  const bool put = !a_.get;
  return "image " + std::to_string(result.image) + ": " + (put ? "remote" : "local") +
         element_name(put ? a_.remote : a_.local, result.element, a_.copies) + " is " + result.got + ", expected " +
         result.expected;
}

std::string CafCall::describe() const {
  const std::string remote = section_text("remote", a_.remote) + "[" + std::to_string(a_.target_image) + "]";
  const std::string local = section_text("local", a_.local);
  std::string s = "caf-native on image " + std::to_string(a_.origin_image) + ": " +
                  (a_.get ? local + " = " + remote : remote + " = " + local) + ", " + std::to_string(a_.element_bytes) +
                  " B elements";
  if (a_.copies > 1) s += ", " + std::to_string(a_.copies) + " statements per segment";
  if (a_.sync != coarray::SyncKind::memory) s += std::string(", ended by sync ") + coarray::to_string(a_.sync);
  if (a_.pattern != coarray::Pattern::one) s += std::string(", pattern ") + coarray::to_string(a_.pattern);
  return s;
}

double CafCall::time_from(const std::vector<double>& finish_s) const {
  // Every image runs statements (a pattern), or takes part in the end: the last image's finish.
  if (a_.sync != coarray::SyncKind::memory || a_.pattern != coarray::Pattern::one)
    return CollectiveCall::time_from(finish_s);
  const std::size_t origin = static_cast<std::size_t>(a_.origin_image - 1);
  return origin < finish_s.size() ? finish_s[origin] : 0;
}

CafMeasurement measure_caf(const CafAssignment& a, const MeasureOptions& options) {
  CafMeasurement out;
  std::optional<RmaCounts> counts;
  {
    CafCall call(a);
    out.measured = measure(MPI_COMM_WORLD, call, options);
    counts = call.last_counts();
  }
  // The origin alone counted; everyone returns its counts.
  RmaCounts c = counts.value_or(RmaCounts{});
  int have = counts ? 1 : 0;
  MPI_Bcast(&have, 1, MPI_INT, a.origin_image - 1, MPI_COMM_WORLD);
  MPI_Bcast(&c, sizeof c / sizeof(std::int64_t), MPI_INT64_T, a.origin_image - 1, MPI_COMM_WORLD);
  if (have) out.counts = c;
  return out;
}

}  // namespace collsim::caf
