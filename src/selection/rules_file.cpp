#include "selection/rules_file.hpp"

#include <algorithm>
#include <climits>
#include <fstream>
#include <limits>
#include <vector>

#include "support/input_error.hpp"

namespace collsim::selection {

int ompi_collective_id(Operation op) { return operation_info(op).ompi_colltype; }

namespace {

// Open MPI reads every number as a long and refuses negative ones.
constexpr std::size_t kLongMax = static_cast<std::size_t>(LONG_MAX);

std::size_t saturated_product(std::size_t a, std::size_t b) {
  if (b != 0 && a > kLongMax / b) return kLongMax;
  return std::min(a * b, kLongMax);
}

struct MessageRule {
  std::size_t from;  // total bytes, as Open MPI compares them
  const Choice* choice;
};

std::string rule_line(const MessageRule& rule, const std::string& where) {
  const Choice& c = *rule.choice;
  const AlgorithmInfo& a = *c.algorithm;
  if (a.takes(Knob::radix) && c.params.radix != static_cast<int>(knob_info(Knob::radix).fallback))
    throw InputError(where + std::string(a.name) + " with radix " + std::to_string(c.params.radix) +
                     ": a rules file cannot give the k-nomial radix; Open MPI takes "
                     "coll_tuned_bcast_algorithm_knomial_radix (default 4) for every call");
  if (a.takes(Knob::max_requests) && c.params.max_requests != static_cast<int>(knob_info(Knob::max_requests).fallback))
    throw InputError(where + std::string(a.name) + " with max_requests " + std::to_string(c.params.max_requests) +
                     ": the rules file's format (version 1) cannot give it; Open MPI then takes "
                     "coll_tuned_alltoall_max_requests (default 0) for every rule");
  if (!a.in_open_mpi())
    throw InputError(where + std::string(a.name) + " is collsim's own algorithm: a rules file names Open MPI's only");
  const std::size_t segment = a.takes(Knob::segment) ? c.params.segment : 0;
  if (segment > static_cast<std::size_t>(INT_MAX))
    throw InputError(where + std::string(a.name) + " segment " + std::to_string(segment) +
                     " does not fit Open MPI's int segment size");
  const int fanout = a.takes(Knob::fanout) ? c.params.fanout : 0;
  return std::to_string(rule.from) + " " + std::to_string(a.ompi_id) + " " + std::to_string(fanout) + " " +
         std::to_string(segment) + "  # " + to_string(c) + "\n";
}

}  // namespace

std::string rules_file_text(std::span<const DecisionTable> tables) {
  std::vector<const DecisionTable*> order;
  for (const DecisionTable& t : tables) {
    for (const DecisionTable* o : order)
      if (o->op() == t.op())
        throw InputError("rules file: two " + std::string(to_string(t.op())) + " tables (one per collective)");
    order.push_back(&t);
  }
  // Open MPI accepts the collectives in any order; ascending IDs read like its own files.
  std::sort(order.begin(), order.end(), [](const DecisionTable* a, const DecisionTable* b) {
    return ompi_collective_id(a->op()) < ompi_collective_id(b->op());
  });

  std::string out =
      "# Open MPI coll/tuned dynamic rules (the format of Open MPI 4.1's coll_tuned_dynamic_file.c),\n"
      "# written by collsim. Use:\n"
      "#   mpirun --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename FILE\n"
      "# Per message size: from-bytes algorithm-id fanout segment-bytes. Message sizes are total\n"
      "# bytes: the vector of bcast, reduce and allreduce; for gather, scatter, allgather, alltoall and\n"
      "# reduce_scatter, one process's block times the communicator size; 0 for barrier.\n";
  out += std::to_string(order.size()) + "  # collectives\n";
  for (const DecisionTable* t : order) {
    const std::string op(to_string(t->op()));
    out += '\n';  // one at a time: GCC 12 misreports `"\n" + std::string` chains (-Wrestrict)
    out += std::to_string(ompi_collective_id(t->op())) + "  # collective ID: " + op + "\n";
    out += std::to_string(t->rows().size()) + "  # communicator sizes\n";
    for (const DecisionTable::Row& row : t->rows()) {
      // Tables of per-process sizes: Open MPI compares the total of all processes.
      const std::size_t scale =
          operation_info(t->op()).ompi_rules_size_per_process ? static_cast<std::size_t>(row.from_procs) : 1;
      std::vector<MessageRule> rules;
      for (const DecisionTable::Range& range : row.ranges) {
        const std::size_t from = saturated_product(range.from_bytes, scale);
        // Only boundaries beyond Open MPI's long collapse; the larger sizes' choice is kept.
        if (!rules.empty() && rules.back().from == from) rules.pop_back();
        rules.push_back({from, &range.choice});
      }
      out += std::to_string(row.from_procs) + "  # from communicator size " + std::to_string(row.from_procs) + "\n";
      out += std::to_string(rules.size()) + "  # message sizes\n";
      const std::string where = "rules file, " + op + " from " + std::to_string(row.from_procs) + " processes: ";
      for (const MessageRule& rule : rules) out += rule_line(rule, where);
    }
  }
  return out;
}

void write_rules_file(const std::filesystem::path& path, std::span<const DecisionTable> tables) {
  const std::string text = rules_file_text(tables);
  std::ofstream f(path);
  f << text;
  f.close();
  if (!f) throw InputError(path.string() + ": cannot write the rules file");
}

}  // namespace collsim::selection
