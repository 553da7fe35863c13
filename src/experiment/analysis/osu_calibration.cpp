#include "experiment/analysis/osu_calibration.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "engines/sim/protocol.hpp"
#include "experiment/analysis/regression.hpp"
#include "support/input_error.hpp"
#include "support/units.hpp"

namespace collsim {

namespace fs = std::filesystem;

const char* to_string(PairClass c) {
  switch (c) {
    case PairClass::socket: return "socket";
    case PairClass::sockets: return "sockets";
    case PairClass::nodes: return "nodes";
  }
  return "?";
}

namespace {

const char* const kLayout =
    "DIR holds socket/, sockets/ and nodes/, each with osu_latency.txt, osu_bw.txt, osu_bibw.txt, osu_mbw_mr.txt "
    "(socket/ only) or osu_bcast*.txt";

std::string shown(const fs::path& p) { return p.generic_string(); }

}  // namespace

std::vector<OsuClassData> read_osu_dir(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(dir + ": not a folder (" + kLayout + ")");
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(dir)) entries.push_back(e.path());
  std::sort(entries.begin(), entries.end());
  std::vector<OsuClassData> out;
  for (const PairClass c : {PairClass::socket, PairClass::sockets, PairClass::nodes}) {
    const fs::path folder = fs::path(dir) / to_string(c);
    if (!fs::is_directory(folder, ec)) continue;
    OsuClassData d;
    d.pair_class = c;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(folder)) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    if (!files.empty() &&
        std::none_of(files.begin(), files.end(), [](const fs::path& f) { return f.filename() == "osu_latency.txt"; }))
      throw InputError(shown(folder) + ": no osu_latency.txt: a class is fitted from its osu_latency");
    for (const fs::path& f : files) {
      const std::string name = f.filename().string();
      std::optional<OsuOutput>* slot = nullptr;
      OsuBenchmark expected = OsuBenchmark::bcast;
      if (name == "osu_latency.txt") {
        slot = &d.latency;
        expected = OsuBenchmark::latency;
      } else if (name == "osu_bw.txt") {
        slot = &d.bw;
        expected = OsuBenchmark::bw;
      } else if (name == "osu_bibw.txt") {
        slot = &d.bibw;
        expected = OsuBenchmark::bibw;
      } else if (name == "osu_mbw_mr.txt") {
        if (c != PairClass::socket)
          throw InputError(shown(f) + ": osu_mbw_mr is read in socket/ only (its pairs on one socket)");
        slot = &d.mbw_mr;
        expected = OsuBenchmark::mbw_mr;
      } else if (!(name.starts_with("osu_bcast") && name.ends_with(".txt") && fs::is_regular_file(f, ec))) {
        throw InputError(shown(f) + ": not part of the layout (" + kLayout + ")");
      }
      OsuOutput o = read_osu_output(shown(f));
      if (o.benchmark != expected)
        throw InputError(shown(f) + ":1: " + to_string(o.benchmark) + " output in a file named for " +
                         to_string(expected));
      if (slot)
        *slot = std::move(o);
      else
        d.bcast.push_back(std::move(o));
    }
    if (d.latency) out.push_back(std::move(d));
  }
  for (const fs::path& e : entries) {
    const std::string name = e.filename().string();
    if (name != "socket" && name != "sockets" && name != "nodes")
      throw InputError(shown(e) + ": not part of the layout (" + kLayout + ")");
  }
  if (out.empty()) throw InputError(dir + ": no osu_latency.txt in socket/, sockets/ or nodes/ (" + kLayout + ")");
  if (out.size() > 0 && out[0].pair_class == PairClass::sockets)
    throw InputError(dir + "/sockets: needs socket/osu_latency.txt too (a copy's costs inside a socket come from it)");
  return out;
}

