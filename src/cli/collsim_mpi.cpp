// collsim-mpi: measures collective algorithms on real MPI; launched by mpirun, one process per
// rank. Every rank parses the same arguments and reaches the same verdict on them, so input
// errors need no communication: rank 0 alone prints them and every rank exits with status 2
// after a clean MPI_Finalize. The commands are cli/mpi_*_command.cpp (cli/mpi_commands.hpp).
#include <mpi.h>

#include <cstdio>
#include <exception>
#include <iostream>
#include <span>

#include "cli/algorithms_table.hpp"
#include "cli/command.hpp"
#include "cli/mpi_commands.hpp"
#include "engines/mpi/mpi_t.hpp"
#include "engines/mpi/native_call.hpp"
#include "engines/run.hpp"

namespace collsim {
namespace {

int print_algorithms(int rank, int, const cli::ParsedOptions&) {
  if (rank == 0) std::cout << cli::algorithms_table() << std::flush;
  return 0;
}

cli::Program mpi_program(int rank, int size) {
  return {
      "collsim-mpi",
      "collsim-mpi: collective algorithms on real MPI, one process per rank under mpirun",
      {
          mpi_measure_command(rank, size),
          mpi_fidelity_command(rank, size),
          mpi_run_command(rank, size),
          mpi_pingpong_command(rank, size),
          mpi_coarray_command(rank, size),
          mpi_command("algorithms", "collsim-mpi algorithms", "list the algorithms",
                      "Lists the algorithms with Open MPI's IDs and their knobs, and what --bytes means per operation\n"
                      "(the table of `collsim algorithms`).",
                      {}, print_algorithms, rank, size),
      },
      "Runs collective algorithms on real MPI, the same algorithm source as the simulated engines.\n"
      "Every rank starts a call at one common date (clocks synchronised to rank 0); a call's time\n"
      "is the last rank's finish minus that date. Calls are repeated until the 95% confidence\n"
      "interval of the mean is within --ci-target of it; the reported time is the median.\n"
      "\n"
      "engines:\n"
      "  mpi          our algorithms over MPI point-to-point messages (default)\n"
      "  mpi-native   Open MPI's own MPI_Bcast / MPI_Gather, forced through MPI_T to the algorithm\n"
      "               of the same name and ID (coll_tuned_<op>_algorithm) and the same segment\n"
      "               size, chain fanout and k-nomial radix; same buffers, checks and timing\n"};
}

}  // namespace
}  // namespace collsim

int main(int argc, char** argv) {
  using namespace collsim;
  // Before MPI_Init: Open MPI reads coll_tuned_use_dynamic_rules there, and only then honours the
  // algorithms that --engine mpi-native forces. Nothing changes for anything not forced.
  enable_native_forcing();
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::span<char* const> args(argv + 1, static_cast<std::size_t>(argc > 1 ? argc - 1 : 0));

  int status = 0;
  std::ostream discard(nullptr);  // help and overviews from rank 0 only
  try {
    status = cli::run_program(mpi_program(rank, size), args, rank == 0 ? std::cout : discard);
  } catch (const std::exception& e) {
    // Bad input is seen alike by every rank, and the engine agrees on a failure before raising
    // EngineError on every rank with the same text: rank 0 says it, every rank exits cleanly.
    if (!cli::is_input_error(e) && !dynamic_cast<const EngineError*>(&e)) {
      // Anything else may have hit one rank only while the others wait for it: no clean exit.
      std::fprintf(stderr, "collsim-mpi: rank %d: %s\n", rank, e.what());
      std::fflush(stderr);
      MPI_Abort(MPI_COMM_WORLD, cli::exit_status(e));
    }
    if (rank == 0) std::fprintf(stderr, "collsim-mpi: %s\n", e.what());
    status = cli::exit_status(e);
  }
  std::fflush(stdout);
  mpi_t::finalise();
  MPI_Finalize();
  return status;
}
