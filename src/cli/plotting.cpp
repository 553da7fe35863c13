#include "cli/plotting.hpp"

#include <cstdlib>
#include <vector>

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

std::string tool_path(const std::string& name) { return COLLSIM_SOURCE_DIR "/tools/" + name; }

}  // namespace collsim::cli
