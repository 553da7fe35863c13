// Result files of a scenario run: a tidy CSV (one row per measurement, flushed as it is written,
// so an interrupted run keeps every finished row) and a JSON file describing the run (scenario,
// engines and their settings, status), rewritten when the run ends.
#pragma once

#include <fstream>
#include <string>

#include "experiment/measurement.hpp"
#include "experiment/scenario.hpp"

namespace collsim {

class ResultFiles {
 public:
  // Creates `dir` if needed and writes results.csv's header and run.json (status "running").
  // Throws std::runtime_error naming the path when a file cannot be written.
  ResultFiles(const std::string& dir, const Scenario& scenario, std::size_t planned);

  void add(const Measurement& m);
  // Rewrites run.json with the final status ("complete" or "failed: <reason>").
  void finish(const std::string& status);

  std::string csv_path() const { return csv_path_; }
  std::string json_path() const { return json_path_; }

 private:
  void write_json(const std::string& status);

  const Scenario& scenario_;
  std::string csv_path_, json_path_, started_;
  std::size_t planned_, written_ = 0;
  std::ofstream csv_;
};

}  // namespace collsim
