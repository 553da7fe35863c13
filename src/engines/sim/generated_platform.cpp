#include "engines/sim/generated_platform.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>
#include <sstream>

#include "engines/sim/platform_file.hpp"
#include "engines/sim/protocol.hpp"
#include "engines/sim/simulation.hpp"
#include "support/input_error.hpp"
#include "support/units.hpp"

namespace collsim {

namespace {

constexpr long long kMaxNodes = kMaxPlatformHosts;

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

[[noreturn]] void bad(std::string_view name, std::string_view value, const std::string& what) {
  throw InputError(std::string(name) + ": '" + std::string(value) + "' " + what);
}

// A number followed by a unit from `units` (factor per unit name); nullopt when it is not one.
std::optional<double> with_unit(std::string_view text,
                                std::initializer_list<std::pair<std::string_view, double>> units) {
  text = trim(text);
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || !std::isfinite(value)) return std::nullopt;
  const std::string_view unit = trim(std::string_view(end, static_cast<std::size_t>(text.data() + text.size() - end)));
  // Dividing by an exact power of ten rounds once, so "5us" is the double nearest 5e-6, as 5e-6 is.
  for (const auto& [name, factor] : units)
    if (unit == name) return factor < 1 ? value / std::round(1 / factor) : value * factor;
  return std::nullopt;
}

double parse_time(std::string_view name, std::string_view v) {
  const auto t = with_unit(v, {{"", 1}, {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}});
  if (!t || *t < 0) bad(name, v, "is not a time (e.g. 10us, 1.5ms, 2e-6; a bare number is seconds)");
  if (const std::string problem = latency_problem(*t); !problem.empty()) bad(name, v, problem);
  return *t;
}

double parse_bw(std::string_view name, std::string_view v) {
  std::string text(trim(v));
  // Ethernet's names give the line rate in bits: 25GbE = 25 Gbit/s.
  if (text.size() > 3 && text.compare(text.size() - 3, 3, "GbE") == 0) text.replace(text.size() - 3, 3, "Gbps");
  const double b = sim::parse_bandwidth(text);
  if (!(b > 0)) bad(name, v, "is not a bandwidth (e.g. 1.25GBps, 10Gbps, 25GbE; a bare number is bytes/s)");
  return b;
}

// A bandwidth, or 0 for a rate the platform does not model.
double parse_bw_or_off(std::string_view name, std::string_view v) { return trim(v) == "0" ? 0 : parse_bw(name, v); }

// A size in bytes; `zero` says what 0 means, for the message.
double parse_size(std::string_view name, std::string_view v, const std::string& zero) {
  const auto b = parse_bytes(trim(v));
  if (!b) bad(name, v, "is not a size (e.g. 1MiB; 0: " + zero + ")");
  return static_cast<double>(*b);
}

double parse_speed(std::string_view name, std::string_view v) {
  const auto s = with_unit(v, {{"", 1}, {"f", 1}, {"kf", 1e3}, {"Mf", 1e6}, {"Gf", 1e9}, {"Tf", 1e12}, {"Pf", 1e15}});
  if (!s || !(*s > 0)) bad(name, v, "is not a speed in flop/s (e.g. 38.4Gf; a bare number is flop/s)");
  return *s;
}

long long parse_count(std::string_view name, std::string_view v, long long max = kMaxNodes) {
  const auto n = parse_integer(trim(v));
  if (!n || *n < 1 || *n > max) bad(name, v, "is not a whole number from 1 to " + std::to_string(max));
  return *n;
}

// A count, or 0 for a level the platform does not have.
long long parse_count_or_off(std::string_view name, std::string_view v, long long max) {
  return trim(v) == "0" ? 0 : parse_count(name, v, max);
}

// "8,8,16" (or "8x8x16" for dimensions).
std::vector<long long> parse_list(std::string_view name, std::string_view v) {
  std::vector<long long> out;
  std::string item;
  const auto flush = [&] {
    const auto n = parse_integer(trim(item));
    if (!n || *n < 1 || *n > kMaxNodes)
      bad(name, v, "is not a list of whole numbers from 1 to " + std::to_string(kMaxNodes) + " (e.g. 8,8,16)");
    out.push_back(*n);
    item.clear();
  };
  for (char c : v) {
    if (c == ',' || c == 'x')
      flush();
    else
      item += c;
  }
  flush();
  return out;
}

double parse_taper(std::string_view name, std::string_view v) {
  const std::string_view t = trim(v);
  const auto colon = t.find(':');
  const auto a = parse_real(trim(t.substr(0, colon)));
  const auto b = colon == std::string_view::npos ? std::optional<double>(1) : parse_real(trim(t.substr(colon + 1)));
  if (!a || !b || !(*a > 0) || !(*b > 0)) bad(name, v, "is not an oversubscription ratio (e.g. 1:1, 4:1 or 4)");
  return *a / *b;
}

bool parse_bool(std::string_view name, std::string_view v) {
  const std::string_view t = trim(v);
  if (t == "1" || t == "true" || t == "yes" || t == "on") return true;
  if (t == "0" || t == "false" || t == "no" || t == "off") return false;
  bad(name, v, "is not 0 or 1");
}

Topology parse_topology(std::string_view name, std::string_view v) {
  const std::string_view t = trim(v);
  if (t == "crossbar") return Topology::crossbar;
  if (t == "fat_tree" || t == "fat-tree") return Topology::fat_tree;
  if (t == "torus") return Topology::torus;
  if (t == "dragonfly") return Topology::dragonfly;
  bad(name, v, "is not a topology (crossbar, fat_tree, torus or dragonfly)");
}

// SimGrid's fat-tree description "h;m_1,..;w_1,..;p_1,..".
struct FatTreeShape {
  std::vector<long long> m, w, p;
};

std::optional<FatTreeShape> parse_fat_tree(std::string_view raw) {
  std::vector<std::string> parts;
  std::string part;
  for (char c : raw) {
    if (c == ';') {
      parts.push_back(part);
      part.clear();
    } else {
      part += c;
    }
  }
  parts.push_back(part);
  if (parts.size() != 4) return std::nullopt;
  const auto h = parse_integer(trim(parts[0]));
  if (!h || *h < 1 || *h > 16) return std::nullopt;
  FatTreeShape s;
  std::vector<long long>* lists[] = {&s.m, &s.w, &s.p};
  for (int i = 0; i < 3; ++i) {
    std::string item;
    std::string text = parts[static_cast<std::size_t>(i) + 1] + ",";
    for (char c : text) {
      if (c != ',') {
        item += c;
        continue;
      }
      const auto n = parse_integer(trim(item));
      if (!n || *n < 1 || *n > kMaxNodes) return std::nullopt;
      lists[i]->push_back(*n);
      item.clear();
    }
    if (static_cast<long long>(lists[i]->size()) != *h) return std::nullopt;
  }
  return s;
}

struct DragonflyShape {
  long long groups, blue, chassis, black, routers, green, nodes;
};

std::optional<DragonflyShape> parse_dragonfly(std::string_view raw) {
  std::vector<long long> n;
  std::string item;
  std::string separators;
  for (char c : std::string(raw) + ";") {
    if (c != ',' && c != ';') {
      item += c;
      continue;
    }
    const auto v = parse_integer(trim(item));
    if (!v || *v < 1 || *v > kMaxNodes) return std::nullopt;
    n.push_back(*v);
    separators += c;
    item.clear();
  }
  if (separators != ",;,;,;;") return std::nullopt;
  return DragonflyShape{n[0], n[1], n[2], n[3], n[4], n[5], n[6]};
}

FatTreeShape fat_tree_shape(const ClusterSpec& s) {
  if (!s.fat_tree.empty()) return *parse_fat_tree(s.fat_tree);
  // Our k-ary n-tree with a taper: one parent per node; a leaf switch has m_1 / taper parents;
  // a switch higher up has as many parents as children (non-blocking).
  FatTreeShape f;
  f.m = s.down;
  f.p.assign(s.down.size(), 1);
  f.w.assign(s.down.size(), 1);
  if (s.down.size() > 1) f.w[1] = std::llround(static_cast<double>(s.down[0]) / s.taper);
  for (std::size_t i = 2; i < s.down.size(); ++i) f.w[i] = s.down[i - 1];
  return f;
}

// Down over up bandwidth of a leaf switch.
double leaf_taper(const FatTreeShape& f) {
  if (f.m.size() < 2) return 1;
  return static_cast<double>(f.m[0] * f.p[0]) / static_cast<double>(f.w[1] * f.p[1]);
}

std::string list_text(const std::vector<long long>& v) {
  std::string s;
  for (auto x : v) {
    if (!s.empty()) s += ',';
    s += std::to_string(x);
  }
  return s;
}

// Shortest text in `unit` (a power of ten) that reads back as `value`, else plain.
std::string with_best_unit(double value, std::initializer_list<std::pair<const char*, double>> units, const char* base,
                           const std::function<double(const std::string&)>& reparse) {
  for (const auto& [unit, factor] : units) {
    if (std::fabs(value) < factor) continue;
    char rounded[32];
    std::snprintf(rounded, sizeof rounded, "%.12g", value / factor);
    for (const std::string& text : {std::string(rounded) + unit, format_real(value / factor) + unit})
      if (reparse(text) == value) return text;
  }
  return format_real(value) + base;
}

std::string bw_text(double b) {
  return with_best_unit(b, {{"GBps", 1e9}, {"MBps", 1e6}, {"kBps", 1e3}}, "Bps",
                        [](const std::string& t) { return sim::parse_bandwidth(t); });
}

std::string time_text(double t) {
  if (t == 0) return "0s";
  return with_best_unit(t, {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}}, "s",
                        [](const std::string& x) { return parse_time("", x); });
}

