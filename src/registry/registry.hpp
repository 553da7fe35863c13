// The catalogue of algorithms: everything collsim knows about each one, in its entry.
//
// An entry holds Open MPI's name and ID, the knobs the algorithm honours (validated here, once,
// for the command line, scenarios and `collsim tree`), the function that runs it, the virtual
// tree it runs on (the same function the algorithm calls), and its closed-form predictions: the
// textbook Hockney formula where the literature has one, and the formula derived from our (= Open
// MPI's) implementation (src/registry/<operation>.cpp, one file per operation). Engines, the CLI, scenarios, the
// formula engine and selection all read entries from here; adding an algorithm is its function and one entry with its
// derived formula (registry/entries.hpp).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "algorithms/operation.hpp"
#include "algorithms/params.hpp"
#include "algorithms/virtual_trees.hpp"
#include "comm/comm.hpp"
#include "models/formula.hpp"

namespace collsim {

using AlgorithmFn = Task<> (*)(Comm&, RankBuffers, const AlgorithmParams&);

// The knobs of AlgorithmParams other than the root, as Open MPI names them (params.hpp).
enum class Knob : unsigned { segment = 1, fanout = 2, radix = 4, max_requests = 8 };

struct KnobInfo {
  Knob knob;
  std::string_view name;  // option: "segment", "fanout", "radix", "max-requests"
  std::string_view key;   // scenario key and point-key field: "segment", ..., "max_requests"
  std::string_view value_name;
  long long min, max;     // valid values
  long long fallback;     // Open MPI's default
  std::string_view help;  // one line for --help
};
std::span<const KnobInfo> all_knobs();
const KnobInfo& knob_info(Knob knob);

// Written with designated initialisers (registry.cpp): a member left out keeps the default here.
struct AlgorithmInfo {
  std::string_view name;  // "bcast/binomial"
  Operation op = Operation::bcast;
  // Open MPI's coll_tuned_<op>_algorithm number; 0 for an algorithm of collsim's own, which Open
  // MPI does not have: it has no mpi-native twin and no place in a rules file.
  int ompi_id = 0;
  unsigned knobs = 0;        // the Knob bits the algorithm honours
  std::string_view summary;  // one line for --help and listings
  AlgorithmFn run = nullptr;
  // The most processes Open MPI runs it on; 0: any. Its two_proc algorithms fail on more than 2
  // (MPI_ERR_UNSUPPORTED_OPERATION; ours throw InputError).
  int max_procs = 0;
  TreeFn tree = nullptr;               // nullptr for test algorithms
  models::Formula textbook = nullptr;  // nullptr: the literature has no formula for it
  models::Formula derived = nullptr;
  // Every rank but the root begins by posting receives and waiting for them, so nothing it does
  // can be seen before a message reaches it. The model engine builds and starts such a rank only
  // when its first message arrives (and checks that it only receives then): a run holds the ranks
  // a message has reached and not yet finished, not all of them.
  bool receives_first = false;
  // A reduction that applies the operator in rank order ((x0 op x1) op x2 ...), so a
  // non-commutative operator gives MPI's result; rabenseifner counts as its fallback for one, and
  // the nested ones as Open MPI 4.1's fixed decision for one (linear or in-order_binary). Open MPI
  // runs the other reductions on such an operator anyway and gets another order; so do we.
  bool keeps_rank_order = false;

  bool takes(Knob knob) const { return (knobs & static_cast<unsigned>(knob)) != 0; }
  bool in_open_mpi() const { return ompi_id > 0; }
};

std::span<const AlgorithmInfo> all_algorithms();
// Whether Open MPI runs `algorithm` on `procs` processes: not above its max_procs, and a single
// process is served by coll/self whatever is forced.
bool runs_on(const AlgorithmInfo& algorithm, int procs);
// nullptr when no algorithm has that name. Also accepts the short names bcast/binary,
// bcast/split_binary, bcast/linear and gather/linear.
const AlgorithmInfo* find_algorithm(std::string_view name);
// nullptr when `op` has no algorithm `name` ("pipeline" for bcast/pipeline).
const AlgorithmInfo* find_algorithm(Operation op, std::string_view name);
// nullptr when Open MPI has no algorithm `ompi_id` for `op` (or collsim does not have it); never
// one of collsim's own (ID 0).
const AlgorithmInfo* find_algorithm(Operation op, int ompi_id);
// The entry Open MPI 4.1's fixed decision runs for a collective an algorithm calls on its
// communicator (nested_collective.hpp): `op` of `bytes` on `procs` processes (reduce: for whether
// the operator commutes), its knobs and `root` stored in `params`. InputError when collsim does
// not have that algorithm.
const AlgorithmInfo& fixed_choice(Operation op, int procs, std::size_t bytes, bool commutative, int root,
                                  AlgorithmParams& params);
// "bcast/binomial, gather/basic_linear, ...", for error messages.
std::string algorithm_names();

// Empty when `value` may be given as `knob` to `algorithm` (segment 0, unsegmented, to any); else why not, starting
// with the knob's name: "fanout applies to bcast/chain only, not bcast/binomial", "radix must be at least 2, not 1".
std::string knob_error(const AlgorithmInfo& algorithm, Knob knob, long long value);
// Stores a value knob_error accepted.
void set_knob(AlgorithmParams& params, Knob knob, long long value);
long long get_knob(const AlgorithmParams& params, Knob knob);

}  // namespace collsim
