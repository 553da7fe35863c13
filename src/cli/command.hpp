// The command framework of collsim's three programs (collsim, collsim-mpi, collsim-caf).
//
// A command is a small object: its name, its usage line, a paragraph on what it does, its options
// and its run. A program is its commands in a table. run_program() picks the command its first
// argument names, prints the program's overview or the command's --help (one layout for all),
// parses the options (UsageError on anything unknown) and runs it; exit_status() maps what a run
// throws to the exit statuses the README documents.
#pragma once

#include <exception>
#include <functional>
#include <iosfwd>
#include <span>
#include <string>
#include <vector>

#include "cli/options.hpp"

namespace collsim::cli {

struct Command {
  std::string name;
  std::string synopsis;            // the usage line after "usage: ", program name included
  std::string summary;             // one line in the program's overview
  std::string about;               // --help's paragraphs between the usage line and the options; may be empty
  std::vector<OptionDef> options;  // without --help, which every command has
  // The command's work, given its parsed options; returns the exit status.
  std::function<int(const ParsedOptions&)> run;
  // Whether it takes arguments besides its options (a scenario, files, an algorithm), which it
  // checks itself; a command that takes none refuses any.
  bool takes_arguments = false;
};

struct Program {
  std::string name;   // "collsim"
  std::string title;  // the overview's first line
  std::vector<Command> commands;
  std::string epilog;  // the overview's text after the command list; may be empty
};

// The command's --help text: usage line, its paragraphs, its options (with --help).
std::string command_help(const Command& command);
// The program's overview (`PROGRAM --help`): title, each command's usage line and summary, epilog.
std::string program_help(const Program& program);

// Runs the command `args[0]` names with the rest. --help or -h anywhere in a command's arguments
// prints its help to `out` instead (whatever else is given), as `PROGRAM --help` prints the
// overview. UsageError for a missing or unknown command; whatever the command throws goes on.
int run_program(const Program& program, std::span<char* const> args, std::ostream& out);
// The same for a program with one command: no command name in `args`.
int run_single(const Command& command, std::span<char* const> args, std::ostream& out);

// Whether `e` says the input was wrong (options, scenario, platform or data files): UsageError,
// InputError, ScenarioError.
bool is_input_error(const std::exception& e);
// 2 for bad input, 1 for anything else (EngineError: a run failed).
int exit_status(const std::exception& e);
// Runs `main` and returns its status; an exception is printed as "PROGRAM: message" on `err` and
// becomes exit_status().
int guarded_main(const std::string& program, std::ostream& err, const std::function<int()>& main);

}  // namespace collsim::cli
