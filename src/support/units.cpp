#include "support/units.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>

namespace collsim {

namespace {
std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}
}  // namespace

std::optional<long long> parse_integer(std::string_view text) {
  text = trim(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  long long v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

std::optional<double> parse_real(std::string_view text) {
  text = trim(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

namespace {
struct Unit {
  std::string_view name;
  double factor;
};

// A finite number followed by one of `units`, in the unit's scale; nullopt otherwise. Dividing by
// an exact power of ten rounds once, so "5us" is the double nearest 5e-6, as "5e-6" is.
std::optional<double> with_unit(std::string_view text, std::initializer_list<Unit> units) {
  text = trim(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || !std::isfinite(value)) return std::nullopt;
  const std::string_view unit = trim(text.substr(static_cast<std::size_t>(end - text.data())));
  for (const Unit& u : units)
    if (unit == u.name) return u.factor < 1 ? value / std::round(1 / u.factor) : value * u.factor;
  return std::nullopt;
}
}  // namespace

const char* const kSecondsHint = "a time (e.g. 10us, 1.5ms, 2e-6; a bare number is seconds)";
const char* const kRateHint = "a rate in bytes per second (e.g. 1.25GBps, 10Gbps, 25GbE; a bare number is bytes/s)";
const char* const kSecondsPerByteHint =
    "a time per byte (e.g. 0.8ns, 8e-10; or a rate, its inverse: 1.25GBps; a bare number is seconds)";

QuantityRead read_quantity(Quantity kind, const std::string& text) {
  const auto quoted = "'" + text + "' is not ";
  if (kind == Quantity::rate || kind == Quantity::rate_or_zero) {
    if (kind == Quantity::rate_or_zero && parse_real(text) == 0.0) return {0, {}};
    const auto r = parse_rate(text);
    if (!r) return {0, quoted + kRateHint};
    return {*r, {}};
  }
  const bool per_byte = kind == Quantity::seconds_per_byte;
  const auto x = per_byte ? parse_seconds_per_byte(text) : parse_seconds(text);
  if (!x) return {0, quoted + (per_byte ? kSecondsPerByteHint : kSecondsHint)};
  if (*x < 0) return {0, text + " must be at least 0"};
  return {*x, {}};
}

SizeRead read_size(const std::string& text) {
  const auto b = parse_bytes(text);
  if (!b) return {0, "'" + text + "' is not a size in bytes (e.g. 0, 1000, 8KiB, 4MiB)"};
  return {*b, {}};
}

IntegerRead read_integer(const std::string& text, long long min, long long max) {
  const auto n = parse_integer(text);
  if (!n) return {0, "'" + text + "' is not a whole number"};
  if (*n < min || *n > max)
    return {0, text + " is out of range [" + std::to_string(min) + ", " + std::to_string(max) + "]"};
  return {*n, {}};
}

std::optional<double> parse_seconds(std::string_view text) {
  return with_unit(text, {{"", 1}, {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}});
}

std::optional<double> parse_fraction(std::string_view text) { return with_unit(text, {{"", 1}, {"%", 0.01}}); }

std::optional<double> parse_rate(std::string_view text) {
  std::string t(trim(text));
  // Ethernet's names give the line rate in bits: 25GbE is 25 Gbit/s.
  if (t.size() > 3 && t.compare(t.size() - 3, 3, "GbE") == 0) t.replace(t.size() - 3, 3, "Gbps");
  const auto r = with_unit(t, {{"", 1},
                               {"Bps", 1},
                               {"kBps", 1e3},
                               {"KBps", 1e3},
                               {"KiBps", 1024.},
                               {"MBps", 1e6},
                               {"MiBps", 1048576.},
                               {"GBps", 1e9},
                               {"GiBps", 1073741824.},
                               {"TBps", 1e12},
                               {"TiBps", 1099511627776.},
                               {"bps", 1 / 8.},
                               {"kbps", 1e3 / 8},
                               {"Kbps", 1e3 / 8},
                               {"Kibps", 1024. / 8},
                               {"Mbps", 1e6 / 8},
                               {"Mibps", 1048576. / 8},
                               {"Gbps", 1e9 / 8},
                               {"Gibps", 1073741824. / 8},
                               {"Tbps", 1e12 / 8},
                               {"Tibps", 1099511627776. / 8}});
  if (!r || !(*r > 0) || !std::isfinite(*r)) return std::nullopt;
  return r;
}

std::optional<double> parse_seconds_per_byte(std::string_view text) {
  std::string_view t = trim(text);
  if (t.size() > 2 && t.substr(t.size() - 2) == "/B") t.remove_suffix(2);
  if (const auto s = parse_seconds(t)) return s;
  if (const auto r = parse_rate(text)) return 1 / *r;
  return std::nullopt;
}

std::optional<std::size_t> parse_bytes(std::string_view text) {
  text = trim(text);
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0) return std::nullopt;
  unsigned long long value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + digits, value);
  if (ec != std::errc()) return std::nullopt;
  const std::string_view unit = trim(text.substr(digits));
  struct ByteUnit {
    std::string_view name;
    unsigned long long factor;
  };
  static constexpr ByteUnit units[] = {{"", 1},
                                       {"B", 1},
                                       {"KiB", 1ull << 10},
                                       {"MiB", 1ull << 20},
                                       {"GiB", 1ull << 30},
                                       {"TiB", 1ull << 40},
                                       {"PiB", 1ull << 50},
                                       {"kB", 1000},
                                       {"KB", 1000},
                                       {"MB", 1000000},
                                       {"GB", 1000000000},
                                       {"TB", 1000000000000},
                                       {"PB", 1000000000000000}};
  for (const auto& u : units) {
    if (unit != u.name) continue;
    if (value > std::numeric_limits<std::size_t>::max() / u.factor) return std::nullopt;
    return static_cast<std::size_t>(value * u.factor);
  }
  return std::nullopt;
}

std::string format_bytes(std::size_t bytes) {
  static constexpr const char* names[] = {"PiB", "TiB", "GiB", "MiB", "KiB"};
  static constexpr int shifts[] = {50, 40, 30, 20, 10};
  for (int i = 0; i < 5; ++i) {
    const std::size_t unit = std::size_t{1} << shifts[i];
    if (bytes >= unit && bytes % unit == 0) return std::to_string(bytes / unit) + names[i];
  }
  return std::to_string(bytes);
}

std::string format_real(double value) {
  // The shortest text that reads back as the same double: full precision, no noise digits.
  char out[32];
  const auto end = std::to_chars(out, out + sizeof out, value).ptr;
  return std::string(out, end);
}

std::string format_seconds(double seconds) {
  char out[48];
  const double a = std::fabs(seconds);
  if (a == 0)
    std::snprintf(out, sizeof out, "0 s");
  else if (a < 1e-6)
    std::snprintf(out, sizeof out, "%.4g ns", seconds * 1e9);
  else if (a < 1e-3)
    std::snprintf(out, sizeof out, "%.4g us", seconds * 1e6);
  else if (a < 1)
    std::snprintf(out, sizeof out, "%.4g ms", seconds * 1e3);
  else
    std::snprintf(out, sizeof out, "%.4g s", seconds);
  return out;
}

namespace {

// `text` with each character `replace` gives a replacement for (nullopt: kept) replaced.
template <class Replace>
std::string escaped(const std::string& text, Replace replace) {
  std::string out;
  for (const char c : text) {
    if (const std::optional<std::string> r = replace(c))
      out += *r;
    else
      out += c;
  }
  return out;
}

}  // namespace

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

std::string json_string(const std::string& s) {
  // Appended piecewise: GCC 12 warns (-Wrestrict, falsely) about "\"" + a temporary string.
  std::string out = "\"";
  out += escaped(s, [](char c) -> std::optional<std::string> {
    switch (c) {
      case '"': return "\\\"";
      case '\\': return "\\\\";
      case '\n': return "\\n";
      case '\t': return "\\t";
      default: break;
    }
    if (static_cast<unsigned char>(c) >= 0x20) return std::nullopt;
    char b[8];
    std::snprintf(b, sizeof b, "\\u%04x", c);
    return b;
  });
  out += '"';
  return out;
}

std::string xml_escaped(const std::string& text) {
  return escaped(text, [](char c) -> std::optional<std::string> {
    switch (c) {
      case '&': return "&amp;";
      case '<': return "&lt;";
      case '>': return "&gt;";
      case '"': return "&quot;";
      default: return std::nullopt;
    }
  });
}

}  // namespace collsim
