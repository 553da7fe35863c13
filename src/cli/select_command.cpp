// collsim select: a model-based decision table per operation (selection/), the formula engine as
// its predictor, printed and optionally written as an Open MPI dynamic rules file.
#include <algorithm>
#include <climits>
#include <cmath>
#include <iostream>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "engines/formula/formula_engine.hpp"
#include "experiment/parameters.hpp"
#include "experiment/units.hpp"
#include "selection/decision_table.hpp"
#include "selection/model_selection.hpp"
#include "selection/rules_file.hpp"

namespace collsim::cli {
namespace {

// The segment of the gamma experiment under --alpha/--beta: the parameters file's default m_s.
constexpr std::size_t kGammaSegment = 8192;
constexpr std::size_t kDefaultMaxBytes = std::size_t{4} << 20;

const std::vector<OptionDef>& select_options() {
  static const std::vector<OptionDef> defs = {
      {"op", "bcast|gather", "operation(s) to select for, e.g. bcast,gather (required)"},
      {"procs", "LIST", "communicator sizes, one table row each, e.g. 4,8,16 (required)"},
      {"params", "FILE", "parameters from collsim calibrate: per-algorithm alpha, beta and gamma(p)"},
      {"alpha", "S", "instead of --params: Hockney latency in seconds for every algorithm"},
      {"beta", "S_PER_BYTE", "instead of --params: Hockney seconds per byte"},
      {"one-port", "", "with --alpha/--beta: a rank receives one message at a time (serial receives)"},
      {"formula", "derived|textbook", "the formulas that predict (default derived)"},
      {"segments", "LIST", "segment sizes tried for segmented algorithms (default 0,1KiB,8KiB,16KiB,64KiB,128KiB)"},
      {"max-bytes", "SIZE", "largest message sampled (bcast: the message; gather: per process; default 4MiB)"},
      {"rules-out", "FILE", "write the tables as an Open MPI coll/tuned dynamic rules file"},
      {"help", "", "this text"},
  };
  return defs;
}

const char* const kHelp =
    "usage: collsim select --op bcast|gather[,...] --procs LIST (--params FILE | --alpha S --beta S [--one-port])\n"
    "                      [--formula derived|textbook] [--segments LIST] [--max-bytes SIZE] [--rules-out FILE]\n"
    "\n"
    "For each operation and communicator size, predicts every algorithm (with each segment size if it\n"
    "takes one) at message sizes 1, 2, 3, 4, 6, 8, 12, ... up to --max-bytes with the formula engine, and\n"
    "keeps the fastest: a decision table, printed with each choice from its message size up to the next.\n"
    "With --params, an algorithm the file has no fit for is passed over (textbook formulas take the\n"
    "ping-pong's alpha and beta when the file has them). --rules-out writes the tables for Open MPI:\n"
    "  mpirun --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename FILE ...\n"
    "\n";

std::vector<Operation> read_ops(const ParsedOptions& o) {
  if (!o.has("op")) throw UsageError("missing --op (bcast, gather or bcast,gather)");
  std::vector<Operation> ops;
  for (const auto& name : split_commas(o.text("op"))) {
    const OperationInfo* info = find_operation(name);
    if (!info || (info->op != Operation::bcast && info->op != Operation::gather))
      throw UsageError("--op: '" + name + "' is not an operation with decision rules (bcast or gather)");
    const Operation op = info->op;
    if (std::find(ops.begin(), ops.end(), op) != ops.end()) throw UsageError("--op: " + name + " given twice");
    ops.push_back(op);
  }
  return ops;
}

// Increasing, each once (a table has one row per size).
std::vector<int> read_procs(const ParsedOptions& o) {
  if (!o.has("procs")) throw UsageError("missing --procs LIST (e.g. 4,8,16)");
  std::set<int> procs;
  for (const auto& item : split_commas(o.text("procs"))) {
    const auto p = parse_integer(item);
    if (!p || *p < 1 || *p > (1 << 24))
      throw UsageError("--procs: '" + item + "' is not a process count (a whole number from 1 to 16777216)");
    procs.insert(static_cast<int>(*p));
  }
  return {procs.begin(), procs.end()};
}

std::vector<std::size_t> read_segments(const ParsedOptions& o) {
  if (!o.has("segments")) return {std::begin(selection::kDefaultSegments), std::end(selection::kDefaultSegments)};
  std::set<std::size_t> segments;
  for (const auto& item : split_commas(o.text("segments"))) {
    const auto s = parse_bytes(item);
    if (!s || *s > INT_MAX)
      throw UsageError("--segments: '" + item + "' is not a segment size (e.g. 0, 1KiB, 8KiB; at most 2 GiB)");
    segments.insert(*s);
  }
  return {segments.begin(), segments.end()};
}

struct Prediction {
  selection::Predictor predict;
  std::string description;  // "derived formulas, parameters FILE"
};

Prediction read_prediction(const ParsedOptions& o, int max_procs) {
  const std::string kind_text = o.text("formula", "derived");
  if (kind_text != "derived" && kind_text != "textbook")
    throw UsageError("--formula: '" + kind_text + "' is not derived or textbook");
  const bool derived = kind_text == "derived";
  Prediction out;
  if (o.has("params")) {
    for (const char* n : {"alpha", "beta", "one-port"})
      if (o.has(n))
        throw UsageError("--params gives the formulas their parameters: --" + std::string(n) + " cannot be given too");
    const std::string path = o.text("params");
    const Parameters params = read_parameters(path);
    const FormulaConfig config =
        formula_config(params, derived ? FormulaConfig::Kind::derived : FormulaConfig::Kind::textbook);
    // Without its own fit an algorithm would be predicted with whatever costs.hockney holds
    // (the ping-pong's, or nothing): pass it over instead of letting a guess win.
    const bool pingpong_for_all = !derived && params.pingpong.has_value();
    out.predict = [config, params, pingpong_for_all, derived](const AlgorithmInfo& a, const AlgorithmParams& p,
                                                              int procs, std::size_t bytes) {
      const bool has_formula = derived ? a.derived != nullptr : a.textbook != nullptr;
      if (!has_formula || (!pingpong_for_all && !params.algorithms.count(std::string(a.name))))
        return std::numeric_limits<double>::quiet_NaN();
      RunSpec spec;
      spec.algorithm = &a;
      spec.params = p;
      spec.procs = procs;
      spec.bytes = bytes;
      spec.real_bytes = false;
      return run_formula(config, spec).time_s;
    };
    out.description = kind_text + " formulas, parameters " + path;
  } else {
    if (!o.has("alpha") || !o.has("beta"))
      throw UsageError("give the formulas their costs: --params FILE, or --alpha S and --beta S");
    ModelConfig model;
    model.hockney = {o.real("alpha", 0, 0), o.real("beta", 0, 0)};
    model.one_port = o.has("one-port");
    // gamma(p) from the model engine under the same Hockney, as `collsim measure --engine formula` does.
    out.predict =
        selection::formula_predictor(costs_from_model(model, max_procs, kGammaSegment),
                                     derived ? selection::FormulaKind::derived : selection::FormulaKind::textbook);
    out.description = kind_text + " formulas, Hockney alpha " + format_real(model.hockney.alpha) + " s, beta " +
                      format_real(model.hockney.beta) + " s/byte" + (model.one_port ? ", one port" : "");
  }
  return out;
}

std::string format_table(const selection::DecisionTable& table) {
  std::string out;
  const auto& rows = table.rows();
  for (std::size_t r = 0; r < rows.size(); ++r) {
    // The first row also serves the smaller communicators, the last one every larger one.
    const int first = r == 0 ? 1 : rows[r].from_procs;
    if (r + 1 < rows.size())
      out += "  procs " + std::to_string(first) + " to " + std::to_string(rows[r + 1].from_procs - 1);
    else
      out += r == 0 ? std::string("  every communicator size") : "  procs " + std::to_string(first) + " and more";
    out += " (built at " + std::to_string(rows[r].from_procs) + ")";
    out += ":\n";
    for (const auto& range : rows[r].ranges) {
      std::string from = "    from " + format_bytes(range.from_bytes);
      from.resize(std::max<std::size_t>(from.size(), 20), ' ');
      out += from + "  " + to_string(range.choice) + "\n";
    }
  }
  return out;
}

}  // namespace

int select_command(std::span<char* const> args) {
  const ParsedOptions o = parse_options(args, select_options());
  if (o.has("help")) {
    std::cout << kHelp << format_options(select_options());
    return 0;
  }
  if (!o.positional.empty()) throw UsageError("unexpected argument '" + o.positional[0] + "'");
  const std::vector<Operation> ops = read_ops(o);
  const std::vector<int> procs = read_procs(o);
  const std::vector<std::size_t> segments = read_segments(o);
  const std::size_t max_bytes = o.bytes("max-bytes", kDefaultMaxBytes);
  if (max_bytes < 1) throw UsageError("--max-bytes must be at least 1 byte");
  const Prediction prediction = read_prediction(o, procs.back());
  const std::vector<std::size_t> sizes = selection::sample_sizes(max_bytes);

  std::vector<selection::DecisionTable> tables;
  for (Operation op : ops) {
    const auto candidates = selection::default_candidates(op, segments);
    tables.push_back(selection::DecisionTable::build(op, procs, sizes, [&](int p, std::size_t bytes) {
      return selection::select_by_model(op, p, bytes, prediction.predict, candidates);
    }));
    std::cout << to_string(op) << ": " << prediction.description << "; each choice from its size ("
              << (op == Operation::bcast ? "the message" : "bytes per process") << ") up to the next\n"
              << format_table(tables.back());
  }
  if (o.has("rules-out")) {
    const std::string path = o.text("rules-out");
    selection::write_rules_file(path, tables);
    std::cout << "wrote " << path
              << " (mpirun --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename " << path
              << ")\n";
  }
  return 0;
}

}  // namespace collsim::cli
