// A small long-option parser for the collsim commands, with one-line errors.
//
// "--name value", "--name=value" and bare "--flag" are accepted, and "-o FILE" for "--output FILE"
// in the commands that write one file; anything unknown, a missing
// value or an unparsable number raises UsageError, which the commands print as one line and turn
// into exit status 2.
#pragma once

#include <cstddef>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/units.hpp"

namespace collsim::cli {

class UsageError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct OptionDef {
  std::string name;        // without the leading "--"
  std::string value_name;  // empty for a flag
  std::string help;
  bool repeatable = false;
};

class ParsedOptions {
 public:
  bool has(const std::string& name) const { return values_.count(name) > 0; }
  // The last value given for `name`; `fallback` when absent.
  std::string text(const std::string& name, const std::string& fallback = {}) const;
  const std::vector<std::string>& all(const std::string& name) const;

  std::size_t bytes(const std::string& name, std::size_t fallback) const;
  long long integer(const std::string& name, long long fallback, long long min, long long max) const;
  double real(const std::string& name, double fallback, double min) const;
  // Quantities with units (support/units.hpp), each at least 0: seconds ("10us"), bytes per
  // second ("10Gbps"; "0" too where zero means "none", as --copy-bandwidth's), seconds per byte
  // ("0.8ns", or the inverse of a rate: "1.25GBps").
  double seconds(const std::string& name, double fallback) const;
  double rate(const std::string& name, double fallback, bool zero_allowed = false) const;
  double seconds_per_byte(const std::string& name, double fallback) const;
  // Option `name`, given, read as `kind` (support/units.hpp).
  double quantity(const std::string& name, Quantity kind) const;

  std::vector<std::string> positional;
  std::vector<std::string> arguments;  // all of them, as given (for a command that records its command line)

 private:
  friend ParsedOptions parse_options(std::span<char* const>, std::span<const OptionDef>);
  std::map<std::string, std::vector<std::string>> values_;
};

ParsedOptions parse_options(std::span<char* const> args, std::span<const OptionDef> defs);
// "a,b,,c" -> {"a", "b", "", "c"}: the items of a comma-separated option value, as written.
std::vector<std::string> split_commas(const std::string& text);

// Two-column option list for --help.
std::string format_options(std::span<const OptionDef> defs);

}  // namespace collsim::cli
