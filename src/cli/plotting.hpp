// Running the Python plotting tools (tools/report, tools/plot_compare, tools/timeline) from collsim
// commands: finding a Python that has matplotlib, and turning how a tool ended into collsim's
// contract (exit 0, 2 with one line for input it refuses, 1 with one line for its own failure; no
// traceback on the terminal).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "support/shell_quote.hpp"

namespace collsim::cli {

// A Python that can import matplotlib: $COLLSIM_PYTHON if set, else Debian's /usr/bin/python3
// (where python3-matplotlib installs, whatever python3 comes first on PATH), else python3.
std::optional<std::string> plotting_python();

// A tool of the source tree's tools/ folder: COLLSIM_SOURCE_DIR/tools/NAME.
std::string tool_path(const std::string& name);

// Runs `python tools/TOOL ARGS...`, its standard output on ours (on our standard error when
// `stdout_to_stderr`), its standard error into a log file. Returns 0 when it succeeded. When it
// refused its input (exit status 2, its own one line last in the log), prints that line after
// "collsim: " and returns 2. Any other end (a Python exception, a signal) is its fault: prints
// one line that says so and names the log, which is kept, and returns 1. The log is removed
// otherwise.
int run_plotting_tool(const std::string& python, const std::string& tool, const std::vector<std::string>& args,
                      bool stdout_to_stderr = false);

}  // namespace collsim::cli
