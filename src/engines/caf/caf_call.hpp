// The caf-native engine: real Fortran coarray section assignments (gfortran -fcoarray=lib, run by
// Debian's OpenCoarrays MPI library) timed with the mpi engines' protocol (CallTimer, measure()),
// as the measured reference for the simulated PUT/GET schemes.
//
// The statements live in Fortran (caf_kernels.F90); this header is their C++ side: the bind(C)
// structs that describe one assignment to them, the lowering from a Fortran section as written
// (CafDim, any rank up to 7, scalar subscripts included) to those structs, and the
// CollectiveCall that runs it. Images are MPI_COMM_WORLD's ranks plus one (OpenCoarrays' world is
// a duplicate of it); the origin image executes the statements, the target image is the coindex,
// every other image only joins the synchronisations.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/coarray/pattern.hpp"
#include "algorithms/coarray/segment_end.hpp"
#include "engines/caf/rma_count.hpp"
#include "engines/mpi/call_timer.hpp"
#include "engines/mpi/measure.hpp"

namespace collsim::caf {

inline constexpr int kCafDims = 7;
inline constexpr int kCafTextLen = 48;

// --- What crosses to Fortran: mirrors of the bind(C) types of caf_spec.F90 ---------------------

extern "C" {
// One side in the form the Fortran statement takes: rank 7, lower bounds 1, every subscript a
// triplet. Memory layout (offsets and strides of the selected elements) is the written array's.
struct CafSide {
  std::int64_t extent[kCafDims];
  std::int64_t lower[kCafDims], upper[kCafDims], stride[kCafDims];
};

struct CafSpec {
  CafSide local, remote;
  std::int32_t element_bytes;  // 1, 2, 4, 8, 16: integer(1), integer(2), integer(4), real(8), complex(8)
  std::int32_t copies;         // N statements per segment, statement i on copy i of both arrays
  std::int32_t get;            // 0: remote(...)[target] = local(...); 1: local(...) = remote(...)[target]
  std::int32_t origin_image;   // 1-based
  std::int32_t target_image;
  std::int32_t sync;     // the segment's end: 0 sync memory, 1 sync all, 2 sync images
  std::int32_t pattern;  // coarray::Pattern: 0 one, 1 all-to-one, 2 ring, 3 halo (caf_pattern.F90)
};

struct CafCheck {
  std::int64_t element;  // first wrong element, 0-based over the whole array (copies included)
  std::int32_t wrong;    // 0 when right
  std::int32_t image;
  char got[kCafTextLen], expected[kCafTextLen];
};
}

// --- The assignment as written ------------------------------------------------------------------

// One dimension of an array declaration and its subscript: `a(lower:upper:stride)` over declared
// bounds lbound .. lbound + extent - 1, or a scalar subscript `a(lower)` (upper and stride unused),
// which drops the dimension from the section's rank as in Fortran.
struct CafDim {
  std::int64_t lbound = 1, extent = 1;
  std::int64_t lower = 1, upper = 1, stride = 1;
  bool scalar = false;
};

// `remote(...)[target] = local(...)` (PUT) or `local(...) = remote(...)[target]` (GET), `copies`
// times per segment on distinct copies, then `sync`.
struct CafAssignment {
  std::vector<CafDim> local, remote;  // 1 to 7 dimensions each, first dimension first
  int element_bytes = 8;
  int copies = 1;
  bool get = false;
  int origin_image = 1, target_image = 2;
  coarray::SyncKind sync = coarray::SyncKind::memory;  // the statement that ends the segment
  coarray::Pattern pattern = coarray::Pattern::one;    // which images run it, to whom (pattern.hpp)
};

// "" when Fortran would accept the assignment and the engine can run it on `images` images, else
// one line saying why: element size not 1/2/4/8/16, rank, zero stride, a subscript outside its
// dimension, an empty section, shapes that do not conform, copies < 1, images out of range or equal,
// a pattern that means nothing on `images` images.
std::string assignment_problem(const CafAssignment& a, int images);
// Section elements and bytes of one statement.
std::int64_t section_elements(const std::vector<CafDim>& side);
// Contiguous length in bytes of a side (NL for the local side, NR for the remote side): the longest
// run of selected elements adjacent in memory, dimensions walked from the first.
std::int64_t contiguous_bytes(const std::vector<CafDim>& side, int element_bytes);
// The Fortran form of a side. A scalar subscript is folded into a neighbouring dimension (the
// next-lower one, else the next-higher one) whose declared extent absorbs it, so the section keeps
// the written rank and the very same element offsets and strides; the rank is then padded to 7
// with leading dimensions of extent 1 (see caf_kernels.F90 for why leading). Needs a valid side.
CafSide lower_side(const std::vector<CafDim>& side);
// The whole spec, both sides lowered. Needs assignment_problem(a, ...) == "".
CafSpec lower_assignment(const CafAssignment& a);
// Fortran subscripts of the 0-based element `element` of an array declared by `side`'s dims
// (copies as a last subscript when > 1): "a(3,17)" style text, "[copy 2]" appended.
std::string element_name(const std::vector<CafDim>& side, std::int64_t element, int copies);

// --- Running it -----------------------------------------------------------------------------------

// OpenCoarrays' start and end for a C++ main. Call start() after MPI_Init: the library then uses
// the MPI that is up (and leaves it up at stop()); without it, it would call MPI_Init_thread
// itself and MPI_Finalize at stop(). Image i is MPI_COMM_WORLD's rank i - 1.
void start_runtime(int* argc, char*** argv);
void stop_runtime();
int this_image();
int num_images();

// One segment's statements as the CollectiveCall the timing protocol runs. Ended by sync memory,
// its time is the origin image's finish: the target takes no part in a PUT or GET, it only waits
// in the check's sync all. Ended by sync all or sync images, the other images take part in the
// segment's end, and its time is the last image's finish, as in the other engines.
class CafCall final : public CollectiveCall {
 public:
  // Collective: allocates the arrays (a coarray allocation synchronises all images). Throws
  // InputError when assignment_problem() says something.
  explicit CafCall(const CafAssignment& a);
  // Collective: deallocates them.
  ~CafCall() override;
  CafCall(const CafCall&) = delete;
  CafCall& operator=(const CafCall&) = delete;

  void prepare() override;
  void run(double start_wtime) override;
  std::string check() override;
  std::string describe() const override;
  double time_from(const std::vector<double>& finish_s) const override;

  // MPI calls the origin made in the last run() (from prepare's end to check's start), when the
  // program counts them (rma_count.hpp); nullopt elsewhere and on other images.
  const std::optional<RmaCounts>& last_counts() const { return counts_; }

 private:
  CafAssignment a_;
  CafSpec spec_{};
  std::optional<RmaCounts> before_, counts_;
};

// A measured point of the caf-native engine.
struct CafMeasurement {
  MpiMeasurement measured;          // statistics and data verdict as for the mpi engines
  std::optional<RmaCounts> counts;  // the origin's MPI calls per segment, when counted
};

// Collective over MPI_COMM_WORLD (OpenCoarrays' images): measure() of a CafCall. Every rank returns
// the same result.
CafMeasurement measure_caf(const CafAssignment& a, const MeasureOptions& options);

}  // namespace collsim::caf
