// The Python tools under tools/ (plot_compare, report, ...) as the collsim commands run them:
// which Python can run them, and the shell words to call one with.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace collsim::cli {

// `s` as one word for /bin/sh.
std::string shell_quoted(const std::string& s);

// A Python that can import matplotlib: $COLLSIM_PYTHON if set, else Debian's /usr/bin/python3
// (where python3-matplotlib installs, whatever python3 comes first on PATH), else python3.
std::optional<std::string> plotting_python();

// Runs tools/NAME of the source tree with `python` and `args` through the shell; its standard
// output goes to standard error when `output_to_stderr` (so a command's own output stays clean).
// Returns std::system's status (0: success).
int run_python_tool(const std::string& python, const std::string& name, const std::vector<std::string>& args,
                    bool output_to_stderr = false);

}  // namespace collsim::cli
