#include "engines/sim/platform_file.hpp"

#include <expat.h>
#include <xbt/parse_units.hpp>

// simgrid/version.h needs the macros of xbt/base.h.
#include <xbt/base.h>

#include <simgrid/version.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <unordered_map>
#include <utility>

#include "engines/sim/generated_platform.hpp"
#include "engines/sim/protocol.hpp"
#include "engines/sim/simulation.hpp"
#include "support/units.hpp"

namespace collsim {

namespace {

// ---- SimGrid's platform format (its DTD, version 4.1, as SimGrid 3.32 reads it) ----

enum class Value {
  text,
  speeds,              // one speed, or a list of pstates' speeds "1Gf,2Gf"
  speed,               // one
  bandwidth,           // positive
  optional_bandwidth,  // "" = none
  link_bandwidth,      // a list for a WIFI link (one rate per station), else one
  time,                // 0, or from 1 ns
  optional_time,       // "" = none
  cores,               // whole number from 1
  pstate,              // index into the host's speeds
  radical,             // "0-15,20,22-23"
  choice,              // one of Attribute::choices
  routing,             // a zone's routing, any case
  version,             // <platform>'s
};

struct Attribute {
  std::string_view name;
  bool required;
  Value value;
  std::vector<std::string_view> choices = {};
};

struct Rule {
  std::string_view element;
  std::vector<Attribute> attributes;
  std::vector<std::string_view> children;
  bool text = false;         // holds text (a <trace>'s values)
  std::string_view refused;  // why SimGrid 3.32 or collsim refuses the element, if it does
};

const std::vector<std::string_view> kPlatformChildren = {"config",  "random",        "include", "cluster",
                                                         "cabinet", "peer",          "AS",      "zone",
                                                         "trace",   "trace_connect", "process", "actor"};
// A zone holds either zones or hosts (with their routes); SimGrid's parser checks the order.
const std::vector<std::string_view> kZoneChildren = {
    "prop",    "AS",    "zone",          "include",   "link",    "backbone",      "cabinet",         "cluster",
    "peer",    "trace", "trace_connect", "zoneRoute", "ASroute", "bypassASroute", "bypassZoneRoute", "storage_type",
    "storage", "host",  "router",        "host_link", "route",   "bypassRoute"};
const std::vector<std::string_view> kRoutings = {"Full", "Floyd",   "Dijkstra", "DijkstraCache",
                                                 "None", "Vivaldi", "Cluster",  "Wifi"};

Rule rule(std::string_view element, std::vector<Attribute> attributes, std::vector<std::string_view> children,
          bool text = false) {
  return {element, std::move(attributes), std::move(children), text, {}};
}
Rule refused(std::string_view element, std::string_view why) { return {element, {}, {}, false, why}; }

Attribute required(std::string_view name, Value v = Value::text) { return {name, true, v, {}}; }
Attribute optional(std::string_view name, Value v = Value::text) { return {name, false, v, {}}; }
Attribute choice(std::string_view name, std::vector<std::string_view> choices) {
  return {name, false, Value::choice, std::move(choices)};
}

const std::vector<Rule>& rules() {
  static const std::vector<Rule> table = [] {
    const Attribute symmetrical = choice("symmetrical", {"YES", "NO", "yes", "no"});
    const std::vector<Attribute> zone = {required("id"), required("routing", Value::routing)};
    const std::vector<Attribute> zone_route = {required("src"), required("dst"), required("gw_src"), required("gw_dst"),
                                               symmetrical};
    const std::vector<Attribute> bypass_zone_route = {required("src"), required("dst"), required("gw_src"),
                                                      required("gw_dst")};
    const std::string_view removed_327 = "was removed from SimGrid's platforms in SimGrid 3.27";
    const std::string_view actors =
        "deploys a program: collsim places its own ranks, so a platform for it deploys none";
    return std::vector<Rule>{
        rule("platform", {optional("version", Value::version)}, kPlatformChildren),
        rule("config", {optional("id")}, {"prop"}),
        rule("prop", {required("id"), required("value")}, {}),
        rule("random",
             {required("id"), required("min"), required("max"), required("mean"), required("std_deviation"),
              optional("seed"), optional("radical"), choice("generator", {"DRAND48", "RAND", "RNGSTREAM", "NONE"})},
             {}),
        refused("include", "was removed from SimGrid's platforms in SimGrid 3.18"),
        rule("trace", {required("id"), optional("file"), required("periodicity")}, {}, true),
        rule("trace_connect",
             {choice("kind", {"HOST_AVAIL", "SPEED", "LINK_AVAIL", "BANDWIDTH", "LATENCY"}), required("trace"),
              required("element")},
             {}),
        rule("zone", zone, kZoneChildren),
        rule("AS", zone, kZoneChildren),
        refused("storage_type", removed_327),
        refused("storage", removed_327),
        refused("mount", removed_327),
        refused("model_prop", removed_327),
        rule("host",
             {required("id"), required("speed", Value::speeds), optional("core", Value::cores), optional("speed_file"),
              optional("availability_file"), optional("state_file"), optional("coordinates"),
              optional("pstate", Value::pstate)},
             {"disk", "prop", "mount"}),
        rule("disk", {optional("id"), required("read_bw", Value::bandwidth), required("write_bw", Value::bandwidth)},
             {"prop"}),
        rule("host_link", {required("id"), required("up"), required("down")}, {}),
        rule(
            "cluster",
            {required("id"), required("prefix"), required("suffix"), required("radical", Value::radical),
             required("speed", Value::speeds), optional("core", Value::cores), required("bw", Value::bandwidth),
             required("lat", Value::time), choice("sharing_policy", {"SHARED", "SPLITDUPLEX", "FULLDUPLEX", "FATPIPE"}),
             choice("topology", {"FLAT", "TORUS", "FAT_TREE", "DRAGONFLY"}), optional("topo_parameters"),
             optional("bb_bw", Value::optional_bandwidth), optional("bb_lat", Value::optional_time),
             choice("bb_sharing_policy", {"SHARED", "FATPIPE"}), optional("router_id"),
             optional("limiter_link", Value::optional_bandwidth), optional("loopback_bw", Value::optional_bandwidth),
             optional("loopback_lat", Value::optional_time)},
            {"prop"}),
        rule("cabinet",
             {required("id"), required("prefix"), required("suffix"), required("radical", Value::radical),
              required("speed", Value::speed), required("bw", Value::bandwidth), required("lat", Value::time)},
             {}),
        rule("peer",
             {required("id"), required("speed", Value::speed), required("bw_in", Value::bandwidth),
              required("bw_out", Value::bandwidth), optional("lat", Value::time), optional("coordinates"),
              optional("speed_file"), optional("availability_file"), optional("state_file")},
             {}),
        rule("router", {required("id"), optional("coordinates")}, {}),
        rule("backbone", {required("id"), required("bandwidth", Value::bandwidth), required("latency", Value::time)},
             {}),
        // SimGrid 3.32 fails on a link without latency ("cannot parse number"), whatever its DTD says.
        rule("link",
             {required("id"), required("bandwidth", Value::link_bandwidth), optional("bandwidth_file"),
              required("latency", Value::time), optional("latency_file"), optional("state_file"),
              choice("sharing_policy", {"SHARED", "SPLITDUPLEX", "FULLDUPLEX", "FATPIPE", "WIFI"})},
             {"prop"}),
        rule("route", {required("src"), required("dst"), symmetrical}, {"link_ctn"}),
        rule("zoneRoute", zone_route, {"link_ctn"}),
        rule("ASroute", zone_route, {"link_ctn"}),
        rule("bypassRoute", {required("src"), required("dst")}, {"link_ctn"}),
        rule("bypassZoneRoute", bypass_zone_route, {"link_ctn"}),
        rule("bypassASroute", bypass_zone_route, {"link_ctn"}),
        rule("link_ctn", {required("id"), choice("direction", {"UP", "DOWN", "NONE"})}, {}),
        refused("actor", actors),
        refused("process", actors),
        rule("argument", {required("value")}, {}),
    };
  }();
  return table;
}

const Rule* rule_of(std::string_view element) {
  for (const Rule& r : rules())
    if (r.element == element) return &r;
  return nullptr;
}

std::string joined(const std::vector<std::string_view>& names) {
  std::string s;
  for (auto n : names) s += (s.empty() ? "" : ", ") + std::string(n);
  return s;
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (;;) {
    const auto at = s.find(sep);
    out.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return out;
    s.remove_prefix(at + 1);
  }
}

std::optional<long long> whole(std::string_view s, long long max) {
  s = trimmed(s);
  if (s.empty() || s.size() > 18 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  const long long v = std::stoll(std::string(s));
  return v <= max ? std::optional<long long>(v) : std::nullopt;
}

// ---- values ----

enum class Quantity { speed, bandwidth, time };

// What is wrong with a speed, bandwidth or time as SimGrid would read it ("" if nothing): not one
// SimGrid takes without a warning (it takes a unit-less value, warning that this is deprecated),
// not finite, negative, or 0 for a speed or bandwidth.
std::string quantity_problem(std::string_view text, Quantity q) {
  static constexpr const char* kWhat[] = {"a speed (e.g. 38.4Gf)", "a bandwidth (e.g. 1.25GBps, 10Gbps)",
                                          "a time (e.g. 10us, 1.5ms)"};
  static constexpr const char* kUnit[] = {"f for flop/s", "Bps for bytes/s", "s for seconds"};
  const auto k = static_cast<std::size_t>(q);
  const std::string s(text);
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);  // as SimGrid reads the number
  if (end == s.c_str()) return std::string("is not ") + kWhat[k];
  if (*end == '\0') {
    if (!std::isfinite(v)) return "is not a finite number";
    if (v != 0) return std::string("has no unit (add ") + kUnit[k] + ")";
  } else {
    try {
      v = q == Quantity::speed       ? xbt_parse_get_speed("", 0, s, "")
          : q == Quantity::bandwidth ? xbt_parse_get_bandwidth("", 0, s, "")
                                     : xbt_parse_get_time("", 0, s, "");
    } catch (const std::exception& e) {
      return std::strstr(e.what(), "out of range") ? "is out of range" : std::string("is not ") + kWhat[k];
    }
    if (!std::isfinite(v)) return "is not finite";
  }
  // SimGrid warns of a latency below its time resolution (surf/precision, 1 ns by default), which
  // it rounds.
  if (q == Quantity::time && v > 0 && v < 1e-9)
    return "is below 1ns, the resolution of SimGrid's clock: give 0 or 1ns or more";
  if (q == Quantity::time) return v < 0 ? "must not be negative" : "";
  return v > 0 ? "" : "must be more than 0";
}

// "0-15,20": the ranges, or nullopt when the text is not such a list (with at most
// kMaxPlatformHosts numbers, none twice).
std::optional<std::vector<std::pair<long long, long long>>> radical_ranges(std::string_view text) {
  std::vector<std::pair<long long, long long>> out;
  long long count = 0;
  for (std::string_view item : split(text, ',')) {
    const auto parts = split(item, '-');
    if (parts.size() > 2) return std::nullopt;
    const auto a = whole(parts[0], LLONG_MAX / 2), b = whole(parts.back(), LLONG_MAX / 2);
    if (!a || !b || *b < *a) return std::nullopt;
    count += *b - *a + 1;
    if (count > kMaxPlatformHosts) return std::nullopt;
    out.emplace_back(*a, *b);
  }
  std::vector<std::pair<long long, long long>> sorted = out;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 1; i < sorted.size(); ++i)
    if (sorted[i].first <= sorted[i - 1].second) return std::nullopt;
  return out;
}

long long radical_count(const std::vector<std::pair<long long, long long>>& ranges) {
  long long n = 0;
  for (const auto& [a, b] : ranges) n += b - a + 1;
  return n;
}

// An element's attributes in the order written (so that the first bad one is the one reported).
using Attributes = std::vector<std::pair<std::string, std::string>>;

const std::string* find(const Attributes& attrs, std::string_view key) {
  for (const auto& [k, v] : attrs)
    if (k == key) return &v;
  return nullptr;
}

std::string get(const Attributes& attrs, std::string_view key) {
  const std::string* v = find(attrs, key);
  return v ? *v : std::string();
}

// Whether a <cluster> or <cabinet> with these attributes makes a host called `name`.
bool makes_host(const Attributes& attrs, std::string_view name) {
  const std::string prefix = get(attrs, "prefix"), suffix = get(attrs, "suffix");
  if (name.size() <= prefix.size() + suffix.size() || !name.starts_with(prefix) || !name.ends_with(suffix))
    return false;
  const std::string_view number = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  const auto n = whole(number, LLONG_MAX / 2);
  if (!n || (number.size() > 1 && number[0] == '0')) return false;
  const auto ranges = radical_ranges(get(attrs, "radical"));
  return ranges &&
         std::any_of(ranges->begin(), ranges->end(), [&](const auto& r) { return r.first <= *n && *n <= r.second; });
}

std::string place(const std::string& file, long line, long column) {
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

// ---- reading with expat ----

// How a reading ended: expat's error (none, or aborted when a handler stopped it) and where.
struct ExpatOutcome {
  XML_Error error = XML_ERROR_NONE;
  long line = 0, column = 0;
};

// expat with handlers; a handler returning false stops the reading.
class Reader {
 public:
  std::function<bool(const std::string&, const Attributes&, long, long)> on_start;
  std::function<void(const std::string&)> on_end;
  std::function<bool(std::string_view, long, long)> on_text;  // false: stop
  std::function<bool(const char* name, const char* system_id, const char* public_id, bool subset, long, long)>
      on_doctype;

  Reader() : parser_(XML_ParserCreate(nullptr)) {
    XML_SetUserData(parser_, this);
    XML_SetElementHandler(parser_, &Reader::start, &Reader::end);
    XML_SetCharacterDataHandler(parser_, &Reader::characters);
    XML_SetStartDoctypeDeclHandler(parser_, &Reader::doctype);
  }
  ~Reader() { XML_ParserFree(parser_); }
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  // Reads the whole document (at most INT_MAX bytes).
  void feed(std::string_view data) {
    text_ = data;
    if (XML_Parse(parser_, data.data(), static_cast<int>(data.size()), 1) == XML_STATUS_OK) return;
    outcome_.error = XML_GetErrorCode(parser_);
    outcome_.line = static_cast<long>(XML_GetCurrentLineNumber(parser_));
    outcome_.column = static_cast<long>(XML_GetCurrentColumnNumber(parser_)) + 1;
  }
  const ExpatOutcome& outcome() const { return outcome_; }

 private:
  long line() const { return static_cast<long>(XML_GetCurrentLineNumber(parser_)); }
  long column() const { return static_cast<long>(XML_GetCurrentColumnNumber(parser_)) + 1; }
  void stop() { XML_StopParser(parser_, XML_FALSE); }

  static void start(void* self, const XML_Char* name, const XML_Char** atts) {
    auto* r = static_cast<Reader*>(self);
    if (!r->on_start) return;
    Attributes a;
    for (std::size_t i = 0; atts[i]; i += 2) a.emplace_back(atts[i], atts[i + 1]);
    if (!r->on_start(name, a, r->line(), r->column())) r->stop();
  }
  static void end(void* self, const XML_Char* name) {
    auto* r = static_cast<Reader*>(self);
    if (r->on_end) r->on_end(name);
  }
  static void characters(void* self, const XML_Char* s, int len) {
    auto* r = static_cast<Reader*>(self);
    if (r->on_text && !r->on_text(std::string_view(s, static_cast<std::size_t>(len)), r->line(), r->column()))
      r->stop();
  }
  // expat calls it at the end of the declaration: the place given is its start.
  static void doctype(void* self, const XML_Char* name, const XML_Char* sysid, const XML_Char* pubid, int subset) {
    auto* r = static_cast<Reader*>(self);
    if (!r->on_doctype) return;
    const auto here = static_cast<std::size_t>(XML_GetCurrentByteIndex(r->parser_));
    const std::size_t at = std::min(r->text_.rfind("<!DOCTYPE", here), here);
    const std::string_view before = r->text_.substr(0, at);
    const long line = 1 + static_cast<long>(std::count(before.begin(), before.end(), '\n'));
    const auto newline = before.rfind('\n');
    const long column = static_cast<long>(at - (newline == std::string_view::npos ? 0 : newline + 1)) + 1;
    if (!r->on_doctype(name, sysid, pubid, subset != 0, line, column)) r->stop();
  }

  XML_Parser parser_;
  std::string_view text_;
  ExpatOutcome outcome_;
};

// SimGrid's parser takes "--" inside a comment, which XML forbids (platforms/grisou.xml has one:
// "--cfg"); the first '-' of each such pair becomes a space, which keeps lines and columns.
void blank_double_dashes_in_comments(std::string& xml) {
  bool inside = false;
  for (std::size_t i = 0; i + 1 < xml.size(); ++i) {
    if (!inside) {
      if (xml.compare(i, 4, "<!--") == 0) {
        inside = true;
        i += 3;
      }
    } else if (xml[i] == '-' && xml[i + 1] == '-') {
      if (i + 2 < xml.size() && xml[i + 2] == '>') {
        inside = false;
        i += 2;
      } else {
        xml[i] = ' ';
      }
    }
  }
}

// Feeds `text`, else the file, to the reader; sets `problem` when the file cannot be read.
ExpatOutcome read_into(Reader& reader, const std::string& file, std::optional<std::string_view> text,
                       std::string& problem) {
  std::string xml;
  if (text) {
    xml = *text;
  } else {
    std::ifstream in(file, std::ios::binary | std::ios::ate);
    if (!in) {
      problem = std::string("cannot open: ") + std::strerror(errno);
      return {};
    }
    if (in.tellg() > std::streampos(INT_MAX)) {  // expat's limit for one piece
      problem = "larger than 2 GiB, too large for a platform";
      return {};
    }
    in.seekg(0);
    xml.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (in.bad()) {
      problem = std::string("cannot read: ") + std::strerror(errno);
      return {};
    }
  }
  blank_double_dashes_in_comments(xml);
  reader.feed(xml);
  return reader.outcome();
}

// ---- the check ----

class Checker {
 public:
  explicit Checker(std::string name) : name_(std::move(name)) {}

  CheckedPlatform run(std::optional<std::string_view> text) {
    Reader reader;
    reader.on_doctype = [this](const char* name, const char* sysid, const char* pubid, bool subset, long l, long c) {
      return doctype(name, sysid, pubid, subset, l, c);
    };
    reader.on_start = [this](const std::string& e, const Attributes& a, long l, long c) { return start(e, a, l, c); };
    reader.on_end = [this](const std::string&) { end(); };
    reader.on_text = [this](std::string_view s, long l, long c) { return characters(s, l, c); };
    std::string problem;
    const ExpatOutcome o = read_into(reader, name_, text, problem);
    if (!problem.empty()) throw PlatformError(name_ + ": " + problem);
    if (!error_.empty()) throw PlatformError(error_);
    if (o.error != XML_ERROR_NONE) {
      std::string what = XML_ErrorString(o.error);
      if (o.error == XML_ERROR_TAG_MISMATCH && !stack_.empty())
        what += " (the <" + std::string(stack_.back().rule->element) + "> of line " +
                std::to_string(stack_.back().line) + " is still open)";
      throw PlatformError(place(name_, o.line, o.column) + ": malformed XML: " + what);
    }
    finish();
    return std::move(out_);
  }

 private:
  struct Frame {
    const Rule* rule;
    long line;
    long long cores = 1;  // a <host>'s or <cluster>'s
    // Its collsim/sockets, collsim/numa_domains and collsim/core_group as stated so far (0: not).
    int sockets = 0;
    int numa_domains = 0;
    int core_group = 0;
  };

  bool fail(const std::string& where, const std::string& what) {
    error_ = where + ": " + what;
    return false;
  }

  bool doctype(const char* name, const char* sysid, const char* pubid, bool subset, long l, long c) {
    seen_doctype_ = true;
    const std::string sys = sysid ? sysid : "";
    // SimGrid's parser takes only these two spellings, without an internal subset.
    if (std::string_view(name) != "platform" || pubid || subset ||
        (sys != "https://simgrid.org/simgrid.dtd" && sys != "http://simgrid.gforge.inria.fr/simgrid/simgrid.dtd"))
      return fail(place(name_, l, c), "SimGrid reads only the DOCTYPE " + std::string(kDoctype));
    return true;
  }

  bool characters(std::string_view s, long l, long c) {
    if (stack_.empty() || stack_.back().rule->text) return true;
    for (char ch : s) {
      if (!std::isspace(static_cast<unsigned char>(ch)))
        return fail(place(name_, l, c),
                    "text inside <" + std::string(stack_.back().rule->element) + ">, which holds only elements");
      if (ch == '\n') {
        ++l;
        c = 1;
      } else {
        ++c;
      }
    }
    return true;
  }

  bool start(const std::string& element, const Attributes& attrs, long l, long c) {
    const std::string at = place(name_, l, c);
    const Rule* rule = rule_of(element);
    if (stack_.empty()) {
      if (element != "platform") return fail(at, "the root element is <" + element + ">, not <platform>");
      if (!seen_doctype_) return fail(at, "SimGrid needs the DOCTYPE " + std::string(kDoctype) + " before <platform>");
    } else if (!rule) {
      return fail(at, "<" + element + "> is not an element of SimGrid platforms");
    } else {
      const Rule& parent = *stack_.back().rule;
      if (std::find(parent.children.begin(), parent.children.end(), element) == parent.children.end())
        return fail(at, "<" + element + "> cannot be inside <" + std::string(parent.element) + ">" +
                            (parent.children.empty() ? " (which holds nothing)"
                                                     : " (which holds " + joined(parent.children) + ")"));
    }
    if (!rule->refused.empty()) return fail(at, "<" + element + "> " + std::string(rule->refused));
    Frame frame{rule, l};
    if (!attributes(*rule, attrs, at, frame)) return false;
    if (!element_facts(element, attrs, at, l)) return false;
    stack_.push_back(std::move(frame));
    return true;
  }

  void end() {
    if (!stack_.empty()) stack_.pop_back();
  }

  bool attributes(const Rule& rule, const Attributes& attrs, const std::string& at, Frame& frame) {
    const std::string tag = "<" + std::string(rule.element) + ">";
    for (const auto& [key, value] : attrs) {
      const auto a = std::find_if(rule.attributes.begin(), rule.attributes.end(),
                                  [&](const Attribute& x) { return x.name == key; });
      if (a == rule.attributes.end()) {
        std::vector<std::string_view> names;
        for (const Attribute& x : rule.attributes) names.push_back(x.name);
        return fail(at, tag + " has no attribute " + key + " (it takes " + joined(names) + ")");
      }
      const std::string problem = value_problem(*a, value, attrs, frame);
      if (!problem.empty()) return fail(at, tag + " " + key + " '" + value + "' " + problem);
    }
    for (const Attribute& a : rule.attributes)
      if (a.required && !find(attrs, a.name)) return fail(at, tag + " needs the attribute " + std::string(a.name));
    return true;
  }

  std::string value_problem(const Attribute& a, const std::string& v, const Attributes& attrs, Frame& frame) {
    const auto list = [&](Quantity q) {
      for (std::string_view item : split(v, ','))
        if (std::string problem = quantity_problem(trimmed(item), q); !problem.empty()) return problem;
      return std::string();
    };
    switch (a.value) {
      case Value::text: break;
      case Value::speeds: return list(Quantity::speed);
      case Value::speed: return quantity_problem(v, Quantity::speed);
      case Value::optional_bandwidth:
        if (v.empty()) break;
        [[fallthrough]];
      case Value::bandwidth: return quantity_problem(v, Quantity::bandwidth);
      case Value::link_bandwidth: {
        const std::string* policy = find(attrs, "sharing_policy");
        return policy && *policy == "WIFI" ? list(Quantity::bandwidth) : quantity_problem(v, Quantity::bandwidth);
      }
      case Value::optional_time:
        if (v.empty()) break;
        [[fallthrough]];
      case Value::time: return quantity_problem(v, Quantity::time);
      case Value::cores: {
        const auto n = whole(v, INT_MAX);
        if (!n || *n < 1) return "is not a whole number from 1 to " + std::to_string(INT_MAX);
        frame.cores = *n;
        break;
      }
      case Value::pstate: {
        const std::string* speeds = find(attrs, "speed");
        const auto count = static_cast<long long>(speeds ? split(*speeds, ',').size() : 1);
        char* end = nullptr;
        const double p = std::strtod(v.c_str(), &end);
        if (end == v.c_str() || *end != '\0' || p < 0 || p != std::floor(p) || p >= static_cast<double>(count))
          return "is not the index of one of the host's " + std::to_string(count) + " speeds (0 to " +
                 std::to_string(count - 1) + ")";
        break;
      }
      case Value::radical:
        if (!radical_ranges(v))
          return "is not a list of numbers and ranges, none twice (e.g. 0-15 or 1,3,5-8; at most " +
                 std::to_string(kMaxPlatformHosts) + " hosts)";
        break;
      case Value::choice:
        if (std::find(a.choices.begin(), a.choices.end(), v) == a.choices.end())
          return "is not one of " + joined(a.choices);
        break;
      case Value::routing:
        if (std::none_of(kRoutings.begin(), kRoutings.end(), [&](std::string_view r) {
              return r.size() == v.size() && std::equal(r.begin(), r.end(), v.begin(), [](char x, char y) {
                       return std::tolower(static_cast<unsigned char>(x)) ==
                              std::tolower(static_cast<unsigned char>(y));
                     });
            }))
          return "is not a routing of SimGrid (" + joined(kRoutings) + ")";
        break;
      case Value::version: {
        char* end = nullptr;
        const double version = std::strtod(v.c_str(), &end);
        const std::string simgrid = std::string("SimGrid ") + std::to_string(SIMGRID_VERSION_MAJOR) + "." +
                                    std::to_string(SIMGRID_VERSION_MINOR);
        if (end == v.c_str() || *end != '\0') return "is not a version number (" + simgrid + " reads version 4.1)";
        if (version < 4)
          return "is too old: " + simgrid + " reads version 4.1 (simgrid_update_xml " + name_ + " updates the file)";
        if (version > 4.1) return "is newer than version 4.1, the latest " + simgrid + " reads";
        break;
      }
    }
    return "";
  }

  // What an element adds: hosts, names, <config> options; and the checks of its references and
  // of collsim's properties.
  bool element_facts(const std::string& element, const Attributes& attrs, const std::string& at, long line) {
    if (element == "platform") {
      platform_place_ = at;
      if (!find(attrs, "version"))
        return fail(at, "<platform> has no version: SimGrid reads it as 0.0, too old (the version is 4.1)");
    } else if (element == "host" || element == "peer" || element == "router") {
      if (!name(get(attrs, "id"), at, line)) return false;
      if (element != "router") hosts_ += 1;
      if (element == "peer") {
        generates_names_ = true;
        // SimGrid warns that it is deprecated, and takes it.
        const std::string* lat = find(attrs, "lat");
        if (lat && std::strtod(lat->c_str(), nullptr) != 0)
          return fail(at, "<peer> lat '" + *lat + "': SimGrid takes a peer's latency from its coordinates (the third)");
      }
    } else if (element == "zone" || element == "AS") {
      if (!name(get(attrs, "id"), at, line)) return false;
    } else if (element == "cluster" || element == "cabinet") {
      generates_names_ = true;
      if (element == "cluster" && !name(get(attrs, "id"), at, line)) return false;
      long long count = radical_count(*radical_ranges(get(attrs, "radical")));
      const std::string topology = get(attrs, "topology");
      if (!topology.empty() && topology != "FLAT") {
        const long long needed = topology_hosts(topology, get(attrs, "topo_parameters"), at);
        if (needed < 0) return false;
        if (needed > count)
          return fail(at, "<cluster> radical '" + get(attrs, "radical") + "' gives " + std::to_string(count) +
                              " hosts, but its " + topology + " topology has " + std::to_string(needed));
        count = needed;
      }
      hosts_ += count;
    } else if (element == "link" || element == "backbone") {
      const std::string id = get(attrs, "id");
      const auto [it, fresh] = links_.try_emplace(id, line);
      if (!fresh)
        return fail(at, "a link named '" + id + "' is already defined (line " + std::to_string(it->second) + ")");
    } else if (element == "route" || element == "bypassRoute") {
      const std::string src = get(attrs, "src"), dst = get(attrs, "dst");
      for (const auto& [end, name] : {std::pair{"src", src}, std::pair{"dst", dst}})
        if (!generates_names_ && !names_.count(name))
          return fail(at,
                      "<" + element + "> " + end + " '" + name + "' names no host, router or zone defined before it");
      if (element == "route") {
        // SimGrid refuses a route given twice, counting the way back of a symmetrical one.
        const bool both_ways = get(attrs, "symmetrical") != "NO" && get(attrs, "symmetrical") != "no" && src != dst;
        for (const auto& key : {src + '\0' + dst, dst + '\0' + src}) {
          const auto [it, fresh] = routes_.try_emplace(key, line);
          if (!fresh)
            return fail(at, "the route between " + src + " and " + dst + " is given twice (line " +
                                std::to_string(it->second) + "; a route goes both ways unless symmetrical=\"NO\")");
          if (!both_ways) break;
        }
      }
    } else if (element == "link_ctn") {
      std::string id = get(attrs, "id");
      for (const char* direction : {"_UP", "_DOWN"})
        if (id.ends_with(direction) && !links_.count(id)) id.resize(id.size() - std::strlen(direction));
      if (!generates_names_ && !links_.count(id))
        return fail(at, "<link_ctn> id '" + get(attrs, "id") + "' names no link defined before it");
    } else if (element == "prop") {
      return property(get(attrs, "id"), get(attrs, "value"), at);
    }
    if (hosts_ > kMaxPlatformHosts)
      return fail(at, "the platform has more than " + std::to_string(kMaxPlatformHosts) + " hosts");
    return true;
  }

  // Hosts, routers and zones share one space of names in SimGrid.
  bool name(const std::string& id, const std::string& at, long line) {
    const auto [it, fresh] = names_.try_emplace(id, line);
    if (!fresh) return fail(at, "the name '" + id + "' is already taken (line " + std::to_string(it->second) + ")");
    return true;
  }

  // Hosts of a cluster's topology (TORUS, FAT_TREE, DRAGONFLY), read as collsim platform reads
  // SimGrid's descriptions; -1 after a failure.
  long long topology_hosts(const std::string& topology, const std::string& parameters, const std::string& at) {
    ClusterSpec spec;
    try {
      const char* key = topology == "TORUS" ? "dims" : topology == "FAT_TREE" ? "fat_tree" : "dragonfly";
      set_parameter(spec, "topology",
                    topology == "TORUS"      ? "torus"
                    : topology == "FAT_TREE" ? "fat_tree"
                                             : "dragonfly");
      set_parameter(spec, key, parameters);
      check(spec);
    } catch (const InputError& e) {
      fail(at, "<cluster> topo_parameters of its " + topology + " topology: " + e.what());
      return -1;
    }
    return spec.nodes;
  }

  bool property(const std::string& id, const std::string& value, const std::string& at) {
    const std::string_view parent = stack_.back().rule->element;
    if (parent == "config") {
      out_.options.push_back({id, value, at});
      return true;
    }
    const bool sockets = id == "collsim/sockets", protocol = id == "collsim/protocol";
    // The levels inside a socket (node_model.hpp): whole numbers checked against the cores at the end.
    const bool level = id == "collsim/core_group" || id == "collsim/numa_domains";
    // Rates of the node model (node_model.hpp) and of a core's copies.
    const bool rate = id == "memcpy_bw" || id == "collsim/memory_bandwidth" || id == "collsim/inter_socket_bandwidth";
    // Registration (models/registration.hpp): a time per call and per page, the page's size.
    const bool registration_time = id == "collsim/registration_call" || id == "collsim/registration_page";
    const bool page = id == "collsim/page_size";
    // A copy's per-call cost (models::copy_time) is a time too.
    const bool time = id == "collsim/inter_socket_latency" || id == "collsim/core_group_latency" ||
                      id == "collsim/numa_latency" || id == "collsim/copy_overhead" || registration_time;
    // Fresh data, the readers of one process and the levels' rates (node_model.hpp): 0 says the
    // node has none of it (or, for a NUMA domain's memory, the socket's split).
    const bool rate_or_off = id == "collsim/fresh_copy_bandwidth" || id == "collsim/core_group_bandwidth" ||
                             id == "collsim/numa_memory_bandwidth" ||
                             id == "collsim/inter_socket_fresh_copy_bandwidth" ||
                             id == "collsim/source_read_bandwidth" || id == "collsim/uncached_copy_bandwidth";
    // A core's private cache and the node's cache its copies see (copy_cache.hpp).
    const bool size = id == "collsim/private_cache" || id == "collsim/shared_cache";
    const bool profile =
        id.starts_with("collsim/ideal/") || id.starts_with("collsim/tcp/") || id.starts_with("collsim/shm/");
    if (!sockets && !level && !protocol && !rate && !rate_or_off && !size && !time && !page && !profile) return true;
    const std::string tag = "<prop id=\"" + id + "\">";
    if (parent != "host" && parent != "cluster")
      return fail(
          at, tag + " in a <" + std::string(parent) + "> reaches no host: give it in the <cluster> or in each <host>");
    if (rate && !(sim::parse_bandwidth(value) > 0))
      return fail(at, tag + " value '" + value + "' is not a bandwidth (e.g. 6GBps; a bare number is bytes/s)");
    if (rate_or_off && !(value == "0" || sim::parse_bandwidth(value) > 0))
      return fail(at, tag + " value '" + value + "' is not a bandwidth (e.g. 6GBps; 0: not modelled)");
    if (size && !parse_bytes(value))
      return fail(at, tag + " value '" + value + "' is not a size (e.g. 1MiB; 0: no bound)");
    if (time && !(parse_seconds(value).value_or(-1) >= 0))
      return fail(at, tag + " value '" + value + "' is not a time (e.g. 100ns; a bare number is seconds)");
    if (page && parse_bytes(value).value_or(0) == 0)
      return fail(at, tag + " value '" + value + "' is not a page size (e.g. 4KiB or 2MiB)");
    if (registration_time || page) {
      // The model engine takes the first value the file states (the sim engine each host's own).
      auto& r = out_.registration;
      if (id == "collsim/registration_call" && !seen_call_) r.call = *parse_seconds(value), seen_call_ = true;
      if (id == "collsim/registration_page" && !seen_page_) r.per_page = *parse_seconds(value), seen_page_ = true;
      if (page && !seen_page_size_) r.page_size = *parse_bytes(value), seen_page_size_ = true;
    }
    if (sockets) {
      const long long cores = stack_.back().cores;
      const auto n = whole(value, INT_MAX);
      if (!n || *n < 1 || cores % *n != 0)
        return fail(at, tag + " value '" + value + "' does not divide the " + std::to_string(cores) + " core" +
                            (cores == 1 ? "" : "s") + " of the <" + std::string(parent) + ">");
      stack_.back().sockets = static_cast<int>(*n);
    }
    if (level) {
      // A socket's cores (collsim/sockets stated before, in the same element) split evenly into
      // NUMA domains, and a NUMA domain's (or the socket's) into core groups.
      Frame& frame = stack_.back();
      if (frame.sockets < 1)
        return fail(at, tag + " needs collsim/sockets stated before it in the <" + std::string(parent) + ">");
      const long long per_socket = frame.cores / frame.sockets;
      const bool group = id == "collsim/core_group";
      const long long per_domain = frame.numa_domains > 0 ? per_socket / frame.numa_domains : per_socket;
      const long long of = group ? per_domain : per_socket;
      const auto n = whole(value, INT_MAX);
      if (!n || *n < 1 || of % *n != 0)
        return fail(at, tag + " value '" + value + "' does not divide the " + std::to_string(of) + " cores of " +
                            (group && frame.numa_domains > 0 ? "a NUMA domain" : "a socket"));
      if (group)
        frame.core_group = static_cast<int>(*n);
      else if (frame.core_group > 0 && (per_socket / *n) % frame.core_group != 0)
        return fail(at, tag + " value '" + value + "' leaves NUMA domains of " + std::to_string(per_socket / *n) +
                            " cores, not a whole number of core groups of " + std::to_string(frame.core_group));
      else
        frame.numa_domains = static_cast<int>(*n);
    }
    if (protocol && !is_protocol_name(value))
      return fail(at, tag + " value '" + value + "' is not a protocol (" + protocol_names() + ")");
    if (profile) {
      const std::string problem = check_protocol_option(id.substr(std::strlen("collsim/")) + ":" + value);
      if (!problem.empty()) return fail(at, tag + ": " + problem);
    }
    return true;
  }

  void finish() {
    if (hosts_ == 0) throw PlatformError(platform_place_ + ": the platform has no hosts");
  }

  static constexpr std::string_view kDoctype = "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">";

  std::string name_;
  std::string error_;
  bool seen_doctype_ = false;
  std::vector<Frame> stack_;
  std::string platform_place_;
  long long hosts_ = 0;
  // Clusters, cabinets and peers name hosts, routers and links themselves: once one is read,
  // references are left to SimGrid.
  bool generates_names_ = false;
  std::unordered_map<std::string, long> names_, links_, routes_;  // -> line defined

  CheckedPlatform out_;
  bool seen_call_ = false, seen_page_ = false, seen_page_size_ = false;
};

// The line and column of the first element for which `match(element, attributes, line)` holds.
std::optional<std::pair<long, long>> find_element(
    const std::string& file, const std::function<bool(const std::string&, const Attributes&, long)>& match) {
  Reader reader;
  std::optional<std::pair<long, long>> found;
  reader.on_start = [&](const std::string& e, const Attributes& a, long l, long c) {
    if (!match(e, a, l)) return true;
    found.emplace(l, c);
    return false;
  };
  std::string problem;
  read_into(reader, file, std::nullopt, problem);
  return found;
}

std::string place_or_file(const std::string& file, const std::optional<std::pair<long, long>>& at) {
  return at ? place(file, at->first, at->second) : file;
}

}  // namespace

std::string latency_problem(double seconds) {
  if (seconds < 0) return "must not be negative";
  if (seconds > 0 && seconds < 1e-9) return "is below 1ns, the resolution of SimGrid's clock: give 0 or 1ns or more";
  return "";
}

CheckedPlatform check_platform_file(const std::string& file) { return Checker(file).run(std::nullopt); }

CheckedPlatform check_platform_text(const std::string& name, std::string_view xml) { return Checker(name).run(xml); }

std::string place_of_host(const std::string& file, std::string_view host) {
  return place_or_file(file, find_element(file, [&](const std::string& e, const Attributes& a, long) {
                         if (e == "host" || e == "peer") return get(a, "id") == host;
                         return (e == "cluster" || e == "cabinet") && makes_host(a, host);
                       }));
}

std::string place_of_property(const std::string& file, std::string_view id) {
  return place_or_file(file, find_element(file, [&](const std::string& e, const Attributes& a, long) {
                         return e == "prop" && get(a, "id") == id;
                       }));
}

std::string place_of_line(const std::string& file, long line) {
  const auto at = find_element(file, [&](const std::string&, const Attributes&, long l) { return l >= line; });
  return place(file, line, at && at->first == line ? at->second : 1);
}

}  // namespace collsim
