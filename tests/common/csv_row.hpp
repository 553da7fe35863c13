// Reading what a command printed: its lines, and the one CSV data row under an expected header,
// split with the project's quote-aware split_csv (coarray rows quote their section columns, which
// hold commas).
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "common/files.hpp"
#include "experiment/results/measurement.hpp"

namespace collsim_test {

// Column -> value of the one data row of `out`, whose first line must be `header`.
inline std::map<std::string, std::string> csv_row(const std::string& out, const std::string& header) {
  const auto ls = lines(out);
  std::map<std::string, std::string> row;
  if (ls.size() != 2) {
    ADD_FAILURE() << "expected a header and one row:\n" << out;
    return row;
  }
  EXPECT_EQ(ls[0], header);
  const auto names = collsim::split_csv(ls[0]), values = collsim::split_csv(ls[1]);
  EXPECT_EQ(names.size(), values.size()) << ls[1];
  for (std::size_t i = 0; i < names.size() && i < values.size(); ++i) row[names[i]] = values[i];
  return row;
}

}  // namespace collsim_test
