// Files and text of the tests: reading a file whole, writing one, splitting text into lines, and
// folders of one test process's own under the temporary directory (ctest runs the tests of a
// suite as separate processes, possibly at once).
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace collsim_test {

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Writes `text` to `p` (making its folder) and returns `p`.
inline std::filesystem::path write_file(const std::filesystem::path& p, const std::string& text) {
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << text;
  return p;
}

inline std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The folder collsim-SUITE-PID of the temporary directory. It is emptied on this process's first
// use of it: an earlier process that had the same id (ids are reused) may have left files there.
inline std::filesystem::path scratch_dir(const std::string& suite) {
  static std::set<std::string> emptied;
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("collsim-" + suite + "-" + std::to_string(::getpid()));
  if (emptied.insert(suite).second) std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// scratch_dir(suite) / name, emptied: a fresh folder for one test.
inline std::filesystem::path fresh_dir(const std::string& suite, const std::string& name) {
  const std::filesystem::path dir = scratch_dir(suite) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace collsim_test
