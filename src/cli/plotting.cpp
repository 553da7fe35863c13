#include "cli/plotting.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace collsim::cli {

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

namespace {

// The last non-blank line of a file, "" when there is none.
std::string last_line(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string last;
  for (std::string line; std::getline(in, line);)
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  return last;
}

}  // namespace

int run_plotting_tool(const std::string& python, const std::string& tool, const std::vector<std::string>& args,
                      bool stdout_to_stderr) {
  namespace fs = std::filesystem;
  const fs::path log = fs::temp_directory_path() / ("collsim-" + tool + "-" + std::to_string(::getpid()) + ".log");
  std::string cmd = shell_quoted(python) + " " + shell_quoted(tool_path(tool));
  // Appended piecewise: GCC 12 warns (-Wrestrict, falsely) about " " + a temporary string.
  for (const std::string& a : args) {
    cmd += ' ';
    cmd += shell_quoted(a);
  }
  if (stdout_to_stderr) cmd += " >&2";
  cmd += " 2>";
  cmd += shell_quoted(log.string());
  // What we printed comes before what the tool prints.
  std::cout.flush();
  std::cerr.flush();
  const int status = std::system(cmd.c_str());
  std::error_code ec;
  if (status == 0) {
    fs::remove(log, ec);
    return 0;
  }
  if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 2) {
    const std::string line = last_line(log);
    if (!line.empty()) {
      fs::remove(log, ec);
      std::cerr << "collsim: " << line << "\n";
      return 2;
    }
  }
  const std::string how =
      status == -1 ? "could not be started"
      : WIFSIGNALED(status)
          ? "was killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")"
          : "failed unexpectedly (exit status " + std::to_string(WEXITSTATUS(status)) + ")";
  std::cerr << "collsim: tools/" << tool << " " << how << "; what it printed is in " << log.string() << "\n";
  return 1;
}

}  // namespace collsim::cli
