#include "cli/algorithms_table.hpp"

#include <algorithm>
#include <cstdio>
#include <string_view>

#include "algorithms/operation.hpp"
#include "registry/registry.hpp"

namespace collsim::cli {

std::string algorithms_table(const std::string& after) {
  // Columns as wide as their longest entry; knobs by their option names.
  std::size_t name_width = std::string_view("algorithm").size(), knob_width = std::string_view("knobs").size();
  const auto knobs_of = [](const AlgorithmInfo& a) {
    std::string out;
    for (const KnobInfo& k : all_knobs())
      if (a.takes(k.knob)) {
        // Appended piecewise: GCC 12 warns (-Wrestrict, falsely) about "," + a temporary string.
        if (!out.empty()) out += ',';
        out += k.name;
      }
    return out.empty() ? std::string("-") : out;
  };
  for (const auto& a : all_algorithms()) {
    name_width = std::max(name_width, a.name.size());
    knob_width = std::max(knob_width, knobs_of(a).size());
  }
  std::string table;
  const auto row = [&](std::string_view name, std::string_view id, std::string_view knobs, std::string_view what) {
    std::string line(name);
    line.resize(name_width + 2, ' ');
    line += std::string(7 - std::min<std::size_t>(7, id.size()), ' ') + std::string(id) + "  ";
    line += knobs;
    line.resize(line.size() + knob_width - knobs.size() + 2, ' ');
    table += line + std::string(what) + "\n";
  };
  row("algorithm", "ompi id", "knobs", "description");
  for (const auto& a : all_algorithms()) row(a.name, std::to_string(a.ompi_id), knobs_of(a), a.summary);
  table += "\nWhat --bytes means per operation:\n";
  for (const OperationInfo& op : all_operations()) {
    char line[256];
    std::snprintf(line, sizeof line, "  %-15s %s%s\n", std::string(op.name).c_str(), std::string(op.bytes_mean).c_str(),
                  op.reduces ? " (a whole number of --datatype elements)" : "");
    table += line;
  }
  return table + after;
}

}  // namespace collsim::cli
