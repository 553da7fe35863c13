// collsim-mpi run: one untimed call of an algorithm, its data checked on every rank, sending
// little besides its own messages (to watch them with a tool such as Open MPI's monitoring).
#include <mpi.h>

#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli/measure_options.hpp"
#include "cli/mpi_commands.hpp"
#include "engines/run.hpp"

namespace collsim {
namespace {

const char* const kAbout =
    "One call of the algorithm, untimed, its data checked on every rank. Besides the call's\n"
    "own messages it sends only those of one communicator duplication, one barrier before\n"
    "the call and one reduction after it, the same for both engines: made to watch what an\n"
    "algorithm sends, e.g. with Open MPI's message monitoring, which prints the messages and\n"
    "bytes each rank sent to each other rank when the run ends:\n"
    "  mpirun -np 4 --mca pml_monitoring_enable 1 --mca pml_monitoring_enable_output 1 \\\n"
    "      collsim-mpi run --engine mpi-native --op bcast/pipeline --bytes 64KiB --segment 8KiB\n"
    "Exit status 0 when the data was right, 1 when not, 2 on bad input.";

std::vector<cli::OptionDef> run_options() {
  std::vector<cli::OptionDef> defs;
  for (auto& d : cli::call_options(false))
    if (d.name != "csv") defs.push_back(d);
  defs.push_back({"engine", "NAME", "mpi (default) or mpi-native"});
  return defs;
}

int run_once(int rank, int size, const cli::ParsedOptions& options) {
  const Engine engine = read_engine(options);
  const RunSpec spec = cli::read_call(options, size);
  const auto call = make_call(MPI_COMM_WORLD, engine, spec);

  std::string problem;
  MPI_Barrier(MPI_COMM_WORLD);
  try {
    call->prepare();
    call->run(MPI_Wtime());
    problem = call->check();
  } catch (const std::exception& e) {
    problem = e.what();
  }
  const int mine = problem.empty() ? 0 : 1;
  int failed = 0;
  MPI_Allreduce(&mine, &failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (!problem.empty()) std::fprintf(stderr, "collsim-mpi: %s\n", problem.c_str());
  if (rank == 0 && failed == 0) std::cout << engine_name(engine) << " " << describe(spec) << ": data ok\n";
  return data_status(failed == 0);
}

}  // namespace

cli::Command mpi_run_command(int rank, int size) {
  return mpi_command("run", "mpirun -np P collsim-mpi run --op NAME --bytes SIZE [options]",
                     "one untimed call, data checked (to watch its messages with a tool)", kAbout, run_options(),
                     run_once, rank, size);
}

}  // namespace collsim
