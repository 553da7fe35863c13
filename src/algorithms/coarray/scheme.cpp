#include "algorithms/coarray/scheme.hpp"

#include <stdexcept>
#include <string>

namespace collsim::coarray {

namespace {

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// The section as `runs` runs, each cut into `units_per_run` units: the m-byte runs in cases 0, 1
// and 4 (no unit spans two), the remote NR-byte runs in cases 2 and 3 (a unit gathers NL pieces
// of one of them).
struct Walk {
  std::size_t runs;
  std::size_t units_per_run;
};

Walk walk(const Scheme& s, std::size_t bytes) {
  switch (s.table_case) {
    case 2:
    case 3: return {bytes / s.nr, ceil_div(s.nr, s.unit)};
    case 4: return {bytes / s.run(), ceil_div(s.run(), s.unit)};
    default: return {bytes / s.unit, 1};  // 0, 1: the unit is the run
  }
}

}  // namespace

const char* to_string(PutMode mode) {
  switch (mode) {
    case PutMode::blocking: return "blocking";
    case PutMode::nonblocking: return "safe";
    case PutMode::nowait: return "nowait";
    case PutMode::double_buffered: return "double";
  }
  return "?";
}

std::optional<PutMode> parse_nonblocking(const std::string& name) {
  for (const PutMode m : {PutMode::nonblocking, PutMode::nowait, PutMode::double_buffered})
    if (name == to_string(m)) return m;
  return std::nullopt;
}

const char* to_string(Method method) { return method == Method::datatype ? "datatype" : "table1"; }

std::optional<Method> parse_method(const std::string& name) {
  for (const Method m : {Method::table1, Method::datatype})
    if (name == to_string(m)) return m;
  return std::nullopt;
}

Scheme datatype_scheme(const Section& local, const Section& remote) {
  check_conformable(local, remote);
  return {Scheme::kDatatypeCase, local.contiguous_bytes(), remote.contiguous_bytes(), 0, local.bytes()};
}

UnitSizes unit_sizes(const Scheme& scheme, std::size_t section_bytes) {
  const Walk w = walk(scheme, section_bytes);
  if (w.runs == 0) return {};
  const std::size_t run_bytes = section_bytes / w.runs;
  return {w.runs, w.units_per_run, scheme.unit, run_bytes - (w.units_per_run - 1) * scheme.unit};
}

std::size_t buffer_capacity(std::size_t buffer_bytes, Packing packing) {
  return packing == Packing::omni ? ceil_div(buffer_bytes, 4) * 4 : buffer_bytes;
}

Scheme choose_scheme(std::size_t nl, std::size_t nr, std::size_t buffer_bytes, bool registered, Packing packing) {
  if (nl == 0 || nr == 0 || buffer_bytes == 0 || (nl % nr != 0 && nr % nl != 0))
    throw std::invalid_argument("coarray scheme: NL " + std::to_string(nl) + ", NR " + std::to_string(nr) + ", B " +
                                std::to_string(buffer_bytes) + ": lengths must be positive and one divide the other");
  const std::size_t b = buffer_capacity(buffer_bytes, packing);
  Scheme s{0, nl, nr, b, 0};
  // A packed put holds the NL pieces that fit: all of B (Table 1), or less than B (Omni).
  const bool omni = packing == Packing::omni;
  const bool one_put_per_run = omni ? nr < b : nr <= b;
  if (registered) {
    s.table_case = 0, s.unit = s.run();
  } else if (nr <= b && nr <= nl) {
    s.table_case = 1, s.unit = nr;
  } else if (nl < nr && one_put_per_run) {
    s.table_case = 2, s.unit = nr;
  } else if (nl < b && nl < nr) {  // and NR >= B (Omni), NR > B (Table 1)
    s.table_case = 3, s.unit = (omni ? (b - 1) / nl : b / nl) * nl;
  } else {  // b < nr && b <= nl: what the first three leave (see the partition test)
    s.table_case = 4, s.unit = b;
  }
  return s;
}

Scheme choose_scheme(const Section& local, const Section& remote, std::size_t buffer_bytes, bool registered,
                     Packing packing) {
  check_conformable(local, remote);
  return choose_scheme(local.contiguous_bytes(), remote.contiguous_bytes(), buffer_bytes, registered, packing);
}

Plan plan_put(const Scheme& scheme, std::size_t section_bytes, std::size_t statements) {
  Plan p{scheme, statements, section_bytes * statements, 0, 0, 0};
  if (scheme.datatype()) {  // one transfer a statement, none for an empty section; no copies
    p.transfers = section_bytes > 0 ? statements : 0;
    return p;
  }
  const Walk w = walk(scheme, section_bytes);
  p.transfers = statements * w.runs * w.units_per_run;
  if (scheme.dma()) return p;
  // Cases 2 and 3 copy each NL piece on its own; 1 and 4 copy a unit at once.
  p.copies = scheme.table_case == 2 || scheme.table_case == 3 ? statements * (section_bytes / scheme.nl) : p.transfers;
  p.bytes_copied = p.bytes;
  return p;
}

Plan plan_get(const Scheme& scheme, std::size_t section_bytes, GetBehaviour behaviour, std::size_t statements) {
  Plan p = plan_put(scheme, section_bytes, statements);  // Table 1 mirrors PUT: a get per unit, copies out
  if (behaviour == GetBehaviour::omni && !scheme.datatype() && (scheme.table_case == 2 || scheme.table_case == 3))
    p.transfers = p.copies;  // one get per NL piece
  return p;
}

}  // namespace collsim::coarray
