// One coarray experiment point: a segment of PUT (or GET) statements of one array section between
// two images, as a program every engine runs (RunSpec::program), and the row it gives.
//
// The point is Omni XcalableMP's runtime (algorithms/coarray) moving `local(local_section)` to
// `remote(remote_section)[target]` on image `origin`: Table 1 picks the scheme, `statements`
// statements make one segment (statement i writes the i-th of `statements` remote coarrays, or
// reads into the i-th local array for GET), and the segment ends with `sync` (segment_end.hpp):
// sync memory on the origin (the default), sync all on every image, or sync images between the
// origin and the target. Only the segment is timed, on every image from the common start to the
// end of its part (the run's time is the last image's); windows, inputs and the check are set up
// and done around it.
// With `pattern` other than one (algorithms/coarray/pattern.hpp), every active image runs the same
// statements to its target(s) in the one segment, each source into a coarray slot of its own at
// its target (GET: each target's coarrays into a local array of its own per target), every image
// ends it with `sync`, and the time is still the last image's.
// With real bytes, the target's coarrays after PUT (the origin's arrays after GET) must equal
// Fortran's assignment: element k of the remote section gets element k of the local one, and
// every other element keeps its value; every image checks its own window (and, for GET, its local
// arrays).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "algorithms/coarray/coarray_transfer.hpp"
#include "algorithms/coarray/pattern.hpp"
#include "algorithms/coarray/scheme.hpp"
#include "algorithms/coarray/section.hpp"
#include "engines/run.hpp"
#include "experiment/results/measurement.hpp"

namespace collsim {

struct CoarrayPoint {
  bool get = false;  // GET statements, else PUT
  coarray::Section local, remote;
  coarray::CoarrayOptions options;                     // B, registered (case 0), GET behaviour
  coarray::PutMode mode = coarray::PutMode::blocking;  // PUT only
  std::size_t statements = 1;                          // per segment
  coarray::SyncKind sync = coarray::SyncKind::memory;  // the statement that ends the segment
  int origin = 0, target = 1;                          // ranks (images origin+1, target+1)
  coarray::Pattern pattern = coarray::Pattern::one;    // who runs the statements, to whom
  int images = 2;                                      // the images the point runs on
  bool real_bytes = true;

  coarray::Scheme scheme() const;
  coarray::Traffic traffic() const { return {pattern, images, origin, target}; }
  coarray::Plan plan() const;
  // The bytes each statement registers before its transfers: the local section's span for DMA
  // registered per statement, else 0 (coarray_transfer.hpp).
  std::size_t registered_bytes_per_statement() const;
  // "coarray/put", "coarray/put-nb" (safe), "coarray/put-nb-nowait", "coarray/put-nb-double", "coarray/get"
  std::string op() const;
  std::string describe() const;
};

// The program of a point, for RunSpec::program (which does not own it).
class CoarrayProgram final : public RankProgram {
 public:
  explicit CoarrayProgram(CoarrayPoint point) : point_(std::move(point)) {}
  std::unique_ptr<ProgramRank> rank(int rank, int procs) const override;
  std::string describe(int procs) const override;
  double memory_bytes(int procs) const override;
  const CoarrayPoint& point() const { return point_; }

 private:
  CoarrayPoint point_;
};

// A RunSpec running `program` on `procs` processes (at least two: the origin and the target; 0:
// the point's images). InputError when the pattern means nothing on `procs` images.
RunSpec coarray_spec(const CoarrayProgram& program, int procs = 0);

// One result row: engine,op,case,nl_bytes,nr_bytes,buffer,unit_bytes,transfers,copies,time_s and
// what identifies the point (sections, shapes, element size, statements, registered, packing,
// sync, pattern, images), the statistics of measured engines and the data check.
struct CoarrayRow {
  std::string engine;
  CoarrayPoint point;
  double time_s = 0;
  int runs = 1;
  double min_s = 0, ci95_s = 0;
  std::optional<bool> ci_met;  // measured engines: Measurement::ci_met; unset for a simulated time
  std::string data;            // "ok", "unchecked" or the first wrong byte
};

// The row of a point measured on real MPI: its engine, the point, and the measured statistics of
// `m` (experiment/results/measurement.hpp's set_statistics).
CoarrayRow measured_coarray_row(std::string engine, CoarrayPoint point, const Measurement& m);

std::string coarray_csv_header();
std::string coarray_csv_row(const CoarrayRow& row);
// The rows of CSV text with coarray_csv_header()'s columns (collsim-mpi coarray --csv, collsim-caf
// --csv); the points are rebuilt from the section columns. Throws InputError on a malformed row.
std::vector<CoarrayRow> parse_coarray_csv(const std::string& text);

}  // namespace collsim
