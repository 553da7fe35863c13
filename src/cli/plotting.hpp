// Running the Python plotting tools (tools/plot_compare, tools/timeline) from collsim commands:
// finding a Python that has matplotlib, and quoting their arguments for the shell.
#pragma once

#include <optional>
#include <string>

namespace collsim::cli {

// A Python that can import matplotlib: $COLLSIM_PYTHON if set, else Debian's /usr/bin/python3
// (where python3-matplotlib installs, whatever python3 comes first on PATH), else python3.
std::optional<std::string> plotting_python();

// `s` in single quotes for /bin/sh.
std::string shell_quoted(const std::string& s);

// A tool of the source tree's tools/ folder: COLLSIM_SOURCE_DIR/tools/NAME.
std::string tool_path(const std::string& name);

}  // namespace collsim::cli