namespace {

struct Line {
  double intercept = 0, slope = 0;
  int points = 0;
};

// T = a + s N fitted on relative residuals: each point divided by its T (Huber, regression.hpp),
// so a 1 us point weighs as much as a 1 ms one.
Line fit_relative(const std::vector<std::pair<double, double>>& points, const std::string& what) {
  std::vector<Observation> obs;
  for (const auto& [n, t] : points)
    if (t > 0) obs.push_back({1 / t, n / t, 1});
  if (obs.size() < 2)
    throw InputError(what + ": " + std::to_string(obs.size()) +
                     " usable point(s) (time above 0); a line needs at least 2 sizes");
  try {
    const LinearFit2 f = fit_through_origin(obs, FitMethod::huber);
    return {f.c1, f.c2, static_cast<int>(obs.size())};
  } catch (const std::invalid_argument& e) {
    throw InputError(what + ": " + e.what());
  }
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

std::string seconds_text(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", s);
  return b;
}

std::string rate_text(double bytes_per_s) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6gGBps", bytes_per_s / 1e9);
  return b;
}

// The numbers of the fit, from which both the platform and the residuals are made.
struct Model {
  double copy_rate = 0, handover = 0;                       // shm
  double shm_os = 0, shm_or_per_byte = 0, shm_or_rndv = 0;  // shm overheads
  double socket_latency = 0, socket_bandwidth = 0;          // between sockets
  double link_latency = 0, link_bandwidth = 0;              // between nodes, per link
  double net_os = 0, net_or_per_byte = 0, net_or_rndv = 0;  // tcp or ucx overheads
  double memory_bandwidth = 0;
};

struct Segments {
  std::vector<std::pair<double, double>> eager, rndv;  // (bytes, seconds)
};

// The sizes up to eager_line_max make the eager line and those above eager_payload the
// rendezvous line; ucx's bcopy sizes in between (the sender's copy adds a slope of its own) make
// neither and are only checked against the platform.
Segments split(const OsuOutput& o, std::size_t eager_line_max, std::size_t eager_payload, bool per_message) {
  Segments s;
  for (const OsuRow& r : o.rows) {
    const double n = static_cast<double>(r.bytes);
    double t = o.main_value(r);
    if (per_message) {  // a bandwidth: seconds per message of n bytes
      if (r.bytes == 0 || !(t > 0)) continue;
      t = n / t;
    }
    if (r.bytes <= eager_line_max)
      s.eager.emplace_back(n, t);
    else if (r.bytes > eager_payload)
      s.rndv.emplace_back(n, t);
  }
  return s;
}

// The class's osu_bcast.txt when it is osu_bcast -f output (a "Min Latency(us)" column): on the
// pair, its smallest rank's time is the root's, which returns once its eager message is handed
// over. Other osu_bcast*.txt files may hold more processes. nullptr without one.
const OsuOutput* pair_bcast(const std::vector<OsuOutput>& bcasts) {
  for (const OsuOutput& b : bcasts)
    if (fs::path(b.file).filename() == "osu_bcast.txt" && b.columns.size() >= 2 && b.columns[1] == "Min Latency(us)")
      return &b;
  return nullptr;
}

// That file's (bytes, root's seconds) over the eager sizes.
std::vector<std::pair<double, double>> bcast_root_times(const OsuOutput& b, std::size_t eager_payload) {
  std::vector<std::pair<double, double>> points;
  for (const OsuRow& r : b.rows)
    if (r.bytes > 0 && r.bytes <= eager_payload) points.emplace_back(static_cast<double>(r.bytes), r.values[1] * 1e-6);
  return points;
}

// One class's lines: osu_latency's two, the rendezvous slope from osu_bw when there is one, and
// the sender's per-message cost from osu_bw or else from osu_bcast -f on the pair.
struct ClassLines {
  Line eager, rndv;
  // The sender's time for a message of N eager bytes, a + s N: its intercept a, -1 without a
  // source; send_from names the source.
  double send_intercept = -1;
  std::string send_from = "no osu_bw or osu_bcast -f: 0";
};

// The profile's sizes: osu_latency sends with MPI_Send, osu_bw with MPI_Isend, whose eager limits
// differ under ucx (protocol.hpp). The eager line stops at MPI_Isend's limit, where the
// recv_overhead table (keyed by size) switches to the rendezvous' base, and between nodes under
// ucx at its short sizes, above which the sender's copy adds its own slope.
struct ProfileSizes {
  std::size_t eager_line_max, blocking_payload, nonblocking_payload;
};

ProfileSizes sizes_of(const ProtocolProfile& p) {
  const std::size_t nonblocking = p.eager_payload(false);
  return {p.kind == ProtocolKind::rdma ? std::min(p.inline_limit, nonblocking) : nonblocking, p.eager_payload(true),
          nonblocking};
}

ClassLines class_lines(const OsuClassData& d, const ProfileSizes& z, std::vector<std::string>& notes) {
  const std::string file = d.latency->file;
  const Segments lat = split(*d.latency, z.eager_line_max, z.blocking_payload, false);
  ClassLines l;
  l.eager = fit_relative(lat.eager, file + ": sizes up to " + std::to_string(z.eager_line_max) + " B (eager)");
  l.rndv =
      fit_relative(lat.rndv, file + ": sizes above the eager limit (" + std::to_string(z.blocking_payload) + " B)");
  if (d.bw) {
    const Segments bw = split(*d.bw, std::min(z.eager_line_max, z.nonblocking_payload), z.nonblocking_payload, true);
    if (bw.eager.size() >= 2) {
      l.send_intercept = fit_relative(bw.eager, d.bw->file + ": eager sizes").intercept;
      l.send_from = d.bw->file + ": per-message time, eager sizes";
    }
    if (bw.rndv.size() >= 2) {
      const Line r = fit_relative(bw.rndv, d.bw->file + ": rendezvous sizes");
      if (r.slope > 0 && l.rndv.slope > 0)
        notes.push_back(d.bw->file + ": streams at " + fixed(1e-9 / r.slope, 2) + " GB/s against the ping-pong's " +
                        fixed(1e-9 / l.rndv.slope, 2) + " GB/s (reported; the platform follows the ping-pong)");
    }
  }
  if (d.bibw) {
    const OsuRow& last = d.bibw->rows.back();
    notes.push_back(d.bibw->file + ": " + format_real(d.bibw->main_value(last) / 2e9) + " GB/s each way at " +
                    format_bytes(last.bytes) + " (read, not fitted)");
  }
  const OsuOutput* pair = pair_bcast(d.bcast);
  const std::vector<std::pair<double, double>> root =
      pair ? bcast_root_times(*pair, std::min(z.eager_line_max, z.nonblocking_payload))
           : std::vector<std::pair<double, double>>{};
  if (l.send_intercept < 0 && root.size() >= 2) {
    l.send_intercept = fit_relative(root, pair->file + ": the root's (smallest) time, eager sizes").intercept;
    l.send_from = "osu_bcast -f on the pair: the root's (smallest) time over the eager sizes";
  } else {
    for (const OsuOutput& b : d.bcast)
      notes.push_back(b.file + ": " + std::to_string(b.rows.size()) + " sizes (read, not fitted)");
  }
  return l;
}

// Clamps a fitted value at 0, noting it.
double at_least_zero(double v, const std::string& what, std::vector<std::string>& notes) {
  if (v >= 0) return v;
  notes.push_back(what + " came out " + seconds_text(v) + " s: 0 used");
  return 0;
}

void refuse_given(const std::vector<std::string>& given, const std::string& name, const std::string& file) {
  std::string canonical = name;
  std::replace(canonical.begin(), canonical.end(), '-', '_');
  for (std::string g : given) {
    std::replace(g.begin(), g.end(), '-', '_');
    if (g == canonical)
      throw InputError(name + ": fitted from " + file + ", so it cannot be given as well (drop the option)");
  }
}

std::string overhead_table(std::size_t eager_payload, double eager_per_byte, double rndv_base) {
  return "0:0:" + seconds_text(eager_per_byte) + ";" + std::to_string(eager_payload + 1) + ":" +
         seconds_text(rndv_base) + ":0";
}

// The bytes a rendezvous moves before its receive completes, besides the payload: tcp's RNDV, PUT
// control, data header and FIN; ucx's RTS (its read request carries no payload bytes).
double rendezvous_bytes(const ProtocolProfile& p) {
  const std::size_t after = p.kind == ProtocolKind::tcp ? p.answer_bytes + p.fin_bytes : 0;
  return static_cast<double>(p.rndv_bytes + p.data_header + after);
}

// The crossings of the route before a rendezvous' receive completes: tcp's RNDV, PUT control and
// data; ucx's RTS, read request and data.
constexpr double kRendezvousCrossings = 3;

// osu_latency's one-way time (MPI_Send) of `bytes` on the fitted platform, step by step as the
// sim engine's transport takes it under profile p (protocol.hpp), with the recv_overhead table
// the fit writes (per byte up to the non-blocking eager sizes, the rendezvous' base above).
double one_way(const Model& m, const ClusterSpec& spec, PairClass c, const ProtocolProfile& p, std::size_t bytes) {
  const double n = static_cast<double>(bytes);
  const bool eager = p.is_eager(bytes, true);
  const double eh = static_cast<double>(p.eager_header);
  if (c == PairClass::nodes) {
    const double route = 2 * m.link_latency, bw = m.link_bandwidth;
    const double recv = bytes <= p.eager_payload(false) ? m.net_or_per_byte * n : m.net_or_rndv;
    if (!eager) return m.net_os + kRendezvousCrossings * route + (rendezvous_bytes(p) + n) / bw + recv;
    // ucx: a bcopy send copies the payload into registered buffers first.
    const double copy = p.kind == ProtocolKind::rdma && bytes > p.inline_limit ? n / spec.memcpy : 0;
    return m.net_os + copy + route + (eh + n) / bw + recv;
  }
  const double recv = bytes <= p.eager_payload(false) ? m.shm_or_per_byte * n : m.shm_or_rndv;
  double bw = std::min(spec.memcpy, spec.memory_bandwidth);
  double across = 0;
  if (c == PairClass::sockets) {
    bw = std::min(bw, spec.inter_socket_bandwidth);
    across = spec.inter_socket_latency;
  }
  if (eager) return m.shm_os + across + (eh + n) / bw + m.handover + recv;
  return m.shm_os + 2 * across + static_cast<double>(p.rndv_bytes) / bw + m.handover + n / bw + recv;
}

}  // namespace

