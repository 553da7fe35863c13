// The coarray runtime's PUT and GET statements, as Omni XcalableMP runs them on MPI-3 RMA: one
// window holds every remote coarray, one local buffer of B bytes serves every target image, and
// each statement moves its section by Table 1 (scheme.hpp) in the units of units.hpp.
//
//  - DMA (case 0, the local data is registered): one put (get) per unit, straight from (into)
//    the local array.
//  - Buffered (cases 1 to 4): a PUT copies a unit's pieces into the buffer, then puts the unit
//    out of it; a GET gets the unit into the buffer, then copies its pieces out (Omni's GET in
//    cases 2 and 3 gets and copies out each piece on its own: GetBehaviour::omni).
//  - Blocking PUT (Omni's default): every put is waited for and flushed (MPI_Put +
//    MPI_Win_flush), so the data is at the target when the statement ends.
//  - Non-blocking PUT (section 3.3.3; PutMode, scheme.hpp): nothing is flushed until the segment
//    ends (end_segment: wait for every outstanding put, then sync memory). DMA puts stay
//    outstanding until then in every mode. Buffered puts, by mode:
//     - nonblocking (safe): a put out of the one buffer must have completed locally before the
//       next copy into it (or get into it) overwrites it;
//     - double_buffered: two buffers of B bytes alternate; a copy into one waits only for the
//       put that last read that one;
//     - nowait (Omni's XMP_PUT_NB): nothing is waited for before the buffer is refilled. On
//       Omni's one buffer a put may then carry bytes of a later unit; here each unit is packed
//       into memory of its own (the same copy, into a fresh place), kept until the segment
//       ends, so every engine's data check still holds while the time is the no-wait rule's.
//  - Datatype (Method::datatype, instead of Table 1): each statement is one put (get) of MPI
//    derived datatypes describing both sections (Comm::put_strided), straight from (into) the
//    local array: no buffer, no copies, nothing registered. Blocking: waited for and flushed;
//    non-blocking (safe): outstanding until the segment ends, as a DMA put. An empty section
//    moves nothing.
//  - GET is blocking: each get is waited for before its data is used.
//  - Registration of the local data (DMA only; RegisterWhen): `once` registers it before the
//    segment, outside the timed part (Omni on MPI-3: the local data is a coarray, carved out of the
//    one window of XMP_ONESIDED_HEAP_SIZE bytes registered at start-up); `per_statement` registers
//    the bytes each statement reads or writes (its first to last element) before its first
//    transfer and deregisters them after, as Omni's Fujitsu RDMA layer does around every put from
//    memory that is not a coarray (libxmp/src/xmp_coarray_fjrdma.c:1666-1675, _XMP_TEMP_MEMID).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/coarray/scheme.hpp"
#include "algorithms/coarray/section.hpp"
#include "algorithms/coarray/segment_end.hpp"
#include "comm/comm.hpp"

namespace collsim::coarray {

// When the local data of a DMA statement is registered (the header comment).
enum class RegisterWhen { once, per_statement };
// "once", "per-statement": the names --registration and the scenario take.
const char* to_string(RegisterWhen when);
// The RegisterWhen named `name`; nullopt for another name.
std::optional<RegisterWhen> parse_register_when(const std::string& name);

// Omni's registered memory on MPI-3: one window of XMP_ONESIDED_HEAP_SIZE bytes, 27 MiB by default
// (libxmp/include/xmp_internal.h:418, "27M"), allocated and lock_all'ed at start-up
// (libxmp/src/xmp_onesided_mpi.c:43); every coarray is carved out of it
// (_XMP_mpi_coarray_malloc), the local buffer too (XMPCO_malloc_pool, libxmp/src/xmpco_alloc.c:455-486).
inline constexpr std::size_t kDefaultHeapBytes = std::size_t{27} << 20;

struct CoarrayOptions {
  std::size_t buffer_bytes = kDefaultBufferBytes;  // B
  bool registered = false;                         // the local data may be the source of RDMA: DMA
  GetBehaviour get = GetBehaviour::table1;
  Packing packing = Packing::table1;               // how many NL pieces one put carries (scheme.hpp)
  Method scheme = Method::table1;                  // Table 1, or one datatype put (get) per statement
  RegisterWhen registration = RegisterWhen::once;  // registered only
  std::size_t heap_bytes = kDefaultHeapBytes;      // Omni's registered memory (registered, once)
};

// What Omni's runtime would refuse of `options` for a local array of `local_bytes`, or "": with
// `registered` and `once`, the local array is a coarray in Omni's heap beside the local buffer B,
// and when they do not fit Omni stops the program ("Cannot allocate coarray. Heap memory size of
// coarray is too small", libxmp/src/xmp_coarray_mpi.c:281-290) rather than fall back to
// buffering. Omni rounds each coarray up to its alignment; this counts the bytes themselves.
// Per-statement registration needs no room there (the memory is registered where it is).
std::string heap_problem(const CoarrayOptions& options, std::size_t local_bytes);

// The bytes a statement on `section` reads or writes in its array, from its lowest to its highest
// element (what registering it per statement covers): where they start, and how many.
struct Touched {
  std::size_t offset = 0, bytes = 0;
};
Touched touched(const Section& section);

// One image's runtime state. Not copyable: `buffer` views the memory it owns.
struct CoarrayContext {
  // `window` comes from comm.win_allocate (collective); the buffer holds real bytes when
  // `real_buffer`, else only a size (as the data does in a size-only run).
  CoarrayContext(Window w, const CoarrayOptions& o, bool real_buffer)
      : window(w), options(o), real(real_buffer), storage{Storage(capacity(), real_buffer), Storage()} {}
  CoarrayContext(const CoarrayContext&) = delete;
  CoarrayContext& operator=(const CoarrayContext&) = delete;

