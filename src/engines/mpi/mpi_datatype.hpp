// The MPI derived datatype of a strided layout (comm/strided.hpp), for the mpi engine's
// put_strided / get_strided: one MPI_Rput or MPI_Rget moves every block of the layout.
//
// The layout's block is MPI_Type_contiguous bytes, and each dimension, innermost first, an
// MPI_Type_create_hvector of `count` copies of the type inside it, `step` bytes apart (negative
// steps included, which MPI_Type_create_subarray cannot express). Any rank of a Fortran section
// is such a nest, so no indexed type is needed. Displacements are relative to the layout's
// first block: the caller passes its address (origin) or offset (target).
#pragma once

#include <mpi.h>

#include <string>

#include "comm/strided.hpp"

namespace collsim {

// An MPI datatype, committed, freed with the object (MPI lets a type be freed while an operation
// that uses it is pending: the operation completes normally).
class StridedType {
 public:
  // Throws CommError when MPI fails; `what` names the operation in the message.
  StridedType(const Strided& layout, const std::string& what);
  StridedType(const StridedType&) = delete;
  StridedType& operator=(const StridedType&) = delete;
  ~StridedType();
  MPI_Datatype type() const { return type_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

}  // namespace collsim