std::string speed_text(double s) {
  return with_best_unit(s, {{"Tf", 1e12}, {"Gf", 1e9}, {"Mf", 1e6}, {"kf", 1e3}}, "f",
                        [](const std::string& x) { return parse_speed("", x); });
}

std::string taper_text(double t) { return format_real(t) + ":1"; }

// The parameters, each with how it is set and how its value is written back.
struct Entry {
  PlatformParameter doc;
  std::function<void(ClusterSpec&, std::string_view name, std::string_view value)> set;
  std::function<std::string(const ClusterSpec&)> get;
  // The topology it belongs to (crossbar = every topology).
  std::optional<Topology> only;
};

const std::vector<Entry>& entries() {
  using T = Topology;
  static const std::vector<Entry> table = {
      {{"topology", "crossbar|fat_tree|torus|dragonfly", "the network", "crossbar"},
       [](ClusterSpec& s, auto n, auto v) { s.topology = parse_topology(n, v); },
       [](const ClusterSpec& s) { return topology_name(s.topology); },
       {}},
      {{"nodes", "N", "hosts; a fat_tree, torus or dragonfly has as many as its dimensions say (checked when given)",
        "derived from the topology; required for a crossbar"},
       [](ClusterSpec& s, auto n, auto v) { s.nodes = parse_count(n, v); },
       [](const ClusterSpec& s) { return std::to_string(s.nodes); },
       {}},
      {{"sockets", "S", "sockets per node (host property collsim/sockets)", "2"},
       [](ClusterSpec& s, auto n, auto v) { s.sockets = static_cast<int>(parse_count(n, v, 1024)); },
       [](const ClusterSpec& s) { return std::to_string(s.sockets); },
       {}},
      {{"cores", "C", "cores per socket (a host has sockets x cores cores)", "8"},
       [](ClusterSpec& s, auto n, auto v) { s.cores = static_cast<int>(parse_count(n, v, 4096)); },
       [](const ClusterSpec& s) { return std::to_string(s.cores); },
       {}},
      {{"speed", "FLOPS", "speed of one core (38.4Gf = 38.4e9 flop/s)", "38.4Gf"},
       [](ClusterSpec& s, auto n, auto v) { s.speed = parse_speed(n, v); },
       [](const ClusterSpec& s) { return speed_text(s.speed); },
       {}},
      {{"bandwidth", "BANDWIDTH", "every network link, each direction (10Gbps = 10GbE = 1.25GBps)", "1.25GBps"},
       [](ClusterSpec& s, auto n, auto v) { s.bandwidth = parse_bw(n, v); },
       [](const ClusterSpec& s) { return bw_text(s.bandwidth); },
       {}},
      {{"latency", "TIME", "every network link; a route crosses several (crossbar 2; see platforms/README.md)", "10us"},
       [](ClusterSpec& s, auto n, auto v) { s.latency = parse_time(n, v); },
       [](const ClusterSpec& s) { return time_text(s.latency); },
       {}},
      {{"loopback_bandwidth", "BANDWIDTH", "between two ranks of one node", "3GBps"},
       [](ClusterSpec& s, auto n, auto v) { s.loopback_bandwidth = parse_bw(n, v); },
       [](const ClusterSpec& s) { return bw_text(s.loopback_bandwidth); },
       {}},
      {{"loopback_latency", "TIME", "between two ranks of one node (one link)", "5us"},
       [](ClusterSpec& s, auto n, auto v) { s.loopback_latency = parse_time(n, v); },
       [](const ClusterSpec& s) { return time_text(s.loopback_latency); },
       {}},
      {{"memcpy", "BANDWIDTH", "local copy rate of one core (host property memcpy_bw)", "5GBps"},
       [](ClusterSpec& s, auto n, auto v) { s.memcpy = parse_bw(n, v); },
       [](const ClusterSpec& s) { return bw_text(s.memcpy); },
       {}},
      {{"copy_overhead", "TIME",
        "a local copy's per-call cost, besides its bytes at memcpy (host property collsim/copy_overhead; 0: none)",
        "0"},
       [](ClusterSpec& s, auto n, auto v) { s.copy_overhead = parse_time(n, v); },
       [](const ClusterSpec& s) { return time_text(s.copy_overhead); },
       {}},
      {{"memory_bandwidth", "BANDWIDTH", "bytes a socket's cores copy per second together (tcp+shm's node model)",
        "22GBps"},
       [](ClusterSpec& s, auto n, auto v) { s.memory_bandwidth = parse_bw(n, v); },
       [](const ClusterSpec& s) { return bw_text(s.memory_bandwidth); },
       {}},
      {{"inter_socket_bandwidth", "BANDWIDTH", "a copy between two sockets of a node, each direction", "16GBps"},
       [](ClusterSpec& s, auto n, auto v) { s.inter_socket_bandwidth = parse_bw(n, v); },
       [](const ClusterSpec& s) { return bw_text(s.inter_socket_bandwidth); },
       {}},
      {{"inter_socket_latency", "TIME", "a copy between two sockets of a node, added", "200ns"},
       [](ClusterSpec& s, auto n, auto v) { s.inter_socket_latency = parse_time(n, v); },
       [](const ClusterSpec& s) { return time_text(s.inter_socket_latency); },
       {}},
      {{"core_group", "K|0",
        "cores per core group sharing a last-level cache, e.g. AMD's CCX (0: none; host property collsim/core_group)",
        "0"},
       [](ClusterSpec& s, auto n, auto v) { s.core_group = static_cast<int>(parse_count_or_off(n, v, 4096)); },
       [](const ClusterSpec& s) { return std::to_string(s.core_group); },
       {}},
      {{"numa_domains", "D|0", "NUMA domains per socket, e.g. AMD's NPS4 (0: none; collsim/numa_domains)", "0"},
       [](ClusterSpec& s, auto n, auto v) { s.numa_domains = static_cast<int>(parse_count_or_off(n, v, 4096)); },
       [](const ClusterSpec& s) { return std::to_string(s.numa_domains); },
       {}},
      {{"core_group_latency", "TIME", "a copy between two core groups of one NUMA domain, added", "0"},
       [](ClusterSpec& s, auto n, auto v) { s.core_group_latency = parse_time(n, v); },
       [](const ClusterSpec& s) { return time_text(s.core_group_latency); },
       {}},
      {{"core_group_bandwidth", "BANDWIDTH|0",
        "a copy between two core groups of one socket, each direction (0: not limited)", "0"},
       [](ClusterSpec& s, auto n, auto v) { s.core_group_bandwidth = parse_bw_or_off(n, v); },
       [](const ClusterSpec& s) { return s.core_group_bandwidth > 0 ? bw_text(s.core_group_bandwidth) : "0"; },
       {}},
      {{"numa_latency", "TIME", "a copy between two NUMA domains of one socket, added", "0"},
       [](ClusterSpec& s, auto n, auto v) { s.numa_latency = parse_time(n, v); },
       [](const ClusterSpec& s) { return time_text(s.numa_latency); },
       {}},
      {{"numa_memory_bandwidth", "BANDWIDTH|0",
        "bytes a NUMA domain's cores copy per second together (0: memory_bandwidth / numa_domains)", "0"},
       [](ClusterSpec& s, auto n, auto v) { s.numa_memory_bandwidth = parse_bw_or_off(n, v); },
       [](const ClusterSpec& s) { return s.numa_memory_bandwidth > 0 ? bw_text(s.numa_memory_bandwidth) : "0"; },
       {}},
      {{"fresh_copy_bandwidth", "BANDWIDTH|0",
        "a copy of data its owner has just received, read from its core's cache (0: as any copy; node_model.hpp)", "0"},
       [](ClusterSpec& s, auto n, auto v) { s.fresh_copy_bandwidth = parse_bw_or_off(n, v); },
       [](const ClusterSpec& s) { return s.fresh_copy_bandwidth > 0 ? bw_text(s.fresh_copy_bandwidth) : "0"; },
       {}},
      {{"inter_socket_fresh_copy_bandwidth", "BANDWIDTH|0", "the same between two sockets (0: fresh_copy_bandwidth)",
        "0"},
       [](ClusterSpec& s, auto n, auto v) { s.inter_socket_fresh_copy_bandwidth = parse_bw_or_off(n, v); },
       [](const ClusterSpec& s) {
         return s.inter_socket_fresh_copy_bandwidth > 0 ? bw_text(s.inter_socket_fresh_copy_bandwidth) : "0";
       },
       {}},
      {{"private_cache", "SIZE", "a core's private cache (L2), the most fresh data it holds (0: no bound)", "0"},
       [](ClusterSpec& s, auto n, auto v) { s.private_cache = parse_size(n, v, "no bound"); },
       [](const ClusterSpec& s) { return std::to_string(static_cast<long long>(s.private_cache)); },
       {}},
      {{"shared_cache", "SIZE",
        "the node's last-level cache as its copies see it: what they touched last stays in it (0: none; "
        "copy_cache.hpp)",
        "0"},
       [](ClusterSpec& s, auto n, auto v) { s.shared_cache = parse_size(n, v, "none"); },
       [](const ClusterSpec& s) { return std::to_string(static_cast<long long>(s.shared_cache)); },
       {}},
      {{"uncached_copy_bandwidth", "BANDWIDTH|0",
        "a copy of lines not in the shared cache, from and to memory (needs shared_cache; 0: none)", "0"},
       [](ClusterSpec& s, auto n, auto v) { s.uncached_copy_bandwidth = parse_bw_or_off(n, v); },
       [](const ClusterSpec& s) { return s.uncached_copy_bandwidth > 0 ? bw_text(s.uncached_copy_bandwidth) : "0"; },
       {}},
      {{"source_read_bandwidth", "BANDWIDTH|0",
        "bytes the single copies reading one rank's memory move per second together (0: not limited; node_model.hpp)",
        "0"},
       [](ClusterSpec& s, auto n, auto v) { s.source_read_bandwidth = parse_bw_or_off(n, v); },
       [](const ClusterSpec& s) { return s.source_read_bandwidth > 0 ? bw_text(s.source_read_bandwidth) : "0"; },
       {}},
      {{"protocol", "NAME", "point-to-point protocols of the sim engine (ideal, tcp, tcp+shm, ucx)", "tcp"},
       [](ClusterSpec& s, auto n, auto v) {
         const std::string p(trim(v));
         if (!is_protocol_name(p)) bad(n, v, "is not a protocol (" + protocol_names() + ")");
         s.protocol = p;
       },
       [](const ClusterSpec& s) { return s.protocol; },
       {}},
      {{"network_model", "CM02|LV08|SMPI|IB", "SimGrid network model (CM02: latency + size / bandwidth)", "CM02"},
       [](ClusterSpec& s, auto n, auto v) {
         const std::string m(trim(v));
         if (m != "CM02" && m != "LV08" && m != "SMPI" && m != "IB")
           bad(n, v, "is not a SimGrid network model (CM02, LV08, SMPI or IB)");
         s.network_model = m;
       },
       [](const ClusterSpec& s) { return s.network_model; },
       {}},
      {{"crosstraffic", "0|1", "charge each flow's acknowledgements to the reverse route", "0"},
       [](ClusterSpec& s, auto n, auto v) { s.crosstraffic = parse_bool(n, v); },
       [](const ClusterSpec& s) { return std::string(s.crosstraffic ? "1" : "0"); },
       {}},
      {{"levels", "H", "fat_tree: switch levels", "2, or the length of down"},
       [](ClusterSpec& s, auto n, auto v) { s.levels = static_cast<int>(parse_count(n, v, 16)); },
       [](const ClusterSpec& s) { return std::to_string(fat_tree_shape(s).m.size()); },
       T::fat_tree},
      {{"down", "K|LIST", "fat_tree: children of a switch per level, leaves first (one value: every level)",
        "the levels-th root of nodes"},
       [](ClusterSpec& s, auto n, auto v) { s.down = parse_list(n, v); },
       [](const ClusterSpec& s) { return list_text(fat_tree_shape(s).m); },
       T::fat_tree},
      {{"taper", "T:1", "fat_tree: oversubscription of the leaf switches, down / up bandwidth (higher levels 1:1)",
        "1:1"},
       [](ClusterSpec& s, auto n, auto v) { s.taper = parse_taper(n, v); },
       [](const ClusterSpec& s) { return taper_text(leaf_taper(fat_tree_shape(s))); },
       T::fat_tree},
      {{"fat_tree", "H;M..;W..;P..",
        "fat_tree: SimGrid's own description (levels; children; parents; parallel links) instead of "
        "levels/down/taper",
        ""},
       [](ClusterSpec& s, auto n, auto v) {
         if (!parse_fat_tree(v))
           bad(n, v, "is not a fat-tree description h;m_1,..,m_h;w_1,..,w_h;p_1,..,p_h (e.g. 2;16,16;1,16;1,1)");
         s.fat_tree = std::string(trim(v));
       },
       [](const ClusterSpec& s) { return s.fat_tree; },
       T::fat_tree},
      {{"dims", "LIST", "torus: size of each dimension (nodes = their product)", ""},
       [](ClusterSpec& s, auto n, auto v) { s.dims = parse_list(n, v); },
       [](const ClusterSpec& s) { return list_text(s.dims); },
       T::torus},
      {{"groups", "G", "dragonfly: groups (at most routers)", ""},
       [](ClusterSpec& s, auto n, auto v) { s.groups = parse_count(n, v); },
       [](const ClusterSpec& s) { return std::to_string(s.groups); },
       T::dragonfly},
      {{"chassis", "C", "dragonfly: chassis per group", ""},
       [](ClusterSpec& s, auto n, auto v) { s.chassis = parse_count(n, v); },
       [](const ClusterSpec& s) { return std::to_string(s.chassis); },
       T::dragonfly},
      {{"routers", "R", "dragonfly: routers per chassis", ""},
       [](ClusterSpec& s, auto n, auto v) { s.routers = parse_count(n, v); },
       [](const ClusterSpec& s) { return std::to_string(s.routers); },
       T::dragonfly},
      {{"nodes_per_router", "N", "dragonfly: nodes per router", ""},
       [](ClusterSpec& s, auto n, auto v) { s.nodes_per_router = parse_count(n, v); },
       [](const ClusterSpec& s) { return std::to_string(s.nodes_per_router); },
       T::dragonfly},
      {{"blue_links", "N", "dragonfly: links between two groups (one link of N x bandwidth)", "1"},
       [](ClusterSpec& s, auto n, auto v) { s.blue_links = parse_count(n, v, 1024); },
       [](const ClusterSpec& s) { return std::to_string(s.blue_links); },
       T::dragonfly},
      {{"black_links", "N", "dragonfly: links between two chassis' routers of one group", "1"},
       [](ClusterSpec& s, auto n, auto v) { s.black_links = parse_count(n, v, 1024); },
       [](const ClusterSpec& s) { return std::to_string(s.black_links); },
       T::dragonfly},
      {{"green_links", "N", "dragonfly: links between two routers of one chassis", "1"},
       [](ClusterSpec& s, auto n, auto v) { s.green_links = parse_count(n, v, 1024); },
       [](const ClusterSpec& s) { return std::to_string(s.green_links); },
       T::dragonfly},
      {{"dragonfly", "G,B;C,K;R,E;N",
        "dragonfly: SimGrid's own description (groups,blue links; chassis,black links; routers,green links; "
        "nodes per router) instead of the seven above",
        ""},
       [](ClusterSpec& s, auto n, auto v) {
         if (!parse_dragonfly(v))
           bad(n, v, "is not a dragonfly description g,blue;c,black;r,green;n (e.g. 4,1;2,1;4,1;2)");
         s.dragonfly = std::string(trim(v));
       },
       [](const ClusterSpec& s) { return topo_parameters(s); },
       T::dragonfly},
  };
  return table;
}

