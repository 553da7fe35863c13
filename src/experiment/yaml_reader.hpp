// Reading YAML input files (scenarios, calibrated parameters) with one clear error per problem:
// every check fails with ScenarioError "FILE:LINE:COLUMN: what is wrong", so a user can jump to it,
// and unknown keys are refused rather than ignored.
#pragma once

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <climits>
#include <fstream>
#include <initializer_list>
#include <string>
#include <vector>

#include "experiment/scenario_error.hpp"
#include "experiment/units.hpp"

namespace collsim {

// The YAML document of `path`; ScenarioError "PATH: cannot open the WHAT" or
// "PATH:LINE:COLUMN: malformed YAML: ...".
inline YAML::Node load_yaml_file(const std::string& path, const std::string& what) {
  std::ifstream stream(path);
  if (!stream) throw ScenarioError(path + ": cannot open the " + what);
  try {
    return YAML::Load(stream);
  } catch (const YAML::ParserException& e) {
    throw ScenarioError(path + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                        ": malformed YAML: " + e.msg);
  }
}

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const YAML::Node& at, const std::string& what) const {
    const YAML::Mark m = at.Mark();
    if (m.is_null()) throw ScenarioError(file_ + ": " + what);
    throw ScenarioError(file_ + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1) + ": " + what);
  }

  // Rejects keys outside `allowed`, so a typo never silently falls back to a default.
  void only_keys(const YAML::Node& map, const std::string& where, std::initializer_list<const char*> allowed) const {
    if (!map.IsMap()) fail(map, where + " must be a mapping of key: value");
    for (const auto& kv : map) {
      const auto key = kv.first.as<std::string>();
      if (std::none_of(allowed.begin(), allowed.end(), [&](const char* a) { return key == a; })) {
        std::string list;
        for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        fail(kv.first, "unknown key '" + key + "' in " + where + " (expected one of: " + list + ")");
      }
    }
  }

  std::string text(const YAML::Node& n, const std::string& what) const {
    if (!n.IsScalar()) fail(n, what + " must be a single value");
    return n.Scalar();
  }

  long long integer(const YAML::Node& n, const std::string& what, long long min, long long max) const {
    auto v = parse_integer(text(n, what));
    if (!v) fail(n, what + ": '" + n.Scalar() + "' is not a whole number");
    if (*v < min || *v > max)
      fail(n, what + ": " + n.Scalar() + " is out of range [" + std::to_string(min) + ", " + std::to_string(max) + "]");
    return *v;
  }

  double real(const YAML::Node& n, const std::string& what, double min) const {
    auto v = parse_real(text(n, what));
    if (!v) fail(n, what + ": '" + n.Scalar() + "' is not a number");
    if (*v < min) fail(n, what + ": " + n.Scalar() + " must be at least " + format_real(min));
    return *v;
  }

  // Quantities with units, as the command line reads them (units.hpp), none negative.
  double seconds(const YAML::Node& n, const std::string& what) const {
    const auto v = parse_seconds(text(n, what));
    if (!v) fail(n, what + ": '" + n.Scalar() + "' is not " + kSecondsHint);
    if (*v < 0) fail(n, what + ": " + n.Scalar() + " must be at least 0");
    return *v;
  }
  double seconds_per_byte(const YAML::Node& n, const std::string& what) const {
    const auto v = parse_seconds_per_byte(text(n, what));
    if (!v) fail(n, what + ": '" + n.Scalar() + "' is not " + kSecondsPerByteHint);
    if (*v < 0) fail(n, what + ": " + n.Scalar() + " must be at least 0");
    return *v;
  }
  // `zero_allowed`: 0 is accepted too, where it means "none" (a free copy).
  double rate(const YAML::Node& n, const std::string& what, bool zero_allowed = false) const {
    const std::string t = text(n, what);
    if (zero_allowed && parse_real(t) == 0.0) return 0;
    const auto v = parse_rate(t);
    if (!v) fail(n, what + ": '" + n.Scalar() + "' is not " + kRateHint);
    return *v;
  }

  std::size_t bytes(const YAML::Node& n, const std::string& what) const {
    auto v = parse_bytes(text(n, what));
    if (!v) fail(n, what + ": '" + n.Scalar() + "' is not a size in bytes (e.g. 0, 1000, 8KiB, 4MiB)");
    return *v;
  }

  bool boolean(const YAML::Node& n, const std::string& what) const {
    const std::string v = text(n, what);
    if (v == "true" || v == "yes") return true;
    if (v == "false" || v == "no") return false;
    fail(n, what + ": '" + v + "' is not true or false");
  }

  // A scalar or a list of scalars, each converted by `one`.
  template <class F>
  auto list(const YAML::Node& n, const std::string& what, F one) const {
    std::vector<decltype(one(n))> out;
    if (n.IsSequence()) {
      if (n.size() == 0) fail(n, what + " is an empty list");
      for (const auto& item : n) out.push_back(one(item));
    } else {
      out.push_back(one(n));
    }
    return out;
  }

  std::vector<int> procs(const YAML::Node& n) const {
    return list(n, "procs", [&](const YAML::Node& x) { return static_cast<int>(integer(x, "procs", 1, INT_MAX)); });
  }
  std::vector<std::size_t> sizes(const YAML::Node& n, const std::string& what) const {
    return list(n, what, [&](const YAML::Node& x) { return bytes(x, what); });
  }

 private:
  std::string file_;
};

}  // namespace collsim
