#include "experiment/results/coarray_point.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <utility>
#include <vector>

#include "algorithms/input_pattern.hpp"
#include "experiment/results/measurement.hpp"
#include "registry/registry.hpp"
#include "support/units.hpp"

namespace collsim {

using coarray::Section;

coarray::Scheme CoarrayPoint::scheme() const {
  if (options.scheme == coarray::Method::datatype) return coarray::datatype_scheme(local, remote);
  return coarray::choose_scheme(local, remote, options.buffer_bytes, options.registered, options.packing);
}

coarray::Plan CoarrayPoint::plan() const {
  return get ? coarray::plan_get(scheme(), local.bytes(), options.get, statements)
             : coarray::plan_put(scheme(), local.bytes(), statements);
}

std::size_t CoarrayPoint::registered_bytes_per_statement() const {
  if (!scheme().dma() || options.registration != coarray::RegisterWhen::per_statement) return 0;
  return coarray::touched(local).bytes;
}

std::string CoarrayPoint::op() const {
  if (get) return "coarray/get";
  switch (mode) {
    case coarray::PutMode::blocking: return "coarray/put";
    case coarray::PutMode::nonblocking: return "coarray/put-nb";
    case coarray::PutMode::nowait: return "coarray/put-nb-nowait";
    case coarray::PutMode::double_buffered: return "coarray/put-nb-double";
  }
  return "coarray/put";
}

std::string CoarrayPoint::describe() const {
  const std::string to = pattern == coarray::Pattern::one          ? std::to_string(target + 1)
                         : pattern == coarray::Pattern::all_to_one ? "1"
                         : pattern == coarray::Pattern::ring       ? "i+1"
                                                                   : "i-1 and i+1";
  const std::string l = "local(" + local.str() + ")", r = "remote(" + remote.str() + ")[" + to + "]";
  const bool datatype = options.scheme == coarray::Method::datatype;
  return op() + " " + (get ? l + " = " + r : r + " = " + l) + ", " + std::to_string(statements) + " per segment" +
         (datatype ? ", one datatype transfer each" : ", B = " + std::to_string(options.buffer_bytes)) +
         (options.packing == coarray::Packing::omni ? ", Omni's packing" : "") +
         (sync == coarray::SyncKind::memory ? "" : std::string(", ended by sync ") + coarray::to_string(sync)) +
         (pattern == coarray::Pattern::one ? "" : std::string(", pattern ") + coarray::to_string(pattern)) +
         (options.registered && options.registration == coarray::RegisterWhen::per_statement
              ? ", registered per statement"
              : "");
}

namespace {

// Window memory and local arrays start as distinct patterns, so a byte written where it should
// not be, or not written where it should, shows: the window of rank r holds pattern r, the
// origin's arrays pattern kLocalSalt + r.
constexpr int kLocalSalt = 1 << 20;

void fill(Buffer b, int salt) {
  if (b.is_virtual()) return;
  for (std::size_t i = 0; i < b.size(); ++i) b.data()[i] = pattern_byte(salt, i);
}

// The first difference of `got` from `want`, named for the message; "" when equal.
std::string first_difference(const std::string& what, Buffer got, const std::vector<std::byte>& want) {
  for (std::size_t i = 0; i < want.size(); ++i)
    if (got.data()[i] != want[i]) {
      char text[160];
      std::snprintf(text, sizeof text, "byte %zu of %s is 0x%02x, expected 0x%02x", i, what.c_str(),
                    static_cast<unsigned>(got.data()[i]), static_cast<unsigned>(want[i]));
      return text;
    }
  return "";
}

class CoarrayRank final : public ProgramRank {
 public:
  CoarrayRank(const CoarrayPoint& p, int rank, int procs)
      : p_(p), rank_(rank), traffic_{p.pattern, procs, p.origin, p.target}, targets_(traffic_.targets(rank)) {}

  Task<> setup(Comm& comm) override {
    const std::size_t remote_bytes = p_.remote.shape().bytes();
    window_ = co_await comm.win_allocate(p_.statements * window_slots() * remote_bytes, p_.real_bytes);
    fill(comm.local(window_), rank_);
    if (!targets_.empty()) {
      local_ = Storage(p_.local.shape().bytes() * (p_.get ? p_.statements * targets_.size() : 1), p_.real_bytes);
      fill(local_.view(), kLocalSalt + rank_);
      context_ = std::make_unique<coarray::CoarrayContext>(window_, p_.options, p_.real_bytes);
      if (!p_.get) context_->prepare(p_.mode, p_.plan().bytes_copied * targets_.size());
    }
    co_await comm.sync_all(window_);
  }

