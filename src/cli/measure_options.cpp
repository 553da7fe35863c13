#include "cli/measure_options.hpp"

#include <climits>

namespace collsim::cli {

std::vector<OptionDef> call_options(bool with_procs) {
  std::vector<OptionDef> defs = {
      {"op", "NAME", "algorithm, e.g. bcast/binomial (list: collsim algorithms)"},
      {"bytes", "SIZE", "the call's size, e.g. 8KiB (what it means per operation: collsim algorithms)"},
      {"root", "R", "root rank of rooted operations (default 0)"},
  };
  for (auto& d : reduction_options(kDefaultReduction)) defs.push_back(d);
  for (auto& d : knob_options(kAllKnobs)) defs.push_back(d);
  defs.push_back(
      {"then-gather", "SIZE", "calibration experiment: after the call, a linear gather of SIZE bytes from every rank"});
  defs.push_back({"timed-on-root", "", "calibration experiment: the time is the root's finish, not the last rank's"});
  defs.push_back({"csv", "", "print a CSV header and one row per measurement"});
  if (with_procs) defs.insert(defs.begin() + 1, OptionDef{"procs", "P", "number of processes"});
  return defs;
}

RunSpec read_call(const ParsedOptions& options, int procs, const std::string& op_given) {
  RunSpec spec;
  if (op_given.empty() && !options.has("op")) throw UsageError("missing --op NAME (one of: " + algorithm_names() + ")");
  const std::string op = op_given.empty() ? options.text("op") : op_given;
  spec.algorithm = find_algorithm(op);
  if (!spec.algorithm) throw UsageError("unknown algorithm '" + op + "' (one of: " + algorithm_names() + ")");
  if (procs > 0) {
    spec.procs = procs;
  } else {
    if (!options.has("procs")) throw UsageError("missing --procs P");
    spec.procs = static_cast<int>(options.integer("procs", 0, 1, INT_MAX));
  }
  const OperationInfo& info = operation_info(spec.algorithm->op);
  if (info.moves_data && !options.has("bytes")) throw UsageError("missing --bytes SIZE");
  spec.bytes = options.bytes("bytes", 0);
  if (!info.rooted && options.has("root"))
    throw UsageError("--root does not apply to " + std::string(info.name) + " (it has no root)");
  spec.params.root = static_cast<int>(options.integer("root", 0, 0, INT_MAX));
  if (spec.params.root >= spec.procs)
    throw UsageError("--root " + std::to_string(spec.params.root) + " is not a rank of " + std::to_string(spec.procs) +
                     " processes");
  for (const char* name : {"datatype", "reduce-op"})
    if (!info.reduces && options.has(name))
      throw UsageError("--" + std::string(name) +
                       " applies to reducing operations (reduce, allreduce, reduce_scatter), not " +
                       std::string(info.name));
  spec.params.reduction = info.reduces ? read_reduction(options, kDefaultReduction) : kDefaultReduction;
  if (std::string why = call_error(info, spec.bytes, spec.params.reduction); !why.empty())
    throw UsageError("--bytes " + std::to_string(spec.bytes) + ": " + why);
  read_knobs(options, *spec.algorithm, kAllKnobs, spec.params);
  spec.then_gather = options.bytes("then-gather", 0);
  spec.timed_on_root = options.has("timed-on-root");
  return spec;
}

std::vector<OptionDef> reduction_options(Reduction fallback) {
  return {
      {"datatype", "TYPE",
       "reducing operations: element type, " + datatype_names() + " (default " + std::string(to_string(fallback.type)) +
           ")"},
      {"reduce-op", "OP",
       "reducing operations: operator, " + reduce_op_names() + " (default " + std::string(to_string(fallback.op)) +
           ")"},
  };
}

Reduction read_reduction(const ParsedOptions& options, Reduction fallback) {
  Reduction r = fallback;
  if (options.has("datatype")) {
    const auto type = parse_datatype(options.text("datatype"));
    if (!type) throw UsageError("--datatype '" + options.text("datatype") + "' is not one of " + datatype_names());
    r.type = *type;
  }
  if (options.has("reduce-op")) {
    const auto reduce_op = parse_reduce_op(options.text("reduce-op"));
    if (!reduce_op)
      throw UsageError("--reduce-op '" + options.text("reduce-op") + "' is not one of " + reduce_op_names());
    r.op = *reduce_op;
  }
  if (std::string why = reduction_error(r); !why.empty()) throw UsageError("--reduce-op: " + why);
  return r;
}

OptionDef payload_option() {
  return {"payload", "real|virtual", "real: move and check bytes (default); virtual: sizes only"};
}

bool read_payload(const ParsedOptions& options) {
  const std::string payload = options.text("payload", "real");
  if (payload != "real" && payload != "virtual")
    throw UsageError("--payload: '" + payload + "' is not real or virtual");
  return payload == "real";
}

std::vector<OptionDef> knob_options(std::initializer_list<Knob> knobs) {
  std::vector<OptionDef> defs;
  for (Knob k : knobs) {
    const KnobInfo& info = knob_info(k);
    defs.push_back({std::string(info.name), std::string(info.value_name), std::string(info.help)});
  }
  return defs;
}

void read_knobs(const ParsedOptions& options, const AlgorithmInfo& algorithm, std::initializer_list<Knob> knobs,
                AlgorithmParams& params) {
  for (Knob k : knobs) {
    const std::string name(knob_info(k).name);
    if (!options.has(name)) continue;
    const long long value = k == Knob::segment ? static_cast<long long>(options.bytes(name, 0))
                                               : options.integer(name, 0, LLONG_MIN, LLONG_MAX);
    const std::string problem = knob_error(algorithm, k, value);
    if (!problem.empty()) throw UsageError("--" + problem);
    set_knob(params, k, value);
  }
}

}  // namespace collsim::cli
