// collsim platform: a SimGrid platform file from a few parameters (engines/sim/generated_platform.hpp),
// with one option per parameter of its table.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "engines/sim/generated_platform.hpp"
#include "support/input_error.hpp"

namespace collsim::cli {
namespace {

std::string option_name(std::string_view parameter) {
  std::string o(parameter);
  std::replace(o.begin(), o.end(), '_', '-');
  return o;
}

std::vector<OptionDef> platform_options() {
  std::vector<OptionDef> defs;
  for (const auto& p : platform_parameters()) {
    std::string help(p.help);
    if (!p.fallback.empty()) help += " (default " + std::string(p.fallback) + ")";
    defs.push_back({option_name(p.name), std::string(p.value), help});
  }
  defs.push_back({"protocol-option", "PROFILE/KEY:VALUE",
                  "a protocol parameter the file states (collsim/PROFILE/KEY), as collsim measure's --protocol-option "
                  "takes it, e.g. shm/send_overhead:80ns (repeatable)",
                  true});
  defs.push_back({"output", "FILE", "write the platform to FILE (also -o FILE); without it, to standard output"});
  defs.push_back({"describe", "", "print a summary of the cluster instead of the XML (unless --output is given)"});
  return defs;
}

const char* const kAbout =
    "Writes a SimGrid platform (one <cluster>) from a few parameters; the file states them all, as a\n"
    "comment and as collsim/NAME host properties. A summary goes to standard error (with --describe,\n"
    "to standard output). A scenario's inline platform takes the same names as keys (with '_').\n"
    "Latency is per link; a route between two nodes crosses 2 links on a crossbar, 2 to 2 x levels\n"
    "on a fat-tree, 1 per hop on a torus, 2 to 7 on a dragonfly (platforms/README.md).\n"
    "\n"
    "examples:\n"
    "  collsim platform --nodes 51 --bandwidth 25GbE --latency 5us -o grisou-25g.xml\n"
    "  collsim platform --topology fat_tree --nodes 1024 --taper 4:1 -o fat-tree-1024-4to1.xml\n"
    "  collsim platform --topology torus --dims 8,8,8 --describe\n"
    "  collsim platform --topology dragonfly --groups 8 --chassis 4 --routers 8 --nodes-per-router 16 -o df.xml";

int platform(const ParsedOptions& o) {
  const std::string output = o.text("output");

  ClusterSpec spec;
  for (const auto& p : platform_parameters()) {
    const std::string name = option_name(p.name);
    if (!o.has(name)) continue;
    try {
      set_parameter(spec, name, o.text(name));
    } catch (const InputError& e) {
      throw UsageError("--" + std::string(e.what()));
    }
  }
  spec.protocol_options = o.all("protocol-option");
  check(spec);  // InputError: names the parameters in conflict

  std::string command = "collsim platform";
  for (const std::string& arg : o.arguments) {
    const bool plain = arg.find_first_of(" \t'\"\\$;&|<>") == std::string::npos && !arg.empty();
    command += " " + (plain ? arg : "'" + arg + "'");
  }
  const std::string summary = describe_platform(spec);
  if (output.empty() && o.has("describe")) {
    std::cout << summary << "\n";
    return 0;
  }
  const std::string xml = platform_xml(spec, command);
  if (output.empty()) {
    std::cout << xml;
  } else {
    std::ofstream out(output);
    if (!out) throw InputError(output + ": cannot open for writing");
    out << xml;
    out.close();
    if (!out) throw InputError(output + ": write failed");
  }
  (o.has("describe") ? std::cout : std::cerr) << summary << "\n";
  return 0;
}

}  // namespace

Command platform_command() {
  return {"platform",
          "collsim platform [--topology crossbar|fat_tree|torus|dragonfly] [--nodes N] [PARAMETERS] [-o FILE]",
          "a SimGrid platform from a few parameters",
          kAbout,
          platform_options(),
          platform};
}

}  // namespace collsim::cli
