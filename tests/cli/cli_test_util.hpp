// Helpers of the collsim command-line suites: run the built collsim, read what it printed, check
// the one-line errors of bad input.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/run_command.hpp"

namespace collsim_test {

namespace fs = std::filesystem;

// A folder for the files one test process writes (scenarios, result folders); per process, since
// ctest runs the tests of this suite as separate processes, possibly at once.
inline fs::path scratch() {
  const fs::path dir = fs::temp_directory_path() / ("collsim-cli-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

inline Outcome collsim(const std::string& args) { return run_command(std::string(COLLSIM_BIN) + " " + args); }

// collsim run from `dir`, for what is resolved against the current directory (output folders).
inline Outcome collsim_in(const fs::path& dir, const std::string& args) {
  return run_command("cd " + dir.string() + " && " + COLLSIM_BIN + " " + args);
}

inline std::string src(const std::string& rel) { return std::string(COLLSIM_SOURCE_DIR) + "/" + rel; }

inline std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Value of `column` in the first data row of a CSV text.
inline std::string csv_field(const std::string& csv, const std::string& column) {
  std::istringstream in(csv);
  std::string header, row;
  std::getline(in, header);
  std::getline(in, row);
  std::vector<std::string> names, values;
  std::string cell;
  for (std::istringstream h(header); std::getline(h, cell, ',');) names.push_back(cell);
  for (std::istringstream r(row); std::getline(r, cell, ',');) values.push_back(cell);
  for (std::size_t i = 0; i < names.size() && i < values.size(); ++i)
    if (names[i] == column) return values[i];
  ADD_FAILURE() << "no column " << column << " in:\n" << csv;
  return {};
}

// Bad input: exit status 2 and one line on stderr that contains `fragment`.
inline void expect_bad_input(const std::string& args, const std::string& fragment) {
  const Outcome o = collsim(args);
  EXPECT_EQ(o.status, 2) << args << "\nstderr: " << o.err;
  EXPECT_NE(o.err.find(fragment), std::string::npos) << args << "\nstderr: " << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << "not one line:\n" << o.err;
}

// Bad input: exit status 2, nothing on stdout, and stderr exactly `line` (without its newline).
inline void expect_refused(const std::string& args, const std::string& line) {
  const Outcome o = collsim(args);
  EXPECT_EQ(o.status, 2) << args << "\nstderr: " << o.err;
  EXPECT_EQ(o.err, line + "\n") << args;
  EXPECT_EQ(o.out, "") << args;
}

}  // namespace collsim_test