std::string canonical(std::string_view name) {
  std::string n(trim(name));
  std::replace(n.begin(), n.end(), '-', '_');
  return n;
}

long long product(const std::vector<long long>& v) {
  long long p = 1;
  for (auto x : v) {
    p *= x;
    if (p > kMaxNodes) return kMaxNodes + 1;
  }
  return p;
}

std::string nodes_conflict(long long given, const std::string& what, long long derived) {
  return "nodes " + std::to_string(given) + " does not match " + what + " (" + std::to_string(derived) + " nodes)";
}

void check_fat_tree(ClusterSpec& s) {
  if (!s.fat_tree.empty()) {
    if (s.levels || !s.down.empty() || s.taper)
      throw InputError("fat_tree gives the whole fat-tree: levels, down and taper cannot be given too");
    const FatTreeShape f = *parse_fat_tree(s.fat_tree);
    const long long n = product(f.m);
    if (n > kMaxNodes)
      throw InputError("fat_tree '" + s.fat_tree + "' has more than " + std::to_string(kMaxNodes) + " nodes");
    if (s.nodes && s.nodes != n) throw InputError(nodes_conflict(s.nodes, "fat_tree '" + s.fat_tree + "'", n));
    s.nodes = n;
    return;
  }
  if (s.down.size() > 1) {
    if (s.levels && s.levels != static_cast<int>(s.down.size()))
      throw InputError("levels " + std::to_string(s.levels) + " does not match down '" + list_text(s.down) + "' (" +
                       std::to_string(s.down.size()) + " levels)");
    s.levels = static_cast<int>(s.down.size());
  }
  if (!s.levels) s.levels = 2;
  if (s.down.empty()) {
    if (!s.nodes) throw InputError("a fat_tree needs nodes or down (children per switch)");
    const auto k = std::llround(std::pow(static_cast<double>(s.nodes), 1.0 / s.levels));
    std::vector<long long> d(static_cast<std::size_t>(s.levels), k);
    if (k < 1 || product(d) != s.nodes)
      throw InputError("nodes " + std::to_string(s.nodes) + " is not k^" + std::to_string(s.levels) +
                       " for a whole k: give down (children per switch at each level, e.g. 32,32)");
    s.down = d;
  } else if (s.down.size() == 1) {
    s.down.assign(static_cast<std::size_t>(s.levels), s.down[0]);
  }
  const long long n = product(s.down);
  if (n > kMaxNodes)
    throw InputError("down '" + list_text(s.down) + "' gives more than " + std::to_string(kMaxNodes) + " nodes");
  if (s.nodes && s.nodes != n) throw InputError(nodes_conflict(s.nodes, "down '" + list_text(s.down) + "'", n));
  s.nodes = n;
  if (!s.taper) s.taper = 1;
  if (s.levels == 1 && s.taper != 1)
    throw InputError("taper " + taper_text(s.taper) + " needs a fat_tree of 2 levels or more (levels 1 is one switch)");
  if (s.levels > 1) {
    const double up = static_cast<double>(s.down[0]) / s.taper;
    if (up < 1 || std::fabs(up - std::round(up)) > 1e-9)
      throw InputError("taper " + taper_text(s.taper) + " does not divide the " + std::to_string(s.down[0]) +
                       " down ports of a leaf switch into a whole number of up links");
  }
}

