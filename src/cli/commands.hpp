// The `collsim` subcommands that live in their own files (cli/command.hpp: a command is its
// options, its help and its run; UsageError on bad options, exit status 2).
#pragma once

#include <string>

#include "cli/command.hpp"

namespace collsim::cli {

// collsim calibrate: the seed's estimation experiments on one engine, fitted into a parameters file.
Command calibrate_command();
// collsim compare: predictions, model engine, simulation and measurements side by side, with errors
// and each selector's degradation.
Command compare_command();
// collsim coarray: one segment of coarray PUT/GET statements (Table 1's schemes) on sim or model.
Command coarray_command();
// collsim explain: one small traced run told step by step, and its critical path.
Command explain_command();
// collsim platform: a SimGrid platform file generated from a few parameters.
Command platform_command();
// collsim report: the self-contained HTML page of a results folder (tools/report).
Command report_command();
// The page of `results_dir` into `output` (empty: RESULTS_DIR/report.html), for report and run
// --report; tools/report's own output to standard error when `output_to_stderr`. Throws InputError
// on a folder that is not a results folder; returns 2 without Python and matplotlib, 1 when the
// tool fails.
int write_report(const std::string& results_dir, const std::string& output, bool output_to_stderr);
// collsim select: model-based selection, printed or written as an Open MPI dynamic rules file.
Command select_command();
// collsim settings: the engines' settings table (options, scenario keys, engines, help).
Command settings_command();
// collsim slurm: a scenario as a Slurm job array of shards and a dependent merge job.
Command slurm_command();
// collsim timeline: a point traced on the model and sim engines, or a trace file, as a space-time
// diagram (tools/timeline).
Command timeline_command();

}  // namespace collsim::cli
