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
#include "cli/measure_options.hpp"
#include "cli/options.hpp"
#include "cli/progress_line.hpp"
#include "engines/formula/formula_engine.hpp"
#include "experiment/analysis/parameters.hpp"
#include "experiment/scenario/named_files.hpp"
#include "selection/decision_table.hpp"
#include "selection/model_selection.hpp"
#include "selection/rules_file.hpp"
#include "support/units.hpp"

namespace collsim::cli {
namespace {

// The segment of the gamma experiment under --alpha/--beta: the parameters file's default m_s.
constexpr std::size_t kGammaSegment = 8192;
constexpr std::size_t kDefaultMaxBytes = std::size_t{4} << 20;

std::vector<OptionDef> select_options() {
  std::vector<OptionDef> d = {
      {"op", "OPS", "operation(s) to select for, e.g. bcast,allreduce, or all (required; list: collsim algorithms)"},
      {"procs", "LIST", "communicator sizes, one table row each, e.g. 4,8,16 (required)"},
      {"params", "FILE", "parameters from collsim calibrate: per-algorithm alpha, beta, gamma(p), reduce_gamma"},
      {"alpha", "TIME", "instead of --params: Hockney latency for every algorithm, e.g. 10us"},
      {"beta", "TIME_PER_BYTE", "instead of --params: Hockney time per byte, e.g. 0.8ns, or a rate, 1.25GBps"},
      {"one-port", "", "with --alpha/--beta: a rank receives one message at a time (serial receives)"},
      {"reduce-gamma", "TIME_PER_BYTE", "with --alpha/--beta: time per byte of a local reduction (default 0)"},
      {"formula", "derived|textbook", "the formulas that predict (default derived)"},
      {"segments", "LIST", "segment sizes tried for segmented algorithms (default 0,1KiB,8KiB,16KiB,64KiB,128KiB)"},
      {"max-bytes", "SIZE", "largest size sampled, as each operation means its size (default 4MiB)"},
      {"rules-out", "FILE", "write the tables as an Open MPI coll/tuned dynamic rules file"},
  };
  for (auto& r : reduction_options(kDefaultReduction)) d.push_back(r);
  return d;
}

const char* const kAbout =
    "For each operation and communicator size, predicts every algorithm (with each segment size if it\n"
    "takes one) at sizes 1, 2, 3, 4, 6, 8, 12, ... up to --max-bytes with the formula engine, and keeps\n"
    "the fastest: a decision table, printed with each choice from its size up to the next. Sizes are as\n"
    "each operation means them (collsim algorithms): a reducing operation samples whole numbers of\n"
    "--datatype elements, and a barrier the size 0 only. Algorithms Open MPI does not run on a\n"
    "communicator size (two_proc beyond 2 processes) and those without the formula are passed over.\n"
    "With --params, the candidates the file has no fit for are passed over, with a note (textbook\n"
    "formulas take the ping-pong's alpha and beta when the file has them); select refuses to guess\n"
    "their costs. With --rules-out only Open MPI's algorithms are candidates.\n"
    "--rules-out writes the tables for Open MPI:\n"
    "  mpirun --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename FILE ...";

std::vector<Operation> read_ops(const ParsedOptions& o) {
  if (!o.has("op")) throw UsageError("missing --op (one or more of " + operation_names() + ", or all)");
  std::vector<Operation> ops;
  if (o.text("op") == "all") {
    for (const OperationInfo& info : all_operations()) ops.push_back(info.op);
    return ops;
  }
  for (const auto& name : split_commas(o.text("op"))) {
    const OperationInfo* info = find_operation(name);
    if (!info) throw UsageError("--op: '" + name + "' is not an operation (" + operation_names() + ", or all)");
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
  std::string description;         // "derived formulas, parameters FILE"
  std::vector<std::string> notes;  // candidates passed over, and why
};

// The predictions for the candidates of `ops` on the `communicators` sizes; with --params, those
// of the candidates the file has a fit for (has_fit).
Prediction read_prediction(const ParsedOptions& o, const std::vector<Operation>& ops,
                           const std::vector<int>& communicators) {
  const std::string kind_text = o.text("formula", "derived");
  if (kind_text != "derived" && kind_text != "textbook")
    throw UsageError("--formula: '" + kind_text + "' is not derived or textbook");
  const bool derived = kind_text == "derived";
  Prediction out;
  if (o.has("params")) {
    for (const char* n : {"alpha", "beta", "one-port", "reduce-gamma"})
      if (o.has(n))
        throw UsageError("--params gives the formulas their parameters: --" + std::string(n) + " cannot be given too");
    const std::string path = o.text("params");
    const Parameters params = read_parameters(path);
    const FormulaConfig config =
        formula_config(params, derived ? FormulaConfig::Kind::derived : FormulaConfig::Kind::textbook);
    // Candidates without a fit are passed over (a file calibrated with --ops, or before an
    // algorithm was added), and said so; an operation left with none is refused.
    for (Operation op : ops) {
      std::vector<std::string> missing;
      bool any_fit = false;
      for (const AlgorithmInfo& a : all_algorithms()) {
        const bool candidate =
            a.op == op && (derived ? a.derived : a.textbook) &&
            std::any_of(communicators.begin(), communicators.end(), [&](int p) { return runs_on(a, p); });
        if (!candidate) continue;
        if (has_fit(config, a))
          any_fit = true;
        else
          missing.emplace_back(a.name);
      }
      if (!any_fit && !missing.empty()) throw InputError(missing_fits(path, missing));
      if (!missing.empty()) out.notes.push_back("passed over: " + missing_fits(path, missing));
    }
    out.predict = [config, derived](const AlgorithmInfo& a, const AlgorithmParams& p, int procs, std::size_t bytes) {
      if ((derived ? a.derived : a.textbook) == nullptr || !has_fit(config, a))
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
    model.hockney = {o.seconds("alpha", 0), o.seconds_per_byte("beta", 0)};
    model.one_port = o.has("one-port");
    model.reduce_gamma = o.seconds_per_byte("reduce-gamma", 0);
    // gamma(p) from the model engine under the same Hockney, as `collsim measure --engine formula` does.
    out.predict =
        selection::formula_predictor(costs_from_model(model, communicators.back(), kGammaSegment),
                                     derived ? selection::FormulaKind::derived : selection::FormulaKind::textbook);
    out.description = kind_text + " formulas, Hockney alpha " + format_real(model.hockney.alpha) + " s, beta " +
                      format_real(model.hockney.beta) + " s/byte" + (model.one_port ? ", one port" : "") +
                      (model.reduce_gamma > 0 ? ", reduction " + format_real(model.reduce_gamma) + " s/byte" : "");
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

int select(const ParsedOptions& o) {
  const std::vector<Operation> ops = read_ops(o);
  const std::vector<int> procs = read_procs(o);
  const std::vector<std::size_t> segments = read_segments(o);
  const std::size_t max_bytes = o.bytes("max-bytes", kDefaultMaxBytes);
  if (max_bytes < 1) throw UsageError("--max-bytes must be at least 1 byte");
  const bool any_reduces = std::any_of(ops.begin(), ops.end(), [](Operation op) { return operation_info(op).reduces; });
  for (const char* name : {"datatype", "reduce-op"})
    if (!any_reduces && o.has(name))
      throw UsageError("--" + std::string(name) +
                       " applies to reducing operations (reduce, allreduce, reduce_scatter)");
  const Reduction reduction = read_reduction(o, kDefaultReduction);
  const Prediction prediction = read_prediction(o, ops, procs);
  for (const std::string& note : prediction.notes) std::cerr << "collsim: note: " << note << "\n";
  if (o.has("rules-out")) check_output_file(o.text("rules-out"), "rules file");  // before the tables are printed

  // The sizes a call of each operation can have: a barrier has none, a reduction whole elements.
  std::vector<std::vector<std::size_t>> sizes_of;
  std::size_t calls = 0;  // (procs, size) pairs, one choice each
  for (Operation op : ops) {
    const OperationInfo& info = operation_info(op);
    std::vector<std::size_t>& sizes = sizes_of.emplace_back();
    if (!info.moves_data)
      sizes = {0};
    else
      for (std::size_t m : selection::sample_sizes(max_bytes))
        if (call_error(info, m, reduction).empty()) sizes.push_back(m);
    if (sizes.empty())
      throw UsageError("--max-bytes " + std::to_string(max_bytes) + " holds no whole " +
                       std::string(to_string(reduction.type)) + " element for " + std::string(info.name));
    calls += sizes.size() * procs.size();
  }

  // Thousands of processes take seconds for the formulas that follow every rank.
  ProgressLine progress("collsim select", "choices");
  std::size_t chosen = 0;
  std::vector<selection::DecisionTable> tables;
  for (std::size_t k = 0; k < ops.size(); ++k) {
    const Operation op = ops[k];
    const OperationInfo& info = operation_info(op);
    auto candidates = selection::default_candidates(op, segments, reduction);
    // A rules file names Open MPI's algorithms by their numbers: collsim's own cannot be in one.
    if (o.has("rules-out"))
      std::erase_if(candidates, [](const selection::Candidate& c) { return !c.algorithm->in_open_mpi(); });
    tables.push_back(selection::DecisionTable::build(op, procs, sizes_of[k], [&](int p, std::size_t bytes) {
      const selection::Choice c = selection::select_by_model(op, p, bytes, prediction.predict, candidates);
      progress.update(++chosen, calls);
      return c;
    }));
    progress.clear();
    std::cout << info.name;
    if (info.reduces) std::cout << " (" << to_string(reduction.type) << ' ' << to_string(reduction.op) << ')';
    std::cout << ": " << prediction.description << "; each choice from its size (" << info.bytes_mean
              << ") up to the next\n"
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

}  // namespace

Command select_command() {
  return {"select",
          "collsim select --op OPS --procs LIST (--params FILE | --alpha S --beta S [--one-port] [--reduce-gamma S])\n"
          "                      [--formula derived|textbook] [--segments LIST] [--max-bytes SIZE] [--rules-out FILE]\n"
          "                      [--datatype TYPE] [--reduce-op OP]",
          "model-based selection: decision tables, and an Open MPI rules file",
          kAbout,
          select_options(),
          select};
}

}  // namespace collsim::cli