void check_dragonfly(ClusterSpec& s) {
  if (!s.dragonfly.empty()) {
    if (s.groups || s.chassis || s.routers || s.nodes_per_router || s.blue_links != 1 || s.black_links != 1 ||
        s.green_links != 1)
      throw InputError(
          "dragonfly gives the whole dragonfly: groups, chassis, routers, nodes_per_router and the link counts cannot "
          "be given too");
    const DragonflyShape d = *parse_dragonfly(s.dragonfly);
    s.groups = d.groups;
    s.blue_links = d.blue;
    s.chassis = d.chassis;
    s.black_links = d.black;
    s.routers = d.routers;
    s.green_links = d.green;
    s.nodes_per_router = d.nodes;
    const long long n = product({d.groups, d.chassis, d.routers, d.nodes});
    if (s.nodes && s.nodes != n) throw InputError(nodes_conflict(s.nodes, "dragonfly '" + s.dragonfly + "'", n));
    s.dragonfly.clear();  // the fields now say it all
  }
  long long* dims[] = {&s.groups, &s.chassis, &s.routers, &s.nodes_per_router};
  const char* names[] = {"groups", "chassis", "routers", "nodes_per_router"};
  int missing = 0;
  long long known = 1;
  long long** hole = nullptr;
  for (auto*& d : dims) {
    if (*d == 0) {
      ++missing;
      hole = &d;
    } else {
      known *= *d;
    }
  }
  if (missing > 1 || (missing == 1 && !s.nodes))
    throw InputError("a dragonfly needs groups, chassis, routers and nodes_per_router (or nodes and three of them)");
  if (missing == 1) {
    if (s.nodes % known != 0)
      throw InputError("nodes " + std::to_string(s.nodes) + " is not a multiple of the other dragonfly dimensions (" +
                       std::to_string(known) + "): " + names[hole - dims] + " cannot be derived");
    **hole = s.nodes / known;
  }
  const long long n = product({s.groups, s.chassis, s.routers, s.nodes_per_router});
  if (n > kMaxNodes) throw InputError("the dragonfly has more than " + std::to_string(kMaxNodes) + " nodes");
  if (s.nodes && s.nodes != n)
    throw InputError(nodes_conflict(s.nodes, "groups x chassis x routers x nodes_per_router", n));
  s.nodes = n;
  // SimGrid 3.32 wires group g's global (blue) link to router g of each group's first chassis,
  // and fails on more groups than routers per chassis.
  if (s.groups > s.routers)
    throw InputError("groups " + std::to_string(s.groups) + " exceeds routers " + std::to_string(s.routers) +
                     ": SimGrid's dragonfly links group g through router g of a chassis, so groups <= routers");
}

}  // namespace

