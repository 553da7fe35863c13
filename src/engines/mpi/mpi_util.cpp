#include "engines/mpi/mpi_util.hpp"

#include <time.h>

#include "engines/run.hpp"

namespace collsim {

std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) return "MPI error " + std::to_string(code);
  return std::string(text, static_cast<std::size_t>(length));
}

void mpi_check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw EngineError(std::string(what) + " failed: " + mpi_error_text(rc));
}

void wait_sleeping(MPI_Request& request) {
  int done = 0;
  mpi_check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
  while (!done) {
    const timespec pause{0, 50'000};
    nanosleep(&pause, nullptr);
    mpi_check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
  }
}

}  // namespace collsim
