#include "engines/mpi/mpi_t.hpp"

#include <cstring>
#include <vector>

#include "engines/run.hpp"

namespace collsim::mpi_t {

namespace {

std::string mpi_t_error(int rc) {
  switch (rc) {
    case MPI_T_ERR_NOT_INITIALIZED: return "the MPI tool interface is not initialised";
    case MPI_T_ERR_INVALID_INDEX: return "invalid variable index";
    case MPI_T_ERR_INVALID_HANDLE: return "invalid handle";
    case MPI_T_ERR_CVAR_SET_NOT_NOW: return "it cannot be set now";
    case MPI_T_ERR_CVAR_SET_NEVER: return "it cannot be set once MPI is initialised";
    case MPI_T_ERR_OUT_OF_HANDLES: return "out of handles";
    default: return "MPI_T error " + std::to_string(rc);
  }
}

// A handle for one read or write; freed on every path.
class Handle {
 public:
  Handle(int index, const std::string& name) {
    int count = 0;
    const int rc = MPI_T_cvar_handle_alloc(index, nullptr, &handle_, &count);
    if (rc != MPI_SUCCESS) throw EngineError("MPI_T: cannot open control variable " + name + ": " + mpi_t_error(rc));
  }
  ~Handle() { MPI_T_cvar_handle_free(&handle_); }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  MPI_T_cvar_handle get() const { return handle_; }

 private:
  MPI_T_cvar_handle handle_ = MPI_T_CVAR_HANDLE_NULL;
};

}  // namespace

namespace {
bool initialised = false;
}  // namespace

void initialise() {
  if (initialised) return;
  int provided = 0;
  const int rc = MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  if (rc != MPI_SUCCESS) throw EngineError("MPI_T_init_thread failed: " + mpi_t_error(rc));
  initialised = true;
}

void finalise() {
  if (!initialised) return;
  MPI_T_finalize();
  initialised = false;
}

std::optional<ControlVariable> ControlVariable::find(const std::string& name) {
  initialise();
  ControlVariable v;
  if (MPI_T_cvar_get_index(name.c_str(), &v.index_) != MPI_SUCCESS) return std::nullopt;
  char found[256];
  int found_length = sizeof found;
  char description[1024];
  int description_length = sizeof description;
  int verbosity = 0, binding = 0;
  if (MPI_T_cvar_get_info(v.index_, found, &found_length, &verbosity, &v.type_, &v.enum_, description,
                          &description_length, &binding, &v.scope_) != MPI_SUCCESS)
    return std::nullopt;
  if (binding != MPI_T_BIND_NO_OBJECT) return std::nullopt;
  if (v.type_ != MPI_INT && v.type_ != MPI_C_BOOL && v.type_ != MPI_CHAR) return std::nullopt;
  v.name_ = name;
  int count = 0;
  MPI_T_cvar_handle handle;
  if (MPI_T_cvar_handle_alloc(v.index_, nullptr, &handle, &count) != MPI_SUCCESS) return std::nullopt;
  MPI_T_cvar_handle_free(&handle);
  if (v.type_ != MPI_CHAR && count != 1) return std::nullopt;
  v.count_ = count;
  return v;
}

int ControlVariable::read() const {
  if (is_string()) throw EngineError("MPI_T: " + name_ + " is a string, not a number");
  const Handle h(index_, name_);
  // Large enough and zeroed for any one-value type, so a 1-byte bool reads as 0 or 1.
  long long storage = 0;
  const int rc = MPI_T_cvar_read(h.get(), &storage);
  if (rc != MPI_SUCCESS) throw EngineError("MPI_T: cannot read " + name_ + ": " + mpi_t_error(rc));
  if (type_ == MPI_C_BOOL) {
    unsigned char flag = 0;
    std::memcpy(&flag, &storage, 1);
    return flag ? 1 : 0;
  }
  int value = 0;
  std::memcpy(&value, &storage, sizeof value);
  return value;
}

std::string ControlVariable::read_text() const {
  if (!is_string()) return std::to_string(read());
  const Handle h(index_, name_);
  std::vector<char> text(static_cast<std::size_t>(count_) + 1, '\0');
  const int rc = MPI_T_cvar_read(h.get(), text.data());
  if (rc != MPI_SUCCESS) throw EngineError("MPI_T: cannot read " + name_ + ": " + mpi_t_error(rc));
  return text.data();
}

void ControlVariable::write(int value) const {
  if (type_ != MPI_INT)
    throw EngineError("MPI_T: cannot set " + name_ + " to " + std::to_string(value) + ": it is not an int variable");
  const Handle h(index_, name_);
  const int rc = MPI_T_cvar_write(h.get(), &value);
  if (rc != MPI_SUCCESS)
    throw EngineError("MPI_T: cannot set " + name_ + " to " + std::to_string(value) + ": " + mpi_t_error(rc));
}

std::map<int, std::string> ControlVariable::enumeration() const {
  std::map<int, std::string> out;
  if (enum_ == MPI_T_ENUM_NULL) return out;
  int items = 0;
  char enum_name[256];
  int length = sizeof enum_name;
  if (MPI_T_enum_get_info(enum_, &items, enum_name, &length) != MPI_SUCCESS) return out;
  for (int i = 0; i < items; ++i) {
    int value = 0;
    char item[256];
    int item_length = sizeof item;
    if (MPI_T_enum_get_item(enum_, i, &value, item, &item_length) == MPI_SUCCESS) out[value] = item;
  }
  return out;
}

std::optional<int> read_int(const std::string& name) {
  const auto v = ControlVariable::find(name);
  if (!v || v->is_string()) return std::nullopt;
  return v->read();
}

}  // namespace collsim::mpi_t
