// collsim report: the HTML page of a results folder, drawn by tools/report (Python, matplotlib).
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "algorithms/input_error.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/plotting.hpp"
#include "experiment/named_files.hpp"

namespace collsim::cli {
namespace {

namespace fs = std::filesystem;

const std::vector<OptionDef>& report_options() {
  static const std::vector<OptionDef> defs = {
      {"output", "FILE", "write the page to FILE (also -o FILE; default RESULTS_DIR/report.html)"},
      {"help", "", "this text"},
  };
  return defs;
}

const char* const kHelp =
    "usage: collsim report RESULTS_DIR [-o FILE]\n"
    "\n"
    "Writes one self-contained HTML page of a results folder of collsim run (results.csv, run.json):\n"
    "the scenario's settings, the results table, time against message size per process count and\n"
    "against process count per size (log-log, a colour per algorithm, a line style per engine), the\n"
    "fastest algorithm per (procs, bytes) as a heat map per engine, and the timelines of the points\n"
    "traced in RESULTS_DIR/traces/*.csv. The page loads nothing (inline SVG and CSS, no script), so\n"
    "it opens offline. Needs python3 with matplotlib (tools/report draws it). collsim run --report\n"
    "writes it after the run.\n"
    "\n";

}  // namespace

int write_report(const std::string& results_dir, const std::string& output, bool output_to_stderr) {
  if (!fs::is_directory(results_dir)) throw InputError(results_dir + ": no such folder");
  if (!fs::is_regular_file(fs::path(results_dir) / "results.csv"))
    throw InputError(results_dir + ": no results.csv (not a results folder of collsim run)");
  if (!output.empty()) check_output_file(output, "page");
  const auto python = plotting_python();
  if (!python) {
    std::cerr << "collsim: report needs python3 with matplotlib (Debian: apt-get install python3-matplotlib)\n";
    return 2;
  }
  std::string cmd = shell_quoted(*python) + " " + shell_quoted(tool_path("report")) + " " + shell_quoted(results_dir);
  if (!output.empty()) cmd += " --output " + shell_quoted(output);
  if (output_to_stderr) cmd += " >&2";
  const int status = std::system(cmd.c_str());
  // tools/report exits 2 on bad input after printing its one line; anything else is its failure.
  if (status == 0) return 0;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 2) return 2;
  std::cerr << "collsim: tools/report failed (status " << status << ")\n";
  return 1;
}

int report_command(std::span<char* const> args) {
  const ParsedOptions o = parse_options(args, report_options());
  if (o.has("help")) {
    std::cout << kHelp << format_options(report_options());
    return 0;
  }
  std::string output = o.text("output");
  std::vector<std::string> dirs;
  for (std::size_t i = 0; i < o.positional.size(); ++i) {
    if (o.positional[i] != "-o") {
      dirs.push_back(o.positional[i]);
      continue;
    }
    if (i + 1 >= o.positional.size()) throw UsageError("-o needs a value (FILE)");
    if (!output.empty()) throw UsageError("the output file is given twice (-o and --output)");
    output = o.positional[++i];
  }
  if (dirs.size() != 1) throw UsageError("report takes one results folder (collsim report RESULTS_DIR)");
  return write_report(dirs[0], output, false);
}

}  // namespace collsim::cli