std::string topology_name(Topology t) {
  switch (t) {
    case Topology::crossbar: return "crossbar";
    case Topology::fat_tree: return "fat_tree";
    case Topology::torus: return "torus";
    case Topology::dragonfly: return "dragonfly";
  }
  return "?";
}

const std::vector<PlatformParameter>& platform_parameters() {
  static const std::vector<PlatformParameter> docs = [] {
    std::vector<PlatformParameter> d;
    for (const auto& e : entries()) d.push_back(e.doc);
    return d;
  }();
  return docs;
}

void set_parameter(ClusterSpec& spec, std::string_view name, std::string_view value) {
  const std::string key = canonical(name);
  for (const auto& e : entries())
    if (e.doc.name == key) return e.set(spec, name, value);
  std::string known;
  for (const auto& e : entries()) {
    if (!known.empty()) known += ", ";
    known += e.doc.name;
  }
  throw InputError(std::string(name) + ": not a platform parameter (" + known + ")");
}

void check(ClusterSpec& s) {
  // Another topology's parameters are a mistake (a torus with a taper): say so.
  const std::pair<const char*, bool> given[] = {
      {"levels", s.levels != 0},
      {"down", !s.down.empty()},
      {"taper", s.taper != 0},
      {"fat_tree", !s.fat_tree.empty()},
      {"dims", !s.dims.empty()},
      {"groups", s.groups != 0},
      {"chassis", s.chassis != 0},
      {"routers", s.routers != 0},
      {"nodes_per_router", s.nodes_per_router != 0},
      {"blue_links", s.blue_links != 1},
      {"black_links", s.black_links != 1},
      {"green_links", s.green_links != 1},
      {"dragonfly", !s.dragonfly.empty()},
  };
  for (const auto& [name, is_given] : given) {
    if (!is_given) continue;
    for (const auto& e : entries())
      if (e.doc.name == name && e.only && *e.only != s.topology)
        throw InputError(std::string(name) + " applies to topology " + topology_name(*e.only) + ", not " +
                         topology_name(s.topology));
  }
  switch (s.topology) {
    case Topology::crossbar:
      if (!s.nodes) throw InputError("a crossbar needs nodes");
      break;
    case Topology::fat_tree: check_fat_tree(s); break;
    case Topology::torus: {
      if (s.dims.empty()) throw InputError("a torus needs dims (the size of each dimension, e.g. 8,8,8)");
      const long long n = product(s.dims);
      if (n > kMaxNodes)
        throw InputError("dims '" + list_text(s.dims) + "' give more than " + std::to_string(kMaxNodes) + " nodes");
      if (s.nodes && s.nodes != n) throw InputError(nodes_conflict(s.nodes, "dims '" + list_text(s.dims) + "'", n));
      s.nodes = n;
      break;
    }
    case Topology::dragonfly: check_dragonfly(s); break;
  }
  for (const std::string& option : s.protocol_options)
    if (const std::string problem = check_protocol_option(option); !problem.empty())
      throw InputError("protocol option " + problem);
  if (s.numa_domains > 0 && s.cores % s.numa_domains != 0)
    throw InputError("numa_domains " + std::to_string(s.numa_domains) + " does not divide the " +
                     std::to_string(s.cores) + " cores of a socket");
  if (const int of = s.numa_domains > 0 ? s.cores / s.numa_domains : s.cores;
      s.core_group > 0 && of % s.core_group != 0)
    throw InputError("core_group " + std::to_string(s.core_group) + " does not divide the " + std::to_string(of) +
                     " cores of " + (s.numa_domains > 0 ? "a NUMA domain" : "a socket"));
  if ((s.shared_cache > 0) != (s.uncached_copy_bandwidth > 0))
    throw InputError(s.shared_cache > 0
                         ? "shared_cache needs uncached_copy_bandwidth (the rate of what it misses)"
                         : "uncached_copy_bandwidth needs shared_cache (the cache it is the miss rate of)");
  if (static_cast<long long>(s.sockets) * s.cores > 1 << 20)
    throw InputError("sockets x cores = " + std::to_string(static_cast<long long>(s.sockets) * s.cores) +
                     " cores per node is too many");
}

