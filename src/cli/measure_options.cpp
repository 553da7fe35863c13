#include "cli/measure_options.hpp"

#include <climits>

namespace collsim::cli {

std::vector<OptionDef> call_options(bool with_procs) {
  std::vector<OptionDef> defs = {
      {"op", "NAME", "algorithm, e.g. bcast/binomial (list: collsim algorithms)"},
      {"bytes", "SIZE", "bcast: message size; gather: bytes per process (e.g. 8KiB)"},
      {"root", "R", "root rank (default 0)"},
      {"segment", "SIZE", "segment size for segmented algorithms, 0 = unsegmented (default 0)"},
      {"fanout", "K", "bcast/chain: chains off the root (default 4)"},
      {"radix", "K", "bcast/knomial: tree radix (default 4)"},
      {"csv", "", "print a CSV header and one row per measurement"},
  };
  if (with_procs) defs.insert(defs.begin() + 1, OptionDef{"procs", "P", "number of processes"});
  return defs;
}

RunSpec read_call(const ParsedOptions& options, int procs) {
  RunSpec spec;
  if (!options.has("op")) throw UsageError("missing --op NAME (one of: " + algorithm_names() + ")");
  const std::string op = options.text("op");
  spec.algorithm = find_algorithm(op);
  if (!spec.algorithm) throw UsageError("unknown algorithm '" + op + "' (one of: " + algorithm_names() + ")");
  if (procs > 0) {
    spec.procs = procs;
  } else {
    if (!options.has("procs")) throw UsageError("missing --procs P");
    spec.procs = static_cast<int>(options.integer("procs", 0, 1, INT_MAX));
  }
  if (!options.has("bytes")) throw UsageError("missing --bytes SIZE");
  spec.bytes = options.bytes("bytes", 0);
  spec.params.root = static_cast<int>(options.integer("root", 0, 0, INT_MAX));
  if (spec.params.root >= spec.procs)
    throw UsageError("--root " + std::to_string(spec.params.root) + " is not a rank of " + std::to_string(spec.procs) +
                     " processes");
  spec.params.segment = options.bytes("segment", 0);
  if (options.has("fanout") && !uses_fanout(*spec.algorithm))
    throw UsageError("--fanout applies to bcast/chain only, not " + op);
  if (options.has("radix") && !uses_radix(*spec.algorithm))
    throw UsageError("--radix applies to bcast/knomial only, not " + op);
  if (options.has("segment") && !spec.algorithm->uses_segment)
    throw UsageError(op + " takes no segment size (--segment)");
  // Open MPI caps the chain fanout at 32 (MAXTREEFANOUT); ask for no more than it can do.
  spec.params.fanout = static_cast<int>(options.integer("fanout", 4, 1, 32));
  spec.params.radix = static_cast<int>(options.integer("radix", 4, 2, INT_MAX));
  return spec;
}

}  // namespace collsim::cli
