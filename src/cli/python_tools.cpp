#include "cli/python_tools.hpp"

#include <cstdlib>

namespace collsim::cli {

std::string shell_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::optional<std::string> plotting_python() {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("COLLSIM_PYTHON"); env && *env)
    candidates.push_back(env);
  else
    candidates = {"/usr/bin/python3", "python3"};
  for (const auto& py : candidates)
    if (std::system((shell_quoted(py) + " -c 'import matplotlib' >/dev/null 2>&1").c_str()) == 0) return py;
  return std::nullopt;
}

int run_python_tool(const std::string& python, const std::string& name, const std::vector<std::string>& args,
                    bool output_to_stderr) {
  std::string tool = COLLSIM_SOURCE_DIR "/tools/";
  tool += name;
  // Appended piece by piece: GCC 12 warns (-Wrestrict, falsely) on "literal" + std::string&&.
  std::string cmd = shell_quoted(python);
  cmd += ' ';
  cmd += shell_quoted(tool);
  for (const std::string& a : args) {
    cmd += ' ';
    cmd += shell_quoted(a);
  }
  if (output_to_stderr) cmd += " >&2";
  return std::system(cmd.c_str());
}

}  // namespace collsim::cli
