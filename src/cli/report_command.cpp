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
#include "experiment/results/measurement.hpp"
#include "experiment/scenario/named_files.hpp"
#include "support/input_error.hpp"

namespace collsim::cli {
namespace {

namespace fs = std::filesystem;

const char* const kAbout =
    "Writes one self-contained HTML page of a results folder of collsim run (results.csv, run.json):\n"
    "the scenario's settings, the results table, time against message size per process count and\n"
    "against process count per size (log-log, a colour per algorithm, a line style per engine), the\n"
    "fastest algorithm per (procs, bytes) as a heat map per engine, and the timelines of the points\n"
    "traced in RESULTS_DIR/traces/*.csv. The page loads nothing (inline SVG and CSS, no script), so\n"
    "it opens offline. results.csv is checked first, as compare reads it: a bad row (a time missing,\n"
    "not a number, NaN or negative) is refused with its line. Needs python3 with matplotlib\n"
    "(tools/report draws it). collsim run --report writes it after the run.";

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

Command report_command() {
  return {"report",
          "collsim report RESULTS_DIR [-o FILE]",
          "one self-contained HTML page of a results folder",
          kAbout,
          {{"output", "FILE", "write the page to FILE (also -o FILE; default RESULTS_DIR/report.html)"}},
          [](const ParsedOptions& o) {
            if (o.positional.size() != 1)
              throw UsageError("report takes one results folder (collsim report RESULTS_DIR)");
            return write_report(o.positional[0], o.text("output"), false);
          },
          true};
}

}  // namespace collsim::cli