  Task<> run(Comm& comm) override {
    const coarray::SegmentEnd end = segment_end(comm);
    if (targets_.empty()) {
      // The others' side of the statement ending the segment (none for sync memory).
      if (p_.sync != coarray::SyncKind::memory) co_await coarray::sync_statement(comm, window_, end);
      co_return;
    }
    const std::size_t local_bytes = p_.local.shape().bytes(), remote_bytes = p_.remote.shape().bytes();
    if (!p_.get) {
      std::vector<coarray::Destination> to;
      for (const int t : targets_)
        to.push_back({t, static_cast<std::size_t>(traffic_.slot(t, rank_)) * p_.statements * remote_bytes});
      co_await coarray::put_segment(comm, *context_, std::move(to), local_.view(), p_.local, p_.remote, p_.statements,
                                    p_.mode, end);
      co_return;
    }
    // Statement i from target k into local array k * statements + i (the target's coarray i).
    for (std::size_t i = 0; i < p_.statements; ++i)
      for (std::size_t k = 0; k < targets_.size(); ++k)
        co_await coarray::get_section(comm, *context_, targets_[k],
                                      local_.view().slice((k * p_.statements + i) * local_bytes, local_bytes), p_.local,
                                      i * remote_bytes, p_.remote);
    co_await coarray::end_segment(comm, *context_, end);
  }

  Task<> finish(Comm& comm) override {
    co_await comm.sync_all(window_);
    if (p_.real_bytes) error_ = verify(comm);
    co_await comm.win_free(window_);
  }

  std::string check() const override { return error_; }

 private:
  // sync all's barrier is Open MPI 4.1's MPI_Barrier for the image count (its fixed decision, as
  // OSU timing's barrier), run over messages so that every engine costs it; on the mpi engine it
  // is the same messages over MPI, as Omni's MPI_Barrier would send them.
  coarray::SegmentEnd segment_end(Comm& comm) {
    coarray::SegmentEnd end;
    end.kind = p_.sync;
    end.origin = p_.origin;
    end.target = p_.target;
    if (p_.pattern != coarray::Pattern::one) end.partners = traffic_.partners(rank_);
    if (p_.sync == coarray::SyncKind::all) {
      const AlgorithmInfo& barrier = fixed_choice(Operation::barrier, comm.size(), 0, true, 0, barrier_params_);
      end.barrier = [&barrier, this](Comm& c) { return barrier.run(c, RankBuffers{}, barrier_params_); };
    }
    return end;
  }

  // Coarrays per statement in every window: PUT's slots, one per source of the busiest target.
  std::size_t window_slots() const { return p_.get ? 1 : static_cast<std::size_t>(traffic_.slots()); }

  // Against Fortran's assignment, on every image: PUT, this image's window, slot k holding the
  // copies of its k-th source (slots without one untouched); GET, its local arrays, array
  // k * statements + i holding its k-th target's coarray i.
  std::string verify(Comm& comm) {
    const Section& to = p_.get ? p_.local : p_.remote;
    const Section& from = p_.get ? p_.remote : p_.local;
    const std::size_t to_bytes = to.shape().bytes(), from_bytes = from.shape().bytes();
    const std::size_t elem = to.shape().element_bytes;
    const std::vector<int> peers = p_.get ? targets_ : traffic_.sources(rank_);
    const std::size_t groups = p_.get ? peers.size() : window_slots();
    if (p_.get && peers.empty()) return "";
    const Buffer memory = p_.get ? local_.view() : comm.local(window_);
    const std::vector<std::size_t> to_offsets = to.element_offsets(), from_offsets = from.element_offsets();
    const int before = p_.get ? kLocalSalt + rank_ : rank_;
    for (std::size_t k = 0; k < groups; ++k)
      for (std::size_t i = 0; i < p_.statements; ++i) {
        const std::size_t copy = k * p_.statements + i;
        std::vector<std::byte> want(to_bytes);
        for (std::size_t b = 0; b < to_bytes; ++b) want[b] = pattern_byte(before, copy * to_bytes + b);
        if (k < peers.size()) {
          const int peer = peers[k];
          const int source = p_.get ? peer : kLocalSalt + peer;
          // GET reads the target's coarray i, PUT the one local array.
          const std::size_t source_base = p_.get ? i * from_bytes : 0;
          for (std::size_t e = 0; e < to_offsets.size(); ++e)
            for (std::size_t b = 0; b < elem; ++b)
              want[to_offsets[e] + b] = pattern_byte(source, source_base + from_offsets[e] + b);
        }
        const std::string what = (p_.get ? "image " + std::to_string(rank_ + 1) + "'s local array "
                                         : "image " + std::to_string(rank_ + 1) + "'s coarray ") +
                                 std::to_string(copy + 1);
        std::string e = first_difference(what, memory.slice(copy * to_bytes, to_bytes), want);
        if (!e.empty()) return e;
      }
    return "";
  }

