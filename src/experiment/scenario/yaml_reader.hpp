// Reading YAML input files (scenarios, calibrated parameters) with one clear error per problem:
// every check fails with ScenarioError "FILE:LINE:COLUMN: what is wrong", so a user can jump to it,
// and unknown or repeated keys are refused rather than ignored.
#pragma once

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <climits>
#include <initializer_list>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "experiment/scenario/named_files.hpp"
#include "experiment/scenario/scenario_error.hpp"
#include "support/input_error.hpp"
#include "support/units.hpp"

namespace collsim {

// Refuses a key given twice in one mapping (yaml-cpp would keep one of them silently): a walk
// over the parser's events, in which an alias is one event, so anchors and aliases cost nothing.
class DuplicateKeyCheck : public YAML::EventHandler {
 public:
  explicit DuplicateKeyCheck(std::string file) : file_(std::move(file)) {}

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override { node(nullptr); }
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override { node(nullptr); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string& value) override {
    node(&value, mark);
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    node(nullptr);
    open_.push_back({false, true, {}});
  }
  void OnSequenceEnd() override { open_.pop_back(); }
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    node(nullptr);
    open_.push_back({true, true, {}});
  }
  void OnMapEnd() override { open_.pop_back(); }

 private:
  struct Collection {
    bool map;
    bool at_key;                      // a mapping's next node is a key (else its value)
    std::map<std::string, int> keys;  // each scalar key and its line
  };

  // A node begins: in a mapping, keys and values alternate.
  void node(const std::string* scalar, const YAML::Mark& mark = YAML::Mark::null_mark()) {
    if (open_.empty() || !open_.back().map) return;
    Collection& c = open_.back();
    if (c.at_key && scalar) {
      const auto [first, fresh] = c.keys.emplace(*scalar, mark.line + 1);
      if (!fresh)
        throw ScenarioError(file_ + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1) +
                            ": duplicate key '" + *scalar + "' (first at line " + std::to_string(first->second) + ")");
    }
    c.at_key = !c.at_key;
  }

  std::string file_;
  std::vector<Collection> open_;
};

// The YAML document of `path`; ScenarioError "PATH: cannot open the WHAT (...)", "PATH: is a
// directory, not a WHAT", "PATH:LINE:COLUMN: malformed YAML: ..." or "PATH:LINE:COLUMN:
// duplicate key ...".
inline YAML::Node load_yaml_file(const std::string& path, const std::string& what) {
  std::string text;
  try {
    text = read_input_file(path, what);
  } catch (const InputError& e) {
    throw ScenarioError(e.what());
  }
  try {
    std::istringstream events(text);
    YAML::Parser parser(events);
    DuplicateKeyCheck check(path);
    parser.HandleNextDocument(check);
    return YAML::Load(text);
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
    only_keys(map, where, std::vector<std::string>(allowed.begin(), allowed.end()));
  }
  void only_keys(const YAML::Node& map, const std::string& where, const std::vector<std::string>& allowed) const {
    if (!map.IsMap()) fail(map, where + " must be a mapping of key: value");
    for (const auto& kv : map) {
      const auto key = kv.first.as<std::string>();
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        fail(kv.first, "unknown key '" + key + "' in " + where + " (expected one of: " + list + ")");
      }
    }
  }

  std::string text(const YAML::Node& n, const std::string& what) const {
    if (!n.IsScalar()) fail(n, what + " must be a single value");
    return n.Scalar();
  }

  long long integer(const YAML::Node& n, const std::string& what, long long min, long long max) const {
    const IntegerRead v = read_integer(text(n, what), min, max);
    if (!v.problem.empty()) fail(n, what + ": " + v.problem);
    return v.value;
  }

  double real(const YAML::Node& n, const std::string& what, double min) const {
    auto v = parse_real(text(n, what));
    if (!v) fail(n, what + ": '" + n.Scalar() + "' is not a number");
    if (*v < min) fail(n, what + ": " + n.Scalar() + " must be at least " + format_real(min));
    return *v;
  }

  // Quantities with units, as the command line reads them (units.hpp).
  double quantity(const YAML::Node& n, const std::string& what, Quantity kind) const {
    const QuantityRead v = read_quantity(kind, text(n, what));
    if (!v.problem.empty()) fail(n, what + ": " + v.problem);
    return v.value;
  }
  double seconds(const YAML::Node& n, const std::string& what) const { return quantity(n, what, Quantity::seconds); }
  double seconds_per_byte(const YAML::Node& n, const std::string& what) const {
    return quantity(n, what, Quantity::seconds_per_byte);
  }
  double rate(const YAML::Node& n, const std::string& what, bool zero_allowed = false) const {
    return quantity(n, what, zero_allowed ? Quantity::rate_or_zero : Quantity::rate);
  }

  std::size_t bytes(const YAML::Node& n, const std::string& what) const {
    const SizeRead v = read_size(text(n, what));
    if (!v.problem.empty()) fail(n, what + ": " + v.problem);
    return v.value;
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

  // `values`, read by list() from `n`, after refusing a value listed twice: the lists that span a
  // sweep (engines, sizes, process counts...) name each value once, and a repeat is a slip (a
  // point measured twice, a size meant to be another), never a second measurement.
  template <class T>
  std::vector<T> distinct(const YAML::Node& n, const std::string& what, std::vector<T> values) const {
    std::map<T, std::size_t> first;
    for (std::size_t i = 0; i < values.size(); ++i)
      if (const auto [at, fresh] = first.emplace(values[i], i); !fresh)
        fail(n[i], what + ": '" + n[i].Scalar() + "' is listed twice (item " + std::to_string(at->second + 1) +
                       " is the same)");
    return values;
  }

  std::vector<int> procs(const YAML::Node& n) const {
    return distinct(n, "procs", list(n, "procs", [&](const YAML::Node& x) {
                      return static_cast<int>(integer(x, "procs", 1, INT_MAX));
                    }));
  }
  std::vector<std::size_t> sizes(const YAML::Node& n, const std::string& what) const {
    return distinct(n, what, list(n, what, [&](const YAML::Node& x) { return bytes(x, what); }));
  }

 private:
  std::string file_;
};

}  // namespace collsim
