#include "engines/mpi/native_call.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "engines/mpi/algorithm_call.hpp"
#include "engines/mpi/mpi_t.hpp"
#include "engines/mpi/mpi_util.hpp"

namespace collsim {

namespace {

constexpr const char* kDynamicRules = "coll_tuned_use_dynamic_rules";
constexpr const char* kRadix = "coll_tuned_bcast_algorithm_knomial_radix";

std::string prefix(const AlgorithmInfo& a) { return "coll_tuned_" + std::string(to_string(a.op)); }
std::string algorithm_variable(const AlgorithmInfo& a) { return prefix(a) + "_algorithm"; }
std::string segment_variable(const AlgorithmInfo& a) { return prefix(a) + "_algorithm_segmentsize"; }
std::string fanout_variable(const AlgorithmInfo& a) { return prefix(a) + "_algorithm_chain_fanout"; }
std::string max_requests_variable(const AlgorithmInfo& a) { return prefix(a) + "_algorithm_max_requests"; }

// Scatter's max_requests is read at every call (coll_tuned passes its process-wide
// ompi_coll_tuned_scatter_blocking_send_ratio); the other operations' are copied into the
// communicator when it is created, with the forced algorithm.
bool max_requests_per_call(const AlgorithmInfo& a) { return a.op == Operation::scatter; }

// The knobs Open MPI reads at every call from its process-wide variables, rather than from the
// communicator when it is created: the k-nomial radix and scatter's max_requests. Variable and value.
std::vector<std::pair<std::string, int>> call_knobs(const AlgorithmInfo& a, const AlgorithmParams& p) {
  std::vector<std::pair<std::string, int>> out;
  if (a.takes(Knob::radix)) out.emplace_back(kRadix, p.radix);
  if (a.takes(Knob::max_requests) && max_requests_per_call(a))
    out.emplace_back(max_requests_variable(a), p.max_requests);
  return out;
}

// "bcast/binary_tree" -> "binary_tree": Open MPI's name of the algorithm.
std::string_view short_name(const AlgorithmInfo& a) {
  const auto slash = a.name.find('/');
  return slash == std::string_view::npos ? a.name : a.name.substr(slash + 1);
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::string item;
  for (std::istringstream in(text); std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

// Why coll/tuned would not be the component running MPI_Bcast/MPI_Gather, or "".
std::string tuned_not_selected() {
  if (const auto coll = mpi_t::ControlVariable::find("coll"); coll && coll->is_string()) {
    std::string list = coll->read_text();
    if (!list.empty()) {
      const bool exclude = list.front() == '^';
      if (exclude) list.erase(0, 1);
      bool named = false;
      for (const auto& c : split(list)) named = named || c == "tuned";
      if (exclude == named)
        return "Open MPI's coll component selection '" + coll->read_text() +
               "' leaves out coll/tuned, which runs the forced algorithms";
    }
  }
  const auto tuned = mpi_t::read_int("coll_tuned_priority");
  if (!tuned) return "Open MPI has no coll/tuned component (coll_tuned_priority not found)";
  // Components that also implement blocking intra-communicator bcast or gather.
  for (const char* other : {"han", "adapt", "sm", "basic"}) {
    const auto priority = mpi_t::read_int(std::string("coll_") + other + "_priority");
    if (priority && *priority > *tuned)
      return std::string("Open MPI's coll/") + other + " has priority " + std::to_string(*priority) +
             ", above coll/tuned's " + std::to_string(*tuned) + ", so it and not the forced algorithm would run";
  }
  return {};
}

std::optional<mpi_t::ControlVariable> variable(const std::string& name, std::string& why) {
  auto v = mpi_t::ControlVariable::find(name);
  if (!v && why.empty()) why = "this Open MPI has no control variable " + name;
  return v;
}

// The element type and operator of a reduction as MPI's handles. `affine` becomes a user-defined
// operator created once, non-commutative, with our arithmetic.
MPI_Datatype mpi_type(Datatype t) {
  switch (t) {
    case Datatype::byte: return MPI_BYTE;
    case Datatype::int32: return MPI_INT32_T;
    case Datatype::int64: return MPI_INT64_T;
    case Datatype::float32: return MPI_FLOAT;
    case Datatype::float64: return MPI_DOUBLE;
  }
  return MPI_BYTE;
}

void affine_op(void* in, void* inout, int* len, MPI_Datatype*) {
  const std::size_t bytes = static_cast<std::size_t>(*len) * size_of(Datatype::int64);
  apply({Datatype::int64, ReduceOp::affine}, Buffer(static_cast<std::byte*>(in), bytes),
        Buffer(static_cast<std::byte*>(inout), bytes));
}

MPI_Op mpi_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return MPI_SUM;
    case ReduceOp::prod: return MPI_PROD;
    case ReduceOp::min: return MPI_MIN;
    case ReduceOp::max: return MPI_MAX;
    case ReduceOp::land: return MPI_LAND;
    case ReduceOp::lor: return MPI_LOR;
    case ReduceOp::lxor: return MPI_LXOR;
    case ReduceOp::band: return MPI_BAND;
    case ReduceOp::bor: return MPI_BOR;
    case ReduceOp::bxor: return MPI_BXOR;
    case ReduceOp::affine: {
      static MPI_Op affine = [] {
        MPI_Op o = MPI_OP_NULL;
        MPI_Op_create(&affine_op, /*commute=*/0, &o);
        return o;
      }();
      return affine;
    }
  }
  return MPI_OP_NULL;
}

// The operation's MPI call on the buffers of RankData (operation.hpp's layouts): byte-moving
// operations move MPI_BYTEs, reducing ones count elements of the reduction's type.
int call_native(Operation op, RankBuffers b, std::size_t bytes, const AlgorithmParams& p, MPI_Comm comm) {
  const int n = static_cast<int>(bytes), root = p.root;
  const MPI_Datatype type = mpi_type(p.reduction.type);
  const int count = static_cast<int>(bytes / size_of(p.reduction.type));
  switch (op) {
    case Operation::bcast: return MPI_Bcast(b.data.data(), n, MPI_BYTE, root, comm);
    case Operation::gather: return MPI_Gather(b.data.data(), n, MPI_BYTE, b.result.data(), n, MPI_BYTE, root, comm);
    case Operation::scatter: return MPI_Scatter(b.data.data(), n, MPI_BYTE, b.result.data(), n, MPI_BYTE, root, comm);
    case Operation::allgather: return MPI_Allgather(b.data.data(), n, MPI_BYTE, b.result.data(), n, MPI_BYTE, comm);
    case Operation::alltoall: return MPI_Alltoall(b.data.data(), n, MPI_BYTE, b.result.data(), n, MPI_BYTE, comm);
    case Operation::barrier: return MPI_Barrier(comm);
    case Operation::reduce:
      return MPI_Reduce(b.data.data(), b.result.data(), count, type, mpi_op(p.reduction.op), root, comm);
    case Operation::allreduce:
      return MPI_Allreduce(b.data.data(), b.result.data(), count, type, mpi_op(p.reduction.op), comm);
    case Operation::reduce_scatter: {
      int size = 0;
      MPI_Comm_size(comm, &size);
      const std::vector<int> counts(static_cast<std::size_t>(size), count);
      return MPI_Reduce_scatter(b.data.data(), b.result.data(), counts.data(), type, mpi_op(p.reduction.op), comm);
    }
  }
  return MPI_ERR_OTHER;
}

}  // namespace

void enable_native_forcing() { setenv("OMPI_MCA_coll_tuned_use_dynamic_rules", "1", /*overwrite=*/0); }

std::string native_support(const AlgorithmInfo& algorithm, const AlgorithmParams& params, std::size_t bytes) {
  if (!algorithm.in_open_mpi())
    return std::string(algorithm.name) + " is collsim's own: Open MPI has no such algorithm to force";
  if (bytes > static_cast<std::size_t>(INT_MAX))
    return std::to_string(bytes) + " bytes do not fit the int count of " +
           std::string(operation_info(algorithm.op).mpi_name);
  if (params.segment > static_cast<std::size_t>(INT_MAX))
    return "segment " + std::to_string(params.segment) + " does not fit Open MPI's int segment size";

  if (std::string why = tuned_not_selected(); !why.empty()) return why;
  const auto dynamic = mpi_t::ControlVariable::find(kDynamicRules);
  if (!dynamic) return "this Open MPI has no coll/tuned component (no " + std::string(kDynamicRules) + ")";
  if (dynamic->read() == 0)
    return std::string(kDynamicRules) +
           " is 0, so Open MPI ignores forced algorithms; it can only be set before MPI_Init "
           "(collsim-mpi sets it unless OMPI_MCA_coll_tuned_use_dynamic_rules says otherwise)";

  std::string why;
  const auto choice = variable(algorithm_variable(algorithm), why);
  if (!choice) return why;
  const auto names = choice->enumeration();
  const auto it = names.find(algorithm.ompi_id);
  if (it == names.end())
    return "Open MPI's " + choice->name() + " has no algorithm " + std::to_string(algorithm.ompi_id) + " (" +
           std::string(short_name(algorithm)) + ")";
  if (it->second != short_name(algorithm))
    return "Open MPI's " + choice->name() + " " + std::to_string(algorithm.ompi_id) + " is '" + it->second + "', not " +
           std::string(algorithm.name);
  // Only the variables of the knobs the algorithm takes: the rest would change nothing it does.
  if (algorithm.takes(Knob::segment)) variable(segment_variable(algorithm), why);
  if (algorithm.takes(Knob::fanout)) variable(fanout_variable(algorithm), why);
  if (algorithm.takes(Knob::radix)) variable(kRadix, why);
  if (algorithm.takes(Knob::max_requests)) variable(max_requests_variable(algorithm), why);
  return why;
}

ForcedComm::ForcedComm(MPI_Comm comm, const AlgorithmInfo& algorithm, const AlgorithmParams& params)
    : algorithm_(&algorithm), params_(params) {
  if (std::string why = native_support(algorithm, params, 0); !why.empty())
    throw InputError("mpi-native " + std::string(algorithm.name) + ": " + why);

  // What coll/tuned copies into the communicator when it is created.
  struct Setting {
    mpi_t::ControlVariable variable;
    int value;
    int saved;
  };
  std::vector<Setting> settings;
  auto add = [&settings](const std::string& name, int value) {
    auto v = mpi_t::ControlVariable::find(name);
    settings.push_back({*v, value, v->read()});
  };
  add(algorithm_variable(algorithm), algorithm.ompi_id);
  if (algorithm.takes(Knob::segment)) add(segment_variable(algorithm), static_cast<int>(params.segment));
  if (algorithm.takes(Knob::fanout)) add(fanout_variable(algorithm), params.fanout);
  if (algorithm.takes(Knob::max_requests) && !max_requests_per_call(algorithm))
    add(max_requests_variable(algorithm), params.max_requests);

  // Put back whatever happens, so that later communicators are not forced.
  struct Restore {
    std::vector<Setting>& settings;
    ~Restore() {
      for (const auto& s : settings) {
        try {
          s.variable.write(s.saved);
        } catch (const EngineError&) {
        }
      }
    }
  } restore{settings};
  // A write that fails fails on every rank alike (the same library, variables and values), so
  // the ranks all throw here, before the collective duplication.
  for (const auto& s : settings) s.variable.write(s.value);
  const int rc = MPI_Comm_dup(comm, &comm_);
  if (rc != MPI_SUCCESS)
    throw EngineError("mpi-native " + std::string(algorithm.name) + ": MPI_Comm_dup failed: " + mpi_error_text(rc));
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  try {
    for (const auto& [name, value] : call_knobs(algorithm, params))
      saved_call_knobs_.emplace_back(name, mpi_t::read_int(name).value_or(value));
    apply_call_knobs();
  } catch (...) {
    MPI_Comm_free(&comm_);
    throw;
  }
}

ForcedComm::~ForcedComm() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  for (const auto& [name, saved] : saved_call_knobs_) {
    try {
      mpi_t::ControlVariable::find(name)->write(saved);
    } catch (const std::exception&) {
    }
  }
  if (!finalized && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

bool ForcedComm::fits(const RunSpec& spec) const {
  if (spec.algorithm != algorithm_) return false;
  if (algorithm_->takes(Knob::segment) && spec.params.segment != params_.segment) return false;
  if (algorithm_->takes(Knob::fanout) && spec.params.fanout != params_.fanout) return false;
  if (algorithm_->takes(Knob::radix) && spec.params.radix != params_.radix) return false;
  if (algorithm_->takes(Knob::max_requests) && spec.params.max_requests != params_.max_requests) return false;
  return true;
}

void ForcedComm::apply_call_knobs() const {
  for (const auto& [name, value] : call_knobs(*algorithm_, params_)) mpi_t::ControlVariable::find(name)->write(value);
}

namespace {
const RunSpec& supported(MPI_Comm comm, const RunSpec& spec) {
  check_fits(comm, spec);
  if (std::string why = native_support(*spec.algorithm, spec.params, spec.bytes); !why.empty())
    throw InputError("mpi-native " + describe(spec) + ": " + why);
  return spec;
}
}  // namespace

NativeCall::NativeCall(MPI_Comm comm, const RunSpec& spec)
    : spec_(supported(comm, spec)),
      owned_(std::make_unique<ForcedComm>(comm, *spec.algorithm, spec.params)),
      forced_(owned_.get()) {
  spec_.real_bytes = true;
  MPI_Comm_rank(comm, &rank_);
}

NativeCall::NativeCall(ForcedComm& forced, const RunSpec& spec)
    : spec_(supported(forced.handle(), spec)), forced_(&forced) {
  if (!forced.fits(spec))
    throw InputError("mpi-native " + collsim::describe(spec) + ": the communicator was forced to " +
                     std::string(forced.algorithm().name) + " with other knobs");
  spec_.real_bytes = true;
  MPI_Comm_rank(forced.handle(), &rank_);
}

void NativeCall::prepare() {
  data_.reset();
  int size = 0;
  MPI_Comm_size(forced_->handle(), &size);
  data_.emplace(spec_.algorithm->op, call_shape(spec_, rank_), true);
  gather_block_.assign(spec_.then_gather, std::byte{0});
  gather_all_.assign(rank_ == spec_.params.root ? spec_.then_gather * static_cast<std::size_t>(size) : 0, std::byte{0});
  forced_->apply_call_knobs();
}

void NativeCall::run(double /*start_wtime*/) {
  if (!data_) throw EngineError("NativeCall::run before prepare");
  const RankBuffers b = data_->buffers();
  const OperationInfo& op = operation_info(spec_.algorithm->op);
  const int rc = call_native(op.op, b, spec_.bytes, spec_.params, forced_->handle());
  const std::string what(op.mpi_name);
  if (rc != MPI_SUCCESS)
    throw EngineError("rank " + std::to_string(rank_) + ": " + what + " failed: " + mpi_error_text(rc));
  if (spec_.then_gather > 0) linear_gather();
}

// The experiment's gather, as Open MPI's basic_linear gather moves it (non-roots send, the root
// receives in rank order), on the same communicator; not forced, because forcing is per collective
// and this one is forced to the algorithm under test.
void NativeCall::linear_gather() {
  const int n = static_cast<int>(spec_.then_gather), root = spec_.params.root;
  const MPI_Comm comm = forced_->handle();
  int size = 0;
  MPI_Comm_size(comm, &size);
  if (rank_ != root) {
    mpi_check(MPI_Send(gather_block_.data(), n, MPI_BYTE, root, tags::gather, comm), "MPI_Send");
    return;
  }
  for (int r = 0; r < size; ++r) {
    std::byte* slot = gather_all_.data() + static_cast<std::size_t>(r) * spec_.then_gather;
    if (r == root)
      std::copy(gather_block_.begin(), gather_block_.end(), slot);
    else
      mpi_check(MPI_Recv(slot, n, MPI_BYTE, r, tags::gather, comm, MPI_STATUS_IGNORE), "MPI_Recv");
  }
}

std::string NativeCall::check() { return data_ ? data_->check() : "no call was prepared"; }

std::string NativeCall::describe() const { return "mpi-native " + collsim::describe(spec_); }

}  // namespace collsim