  const CoarrayPoint& p_;
  int rank_;
  coarray::Traffic traffic_;
  std::vector<int> targets_;  // the images this one runs the statements to
  Window window_;
  Storage local_;
  std::unique_ptr<coarray::CoarrayContext> context_;
  AlgorithmParams barrier_params_;  // sync all's barrier's, alive while it runs
  std::string error_;
};

}  // namespace

std::unique_ptr<ProgramRank> CoarrayProgram::rank(int rank, int procs) const {
  return std::make_unique<CoarrayRank>(point_, rank, procs);
}

std::string CoarrayProgram::describe(int procs) const {
  return point_.describe() + " on " + std::to_string(procs) + " images";
}

double CoarrayProgram::memory_bytes(int procs) const {
  const CoarrayPoint& p = point_;
  if (!p.real_bytes) return 0;
  // Every image's window of `statements` coarrays; the origin's local array(s), the runtime's
  // buffer (two under double buffering, and nowait's copies of the segment's units: see
  // CoarrayContext::prepare), and the expected bytes the check compares (at most the window).
  const coarray::Traffic t{p.pattern, procs, p.origin, p.target};
  // Every active image (at most all of them) holds the origin's share, per target for a GET's
  // arrays and nowait's copies (halo: two targets).
  const double targets = p.pattern == coarray::Pattern::halo ? 2.0 : 1.0;
  const double slots = p.get ? 1.0 : static_cast<double>(t.slots());
  const double window = static_cast<double>(p.statements) * slots * static_cast<double>(p.remote.shape().bytes());
  const double local = static_cast<double>(p.local.shape().bytes()) * static_cast<double>(p.get ? p.statements : 1);
  const double buffers =
      static_cast<double>(p.options.buffer_bytes) * (p.mode == coarray::PutMode::double_buffered ? 2.0 : 1.0);
  const double staged = p.mode == coarray::PutMode::nowait ? static_cast<double>(p.plan().bytes_copied) * targets : 0.0;
  const double active = p.pattern == coarray::Pattern::one ? 1.0 : procs;
  return procs * window + active * (local * (p.get ? targets : 1.0) + buffers + staged) + window;
}

RunSpec coarray_spec(const CoarrayProgram& program, int procs) {
  const CoarrayPoint& p = program.point();
  if (procs == 0) procs = p.images;
  if (const std::string why = coarray::pattern_problem(p.pattern, procs);
      !why.empty() && p.pattern != coarray::Pattern::one)
    throw InputError("--pattern " + why);
  if (procs < 2 || p.origin < 0 || p.target < 0 || p.origin >= procs || p.target >= procs)
    throw InputError("a coarray point needs the origin and target images among " + std::to_string(procs) +
                     " images (origin " + std::to_string(p.origin + 1) + ", target " + std::to_string(p.target + 1) +
                     ")");
  RunSpec s;
  s.program = &program;
  s.procs = procs;
  s.real_bytes = p.real_bytes;
  return s;
}

CoarrayRow measured_coarray_row(std::string engine, CoarrayPoint point, const Measurement& m) {
  CoarrayRow row;
  row.engine = std::move(engine);
  row.point = std::move(point);
  row.time_s = m.median_s;
  row.runs = m.runs;
  row.min_s = m.min_s;
  row.ci95_s = m.ci95_s;
  row.ci_met = m.ci_met;
  row.data = m.data;
  return row;
}

namespace {
// 0, 1 (registered once, outside the segment: the column's older values) or per-statement.
std::string registered_cell(const coarray::CoarrayOptions& o) {
  if (!o.registered) return "0";
  return o.registration == coarray::RegisterWhen::per_statement ? coarray::to_string(o.registration) : "1";
}
}  // namespace

std::string coarray_csv_header() {
  return "engine,op,case,nl_bytes,nr_bytes,buffer,unit_bytes,transfers,copies,time_s,local,local_shape,remote,"
         "remote_shape,elem_bytes,statements,registered,get_behaviour,packing,sync,pattern,images,bytes,runs,min_s,"
         "ci95_s,"
         "ci_target_met,data";
}

std::string coarray_csv_row(const CoarrayRow& row) {
  const CoarrayPoint& p = row.point;
  const coarray::Plan plan = p.plan();
  const coarray::Scheme& s = plan.scheme;
  std::ostringstream out;
  out << csv_quoted(row.engine) << ',' << p.op() << ','
      << (s.datatype() ? std::string("datatype") : std::to_string(s.table_case)) << ',' << s.nl << ',' << s.nr << ','
      << p.options.buffer_bytes << ',' << s.unit << ',' << plan.transfers << ',' << plan.copies << ','
      << format_real(row.time_s) << ',' << csv_quoted(p.local.str()) << ',' << csv_quoted(p.local.shape().str()) << ','
      << csv_quoted(p.remote.str()) << ',' << csv_quoted(p.remote.shape().str()) << ',' << p.local.shape().element_bytes
      << ',' << p.statements << ',' << registered_cell(p.options) << ','
      << (p.options.get == coarray::GetBehaviour::omni ? "omni" : "table1") << ','
      << (p.options.packing == coarray::Packing::omni ? "omni" : "table1") << ',' << coarray::to_string(p.sync) << ','
      << coarray::to_string(p.pattern) << ',' << p.images << ',' << plan.bytes << ',' << row.runs << ','
      << format_real(row.min_s) << ',' << format_real(row.ci95_s) << ',' << ci_met_cell(row.ci_met) << ','
      << csv_quoted(row.data);
  return out.str();
}

std::vector<CoarrayRow> parse_coarray_csv(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> header;
  std::vector<CoarrayRow> rows;
  auto column = [&](const std::vector<std::string>& cells, const char* name) -> const std::string& {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) {
        if (i >= cells.size()) throw InputError(std::string("coarray results: a row has no ") + name);
        return cells[i];
      }
    throw InputError(std::string("coarray results: no column ") + name);
  };
  while (std::getline(in, line)) {
    if (line.empty() || line == "\r") continue;
    if (header.empty()) {
      if (line.rfind("engine,op,case,", 0) == 0) header = split_csv(line);
      continue;
    }
    const std::vector<std::string> cells = split_csv(line);
    CoarrayRow row;
    row.engine = column(cells, "engine");
    const std::string op = column(cells, "op");
    CoarrayPoint& p = row.point;
    p.get = op == "coarray/get";
    p.mode = op == "coarray/put-nb"          ? coarray::PutMode::nonblocking
             : op == "coarray/put-nb-nowait" ? coarray::PutMode::nowait
             : op == "coarray/put-nb-double" ? coarray::PutMode::double_buffered
                                             : coarray::PutMode::blocking;
    const std::size_t elem = std::stoul(column(cells, "elem_bytes"));
    p.local = coarray::parse_section(column(cells, "local"), coarray::parse_shape(column(cells, "local_shape"), elem));
    p.remote =
        coarray::parse_section(column(cells, "remote"), coarray::parse_shape(column(cells, "remote_shape"), elem));
    p.options.buffer_bytes = std::stoul(column(cells, "buffer"));
    // The datatype scheme is named in the case column (it has no Table 1 case).
    if (column(cells, "case") == "datatype") p.options.scheme = coarray::Method::datatype;
    const std::string& registered = column(cells, "registered");
    p.options.registered = registered != "0";
    if (registered == coarray::to_string(coarray::RegisterWhen::per_statement))
      p.options.registration = coarray::RegisterWhen::per_statement;
    p.options.get =
        column(cells, "get_behaviour") == "omni" ? coarray::GetBehaviour::omni : coarray::GetBehaviour::table1;
    // Files written before the column existed were Table 1's packing.
    if (std::find(header.begin(), header.end(), "packing") != header.end())
      p.options.packing = column(cells, "packing") == "omni" ? coarray::Packing::omni : coarray::Packing::table1;
    // Files written before the column existed (or rows kept from them: empty) ended with sync memory.
    if (std::find(header.begin(), header.end(), "sync") != header.end() && !column(cells, "sync").empty()) {
      const auto sync = coarray::parse_sync(column(cells, "sync"));
      if (!sync) throw InputError("coarray results: sync is '" + column(cells, "sync") + "'");
      p.sync = *sync;
    }
    // Files written before the columns existed: one pattern on the scenario's images (2 unless said).
    if (std::find(header.begin(), header.end(), "pattern") != header.end() && !column(cells, "pattern").empty()) {
      const auto pattern = coarray::parse_pattern(column(cells, "pattern"));
      if (!pattern) throw InputError("coarray results: pattern is '" + column(cells, "pattern") + "'");
      p.pattern = *pattern;
    }
    if (std::find(header.begin(), header.end(), "images") != header.end() && !column(cells, "images").empty())
      p.images = std::stoi(column(cells, "images"));
    p.statements = std::stoul(column(cells, "statements"));
    row.time_s = std::stod(column(cells, "time_s"));
    row.runs = std::stoi(column(cells, "runs"));
    row.min_s = std::stod(column(cells, "min_s"));
    row.ci95_s = std::stod(column(cells, "ci95_s"));
    if (std::find(header.begin(), header.end(), "ci_target_met") != header.end() &&
        !read_ci_met_cell(column(cells, "ci_target_met"), row.ci_met))
      throw InputError("coarray results: ci_target_met is '" + column(cells, "ci_target_met") + "'");
    row.data = column(cells, "data");
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace collsim
