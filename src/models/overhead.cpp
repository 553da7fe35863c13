#include "models/overhead.hpp"

#include <algorithm>
#include <cmath>

#include "support/units.hpp"

namespace collsim::models {

double Overhead::at(std::size_t bytes) const {
  const Section* s = nullptr;
  for (const Section& candidate : sections)
    if (candidate.from <= bytes) s = &candidate;
  return s ? s->base + s->per_byte * static_cast<double>(bytes) : 0;
}

std::optional<Overhead> parse_overhead(const std::string& text, std::string& problem) {
  Overhead o;
  const auto time = [&](const std::string& t, const char* what, auto parse) -> std::optional<double> {
    const auto v = parse(t);
    if (!v || !std::isfinite(*v) || *v < 0) {
      problem = "'" + t + "' is not " + what;
      return std::nullopt;
    }
    return v;
  };
  if (text.find(':') == std::string::npos) {
    const auto v = time(text, "a time (e.g. 2us) or SIZE:BASE:PER_BYTE;...",
                        [](const std::string& t) { return parse_seconds(t); });
    if (!v) return std::nullopt;
    if (*v > 0) o.sections.push_back({0, *v, 0});
    return o;
  }
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(';', start), text.size());
    const std::string part = text.substr(start, end - start);
    const auto c1 = part.find(':'), c2 = c1 == std::string::npos ? c1 : part.find(':', c1 + 1);
    if (c2 == std::string::npos || part.find(':', c2 + 1) != std::string::npos) {
      problem = "'" + part + "' is not SIZE:BASE:PER_BYTE (e.g. 0:1us:0.1ns;64KiB:5us:0.2ns)";
      return std::nullopt;
    }
    const std::string size = part.substr(0, c1);
    const auto from = parse_bytes(size);
    if (!from) {
      // Appended: GCC 12 warns of "'" + a temporary (-Wrestrict, a false positive).
      problem = std::string("'").append(size).append("' is not a size");
      return std::nullopt;
    }
    const auto base = time(part.substr(c1 + 1, c2 - c1 - 1), "a time (e.g. 1us)",
                           [](const std::string& t) { return parse_seconds(t); });
    if (!base) return std::nullopt;
    const auto per_byte = time(part.substr(c2 + 1), "a time per byte (e.g. 0.1ns)",
                               [](const std::string& t) { return parse_seconds_per_byte(t); });
    if (!per_byte) return std::nullopt;
    if (o.sections.empty() ? *from != 0 : *from <= o.sections.back().from) {
      problem = o.sections.empty() ? "the first section must start at size 0"
                                   : "section sizes must increase ('" + part + "')";
      return std::nullopt;
    }
    o.sections.push_back({*from, *base, *per_byte});
    start = end + 1;
  }
  return o;
}

std::string to_string(const Overhead& overhead) {
  if (overhead.empty()) return "0";
  std::string out;
  for (const Overhead::Section& s : overhead.sections) {
    if (!out.empty()) out += ';';
    out.append(std::to_string(s.from))
        .append(":")
        .append(format_real(s.base))
        .append(":")
        .append(format_real(s.per_byte));
  }
  return out;
}

}  // namespace collsim::models
