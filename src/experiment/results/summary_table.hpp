// Readable tables of results for the terminal: one line per measured point with one time column
// per engine, side by side so the model and the simulation can be compared at a glance.
#pragma once

#include <string>
#include <vector>

#include "experiment/results/measurement.hpp"

namespace collsim {

// Rows grouped by (op and its reduction, procs, bytes, segment, root) in first-seen order; a column per engine
// (first-seen order); a ratio column when exactly two engines are present; a last column with
// the data check when real bytes were checked. A measured time whose runs stopped at max_runs with
// the confidence interval above its target is marked " *", with a note under the table.
std::string format_results_table(const std::vector<Measurement>& rows);

// One sentence saying what each engine column of those rows is, for under the table: "formula-derived:
// ...; model: ...; sim: ...".
std::string engine_legend(const std::vector<Measurement>& rows);

// For each engine and operation (with its datatype and operator, for a reduction) measured with
// more than one algorithm or segment size: one line per (procs, bytes) naming the fastest algorithm (with its segment
// size), its time, and the runner-up with how much slower it is. Empty when there is nothing to compare.
std::string format_fastest_table(const std::vector<Measurement>& rows);

}  // namespace collsim
