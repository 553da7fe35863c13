#include "cli/coarray_options.hpp"

#include <sstream>

#include "support/units.hpp"

namespace collsim::cli {

const char* const kCoarraySectionsHelp =
    "Sections are written as in Fortran, 1-based and inclusive: one subscript per dimension of the\n"
    "shape, each a triplet lower:upper:stride (':' the whole dimension, '3:' or ':10' with the other\n"
    "bound from the shape, negative strides allowed) or a single index, which drops the dimension.\n"
    "For example --remote '1:1000:2,1:50' --remote-shape 1000,100 is a(1:1000:2,1:50) of a(1000,100).\n"
    "The two sections must conform (the same element counts, in order, after single indices).\n"
    "\n"
    "The runtime picks the scheme by Table 1 of the XcalableMP coarray chapter, from the local and\n"
    "remote contiguous lengths NL and NR and the local buffer size B: case 0 DMA (--registered),\n"
    "1 NR <= B and NR <= NL, 2 NL < NR <= B, 3 NL < B < NR, 4 B < NR and B <= NL.\n";

std::vector<OptionDef> coarray_point_options() {
  return {
      {"put", "", "PUT statements: remote(REMOTE)[target] = local(LOCAL) (the default)"},
      {"get", "", "GET statements: local(LOCAL) = remote(REMOTE)[target]"},
      {"local", "SECTION", "the local section, e.g. '1:500,:' (required)"},
      {"local-shape", "DIMS", "the local array's extents, e.g. 500,100 (required)"},
      {"remote", "SECTION", "the coarray's section, e.g. '1:1000:2,:' (required)"},
      {"remote-shape", "DIMS", "the coarray's extents, e.g. 1000,100 (required)"},
      {"elem", "BYTES", "element size in bytes (default 8)"},
      {"buffer", "SIZE", "B, the runtime's one local buffer (default 400000 bytes, Omni's)"},
      {"registered", "", "the local array is registered memory: case 0, DMA from it"},
      {"registration", "once|per-statement",
       "with --registered: when the local data is registered: once, before the segment and outside its time "
       "(the default; Omni on MPI-3, where it is a coarray), or by every statement, in its time (call + pages; "
       "free on --engine mpi, where the MPI library registers what it needs)"},
      {"heap", "SIZE",
       "Omni's registered memory, XMP_ONESIDED_HEAP_SIZE (default 27MiB): with --registered once, the local array "
       "and B must fit in it, else the point is refused as Omni stops the program"},
      {"nonblocking", "safe|nowait|double",
       "PUT: non-blocking, completed at the segment's end; before a copy refills the buffer: safe waits for the "
       "put out of it, nowait (Omni's XMP_PUT_NB, a what-if) does not, double alternates two buffers and waits "
       "for the put out of the one refilled. A number N is the older spelling of safe --statements N"},
      {"statements", "N", "statements per segment (default 1)"},
      {"sync", "memory|all|images",
       "the image control statement that ends the segment: sync memory on the origin (default), sync all on "
       "every image (sync memory, a barrier, sync memory), or sync images between the origin and the target "
       "(sync images(target) and sync images(origin)); timed with the segment"},
      {"get-behaviour", "table1|omni",
       "GET in cases 2 and 3: Table 1's one get per unit (default) or Omni's one get per NL piece"},
      {"packing", "table1|omni",
       "cases 2 and 3: Table 1's floor(B/NL) NL pieces per put (default) or Omni's floor((B-1)/NL), "
       "B rounded up to 4 bytes"},
      {"scheme", "table1|datatype",
       "how a statement moves its section: Table 1's buffering or DMA (default), or datatype: one put (get) of "
       "MPI derived datatypes straight from (into) the local array, as Omni's XMP/C runtime does; with datatype, "
       "--buffer, --registered, --packing, --get-behaviour and --nonblocking nowait|double mean nothing and are "
       "refused"},
      {"origin", "IMAGE", "the image that executes the statements (default 1; --pattern one only)"},
      {"target", "IMAGE", "the image whose coarray is accessed (default 2; --pattern one only)"},
      {"pattern", "one|all-to-one|ring|halo",
       "which images run the statements, each the same, in one segment: one, the origin to the target (default); "
       "all-to-one, every image but 1 to image 1; ring, image i to i+1 (the last to 1); halo, image i to i-1 and "
       "i+1, periodic (3 images or more). Each source writes a coarray of its own at its target; every active "
       "image ends the segment with --sync, and the time is the slowest image's"},
  };
}

const std::vector<std::string> kOmniRuntimeOptions = {"buffer",      "registered",    "registration", "heap",
                                                      "nonblocking", "get-behaviour", "packing",      "scheme"};

std::string not_for_caf(const std::string& name) {
  if (name == "scheme")
    return "--scheme does not apply to caf-native: Debian's OpenCoarrays is built without -DSTRIDED, so it moves a "
           "strided section element by element, never as one datatype put (see --help)";
  return "--" + name + " does not apply to caf-native (OpenCoarrays has no Omni runtime options; see --help)";
}

CoarrayPoint read_coarray_point(const ParsedOptions& o) {
  for (const char* name : {"local", "local-shape", "remote", "remote-shape"})
    if (!o.has(name)) throw UsageError(std::string("missing --") + name);
  if (o.has("put") && o.has("get")) throw UsageError("--put and --get exclude each other");
  CoarrayPoint p;
  p.get = o.has("get");
  const auto elem = static_cast<std::size_t>(o.integer("elem", 8, 1, 1 << 20));
  p.local = coarray::parse_section(o.text("local"), coarray::parse_shape(o.text("local-shape"), elem));
  p.remote = coarray::parse_section(o.text("remote"), coarray::parse_shape(o.text("remote-shape"), elem));
  coarray::check_conformable(p.local, p.remote);
  p.options.buffer_bytes = o.bytes("buffer", coarray::kDefaultBufferBytes);
  if (p.options.buffer_bytes == 0) throw UsageError("--buffer must be at least 1 byte");
  p.options.registered = o.has("registered");
  if (o.has("registration")) {
    if (!p.options.registered) throw UsageError("--registration applies to --registered only");
    const std::string when = o.text("registration");
    const auto w = coarray::parse_register_when(when);
    if (!w) throw UsageError("--registration: '" + when + "' is not once or per-statement");
    p.options.registration = *w;
  }
  if (o.has("heap") && !p.options.registered) throw UsageError("--heap applies to --registered only");
  p.options.heap_bytes = o.bytes("heap", coarray::kDefaultHeapBytes);
  if (p.options.heap_bytes == 0) throw UsageError("--heap must be at least 1 byte");
  const std::string behaviour = o.text("get-behaviour", "table1");
  if (behaviour != "table1" && behaviour != "omni")
    throw UsageError("--get-behaviour: '" + behaviour + "' is not table1 or omni");
  p.options.get = behaviour == "omni" ? coarray::GetBehaviour::omni : coarray::GetBehaviour::table1;
  const std::string packing = o.text("packing", "table1");
  if (packing != "table1" && packing != "omni") throw UsageError("--packing: '" + packing + "' is not table1 or omni");
  p.options.packing = packing == "omni" ? coarray::Packing::omni : coarray::Packing::table1;
  p.statements = static_cast<std::size_t>(o.integer("statements", 1, 1, 1 << 20));
  if (o.has("nonblocking")) {
    if (p.get) throw UsageError("--nonblocking applies to PUT only (GET is always blocking)");
    const std::string mode = o.text("nonblocking");
    if (!mode.empty() && mode.find_first_not_of("0123456789") == std::string::npos) {
      // The older spelling: --nonblocking N, a segment of N safe non-blocking PUTs.
      if (o.has("statements")) throw UsageError("--nonblocking N gives the statements per segment: drop --statements");
      p.mode = coarray::PutMode::nonblocking;
      p.statements = static_cast<std::size_t>(o.integer("nonblocking", 1, 1, 1 << 20));
    } else if (const auto m = coarray::parse_nonblocking(mode)) {
      p.mode = *m;
    } else {
      throw UsageError("--nonblocking: '" + mode + "' is not safe, nowait or double (or a number of statements)");
    }
  }
  if (!p.get && o.has("get-behaviour")) throw UsageError("--get-behaviour applies to --get only");
  if (o.has("sync")) {
    const auto sync = coarray::parse_sync(o.text("sync"));
    if (!sync) throw UsageError("--sync: '" + o.text("sync") + "' is not memory, all or images");
    p.sync = *sync;
  }
  if (o.has("pattern")) {
    const auto pattern = coarray::parse_pattern(o.text("pattern"));
    if (!pattern) throw UsageError("--pattern: '" + o.text("pattern") + "' is not one, all-to-one, ring or halo");
    p.pattern = *pattern;
  }
  if (p.pattern != coarray::Pattern::one)
    for (const char* name : {"origin", "target"})
      if (o.has(name))
        throw UsageError(std::string("--") + name + " applies to --pattern one only (--pattern " +
                         coarray::to_string(p.pattern) + " names its own images)");
  const std::string scheme = o.text("scheme", "table1");
  const auto method = coarray::parse_method(scheme);
  if (!method) throw UsageError("--scheme: '" + scheme + "' is not table1 or datatype");
  p.options.scheme = *method;
  if (p.options.scheme == coarray::Method::datatype) {
    // The options of Table 1's buffer and DMA: a datatype transfer has neither.
    for (const char* name : {"buffer", "registered", "registration", "heap", "packing", "get-behaviour"})
      if (o.has(name))
        throw UsageError(std::string("--") + name +
                         " means nothing with --scheme datatype (no buffer, "
                         "nothing registered: one datatype transfer per statement)");
    if (p.mode == coarray::PutMode::nowait || p.mode == coarray::PutMode::double_buffered)
      throw UsageError(std::string("--nonblocking ") + coarray::to_string(p.mode) +
                       " means nothing with --scheme datatype (no buffer to refill): use --nonblocking safe");
  }
  p.origin = static_cast<int>(o.integer("origin", 1, 1, 1 << 20)) - 1;
  p.target = static_cast<int>(o.integer("target", 2, 1, 1 << 20)) - 1;
  if (p.origin == p.target) throw UsageError("--origin and --target must be different images");
  if (const std::string why = coarray::heap_problem(p.options, p.local.shape().bytes()); !why.empty())
    throw UsageError("--registered: " + why);
  return p;
}

namespace {

const char* case_condition(int c, coarray::Packing packing) {
  const bool omni = packing == coarray::Packing::omni;  // its packed put holds less than B (scheme.hpp)
  switch (c) {
    case 0: return "the local data is registered: DMA";  // when: the summary's registration line
    case 1: return "NR <= B and NR <= NL";
    case 2: return omni ? "NL < NR < B, Omni's packing" : "NL < NR <= B";
    case 3: return omni ? "NL < B <= NR, Omni's packing: floor((B-1)/NL) pieces a put" : "NL < B < NR";
    case 4: return "B < NR and B <= NL";
  }
  return "?";
}

}  // namespace

std::string coarray_summary(const CoarrayRow& row, const std::string& where, bool measured, const std::string& extra,
                            bool time_is_min) {
  const CoarrayPoint& point = row.point;
  const coarray::Plan plan = point.plan();
  const coarray::Scheme& s = plan.scheme;
  std::ostringstream out;
  out << point.describe() << " on " << where << "\n";
  if (s.datatype())
    out << "scheme     datatype  (one " << (point.get ? "get" : "put")
        << " of MPI derived datatypes a statement: " << coarray::Runs(point.local, point.remote).count()
        << " pieces of min(NL, NR) bytes)\n";
  else
    out << "case       " << s.table_case << "  (" << case_condition(s.table_case, point.options.packing) << ")\n";
  out << "NL, NR     " << s.nl << " B, " << s.nr << " B"
      << (s.datatype() ? "" : "   (B = " + std::to_string(s.buffer) + ")") << "\n"
      << "unit       " << s.unit << " B\n"
      << "transfers  " << plan.transfers << (point.get ? " gets" : " puts") << ", " << plan.copies << " copies ("
      << plan.bytes_copied << " B) for " << plan.bytes << " B\n";
  if (measured)
    out << "time       " << (time_is_min ? "fastest " : "median ") << format_seconds(row.time_s) << "  ("
        << format_real(row.time_s) << " s)   min " << format_seconds(row.min_s) << "   95% CI +- "
        << format_seconds(row.ci95_s) << "   " << row.runs << " runs\n";
  else
    out << "time       " << format_seconds(row.time_s) << "  (" << format_real(row.time_s) << " s)\n";
  out << extra << "data       " << row.data << "\n";
  return out.str();
}

}  // namespace collsim::cli
