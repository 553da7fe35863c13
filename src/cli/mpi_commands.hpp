// The commands of collsim-mpi (cli/command.hpp), one file each, and what several of them share.
// Every rank runs the same command on the same arguments; `rank` and `size` are MPI_COMM_WORLD's.
#pragma once

#include <cstddef>
#include <fstream>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/options.hpp"
#include "engines/engine.hpp"
#include "engines/mpi/measure.hpp"

namespace collsim {

// measure: one algorithm timed on the processes mpirun started.
cli::Command mpi_measure_command(int rank, int size);
// run: one untimed call, its data checked (to watch its messages with a tool).
cli::Command mpi_run_command(int rank, int size);
// fidelity: every algorithm against Open MPI's own, interleaved call by call.
cli::Command mpi_fidelity_command(int rank, int size);
// pingpong: point-to-point latency and bandwidth between rank 0 and another rank.
cli::Command mpi_pingpong_command(int rank, int size);
// coarray: a segment of coarray PUT/GET statements (Table 1's schemes) over MPI RMA.
cli::Command mpi_coarray_command(int rank, int size);

// The work of a collsim-mpi command on MPI_COMM_WORLD's `rank` of `size`, given its options;
// returns the exit status.
using MpiWork = int (*)(int rank, int size, const cli::ParsedOptions& options);
// A command of collsim-mpi: its run does `work` on this rank (none takes arguments besides its
// options; the framework refuses them).
cli::Command mpi_command(std::string name, std::string synopsis, std::string summary, std::string about,
                         std::vector<cli::OptionDef> options, MpiWork work, int rank, int size);
// A command's exit status: 0 when the data was right, 1 when a byte was wrong or the run failed
// (bad input throws instead, which cli::exit_status makes 2).
inline int data_status(bool data_right) { return data_right ? 0 : 1; }

// --engine: mpi (default) or mpi-native; UsageError for anything else.
Engine read_engine(const cli::ParsedOptions& options);
// --sizes: "A..B", doubling from A up to B at most, or a list "A,B,C"; `fallback` without it.
std::vector<std::size_t> read_sizes(const cli::ParsedOptions& options, const std::string& fallback = "8KiB..4MiB");
// The --output file (CSV), opened by rank 0 (the only writer); every rank learns whether it could,
// so that all of them refuse together (UsageError). Not open without --output, nor on other ranks.
std::ofstream open_csv(const cli::ParsedOptions& options, int rank);

// Rank 0's notes on stderr after a measurement: `missed` (cli::ci_missed) when `csv` (the text
// says it itself), and the runs in which a rank reached the start date late.
void print_measure_notes(const MpiMeasurement& result, int runs, const std::string& missed, bool csv);

// `text` padded to `width` (aligned right if `right`), then one space; too long: text and a space.
std::string padded(std::string text, std::size_t width, bool right = false);

}  // namespace collsim
