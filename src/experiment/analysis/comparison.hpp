// `collsim compare`'s logic: result rows of every engine joined by point, each prediction's
// error against a reference engine, and how well each selector picks (the seed's judgement of
// selection, ../shared/reference/models.md "Selection and how it is judged").
//
// A point is one call (op, procs, bytes, segment, root, and a reduction's datatype and operator).
// A selection group is one call of an operation, (operation, procs, bytes, root, datatype,
// reduce_op); its candidates are the (algorithm, segment)
// points that have a reference time. A selector picks one candidate per group: the argmin of a
// prediction engine (formula-textbook, formula-derived, model, sim) among the candidates it
// predicts, or Open MPI's fixed decision (3.1, 4.1), which may pick something that was not run.
// The pick's degradation is its reference time over the group's best reference time (1 =
// optimal). Result files carry no fanout or radix, so candidates are matched by algorithm and
// segment only: Open MPI 4.1's chain (fanout 1) matches whatever chain was run.
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engines/engine.hpp"
#include "experiment/results/measurement.hpp"
#include "registry/registry.hpp"

namespace collsim {

// The engines of result rows a comparison knows (kCollectiveEngines, engines/engine.hpp), in the
// order of its columns; the arrays below are indexed by static_cast<std::size_t>(engine).
inline constexpr std::size_t kComparedEngines = kCollectiveEngines.size();

// Result rows from one file, with the file's name for messages.
struct ResultsFile {
  std::string path;
  std::vector<Measurement> rows;
};

struct PointKey {
  std::string op;  // algorithm, "bcast/binomial"
  int procs = 0;
  std::size_t bytes = 0, segment = 0;
  int root = 0;
  std::string datatype, reduce_op;  // reducing operations only, else empty
  auto operator<=>(const PointKey&) const = default;
};

struct PointComparison {
  PointKey point;
  std::array<std::optional<double>, kComparedEngines> time;  // time_s by engine, when a row gave it
  // (time - reference time) / reference time, for every engine but the reference, when both exist.
  std::array<std::optional<double>, kComparedEngines> rel_error;
  // The prediction interval of a row that gave one (a derived formula's, Measurement::interval).
  std::array<std::optional<models::TimeInterval>, kComparedEngines> interval;
};

struct Candidate {
  const AlgorithmInfo* algorithm = nullptr;
  std::size_t segment = 0;
  friend bool operator==(const Candidate&, const Candidate&) = default;
};
// "bcast/pipeline segment 8KiB", "bcast/binomial" (the segment only for algorithms that take one).
std::string to_string(const Candidate& c);

struct SelectorPick {
  enum class Status {
    ok,              // the pick was run: pick_s and degradation are set
    not_in_results,  // Open MPI's choice was not among the candidates
    no_prediction,   // no candidate has the selector's prediction
  };
  Status status = Status::no_prediction;
  Candidate pick;  // set unless no_prediction
  double pick_s = 0, degradation = 0;
};
std::string_view to_string(SelectorPick::Status s);

struct SelectionGroup {
  Operation op = Operation::bcast;
  int procs = 0;
  std::size_t bytes = 0;
  int root = 0;
  std::string datatype, reduce_op;  // reducing operations only, else empty
  int candidates = 0;               // (algorithm, segment) points with a reference time
  Candidate best;                   // the smallest reference time (on a tie, the first in name, segment order)
  double best_s = 0;
  std::vector<SelectorPick> picks;  // one per Comparison::selectors entry
};

// One selector over one operation's groups.
struct SelectorSummary {
  std::string selector;
  Operation op = Operation::bcast;
  int groups = 0;          // groups of the operation
  int picked = 0;          // groups whose pick was run (status ok)
  int not_in_results = 0;  // Open MPI's choice not run
  int no_prediction = 0;
  int hits = 0;  // picks with degradation exactly 1 (the best, or one equally fast)
  double mean_degradation = 0, worst_degradation = 0;  // over the `picked` groups
  int worst_procs = 0;
  std::size_t worst_bytes = 0;
};

// One engine's prediction errors over one operation's points.
struct ErrorSummary {
  Engine engine = Engine::model;
  Operation op = Operation::bcast;
  int points = 0;
  double mean_abs = 0, max_abs = 0;  // of rel_error
  // Of the points that also have the engine's prediction interval: how many, how many of their
  // reference times lie inside it (at the interval's level, about that share should), and the
  // mean of its half-width relative to the prediction, (high - low) / 2 / time.
  int with_interval = 0, inside = 0;
  double mean_half_width = 0;
};

struct Comparison {
  Engine reference = Engine::sim;
  std::vector<std::string> files;
  std::array<int, kComparedEngines> rows{};  // rows per engine
  int ignored_rows = 0;                      // rows of engines not in kCollectiveEngines
  // "textbook", "derived", "model", "sim" for the prediction engines that have rows (not the
  // reference), then "ompi-4.1", "ompi-3.1".
  std::vector<std::string> selectors;
  std::vector<PointComparison> points;  // every point of any row, in PointKey order
  std::vector<SelectionGroup> groups;   // in (op, procs, bytes, root) order
  std::vector<SelectorSummary> selector_summaries;
  std::vector<ErrorSummary> error_summaries;
};

// The engine compared with when none is named: Open MPI's own collectives (mpi-native) if the
// files measured them, else our algorithms on MPI (mpi), else the simulation (sim); nullopt if
// none has rows. mpi-native first: it is what Open MPI's decision, and a rules file, would run.
std::optional<Engine> default_reference(std::span<const ResultsFile> files);

// The comparison of every row of `files` against `reference` (nullopt: default_reference).
// Throws InputError for an unknown algorithm in a row, two rows of one engine at one point, no
// row of the reference engine, or no point where the reference and another engine both have a time.
Comparison compare_results(std::span<const ResultsFile> files, std::optional<Engine> reference);

// Per point: op,procs,bytes,segment,root,reference,reference_s, then <engine>_s and
// <engine>_rel_err for every engine (empty when absent), then datatype,reduce_op (empty for
// operations that do not reduce), then <engine>_low_s and <engine>_high_s for each formula engine
// (its prediction interval; empty without one); numbers in shortest round-trip form.
std::string comparison_points_csv(const Comparison& c);
// Per group and selector: operation,procs,bytes,root,candidates,best,best_segment,best_s,
// selector,pick,pick_segment,pick_s,degradation,status,datatype,reduce_op.
std::string comparison_selection_csv(const Comparison& c);
// The terminal report: rows read, prediction errors (with, for predictions that have intervals,
// their mean half-width and how many reference times fall inside), each selector's mean and worst
// degradation and hit rate per operation, per operation a table of the picks by (procs, bytes),
// and the predictions with intervals point by point ("123.4 us [110.2 us, 138.1 us]").
std::string format_comparison(const Comparison& c);

}  // namespace collsim
