#include "selection/decision_table.hpp"

#include <algorithm>
#include <limits>

#include "support/input_error.hpp"
#include "support/units.hpp"

namespace collsim::selection {

std::vector<std::size_t> sample_sizes(std::size_t max_bytes) {
  std::vector<std::size_t> out;
  constexpr std::size_t kTop = std::size_t{1} << (std::numeric_limits<std::size_t>::digits - 1);
  for (std::size_t p = 1; p <= max_bytes; p *= 2) {
    out.push_back(p);
    // p + p/2 is the midpoint between p and 2p (none between 1 and 2).
    if (p >= 2 && p / 2 <= max_bytes - p) out.push_back(p + p / 2);
    if (p == kTop) break;
  }
  return out;
}

DecisionTable::DecisionTable(Operation op, std::vector<Row> rows) : op_(op) {
  const std::string what = "decision table for " + std::string(to_string(op)) + ": ";
  if (rows.empty()) throw InputError(what + "no rows");
  for (std::size_t r = 0; r < rows.size(); ++r) {
    Row& row = rows[r];
    if (row.from_procs < 1) throw InputError(what + "communicator size " + std::to_string(row.from_procs));
    if (r > 0 && row.from_procs <= rows[r - 1].from_procs)
      throw InputError(what + "communicator sizes must increase: " + std::to_string(row.from_procs) + " after " +
                       std::to_string(rows[r - 1].from_procs));
    const std::string at = what + "row " + std::to_string(row.from_procs) + ": ";
    if (row.ranges.empty() || row.ranges.front().from_bytes != 0)
      throw InputError(at + "the first range must start at 0 bytes");
    std::vector<Range> merged;
    for (std::size_t i = 0; i < row.ranges.size(); ++i) {
      const Range& range = row.ranges[i];
      if (range.choice.algorithm == nullptr || range.choice.algorithm->op != op)
        throw InputError(at + "the choice from " + std::to_string(range.from_bytes) + " bytes is not a " +
                         std::string(to_string(op)) + " algorithm");
      if (i > 0 && range.from_bytes <= row.ranges[i - 1].from_bytes)
        throw InputError(at + "message sizes must increase: " + std::to_string(range.from_bytes) + " after " +
                         std::to_string(row.ranges[i - 1].from_bytes));
      if (merged.empty() || !(range.choice == merged.back().choice)) merged.push_back(range);
    }
    row.ranges = std::move(merged);
    rows_.push_back(std::move(row));
  }
  for (const Row& row : rows_) {
    row_procs_.push_back(row.from_procs);
    row_begin_.push_back(static_cast<std::uint32_t>(range_from_.size()));
    for (const Range& range : row.ranges) {
      range_from_.push_back(range.from_bytes);
      range_choice_.push_back(range.choice);
    }
  }
  row_begin_.push_back(static_cast<std::uint32_t>(range_from_.size()));
}

DecisionTable DecisionTable::build(Operation op, std::span<const int> procs, std::span<const std::size_t> bytes,
                                   const Selector& select) {
  if (bytes.empty()) throw InputError("decision table: no message sizes to sample");
  if (!std::is_sorted(bytes.begin(), bytes.end()) || std::adjacent_find(bytes.begin(), bytes.end()) != bytes.end())
    throw InputError("decision table: the sampled message sizes must increase");
  std::vector<Row> rows;
  for (const int p : procs) {
    Row row{p, {}};
    for (std::size_t i = 0; i < bytes.size(); ++i) row.ranges.push_back({i == 0 ? 0 : bytes[i], select(p, bytes[i])});
    rows.push_back(std::move(row));
  }
  return DecisionTable(op, std::move(rows));
}

const Choice& DecisionTable::lookup(int procs, std::size_t bytes) const {
  const auto row_end = std::upper_bound(row_procs_.begin(), row_procs_.end(), procs);
  const std::size_t r = row_end == row_procs_.begin() ? 0 : static_cast<std::size_t>(row_end - row_procs_.begin()) - 1;
  const auto first = range_from_.begin() + row_begin_[r];
  const auto last = range_from_.begin() + row_begin_[r + 1];
  // Every row's first range starts at 0 bytes, so the range found is never before `first`.
  const auto i = std::upper_bound(first + 1, last, bytes) - range_from_.begin() - 1;
  return range_choice_[static_cast<std::size_t>(i)];
}

std::string to_string(const DecisionTable& table) {
  std::string out;
  for (const auto& row : table.rows()) {
    out += "procs >= " + std::to_string(row.from_procs) + ":";
    for (std::size_t i = 0; i < row.ranges.size(); ++i)
      out += std::string(i == 0 ? " " : " | ") + format_bytes(row.ranges[i].from_bytes) + " " +
             to_string(row.ranges[i].choice);
    out += "\n";
  }
  return out;
}

}  // namespace collsim::selection