  std::size_t capacity() const { return buffer_capacity(options.buffer_bytes, options.packing); }
  // Allocates, before the segment is timed, the memory `mode` takes beyond the one buffer, as a
  // runtime allocates its buffers at start-up: the second buffer (double), or room for
  // `staged_bytes` of the units' own copies (nowait; a segment's bytes through the buffer).
  // Without it they are allocated when first used, inside the segment: on real MPI that time
  // (first touch of fresh pages) would be charged to the statement.
  void prepare(PutMode mode, std::size_t staged_bytes);

  Window window;
  CoarrayOptions options;
  bool real;
  Storage storage[2];                // the buffer; the second one only once double buffering uses it
  Request buffer_put[2];             // the last non-blocking put out of each buffer, until waited for
  int next_buffer = 0;               // double buffering: the buffer the next unit is packed into
  Storage stage;                     // nowait: the units' own copies, one after another (prepare)
  std::size_t stage_used = 0;        // bytes of `stage` handed out in this segment
  std::vector<Storage> staged;       // nowait: copies `stage` had no room for, until the segment ends
  std::vector<Request> outstanding;  // non-blocking puts of the current segment not tracked above
};

// local(local_section)[image] -> the remote coarray of shape remote_section.shape() that starts
// at byte remote_offset of the window: remote(remote_section). `local` holds the whole local
// array (local_section.shape().bytes()). Sections must be conformable (SectionError).
Task<> put_section(Comm& comm, CoarrayContext& ctx, int image, Buffer local, const Section& local_section,
                   std::size_t remote_offset, const Section& remote_section, PutMode mode);

// local(local_section) <- remote(remote_section)[image], the coarray at byte remote_offset.
Task<> get_section(Comm& comm, CoarrayContext& ctx, int image, Buffer local, const Section& local_section,
                   std::size_t remote_offset, const Section& remote_section);

// The origin's end of a segment: waits for every outstanding put, then the image control
// statement `end` says (segment_end.hpp; sync memory by default: flush_all + win_sync): every
// PUT of the segment is complete at its target. The other images of a sync all or sync images
// call sync_statement themselves.
Task<> end_segment(Comm& comm, CoarrayContext& ctx, const SegmentEnd& end = {});

// One target of a many-image statement (pattern.hpp): the image, and where its coarrays for this
// origin start in its window.
struct Destination {
  int image = 1;
  std::size_t remote_offset = 0;
};

// A segment of `nputs` PUT statements of the same section to each of `to`: statement i into
// coarray i at every destination (to[0] first, then to[1], ...), then its end.
Task<> put_segment(Comm& comm, CoarrayContext& ctx, std::vector<Destination> to, Buffer local,
                   const Section& local_section, const Section& remote_section, std::size_t nputs, PutMode mode,
                   const SegmentEnd& end = {});

// A segment of `nputs` PUT statements of the same section to `image`, statement i into coarray
// i (remote coarrays of remote_section.shape() laid one after another from remote_offset, so
// the window holds at least remote_offset + nputs * remote_section.shape().bytes()), then its end.
Task<> put_segment(Comm& comm, CoarrayContext& ctx, int image, Buffer local, const Section& local_section,
                   std::size_t remote_offset, const Section& remote_section, std::size_t nputs, PutMode mode,
                   const SegmentEnd& end = {});

}  // namespace collsim::coarray
