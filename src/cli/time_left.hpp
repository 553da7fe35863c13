// The time left of a long command made of rows of very different cost (collsim-mpi fidelity:
// every algorithm at sizes from 8 KiB to 4 MiB, the largest row costing hundreds of times the
// smallest), for its progress line. Rows done so far at a size say what the rows yet to come at
// that size will take: a rate over all rows would be far too hopeful after the first small ones.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace collsim::cli {

class TimeLeft {
 public:
  // `sizes`: each row's size, in the order the rows run.
  explicit TimeLeft(std::vector<std::size_t> sizes) : sizes_(std::move(sizes)) {}

  // The next row took `seconds`.
  void row_done(double seconds);
  std::size_t done() const { return done_; }
  std::size_t total() const { return sizes_.size(); }

  // Seconds the rows yet to come will take: each what the rows of its size took on average; a size
  // not measured yet, what the nearest smaller measured size took scaled by the ratio of the sizes
  // (transfers grow with the bytes), or with no smaller one what the nearest larger one took.
  // 0 when nothing is measured yet or nothing is left.
  double seconds_left() const;

 private:
  std::vector<std::size_t> sizes_;
  std::size_t done_ = 0;
  std::map<std::size_t, std::pair<double, int>> by_size_;  // size -> (seconds, rows)
};

// A duration for a person: "40 s", "12 min", "1 h 05 min".
std::string rough_duration(double seconds);

}  // namespace collsim::cli