std::string topo_parameters(const ClusterSpec& s) {
  switch (s.topology) {
    case Topology::crossbar: return "";
    case Topology::fat_tree: {
      const FatTreeShape f = fat_tree_shape(s);
      return std::to_string(f.m.size()) + ";" + list_text(f.m) + ";" + list_text(f.w) + ";" + list_text(f.p);
    }
    case Topology::torus: return list_text(s.dims);
    case Topology::dragonfly:
      if (!s.dragonfly.empty()) return s.dragonfly;
      return std::to_string(s.groups) + "," + std::to_string(s.blue_links) + ";" + std::to_string(s.chassis) + "," +
             std::to_string(s.black_links) + ";" + std::to_string(s.routers) + "," + std::to_string(s.green_links) +
             ";" + std::to_string(s.nodes_per_router);
  }
  return "";
}

NetworkFacts network_facts(const ClusterSpec& s) {
  NetworkFacts f;
  const double n = static_cast<double>(s.nodes);
  switch (s.topology) {
    case Topology::crossbar:
      f.nearest_links = f.farthest_links = 2;
      f.bisection = std::floor(n / 2) * s.bandwidth;
      break;
    case Topology::fat_tree: {
      const FatTreeShape t = fat_tree_shape(s);
      const auto h = static_cast<long long>(t.m.size());
      f.nearest_links = t.m[0] > 1 ? 2 : 2 * std::min<long long>(2, h);
      f.farthest_links = 2 * h;
      // Links leaving each level upwards (level 0: the nodes), in node-link units: the fewest cap
      // the bisection. Level l has prod_{j<l} w_j x prod_{j>=l} m_j nodes or switches (0-based).
      double narrowest = n;
      for (std::size_t l = 0; l < t.m.size(); ++l) {
        double count = 1;
        for (std::size_t j = 0; j < l; ++j) count *= static_cast<double>(t.w[j]);
        for (std::size_t j = l; j < t.m.size(); ++j) count *= static_cast<double>(t.m[j]);
        narrowest = std::min(narrowest, count * static_cast<double>(t.w[l] * t.p[l]));
      }
      f.bisection = std::floor(narrowest / 2) * s.bandwidth;
      break;
    }
    case Topology::torus: {
      f.nearest_links = 1;
      long long largest = 1;
      for (auto d : s.dims) {
        f.farthest_links += d / 2;
        largest = std::max(largest, d);
      }
      if (s.nodes == 1) f.nearest_links = 0;
      // Halving the largest dimension cuts two links per ring of it (one where the wrap-around is).
      f.bisection = largest > 1 ? 2 * (n / static_cast<double>(largest)) * s.bandwidth : 0;
      break;
    }
    case Topology::dragonfly: {
      f.nearest_links = s.nodes_per_router > 1 ? 2 : 3;
      const long long inside = (s.routers > 1) + (s.chassis > 1);
      f.farthest_links = 2 + (s.groups > 1 ? 1 + 2 * inside : inside);
      // Between two halves of the groups: each group pair has one blue link.
      if (s.groups > 1) {
        const double a = std::floor(static_cast<double>(s.groups) / 2);
        const double b = static_cast<double>(s.groups) - a;
        f.bisection = a * b * static_cast<double>(s.blue_links) * s.bandwidth;
      }
      break;
    }
  }
  if (s.nodes < 2) f.nearest_links = f.farthest_links = 0;
  return f;
}

