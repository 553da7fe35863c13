#include "cli/options.hpp"

#include <algorithm>
#include <optional>

#include "support/csv.hpp"
#include "support/units.hpp"

namespace collsim::cli {

namespace {
const OptionDef* find(std::span<const OptionDef> defs, const std::string& name) {
  for (const auto& d : defs)
    if (d.name == name) return &d;
  return nullptr;
}
}  // namespace

ParsedOptions parse_options(std::span<char* const> args, std::span<const OptionDef> defs) {
  ParsedOptions out;
  out.arguments.assign(args.begin(), args.end());
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    // -o FILE is --output FILE wherever a command writes one file.
    if (arg == "-o" && find(defs, "output")) arg = "--output";
    if (arg.rfind("--", 0) != 0 || arg == "--") {
      out.positional.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2);
    std::string value;
    bool inline_value = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      inline_value = true;
    }
    const OptionDef* def = find(defs, name);
    if (!def) throw UsageError("unknown option --" + name + " (see --help)");
    if (def->value_name.empty()) {
      if (inline_value) throw UsageError("option --" + name + " takes no value");
    } else if (!inline_value) {
      if (i + 1 >= args.size())
        throw UsageError("option " + std::string(args[i]) + " needs a value (" + def->value_name + ")");
      value = args[++i];
    }
    auto& slot = out.values_[name];
    if (!slot.empty() && !def->repeatable)
      throw UsageError("option --" + name + (name == "output" ? " (or -o)" : "") + " given twice");
    slot.push_back(value);
  }
  return out;
}

std::string ParsedOptions::text(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second.back();
}

const std::vector<std::string>& ParsedOptions::all(const std::string& name) const {
  static const std::vector<std::string> none;
  auto it = values_.find(name);
  return it == values_.end() ? none : it->second;
}

std::size_t ParsedOptions::bytes(const std::string& name, std::size_t fallback) const {
  if (!has(name)) return fallback;
  const SizeRead b = read_size(text(name));
  if (!b.problem.empty()) throw UsageError("--" + name + ": " + b.problem);
  return b.value;
}

long long ParsedOptions::integer(const std::string& name, long long fallback, long long min, long long max) const {
  if (!has(name)) return fallback;
  const IntegerRead n = read_integer(text(name), min, max);
  if (!n.problem.empty()) throw UsageError("--" + name + ": " + n.problem);
  return n.value;
}

double ParsedOptions::real(const std::string& name, double fallback, double min) const {
  if (!has(name)) return fallback;
  const std::string v = text(name);
  auto x = parse_real(v);
  if (!x) throw UsageError("--" + name + ": '" + v + "' is not a number");
  if (*x < min) throw UsageError("--" + name + ": " + v + " must be at least " + format_real(min));
  return *x;
}

double ParsedOptions::seconds(const std::string& name, double fallback) const {
  return has(name) ? quantity(name, Quantity::seconds) : fallback;
}

double ParsedOptions::rate(const std::string& name, double fallback, bool zero_allowed) const {
  return has(name) ? quantity(name, zero_allowed ? Quantity::rate_or_zero : Quantity::rate) : fallback;
}

double ParsedOptions::seconds_per_byte(const std::string& name, double fallback) const {
  return has(name) ? quantity(name, Quantity::seconds_per_byte) : fallback;
}

double ParsedOptions::quantity(const std::string& name, Quantity kind) const {
  const QuantityRead q = read_quantity(kind, text(name));
  if (!q.problem.empty()) throw UsageError("--" + name + ": " + q.problem);
  return q.value;
}

std::vector<std::string> split_commas(const std::string& text) { return split_at(text, ','); }

std::string format_options(std::span<const OptionDef> defs) {
  std::size_t width = 0;
  auto left = [](const OptionDef& d) { return "--" + d.name + (d.value_name.empty() ? "" : " " + d.value_name); };
  for (const auto& d : defs) width = std::max(width, left(d).size());
  std::string out;
  for (const auto& d : defs) {
    std::string l = left(d);
    out += "  " + l + std::string(width - l.size() + 2, ' ') + d.help + "\n";
  }
  return out;
}

}  // namespace collsim::cli
