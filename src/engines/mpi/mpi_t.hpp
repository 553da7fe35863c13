// Open MPI's MCA variables read and written through the MPI tool information interface (MPI_T
// control variables), which is how the mpi-native engine forces coll/tuned's algorithm and knobs
// from inside the program instead of from mpirun's command line.
#pragma once

#include <mpi.h>

#include <map>
#include <optional>
#include <string>

namespace collsim::mpi_t {

// MPI_T_init_thread, once (until finalise()); every function below calls it. Throws EngineError
// when the MPI library refuses.
void initialise();
// MPI_T_finalize if initialise() ran; call before MPI_Finalize. Open MPI's message monitoring
// prints its report at MPI_Finalize only when no MPI_T session is left open.
void finalise();

// One control variable that is not bound to an MPI object and holds one value: an int, or a
// bool (read as 0/1), or a string.
class ControlVariable {
 public:
  // nullopt when this MPI library has no control variable of that name (or it is bound to an
  // object, or holds several values).
  static std::optional<ControlVariable> find(const std::string& name);

  const std::string& name() const { return name_; }
  bool is_string() const { return type_ == MPI_CHAR; }
  // MPI_T's scope: whether it may be written at all, and when (MPI_T_SCOPE_*).
  int scope() const { return scope_; }

  // An int or bool variable's value. Throws EngineError when MPI refuses.
  int read() const;
  // A string variable's value.
  std::string read_text() const;
  // Throws EngineError naming the variable when MPI refuses (e.g. a variable that can only be
  // set before MPI_Init).
  void write(int value) const;
  // value -> name of an enumerated variable (Open MPI's algorithm IDs); empty when it has none.
  std::map<int, std::string> enumeration() const;

 private:
  ControlVariable() = default;
  std::string name_;
  int index_ = -1;
  int count_ = 0;
  int scope_ = 0;
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  MPI_T_enum enum_ = MPI_T_ENUM_NULL;
};

// The value of an int variable, nullopt when there is no such variable.
std::optional<int> read_int(const std::string& name);

}  // namespace collsim::mpi_t
