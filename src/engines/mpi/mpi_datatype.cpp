#include "engines/mpi/mpi_datatype.hpp"

#include <climits>
#include <string>

#include "comm/comm.hpp"
#include "engines/mpi/mpi_util.hpp"

namespace collsim {

namespace {

void check(int rc, const std::string& what, const char* call) {
  if (rc != MPI_SUCCESS) throw CommError(what + ": " + call + " failed: " + mpi_error_text(rc));
}

int as_int(std::size_t n, const std::string& what) {
  if (n > static_cast<std::size_t>(INT_MAX))
    throw CommError(what + ": a count of " + std::to_string(n) + " (MPI datatypes take at most INT_MAX)");
  return static_cast<int>(n);
}

}  // namespace

StridedType::StridedType(const Strided& layout, const std::string& what) {
  MPI_Datatype inner = MPI_DATATYPE_NULL;
  check(MPI_Type_contiguous(as_int(layout.block, what), MPI_BYTE, &inner), what, "MPI_Type_contiguous");
  for (const StridedDim& d : layout.dims) {
    MPI_Datatype outer = MPI_DATATYPE_NULL;
    const int rc = MPI_Type_create_hvector(as_int(d.count, what), 1, static_cast<MPI_Aint>(d.step), inner, &outer);
    MPI_Type_free(&inner);
    check(rc, what, "MPI_Type_create_hvector");
    inner = outer;
  }
  const int rc = MPI_Type_commit(&inner);
  if (rc != MPI_SUCCESS) MPI_Type_free(&inner);
  check(rc, what, "MPI_Type_commit");
  type_ = inner;
}

StridedType::~StridedType() {
  if (type_ != MPI_DATATYPE_NULL) MPI_Type_free(&type_);
}

}  // namespace collsim
