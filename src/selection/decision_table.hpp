// A precomputed selection for one operation: what an MPI library would consult per call.
//
// The table holds, per band of communicator sizes, the choice per band of message sizes. It is
// filled once from any selector (model-based selection, or Open MPI's fixed decision) sampled at
// chosen communicator and message sizes, and answers a call with two binary searches, which keeps
// a decision within the budget of a collective call (tools/bench/decision_cost). Its bands mean what
// Open MPI's dynamic rules mean (rules_file.hpp): a row serves communicator sizes from its own up
// to the next row's, and the first row also serves the smaller ones; a range serves message sizes
// from its own up to the next range's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "selection/decision.hpp"

namespace collsim::selection {

// The choice for one call on `procs` processes with `bytes` (bcast: the message; gather: each
// process's block).
using Selector = std::function<Choice(int procs, std::size_t bytes)>;

// Message sizes to sample a selector at: the powers of two and the midpoints between them
// (1, 2, 3, 4, 6, 8, 12, ...), up to max_bytes. The midpoints halve the distance by which a
// change of choice can be missed.
std::vector<std::size_t> sample_sizes(std::size_t max_bytes);

class DecisionTable {
 public:
  struct Range {
    std::size_t from_bytes;  // this choice from here up to the next range's from_bytes
    Choice choice;
  };
  struct Row {
    int from_procs;  // these ranges from this communicator size up to the next row's
    std::vector<Range> ranges;
  };

  // Rows in increasing from_procs (at least 1), each with ranges in increasing from_bytes, the
  // first from 0, every choice an algorithm of `op`; else InputError. Consecutive ranges with
  // equal choices are merged. Rows are kept even when equal to the previous one: a rules file
  // states a gather's message sizes for each row's communicator size (rules_file.hpp).
  DecisionTable(Operation op, std::vector<Row> rows);

  // One row per communicator size in `procs` (increasing), one range per sample of `bytes`
  // (increasing): the choice at a sample holds from it up to the next sample, the first one
  // from 0 bytes.
  static DecisionTable build(Operation op, std::span<const int> procs, std::span<const std::size_t> bytes,
                             const Selector& select);

  Operation op() const { return op_; }
  const std::vector<Row>& rows() const { return rows_; }
  // The choice for a call: the last row with from_procs <= procs (the first row below all of
  // them), then its last range with from_bytes <= bytes.
  const Choice& lookup(int procs, std::size_t bytes) const;

 private:
  Operation op_;
  std::vector<Row> rows_;
  // The same rows flattened for lookup(): row r's ranges are [row_begin_[r], row_begin_[r + 1]).
  std::vector<int> row_procs_;
  std::vector<std::uint32_t> row_begin_;
  std::vector<std::size_t> range_from_;
  std::vector<Choice> range_choice_;
};

// One line per row: "procs >= 4: 0 bcast/binomial segment 0 | 64KiB bcast/pipeline segment 8KiB".
std::string to_string(const DecisionTable& table);

}  // namespace collsim::selection