OsuFit fit_osu(const std::vector<OsuClassData>& data, ClusterSpec& spec, const std::vector<std::string>& given) {
  OsuFit fit;
  Model m;
  const bool protocol_given = std::find(given.begin(), given.end(), "protocol") != given.end();
  if (!protocol_given) spec.protocol = "tcp+shm";
  if (spec.protocol != "tcp+shm" && spec.protocol != "ucx")
    throw InputError("protocol: '" + spec.protocol +
                     "' cannot be fitted: the fit is of tcp+shm (Open MPI's ob1: vader inside a node, tcp between "
                     "nodes) or ucx (pml ucx: its shared memory inside a node, InfiniBand between nodes)");
  const bool ucx = spec.protocol == "ucx";
  const ProtocolProfile intra = *default_profile(ucx ? "ucx_sm" : "shm"), inter = *default_profile(ucx ? "ucx" : "tcp");
  const auto param = [&](PairClass c, const std::string& name, const std::string& value, const std::string& from) {
    fit.parameters.push_back({c, name, value, from});
  };
  double socket_eager_intercept = 0;
  for (const OsuClassData& d : data) {
    OsuClassFit cf;
    cf.pair_class = d.pair_class;
    const std::string lat = d.latency->file;
    const bool nodes = d.pair_class == PairClass::nodes;
    const ProtocolProfile& p = nodes ? inter : intra;
    const ClassLines l = class_lines(d, sizes_of(p), cf.notes);
    cf.eager_intercept = l.eager.intercept;
    cf.eager_slope = l.eager.slope;
    cf.rndv_intercept = l.rndv.intercept;
    cf.rndv_slope = l.rndv.slope;
    cf.eager_points = l.eager.points;
    cf.rndv_points = l.rndv.points;
    if (!(l.rndv.slope > 0))
      throw InputError(lat + ": the time does not grow with the size above the eager limit: no bandwidth to fit");
    const double bw = 1 / l.rndv.slope;
    const std::string slope_from = lat + ": rendezvous slope";
    const std::string& os_from = l.send_from;
    const double eh = static_cast<double>(p.eager_header);
    // The profile's overhead tables, as protocol options of the platform.
    const auto overheads = [&](const std::string& profile, double os, double per_byte, double rndv) {
      if (os > 0) {
        spec.protocol_options.push_back(profile + "/send_overhead:" + seconds_text(os));
        param(d.pair_class, profile + "/send_overhead", seconds_text(os), os_from);
      }
      // Keyed by size, so at the eager limit of MPI_Isend, which the collectives mostly post.
      const std::string table = overhead_table(p.eager_payload(false), per_byte, rndv);
      spec.protocol_options.push_back(profile + "/recv_overhead:" + table);
      param(d.pair_class, profile + "/recv_overhead", table,
            lat + ": eager minus rendezvous slope; rendezvous intercept");
    };
    switch (d.pair_class) {
      case PairClass::socket: {
        for (const char* name : {"memcpy", "loopback_latency"}) refuse_given(given, name, lat);
        m.copy_rate = bw;
        m.shm_os = l.send_intercept > 0
                       ? at_least_zero(l.send_intercept - eh / bw, intra.name + std::string("/send_overhead"), cf.notes)
                       : 0;
        m.handover = at_least_zero(l.eager.intercept - m.shm_os - eh / bw, "loopback_latency", cf.notes);
        m.shm_or_per_byte =
            at_least_zero(l.eager.slope - l.rndv.slope, intra.name + std::string("/recv_overhead per byte"), cf.notes);
        m.shm_or_rndv = at_least_zero(l.rndv.intercept - m.shm_os - static_cast<double>(p.rndv_bytes) / bw - m.handover,
                                      intra.name + std::string("/recv_overhead above the eager sizes"), cf.notes);
        socket_eager_intercept = l.eager.intercept;
        spec.memcpy = m.copy_rate;
        spec.loopback_latency = m.handover;
        param(d.pair_class, "memcpy", rate_text(bw), slope_from);
        param(d.pair_class, "loopback_latency", seconds_text(m.handover), lat + ": eager intercept");
        overheads(intra.name, m.shm_os, m.shm_or_per_byte, m.shm_or_rndv);
        if (d.mbw_mr) {
          refuse_given(given, "memory_bandwidth", d.mbw_mr->file);
          const OsuRow& last = d.mbw_mr->rows.back();
          spec.memory_bandwidth = d.mbw_mr->main_value(last);
          param(d.pair_class, "memory_bandwidth", rate_text(spec.memory_bandwidth),
                d.mbw_mr->file + ": " + std::to_string(d.mbw_mr->pairs) + " pairs at " + format_bytes(last.bytes));
          // Pairs that each copy at nearly a lone pair's rate did not fill the socket.
          if (spec.memory_bandwidth >= 0.9 * d.mbw_mr->pairs * bw)
            cf.notes.push_back(d.mbw_mr->file +
                               ": its pairs copy at 90% or more of one pair's rate: a lower bound of the socket's "
                               "bandwidth (run more pairs)");
        } else {
          const bool user = std::find(given.begin(), given.end(), "memory_bandwidth") != given.end() ||
                            std::find(given.begin(), given.end(), "memory-bandwidth") != given.end();
          if (!user) spec.memory_bandwidth = std::max(spec.memory_bandwidth, bw);
          cf.notes.push_back(
              "memory_bandwidth not measured (no osu_mbw_mr.txt): " + format_real(spec.memory_bandwidth / 1e9) +
              " GB/s, " + (user ? "as given" : "the default or one pair's copy rate if higher"));
        }
        m.memory_bandwidth = spec.memory_bandwidth;
        break;
      }
      case PairClass::sockets: {
        for (const char* name : {"inter_socket_bandwidth", "inter_socket_latency"}) refuse_given(given, name, lat);
        m.socket_bandwidth = bw;
        spec.inter_socket_bandwidth = bw;
        const double inside = std::min(m.copy_rate, m.memory_bandwidth), across = std::min(inside, bw);
        m.socket_latency = at_least_zero(l.eager.intercept - socket_eager_intercept - eh / across + eh / inside,
                                         "inter_socket_latency", cf.notes);
        spec.inter_socket_latency = m.socket_latency;
        param(d.pair_class, "inter_socket_bandwidth", rate_text(bw), slope_from);
        param(d.pair_class, "inter_socket_latency", seconds_text(m.socket_latency),
              lat + ": eager intercept minus socket/'s");
        if (l.send_intercept > 0)
          cf.notes.push_back("the sender's per-message cost is socket/'s " + std::string(intra.name) +
                             "/send_overhead (" + l.send_from + " not refitted)");
        break;
      }
      case PairClass::nodes: {
        for (const char* name : {"bandwidth", "latency"}) refuse_given(given, name, lat);
        if (spec.topology != Topology::crossbar)
          throw InputError("topology: the fit of nodes/ is for a crossbar (2 links between two nodes)");
        const std::string name = inter.name;
        m.link_bandwidth = bw;
        // tcp's sender writes the header as well; ucx's short send (the eager line's sizes) copies nothing.
        const double sent = p.kind == ProtocolKind::tcp ? eh / bw : 0;
        m.net_os = l.send_intercept > 0 ? at_least_zero(l.send_intercept - sent, name + "/send_overhead", cf.notes) : 0;
        m.link_latency = at_least_zero((l.eager.intercept - m.net_os - eh / bw) / 2, "latency", cf.notes);
        m.net_or_per_byte = at_least_zero(l.eager.slope - l.rndv.slope, name + "/recv_overhead per byte", cf.notes);
        m.net_or_rndv = at_least_zero(
            l.rndv.intercept - m.net_os - kRendezvousCrossings * 2 * m.link_latency - rendezvous_bytes(p) / bw,
            name + "/recv_overhead above the eager sizes", cf.notes);
        spec.bandwidth = bw;
        spec.latency = m.link_latency;
        param(d.pair_class, "bandwidth", rate_text(bw), slope_from);
        param(d.pair_class, "latency", seconds_text(m.link_latency), lat + ": eager intercept, over 2 links");
        overheads(name, m.net_os, m.net_or_per_byte, m.net_or_rndv);
        if (p.kind == ProtocolKind::rdma)
          cf.notes.push_back(lat + ": ucx's thresholds kept at their defaults (max_short " +
                             std::to_string(p.inline_limit) + ", zcopy " + std::to_string(p.zcopy_limit) +
                             ", rendezvous of MPI_Isend " + std::to_string(p.eager_limit) +
                             " B): osu_latency's MPI_Send does not show them");
        break;
      }
    }
    fit.classes.push_back(std::move(cf));
  }
  // The platform's times against every measured point, once all classes are in the spec.
  for (std::size_t i = 0; i < data.size(); ++i) {
    OsuClassFit& cf = fit.classes[i];
    std::vector<double> rel;
    const ProtocolProfile& p = cf.pair_class == PairClass::nodes ? inter : intra;
    for (const OsuRow& r : data[i].latency->rows) {
      cf.predicted.push_back(one_way(m, spec, cf.pair_class, p, r.bytes));
      const double t = data[i].latency->main_value(r);
      if (t > 0) rel.push_back(std::abs(cf.predicted.back() - t) / t);
    }
    cf.points = static_cast<int>(rel.size());
    cf.max_rel_residual = rel.empty() ? 0 : *std::max_element(rel.begin(), rel.end());
    cf.median_rel_residual = median(rel);
  }
  return fit;
}

