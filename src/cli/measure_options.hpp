// The options that describe one collective call, shared by `collsim measure` and
// `collsim-mpi measure` so the two accept the same words and check them the same way.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "engines/run.hpp"

namespace collsim::cli {

// --op, --bytes, --root, --segment, --fanout, --radix, --csv (and --procs where `with_procs`).
std::vector<OptionDef> call_options(bool with_procs);

// Builds the call from parsed options; throws UsageError on a missing --op or --bytes, an unknown
// algorithm, P < 1, a root outside [0, P), a bad number, or a knob the algorithm does not have
// (--segment, --fanout, --radix). `procs` overrides --procs when > 0
// (under MPI the process count is the communicator's); a non-empty `op` is the algorithm instead
// of --op (collsim explain OP).
RunSpec read_call(const ParsedOptions& options, int procs = 0, const std::string& op = "");

// --datatype TYPE and --reduce-op OP: the options' definitions (defaults named in the help) and
// the reduction they give over `fallback`, checked (reduction_error).
std::vector<OptionDef> reduction_options(Reduction fallback);
Reduction read_reduction(const ParsedOptions& options, Reduction fallback);

// The option of each knob in `knobs` (--segment SIZE, --fanout K, --radix K, --max-requests N), help
// from the registry.
std::vector<OptionDef> knob_options(std::initializer_list<Knob> knobs);
// Reads the knobs of `knobs` that were given into `params`, checked by the registry (knob_error).
void read_knobs(const ParsedOptions& options, const AlgorithmInfo& algorithm, std::initializer_list<Knob> knobs,
                AlgorithmParams& params);

// --payload real|virtual, for the commands that run points on the simulated engines; read_payload
// is true for real bytes (the default).
OptionDef payload_option();
bool read_payload(const ParsedOptions& options);

inline constexpr std::initializer_list<Knob> kAllKnobs = {Knob::segment, Knob::fanout, Knob::radix, Knob::max_requests};

}  // namespace collsim::cli