std::string describe_platform(const ClusterSpec& spec) {
  ClusterSpec s = spec;
  check(s);
  const NetworkFacts f = network_facts(s);
  const long long cores = static_cast<long long>(s.sockets) * s.cores;
  std::ostringstream out;
  out << "A " << topology_name(s.topology) << " of " << s.nodes << " nodes (" << s.sockets << " sockets x " << s.cores
      << " cores: " << s.nodes * cores << " ranks at one per core)";
  switch (s.topology) {
    case Topology::crossbar: out << ", every node on one switch"; break;
    case Topology::fat_tree:
      out << ", fat-tree " << topo_parameters(s) << " (taper " << taper_text(leaf_taper(fat_tree_shape(s)))
          << " at the leaf switches)";
      break;
    case Topology::torus: out << ", torus " << list_text(s.dims); break;
    case Topology::dragonfly:
      out << ", dragonfly of " << s.groups << " groups x " << s.chassis << " chassis x " << s.routers << " routers x "
          << s.nodes_per_router << " nodes (green, black, blue links of " << s.green_links << ", " << s.black_links
          << ", " << s.blue_links << " x bandwidth)";
      break;
  }
  const double factor = s.network_model == "LV08" ? 13.01 : 1;
  out << ". Between two nodes a route crosses " << f.nearest_links;
  if (f.farthest_links != f.nearest_links) out << " to " << f.farthest_links;
  out << " links of " << format_seconds(s.latency) << " and " << format_real(s.bandwidth / 1e9)
      << " GB/s: one-way latency " << format_seconds(static_cast<double>(f.nearest_links) * s.latency * factor);
  if (f.farthest_links != f.nearest_links)
    out << " to " << format_seconds(static_cast<double>(f.farthest_links) * s.latency * factor);
  if (s.network_model != "CM02" && s.network_model != "LV08") out << " (before " << s.network_model << "'s factors)";
  out << ", bandwidth " << format_real(s.bandwidth / 1e9) << " GB/s";
  if (f.bisection > 0) out << "; bisection " << format_real(f.bisection / 1e9) << " GB/s each way";
  out << ". Inside a node: " << format_seconds(s.loopback_latency) << ", " << format_real(s.loopback_bandwidth / 1e9)
      << " GB/s; copies " << format_real(s.memcpy / 1e9) << " GB/s. Network model " << s.network_model
      << (s.crosstraffic ? " with" : " without") << " cross traffic, protocol " << s.protocol << ".";
  return out.str();
}