std::string osu_fit_csv(const OsuFit& fit) {
  std::ostringstream out;
  out << "class,parameter,value,from\n";
  const auto quoted = [](const std::string& s) {
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  for (const OsuParameter& p : fit.parameters)
    out << to_string(p.pair_class) << "," << p.name << "," << quoted(p.value) << "," << quoted(p.from) << "\n";
  for (const OsuClassFit& c : fit.classes) {
    const auto row = [&](const std::string& name, const std::string& value, const std::string& from) {
      out << to_string(c.pair_class) << "," << name << "," << quoted(value) << "," << quoted(from) << "\n";
    };
    row("fit/eager_line", seconds_text(c.eager_intercept) + " + " + seconds_text(c.eager_slope) + " N",
        std::to_string(c.eager_points) + " points");
    row("fit/rendezvous_line", seconds_text(c.rndv_intercept) + " + " + seconds_text(c.rndv_slope) + " N",
        std::to_string(c.rndv_points) + " points");
    row("fit/max_rel_residual", seconds_text(c.max_rel_residual), std::to_string(c.points) + " osu_latency points");
    row("fit/median_rel_residual", seconds_text(c.median_rel_residual),
        std::to_string(c.points) + " osu_latency points");
    for (const std::string& n : c.notes) row("note", n, "");
  }
  return out.str();
}

std::string osu_fit_table(const OsuFit& fit) {
  std::ostringstream out;
  for (const OsuClassFit& c : fit.classes) {
    out << to_string(c.pair_class) << ": one-way time " << format_seconds(c.eager_intercept) << " + N x "
        << fixed(c.eager_slope * 1e9, 4) << " ns/B up to the eager limit (" << c.eager_points << " sizes), "
        << format_seconds(c.rndv_intercept) << " + N x " << fixed(c.rndv_slope * 1e9, 4) << " ns/B above ("
        << c.rndv_points << " sizes); the platform against the " << c.points << " osu_latency points: max "
        << fixed(100 * c.max_rel_residual, 1) << "%, median " << fixed(100 * c.median_rel_residual, 1) << "%\n";
    for (const OsuParameter& p : fit.parameters)
      if (p.pair_class == c.pair_class) out << "  " << p.name << " = " << p.value << "   (" << p.from << ")\n";
    for (const std::string& n : c.notes) out << "  note: " << n << "\n";
  }
  return out.str();
}

}  // namespace collsim
