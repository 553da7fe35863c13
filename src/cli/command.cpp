#include "cli/command.hpp"

#include <algorithm>
#include <ostream>
#include <string_view>

#include "experiment/scenario/scenario_error.hpp"
#include "support/input_error.hpp"

namespace collsim::cli {
namespace {

const OptionDef kHelpOption{"help", "", "this text"};

std::vector<OptionDef> with_help(const Command& command) {
  std::vector<OptionDef> defs = command.options;
  defs.push_back(kHelpOption);
  return defs;
}

bool asks_for_help(std::span<char* const> args) {
  return std::any_of(args.begin(), args.end(), [](std::string_view a) { return a == "--help" || a == "-h"; });
}

// A synopsis as the overview lists it: its lines indented under "usage:" rather than after it.
std::string overview_synopsis(const std::string& synopsis) {
  const std::string help_indent(std::string_view("usage: ").size(), ' ');
  std::string out = "  ";
  for (const char c : synopsis) {
    out += c;
    if (c == '\n') out += "  ";
  }
  for (std::size_t at = out.find("\n  " + help_indent); at != std::string::npos;
       at = out.find("\n  " + help_indent, at + 1))
    out.erase(at + 3, help_indent.size());
  return out;
}

}  // namespace

std::string command_help(const Command& command) {
  std::string out = "usage: " + command.synopsis + "\n\n";
  if (!command.about.empty()) out += command.about + (command.about.ends_with('\n') ? "\n" : "\n\n");
  return out + "options:\n" + format_options(with_help(command));
}

std::string program_help(const Program& program) {
  std::string out = program.title + "\n\nusage:\n";
  for (const Command& c : program.commands) out += overview_synopsis(c.synopsis) + "\n      " + c.summary + "\n";
  out += "  " + program.name + " COMMAND --help\n      a command's options\n";
  if (!program.epilog.empty()) out += "\n" + program.epilog;
  return out;
}

int run_single(const Command& command, std::span<char* const> args, std::ostream& out) {
  if (asks_for_help(args)) {
    out << command_help(command) << std::flush;
    return 0;
  }
  const std::vector<OptionDef> defs = with_help(command);
  const ParsedOptions options = parse_options(args, defs);
  if (!command.takes_arguments && !options.positional.empty())
    throw UsageError("unexpected argument '" + options.positional.front() + "' (see --help)");
  return command.run(options);
}

int run_program(const Program& program, std::span<char* const> args, std::ostream& out) {
  std::string names;
  for (const Command& c : program.commands) names += (names.empty() ? "" : ", ") + c.name;
  if (args.empty()) throw UsageError("missing command (one of: " + names + "; see " + program.name + " --help)");
  const std::string_view name = args.front();
  if (name == "--help" || name == "-h" || name == "help") {
    out << program_help(program) << std::flush;
    return 0;
  }
  for (const Command& c : program.commands)
    if (c.name == name) return run_single(c, args.subspan(1), out);
  throw UsageError("unknown command '" + std::string(name) + "' (one of: " + names + "; see " + program.name +
                   " --help)");
}

bool is_input_error(const std::exception& e) {
  return dynamic_cast<const UsageError*>(&e) || dynamic_cast<const InputError*>(&e) ||
         dynamic_cast<const ScenarioError*>(&e);
}

int exit_status(const std::exception& e) { return is_input_error(e) ? 2 : 1; }

int guarded_main(const std::string& program, std::ostream& err, const std::function<int()>& main) {
  try {
    return main();
  } catch (const std::exception& e) {
    err << program << ": " << e.what() << "\n" << std::flush;
    return exit_status(e);
  }
}

}  // namespace collsim::cli