namespace {

// Text for an XML comment, which may not hold "--".
std::string xml_comment(std::string text) {
  for (std::size_t i = text.find("--"); i != std::string::npos; i = text.find("--", i)) text.replace(i, 2, "- -");
  return text;
}

std::string wrap(const std::string& text, const std::string& indent, std::size_t width = 98) {
  std::istringstream words(text);
  std::string out, line, w;
  while (words >> w) {
    if (!line.empty() && indent.size() + line.size() + 1 + w.size() > width) {
      out += indent + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + w;
  }
  if (!line.empty()) out += indent + line + "\n";
  return out;
}
}  // namespace

std::string platform_xml(const ClusterSpec& spec, const std::string& command) {
  ClusterSpec s = spec;
  check(s);
  const NetworkFacts f = network_facts(s);
  std::vector<std::pair<std::string, std::string>> stated;  // name, value
  for (const auto& e : entries()) {
    if (e.only && *e.only != s.topology) continue;
    // A fat-tree is stated the way it was given (SimGrid's own description, or levels, down and
    // taper); a dragonfly by its fields, which say all its description does.
    const bool raw_tree = !s.fat_tree.empty();
    const bool tree_field = e.doc.name == "levels" || e.doc.name == "down" || e.doc.name == "taper";
    if (e.doc.name == "dragonfly" || (e.doc.name == "fat_tree" && !raw_tree) || (tree_field && raw_tree)) continue;
    // The levels inside a socket only where the node has them, so that other platforms read as before.
    const bool group_field = e.doc.name.starts_with("core_group"), numa_field = e.doc.name.starts_with("numa_");
    if ((group_field && s.core_group == 0) || (numa_field && s.numa_domains == 0)) continue;
    if (e.doc.name == "copy_overhead" && s.copy_overhead == 0) continue;
    if ((e.doc.name == "shared_cache" || e.doc.name == "uncached_copy_bandwidth") && s.shared_cache == 0) continue;
    stated.emplace_back(std::string(e.doc.name), e.get(s));
  }
  if (s.topology != Topology::crossbar) stated.emplace_back("topo_parameters", topo_parameters(s));
  for (const std::string& option : s.protocol_options) {
    const auto colon = option.find(':');
    stated.emplace_back(option.substr(0, colon), option.substr(colon + 1));
  }

  std::ostringstream x;
  x << "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<!--\n";
  x << wrap(xml_comment("Generated by `collsim platform` (src/engines/sim/generated_platform.hpp; parameters in "
                        "platforms/README.md). " +
                        describe_platform(s)),
            "  ");
  if (!command.empty()) x << "\n  The command that wrote it is the property collsim/command below.\n";
  x << "\n  Parameters (also stated as collsim/NAME properties of every host):\n";
  std::size_t width = 0;
  for (const auto& [n, v] : stated) width = std::max(width, n.size());
  for (const auto& [n, v] : stated)
    x << "    " << n << std::string(width - n.size() + 2, ' ') << xml_comment(v) << "\n";
  x << "\n";
  x << wrap("Latency is per link. A route between two nodes crosses " +
                std::string(s.topology == Topology::crossbar ? "2 links (the sender's, the receiver's)"
                            : s.topology == Topology::fat_tree
                                ? "2 links under one leaf switch, 2l when the nearest common switch is at level l"
                            : s.topology == Topology::torus
                                ? "one link per hop, dimension by dimension the shorter way round"
                                : "2 links under one router, 3 to 7 otherwise (node, green, black, blue, green, "
                                  "black, node)") +
                ", so on an idle route a message of m bytes takes links x latency + m / bandwidth under CM02 without "
                "cross traffic (LV08, SimGrid's default, multiplies latencies by 13.01 and bandwidths by 0.97). Two "
                "ranks of one node use the node's loopback: one link. Route lengths here: " +
                std::to_string(f.nearest_links) + " to " + std::to_string(f.farthest_links) + " links.",
            "  ");
  x << "-->\n<platform version=\"4.1\">\n  <config>\n";
  x << "    <prop id=\"network/model\" value=\"" << s.network_model << "\"/>\n";
  x << "    <prop id=\"network/crosstraffic\" value=\"" << (s.crosstraffic ? 1 : 0) << "\"/>\n";
  x << "  </config>\n";
  x << "  <cluster id=\"" << topology_name(s.topology) << "\" prefix=\"node-\" suffix=\"\" radical=\"0-" << s.nodes - 1
    << "\" speed=\"" << speed_text(s.speed) << "\" core=\"" << s.sockets * s.cores << "\"\n";
  x << "           bw=\"" << bw_text(s.bandwidth) << "\" lat=\"" << time_text(s.latency)
    << "\" sharing_policy=\"SPLITDUPLEX\"\n";
  x << "           loopback_bw=\"" << bw_text(s.loopback_bandwidth) << "\" loopback_lat=\""
    << time_text(s.loopback_latency) << "\"";
  if (s.topology != Topology::crossbar) {
    const char* simgrid_name = s.topology == Topology::fat_tree ? "FAT_TREE"
                               : s.topology == Topology::torus  ? "TORUS"
                                                                : "DRAGONFLY";
    x << "\n           topology=\"" << simgrid_name << "\" topo_parameters=\"" << topo_parameters(s) << "\"";
  }
  x << ">\n";
  x << "    <prop id=\"memcpy_bw\" value=\"" << bw_text(s.memcpy) << "\"/>\n";
  for (const auto& [n, v] : stated) {
    if (n == "memcpy") continue;  // memcpy_bw above
    x << "    <prop id=\"collsim/" << n << "\" value=\"" << xml_escaped(v) << "\"/>\n";
  }
  if (!command.empty()) x << "    <prop id=\"collsim/command\" value=\"" << xml_escaped(command) << "\"/>\n";
  x << "  </cluster>\n</platform>\n";
  // Held to what any platform file is held to before SimGrid reads it.
  std::string xml = x.str();
  check_platform_text("the generated platform", xml);
  return xml;
}

}  // namespace collsim
