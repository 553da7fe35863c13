// Table 1 of Iwashita et al., "Coarrays in the Context of XcalableMP" (section 3.3.2): how a
// coarray PUT or GET statement moves an array section, chosen from the local and remote
// contiguous lengths NL and NR (section.hpp) and the size B of the runtime's one local buffer.
//
// case  condition               unit                  PUT per unit                   GET per unit
// 0     local data registered   min(NL, NR)           put once, from local data      get once, into local data
// 1     NR <= B and NR <= NL    NR                    copy once into buffer, put     get into buffer, copy out once
// 2     NL < NR <= B            NR                    copy each NL piece, put once   get once, copy out each NL piece
// 3     NL < B < NR             floor(B / NL) * NL    as case 2                      as case 2
// 4     B < NR and B <= NL      B, less at a run end  as case 1                      as case 1
//
// Cases 1 to 4 partition every (NL, NR, B) in which one of NL, NR divides the other. Case 3
// restarts its units at each remote run of NR bytes, so a run's last unit may be shorter
// (a multiple of NL still); case 4 cuts each min(NL, NR)-byte run into B-byte units.
//
// Packing: Table 1 as written (Packing::table1, the default) or as Omni XcalableMP's runtime
// packs (Packing::omni; libxmp/src/xmpco_put.c, omni-compiler 14f1b66). Omni appends NL pieces
// to its buffer and flushes first when the next piece would bring it to B (`_push_localBuf`:
// used + bytes >= size), so a put carries floor((B-1)/NL) pieces, not floor(B/NL), and a remote
// run of NR = B bytes takes two puts (case 3), not one (case 2): case 2 is NL < NR < B, case 3
// NL < B <= NR. Its B is also rounded up to a multiple of 4 bytes (XMPF_COARRAY_BUF). Cases 0, 1
// and 4 do not pack and are the same under both.
//
// GET in cases 2 and 3: Table 1 gets a unit once and copies its NL pieces out of the buffer
// (GetBehaviour::table1, the default). Omni XcalableMP's runtime instead gets each NL piece on its
// own into the buffer and copies it out (GetBehaviour::omni: NR/NL gets per remote run); in the
// other cases both behave as Table 1.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "algorithms/coarray/section.hpp"

namespace collsim::coarray {

inline constexpr std::size_t kDefaultBufferBytes = 400000;  // Omni's default B (XMPF_COARRAY_BUF)

enum class GetBehaviour { table1, omni };
enum class Packing { table1, omni };

// How a statement moves its section (--scheme): by Table 1 (the default), or as one put (get) of
// MPI derived datatypes describing both sides, straight from (into) the local array with no
// buffer, as Omni's XMP/C runtime does for a non-contiguous section
// (libxmp/src/xmp_coarray_mpi.c:678-734, omni-compiler 14f1b66: an MPI_Type_create_hvector per
// dimension on each side, one MPI_Put or MPI_Get) and OpenCoarrays built with -DSTRIDED.
enum class Method { table1, datatype };
const char* to_string(Method method);  // "table1", "datatype"
std::optional<Method> parse_method(const std::string& name);

// How a PUT statement completes its puts (coarray_transfer.hpp has each rule):
//  - blocking: every put is waited for and flushed (Omni's default: MPI_Put + MPI_Win_flush);
//  - nonblocking ("safe"): completion at the segment's end; a put out of the one buffer is waited
//    for before the buffer is refilled (section 3.3.3);
//  - nowait: Omni's XMP_PUT_NB (libxmp/src/xmp_onesided.c:110-114 sets _XMP_flag_put_nb, and
//    `_wait_puts` in libxmp/src/xmp_coarray_mpi.c:611-620 then neither flushes nor flushes
//    locally): the buffer is refilled without waiting, a what-if (see coarray_transfer.hpp);
//  - double_buffered: two buffers alternate, and only the put out of the one about to be
//    refilled is waited for.
enum class PutMode { blocking, nonblocking, nowait, double_buffered };
// "blocking", "safe", "nowait", "double": the names --nonblocking and the scenario take.
const char* to_string(PutMode mode);
// The non-blocking mode named `name` ("safe", "nowait", "double"); nullopt for another name.
std::optional<PutMode> parse_nonblocking(const std::string& name);
inline bool is_nonblocking(PutMode mode) { return mode != PutMode::blocking; }

struct Scheme {
  int table_case = 0;                      // 0: DMA; 1 to 4: through the buffer; -1: datatype
  std::size_t nl = 0, nr = 0, buffer = 0;  // bytes
  std::size_t unit = 0;                    // Table 1's unit size: bytes per put or get, at most

  bool dma() const { return table_case == 0; }
  bool datatype() const { return table_case == kDatatypeCase; }
  static constexpr int kDatatypeCase = -1;
  std::size_t run() const { return nl < nr ? nl : nr; }  // m = min(NL, NR)
};

// The bytes a buffer asked for as `buffer_bytes` holds under `packing` (Omni: rounded up to 4).
std::size_t buffer_capacity(std::size_t buffer_bytes, Packing packing);

// Throws std::invalid_argument unless nl, nr and buffer_bytes are positive and one of nl, nr
// divides the other (sections always give such lengths: a caller's bug otherwise). The scheme's
// buffer is buffer_capacity(buffer_bytes, packing).
Scheme choose_scheme(std::size_t nl, std::size_t nr, std::size_t buffer_bytes, bool registered,
                     Packing packing = Packing::table1);
// The scheme of a statement moving `local` to or from `remote` (conformable sections).
Scheme choose_scheme(const Section& local, const Section& remote, std::size_t buffer_bytes, bool registered,
                     Packing packing = Packing::table1);

// The datatype scheme of a statement moving `local` to or from `remote`: NL and NR as Table 1
// sees them, the unit the whole section (one transfer, no buffer: B is 0).
Scheme datatype_scheme(const Section& local, const Section& remote);

// What `statements` PUT (or GET) statements of one section each cost in operations.
struct Plan {
  Scheme scheme;
  std::size_t statements = 1;
  std::size_t bytes = 0;         // S: every statement's section
  std::size_t transfers = 0;     // puts (gets)
  std::size_t copies = 0;        // local copies into (out of) the buffer
  std::size_t bytes_copied = 0;  // S through the buffer, 0 for DMA

  std::size_t unit() const { return scheme.unit; }
};

Plan plan_put(const Scheme& scheme, std::size_t section_bytes, std::size_t statements = 1);

// The sizes of one statement's units, in the order they are moved: `runs` runs of `per_run`
// units each, every unit `unit` bytes but the last of a run, `last` bytes (cases 3 and 4 cut a
// run into units of B or fewer). Units of one statement of `section_bytes` under `scheme`.
struct UnitSizes {
  std::size_t runs = 0, per_run = 1, unit = 0, last = 0;
};
UnitSizes unit_sizes(const Scheme& scheme, std::size_t section_bytes);
Plan plan_get(const Scheme& scheme, std::size_t section_bytes, GetBehaviour behaviour = GetBehaviour::table1,
              std::size_t statements = 1);

}  // namespace collsim::coarray
