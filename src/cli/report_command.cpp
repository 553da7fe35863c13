// collsim report: the HTML page of a results folder, drawn by tools/report (Python, matplotlib).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/plotting.hpp"
#include "experiment/measurement.hpp"
#include "experiment/named_files.hpp"
#include "support/input_error.hpp"

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
    "it opens offline. results.csv is checked first, as compare reads it: a bad row (a time missing,\n"
    "not a number, NaN or negative) is refused with its line. Needs python3 with matplotlib\n"
    "(tools/report draws it). collsim run --report writes it after the run.\n"
    "\n";

}  // namespace

int write_report(const std::string& results_dir, const std::string& output, bool output_to_stderr) {
  if (!output.empty()) check_output_file(output, "page");
  if (!fs::is_directory(results_dir)) throw InputError(results_dir + ": no such folder");
  const std::string csv = (fs::path(results_dir) / "results.csv").string();
  if (!fs::is_regular_file(csv))
    throw InputError(results_dir + ": no results.csv (not a results folder of collsim run)");
  std::ifstream run_json(fs::path(results_dir) / "run.json");
  const std::string settings{std::istreambuf_iterator<char>(run_json), {}};
  if (settings.find("\"kind\": \"coarray\"") != std::string::npos)
    throw InputError(results_dir + ": the results of a coarray scenario; tools/plot_coarray draws them");
  // The rows are checked here, by the reader run and compare use (a bad row is refused
  // with its file and line), so that tools/report draws only rows that make sense.
  if (read_results_csv(csv).empty()) throw InputError(csv + ": no rows (the run has measured nothing yet)");
  const auto python = plotting_python();
  if (!python) {
    std::cerr << "collsim: report needs python3 with matplotlib (Debian: apt-get install python3-matplotlib)\n";
    return 2;
  }
  std::vector<std::string> args = {results_dir};
  if (!output.empty()) args.insert(args.end(), {"--output", output});
  return run_plotting_tool(*python, "report", args, output_to_stderr);
}

int report_command(std::span<char* const> args) {
  const ParsedOptions o = parse_options(args, report_options());
  if (o.has("help")) {
    std::cout << kHelp << format_options(report_options());
    return 0;
  }
  const std::vector<std::string>& dirs = o.positional;
  if (dirs.size() != 1) throw UsageError("report takes one results folder (collsim report RESULTS_DIR)");
  return write_report(dirs[0], o.text("output"), false);
}

}  // namespace collsim::cli
