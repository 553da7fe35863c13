// Runs a coarray scenario (coarray_scenario.hpp): model in-process, every sim point in a
// simulation of its own, mpi and caf-native as one mpirun per point, each row handed over as soon
// as it exists so the results file keeps everything finished when a run is interrupted; as a
// Sweep (sweep.hpp), so --jobs, --shard, --resume and collsim merge apply as to collective scenarios.
#pragma once

#include <functional>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "experiment/scenario/coarray_scenario.hpp"
#include "experiment/sweep/sweep.hpp"

namespace collsim {

// The options that describe `p` to `collsim-mpi coarray` and collsim-caf (cli/coarray_options.hpp
// names): --put/--get, the sections and shapes, --elem, --statements N, --nonblocking MODE for a
// non-blocking PUT, --buffer, --registered, --packing, --get-behaviour for GET, --origin and --target.
// The options of collsim coarray that give point `p`; without runtime_options only the statement
// (sections, element size, statements, images), as collsim-caf takes it.
std::vector<std::string> coarray_point_arguments(const CoarrayPoint& p, bool runtime_options);

// The program an mpi engine runs: collsim-mpi (mpi.program, else beside the running collsim) or
// collsim-caf (coarray.caf_program, else beside the running collsim).
std::string coarray_engine_program(const CoarrayScenario& sc, Engine engine);

// The whole command line of one point on engine mpi or caf-native: the launcher, -np images,
// the program (with `coarray` for collsim-mpi), the point, the runs settings and --csv.
std::vector<std::string> coarray_mpi_command(const CoarrayScenario& sc, Engine engine, const CoarrayPoint& p);

// Empty when `engine` can run here; else one line saying why not (program absent, or too old to
// take coarray points). model and sim are always available.
std::string coarray_engine_unavailable(const CoarrayScenario& sc, Engine engine);

// Runs one point under mpirun and reads its row back (parse_coarray_csv). Throws InputError when
// the program rejects the point (exit 2), EngineError when it fails, times out or prints no row.
CoarrayRow run_coarray_mpi_point(const CoarrayScenario& sc, Engine engine, const CoarrayPoint& p);

// Runs the plan in order, skipping the points of unavailable engines (on_skip gets the engine and
// the reason once). Rows come out in plan order, except that caf-native points sharing one
// measurement (they differ only in Omni's runtime options) come together; each carries the plan
// point it belongs to. Every sim point runs in its own simulation.
void run_coarray_plan(const CoarrayScenario& sc, const std::vector<CoarrayPlanPoint>& plan,
                      const std::function<void(const CoarrayPlanPoint&, const CoarrayRow&)>& on_row,
                      const std::function<void(const std::string& engine, const std::string& why)>& on_skip);

// The scenario's plan as a sweep (sweep.hpp): the units of the engines in `unavailable` (engine
// name -> why) are skipped. Refers to `scenario` and `plan`, which must outlive it.
Sweep coarray_sweep(const CoarrayScenario& scenario, const std::vector<CoarrayPlanPoint>& plan,
                    const std::map<std::string, std::string>& unavailable);

// results.csv's columns before the key: coarray_csv_header() and the point's sweep label.
std::string coarray_results_header();
std::string coarray_results_row(const CoarrayPlanPoint& at, const CoarrayRow& row);

// One line per point: sweep, op, case, NL, NR, B, statements, registered, then each engine's time.
std::string format_coarray_summary(const CoarrayScenario& sc, const std::vector<CoarrayPlanPoint>& plan,
                                   const std::vector<std::pair<CoarrayPlanPoint, CoarrayRow>>& rows);

// `collsim run` on a coarray scenario: loads it, runs it as a sweep (run_sweep: --jobs, --shard,
// --resume in `options`) into DIR/results.csv and DIR/run.json, prints the summary. Returns the
// exit status (0, or 1 when bytes were wrong); throws like the loaders, engines and run_sweep.
int run_coarray_scenario(const std::string& path, const std::string& out_dir, const std::string& protocol, bool quiet,
                         std::ostream& out, std::ostream& err, const SweepOptions& options = {});

}  // namespace collsim
