// Helpers of the collsim command-line suites: run the built collsim, read what it printed, check
// the one-line errors of bad input.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
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
inline fs::path scratch() { return scratch_dir("cli"); }

// scratch() / name holding `text`.
inline fs::path scratch_file(const std::string& name, const std::string& text) {
  return write_file(scratch() / name, text);
}

inline Outcome collsim(const std::string& args) { return run_command(std::string(COLLSIM_BIN) + " " + args); }

// collsim run from `dir`, for what is resolved against the current directory (output folders).
inline Outcome collsim_in(const fs::path& dir, const std::string& args) {
  return run_command("cd " + dir.string() + " && " + COLLSIM_BIN + " " + args);
}

inline std::string src(const std::string& rel) { return std::string(COLLSIM_SOURCE_DIR) + "/" + rel; }

// The cells of one CSV line, split at every comma (for rows that quote no cell).
inline std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out(1);
  for (char c : line) {
    if (c == ',')
      out.emplace_back();
    else
      out.back().push_back(c);
  }
  return out;
}

// Values of `column` in every data row of a CSV text (rows that quote no cell).
inline std::vector<std::string> csv_column(const std::string& csv, const std::string& column) {
  const std::vector<std::string> rows = lines(csv);
  if (rows.empty()) return {};
  const std::vector<std::string> names = cells(rows[0]);
  const auto at = static_cast<std::size_t>(std::find(names.begin(), names.end(), column) - names.begin());
  if (at == names.size()) ADD_FAILURE() << "no column " << column << " in:\n" << csv;
  std::vector<std::string> out;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const std::vector<std::string> values = cells(rows[r]);
    out.push_back(at < values.size() ? values[at] : "");
  }
  return out;
}

// Value of `column` in the first data row of a CSV text.
inline std::string csv_field(const std::string& csv, const std::string& column) {
  const std::vector<std::string> values = csv_column(csv, column);
  if (values.empty()) ADD_FAILURE() << "no data row in:\n" << csv;
  return values.empty() ? std::string() : values.front();
}

// time_s of the first row `collsim ARGS --csv ...` prints; a failure, and NaN (which no
// expectation matches), when the command does not exit 0.
inline double csv_time(const std::string& args) {
  const Outcome o = collsim(args);
  EXPECT_EQ(o.status, 0) << args << "\nstderr: " << o.err;
  return o.status == 0 ? std::stod(csv_field(o.out, "time_s")) : std::nan("");
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
