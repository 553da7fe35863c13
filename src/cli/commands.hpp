// The `collsim` subcommands that live in their own files; each takes the arguments after its
// name, prints --help, throws UsageError (exit 2) on bad options and returns the exit status.
#pragma once

#include <span>
#include <string>

namespace collsim::cli {

// collsim calibrate: the seed's estimation experiments on one engine, fitted into a parameters file.
int calibrate_command(std::span<char* const> args);
// collsim compare: predictions, model engine, simulation and measurements side by side, with errors
// and each selector's degradation.
int compare_command(std::span<char* const> args);
// collsim coarray: one segment of coarray PUT/GET statements (Table 1's schemes) on sim or model.
int coarray_command(std::span<char* const> args);
// collsim explain: one small traced run told step by step, and its critical path.
int explain_command(std::span<char* const> args);
// collsim platform: a SimGrid platform file generated from a few parameters.
int platform_command(std::span<char* const> args);
// collsim report: the self-contained HTML page of a results folder (tools/report).
int report_command(std::span<char* const> args);
// The page of `results_dir` into `output` (empty: RESULTS_DIR/report.html), for report and run
// --report; tools/report's own output to standard error when `output_to_stderr`. Throws InputError
// on a folder that is not a results folder; returns 2 without Python and matplotlib, 1 when the
// tool fails.
int write_report(const std::string& results_dir, const std::string& output, bool output_to_stderr);
// collsim select: model-based selection, printed or written as an Open MPI dynamic rules file.
int select_command(std::span<char* const> args);
// collsim timeline: a point traced on the model and sim engines, or a trace file, as a space-time
// diagram (tools/timeline).
int timeline_command(std::span<char* const> args);

}  // namespace collsim::cli
