#include "experiment/units.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

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

std::optional<std::size_t> parse_bytes(std::string_view text) {
  text = trim(text);
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0) return std::nullopt;
  unsigned long long value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + digits, value);
  if (ec != std::errc()) return std::nullopt;
  const std::string_view unit = trim(text.substr(digits));
  struct Unit {
    std::string_view name;
    unsigned long long factor;
  };
  static constexpr Unit units[] = {
      {"", 1},      {"B", 1},     {"KiB", 1ull << 10}, {"MiB", 1ull << 20}, {"GiB", 1ull << 30},
      {"kB", 1000}, {"KB", 1000}, {"MB", 1000000},     {"GB", 1000000000}};
  for (const auto& u : units) {
    if (unit != u.name) continue;
    if (value > std::numeric_limits<std::size_t>::max() / u.factor) return std::nullopt;
    return static_cast<std::size_t>(value * u.factor);
  }
  return std::nullopt;
}

std::string format_bytes(std::size_t bytes) {
  static constexpr const char* names[] = {"GiB", "MiB", "KiB"};
  static constexpr int shifts[] = {30, 20, 10};
  for (int i = 0; i < 3; ++i) {
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

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);
          out += b;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

}  // namespace collsim
