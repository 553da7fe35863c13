#include "experiment/analysis/comparison.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <tuple>

#include "comm/reduction.hpp"
#include "engines/run.hpp"
#include "selection/decision.hpp"
#include "support/csv.hpp"
#include "support/text_table.hpp"
#include "support/units.hpp"

namespace collsim {

namespace {

std::size_t index(Engine e) { return static_cast<std::size_t>(e); }

// The engine of a row's engine name, when a comparison knows it.
std::optional<Engine> compared_engine(std::string_view name) { return parse_engine(name, kCollectiveEngines); }

// The prediction engines, whose argmin is a selector named by the engine's column stem.
constexpr Engine kArgminSelectors[] = {Engine::formula_textbook, Engine::formula_derived, Engine::model, Engine::sim};
constexpr std::pair<const char*, selection::OmpiVersion> kOmpiSelectors[] = {
    {"ompi-4.1", selection::OmpiVersion::v4_1}, {"ompi-3.1", selection::OmpiVersion::v3_1}};

std::string where(const PointKey& k) {
  std::string w = k.op + " procs " + std::to_string(k.procs) + " bytes " + std::to_string(k.bytes) + " segment " +
                  std::to_string(k.segment) + " root " + std::to_string(k.root);
  if (!k.datatype.empty()) w += " datatype " + k.datatype + " reduce_op " + k.reduce_op;
  return w;
}

// The (algorithm, segment) of a fixed decision as result rows record it: algorithms without a
// segment knob run with segment 0.
Candidate candidate_of(const selection::Choice& c) {
  return {c.algorithm, c.algorithm->takes(Knob::segment) ? c.params.segment : 0};
}

std::string percent(double x) { return fixed(100 * x, 1) + "%"; }

// "pipeline:8KiB", "binomial:0", "basic_linear": a candidate in a narrow table column.
std::string short_name(const Candidate& c) {
  std::string_view name = c.algorithm->name;
  name.remove_prefix(name.find('/') + 1);
  std::string out(name);
  if (c.algorithm->takes(Knob::segment)) {
    out += ':';  // not ":" + format_bytes(): GCC 12 warns about it (-Wrestrict, falsely)
    out += format_bytes(c.segment);
  }
  return out;
}

// "95%": the level of the prediction intervals, for headings.
std::string interval_level() { return fixed(100 * models::kPredictionLevel, 0) + "%"; }

// "123.4 us [110.2 us, 138.1 us]".
std::string with_interval(double time, const models::TimeInterval& in) {
  return format_seconds(time) + " [" + format_seconds(in.low_s) + ", " + format_seconds(in.high_s) + "]";
}

// Every point with a prediction interval: its reference time, and each formula engine's
// prediction with its interval and whether the reference lies inside; "" when no point has one.
std::string format_intervals(const Comparison& c) {
  std::vector<Engine> engines;
  for (Engine e : kCollectiveEngines)
    if (is_formula(e) && std::any_of(c.points.begin(), c.points.end(),
                                     [&](const PointComparison& p) { return p.interval[index(e)].has_value(); }))
      engines.push_back(e);
  if (engines.empty()) return "";
  const std::size_t ref = index(c.reference);
  std::vector<std::vector<std::string>> t = {
      {"op", "procs", "bytes", "segment", std::string(engine_name(c.reference))}};
  for (Engine e : engines) {
    t.front().emplace_back(engine_name(e));
    t.front().emplace_back("inside");
  }
  for (const auto& p : c.points) {
    if (std::none_of(engines.begin(), engines.end(), [&](Engine e) { return p.interval[index(e)].has_value(); }))
      continue;
    const PointKey& k = p.point;
    std::vector<std::string> row = {k.op, std::to_string(k.procs), format_bytes(k.bytes), format_bytes(k.segment),
                                    p.time[ref] ? format_seconds(*p.time[ref]) : "-"};
    for (Engine e : engines) {
      const auto& time = p.time[index(e)];
      const auto& in = p.interval[index(e)];
      row.push_back(!time ? "-" : in ? with_interval(*time, *in) : format_seconds(*time));
      row.emplace_back(!in || !p.time[ref]                                       ? "-"
                       : in->low_s <= *p.time[ref] && *p.time[ref] <= in->high_s ? "yes"
                                                                                 : "no");
    }
    t.push_back(std::move(row));
  }
  return "\nPredictions with their " + interval_level() +
         " prediction intervals (from the fits of the parameters file), " + "and whether the " +
         std::string(engine_name(c.reference)) + " time lies inside:\n" + format_text_table(t);
}

}  // namespace

std::string to_string(const Candidate& c) {
  std::string out(c.algorithm->name);
  if (c.algorithm->takes(Knob::segment)) out += " segment " + format_bytes(c.segment);
  return out;
}

std::string_view to_string(SelectorPick::Status s) {
  switch (s) {
    case SelectorPick::Status::ok: return "ok";
    case SelectorPick::Status::not_in_results: return "not in the results";
    case SelectorPick::Status::no_prediction: return "no prediction";
  }
  return "";
}

std::optional<Engine> default_reference(std::span<const ResultsFile> files) {
  std::array<bool, kComparedEngines> present{};
  for (const auto& f : files)
    for (const auto& m : f.rows)
      if (auto e = compared_engine(m.engine)) present[index(*e)] = true;
  for (Engine e : {Engine::mpi_native, Engine::mpi, Engine::sim})
    if (present[index(e)]) return e;
  return std::nullopt;
}

namespace {

// The join: one time per engine and point, remembering which file gave it; counts each engine's
// rows in c.rows and the others' in c.ignored_rows.
std::map<PointKey, PointComparison> join_rows(std::span<const ResultsFile> files, Comparison& c) {
  std::map<PointKey, PointComparison> points;
  std::map<std::pair<PointKey, std::size_t>, const std::string*> origin;
  for (const auto& f : files)
    for (const auto& m : f.rows) {
      const auto e = compared_engine(m.engine);
      if (!e) {
        ++c.ignored_rows;
        continue;
      }
      const AlgorithmInfo* a = find_algorithm(m.op);
      if (!a) throw InputError(f.path + ": unknown algorithm '" + m.op + "' (one of: " + algorithm_names() + ")");
      const PointKey key{std::string(a->name), m.procs, m.bytes, m.segment, m.root, m.datatype, m.reduce_op};
      const auto [it, fresh] = origin.emplace(std::pair{key, index(*e)}, &f.path);
      if (!fresh)
        throw InputError(f.path + ": engine " + m.engine + " at " + where(key) + " is also in " + *it->second +
                         " (one time per engine and point; compare the files separately)");
      PointComparison& p = points[key];
      p.point = key;
      p.time[index(*e)] = m.time_s;
      p.interval[index(*e)] = m.interval;
      ++c.rows[index(*e)];
    }
  return points;
}

// Each point's errors against the reference (engine index `ref`); whether any point has one.
bool set_relative_errors(std::map<PointKey, PointComparison>& points, std::size_t ref) {
  bool common = false;
  for (auto& [key, p] : points) {
    if (!p.time[ref]) continue;
    for (std::size_t e = 0; e < kComparedEngines; ++e)
      if (e != ref && p.time[e]) {
        p.rel_error[e] = (*p.time[e] - *p.time[ref]) / *p.time[ref];
        common = true;
      }
  }
  return common;
}

// The selectors: the argmin of each prediction engine with rows (but the reference), then Open
// MPI's decisions.
std::vector<std::string> selectors_of(const Comparison& c) {
  std::vector<std::string> out;
  for (Engine e : kArgminSelectors)
    if (e != c.reference && c.rows[index(e)] > 0) out.emplace_back(engine_column(e));
  for (const auto& [name, v] : kOmpiSelectors) out.push_back(name);
  return out;
}

using GroupKey = std::tuple<Operation, int, std::size_t, int, std::string, std::string>;

// Selection groups: the candidates of one call, in (algorithm name, segment) order.
std::map<GroupKey, std::vector<const PointComparison*>> selection_groups(const std::vector<PointComparison>& points,
                                                                         std::size_t ref) {
  std::map<GroupKey, std::vector<const PointComparison*>> groups;
  for (const auto& p : points)
    if (p.time[ref])
      groups[{find_algorithm(p.point.op)->op, p.point.procs, p.point.bytes, p.point.root, p.point.datatype,
              p.point.reduce_op}]
          .push_back(&p);
  return groups;
}

// One group's best candidate and each selector's pick, judged by the reference times.
SelectionGroup judged_group(const GroupKey& gkey, const std::vector<const PointComparison*>& members,
                            const std::vector<std::string>& selectors, std::size_t ref) {
  SelectionGroup g;
  std::tie(g.op, g.procs, g.bytes, g.root, g.datatype, g.reduce_op) = gkey;
  // Open MPI decides reductions with a non-commutative operator by other tables.
  const auto reduce_op = parse_reduce_op(g.reduce_op);
  const bool commutative = !reduce_op || is_commutative(*reduce_op);
  g.candidates = static_cast<int>(members.size());
  const auto candidate = [](const PointComparison* p) {
    return Candidate{find_algorithm(p->point.op), p->point.segment};
  };
  const PointComparison* best = members.front();
  for (const auto* p : members)
    if (*p->time[ref] < *best->time[ref]) best = p;
  g.best = candidate(best);
  g.best_s = *best->time[ref];
  const auto judged = [&](const PointComparison* p) {
    SelectorPick s;
    s.status = SelectorPick::Status::ok;
    s.pick = candidate(p);
    s.pick_s = *p->time[ref];
    s.degradation = s.pick_s / g.best_s;
    return s;
  };
  for (const std::string& name : selectors) {
    SelectorPick s;
    for (Engine e : kArgminSelectors)
      if (name == engine_column(e)) {
        const PointComparison* pick = nullptr;
        for (const auto* p : members)
          if (p->time[index(e)] && (!pick || *p->time[index(e)] < *pick->time[index(e)])) pick = p;
        if (pick) s = judged(pick);
      }
    for (const auto& [sname, v] : kOmpiSelectors)
      if (name == sname) {
        // Open MPI 3.1's decisions are written here for bcast and gather only.
        if (v == selection::OmpiVersion::v3_1 && g.op != Operation::bcast && g.op != Operation::gather) continue;
        const Candidate choice = candidate_of(selection::ompi_fixed_decision(v, g.op, g.procs, g.bytes, commutative));
        const auto it =
            std::find_if(members.begin(), members.end(), [&](const auto* p) { return candidate(p) == choice; });
        if (it != members.end()) {
          s = judged(*it);
        } else {
          s.status = SelectorPick::Status::not_in_results;
          s.pick = choice;
        }
      }
    g.picks.push_back(s);
  }
  return g;
}

// Selector `i`'s picks over the groups of `op`; nullopt when `op` has no group.
std::optional<SelectorSummary> selector_summary(const Comparison& c, Operation op, std::size_t i) {
  SelectorSummary s;
  s.selector = c.selectors[i];
  s.op = op;
  double sum = 0;
  for (const auto& g : c.groups) {
    if (g.op != op) continue;
    ++s.groups;
    const SelectorPick& p = g.picks[i];
    if (p.status == SelectorPick::Status::not_in_results) ++s.not_in_results;
    if (p.status == SelectorPick::Status::no_prediction) ++s.no_prediction;
    if (p.status != SelectorPick::Status::ok) continue;
    ++s.picked;
    sum += p.degradation;
    if (p.degradation == 1) ++s.hits;
    if (p.degradation > s.worst_degradation) {
      s.worst_degradation = p.degradation;
      s.worst_procs = g.procs;
      s.worst_bytes = g.bytes;
    }
  }
  if (s.groups == 0) return std::nullopt;
  if (s.picked > 0) s.mean_degradation = sum / s.picked;
  return s;
}

// Engine e's errors over the points of `op`; nullopt when none has one.
std::optional<ErrorSummary> error_summary(const Comparison& c, Operation op, Engine e) {
  ErrorSummary s;
  s.engine = e;
  s.op = op;
  double sum = 0, widths = 0;
  for (const auto& p : c.points) {
    const auto& err = p.rel_error[index(e)];
    if (!err || find_algorithm(p.point.op)->op != op) continue;
    ++s.points;
    sum += std::abs(*err);
    s.max_abs = std::max(s.max_abs, std::abs(*err));
    if (const auto& in = p.interval[index(e)]) {
      const double ref = *p.time[index(c.reference)];
      ++s.with_interval;
      if (in->low_s <= ref && ref <= in->high_s) ++s.inside;
      widths += (in->high_s - in->low_s) / 2 / *p.time[index(e)];
    }
  }
  if (s.points == 0) return std::nullopt;
  s.mean_abs = sum / s.points;
  if (s.with_interval > 0) s.mean_half_width = widths / s.with_interval;
  return s;
}

// Per operation: each selector's summary, then each engine's errors (but the reference's).
void summarize(Comparison& c) {
  for (const OperationInfo& info : all_operations()) {
    for (std::size_t i = 0; i < c.selectors.size(); ++i)
      if (auto s = selector_summary(c, info.op, i)) c.selector_summaries.push_back(*s);
    for (Engine e : kCollectiveEngines)
      if (e != c.reference)
        if (auto s = error_summary(c, info.op, e)) c.error_summaries.push_back(*s);
  }
}

}  // namespace

Comparison compare_results(std::span<const ResultsFile> files, std::optional<Engine> reference) {
  Comparison c;
  if (!reference) reference = default_reference(files);
  std::string names;
  for (const auto& f : files) {
    c.files.push_back(f.path);
    names += (names.empty() ? "" : ", ") + f.path;
  }
  if (!reference)
    throw InputError(names +
                     ": no measured or simulated rows (engine mpi-native, mpi or sim) to compare with; "
                     "--reference model compares with the model engine");
  c.reference = *reference;
  const std::size_t ref = index(*reference);

  std::map<PointKey, PointComparison> points = join_rows(files, c);
  if (c.rows[ref] == 0)
    throw InputError(names + ": no rows of the reference engine " + std::string(engine_name(*reference)));
  if (!set_relative_errors(points, ref))
    throw InputError(names + ": no common points: no (op, procs, bytes, segment, root) has both a " +
                     std::string(engine_name(*reference)) + " time and another engine's");
  c.selectors = selectors_of(c);
  for (auto& [key, p] : points) c.points.push_back(std::move(p));
  for (const auto& [gkey, members] : selection_groups(c.points, ref))
    c.groups.push_back(judged_group(gkey, members, c.selectors, ref));
  summarize(c);
  return c;
}

std::string comparison_points_csv(const Comparison& c) {
  std::string out = "op,procs,bytes,segment,root,reference,reference_s";
  // Appended piecewise: GCC 12 warns (-Wrestrict, falsely) about "," + a temporary string.
  for (const char* suffix : {"_s", "_rel_err"})
    for (Engine e : kCollectiveEngines) {
      out += ',';
      out += engine_column(e);
      out += suffix;
    }
  out += ",datatype,reduce_op";
  // The intervals last: columns added after the others, which readers find by name.
  for (Engine e : kCollectiveEngines)
    if (is_formula(e))
      for (const char* suffix : {"_low_s", "_high_s"}) {
        out += ',';
        out += engine_column(e);
        out += suffix;
      }
  out += '\n';
  for (const auto& p : c.points) {
    const PointKey& k = p.point;
    CsvLine line;
    line.text(k.op).number(k.procs).number(k.bytes).number(k.segment).number(k.root);
    line.text(std::string(engine_name(c.reference))).number(p.time[index(c.reference)]);
    for (const auto& time : p.time) line.number(time);
    for (const auto& r : p.rel_error) line.number(r);
    line.text(k.datatype).text(k.reduce_op);
    for (Engine e : kCollectiveEngines)
      if (is_formula(e)) {
        const auto& in = p.interval[index(e)];
        line.number(in ? std::optional(in->low_s) : std::nullopt).number(in ? std::optional(in->high_s) : std::nullopt);
      }
    out += line.str() + "\n";
  }
  return out;
}

std::string comparison_selection_csv(const Comparison& c) {
  std::string out =
      "operation,procs,bytes,root,candidates,best,best_segment,best_s,selector,pick,pick_segment,pick_s,degradation,"
      "status,datatype,reduce_op\n";
  for (const auto& g : c.groups) {
    for (std::size_t i = 0; i < g.picks.size(); ++i) {
      const SelectorPick& p = g.picks[i];
      CsvLine line;
      line.text(std::string(to_string(g.op))).number(g.procs).number(g.bytes).number(g.root).number(g.candidates);
      line.text(std::string(g.best.algorithm->name)).number(g.best.segment).number(g.best_s).text(c.selectors[i]);
      if (p.status == SelectorPick::Status::no_prediction)
        line.text("").text("");
      else
        line.text(std::string(p.pick.algorithm->name)).number(p.pick.segment);
      if (p.status == SelectorPick::Status::ok)
        line.number(p.pick_s).number(p.degradation);
      else
        line.text("").text("");
      out += line.text(std::string(to_string(p.status))).text(g.datatype).text(g.reduce_op).str() + "\n";
    }
  }
  return out;
}

std::string format_comparison(const Comparison& c) {
  const std::string ref(engine_name(c.reference));
  std::string out = "reference: " + ref + " (" + std::to_string(c.rows[index(c.reference)]) + " rows)";
  std::string others;
  for (Engine e : kCollectiveEngines)
    if (e != c.reference && c.rows[index(e)] > 0)
      others += (others.empty() ? "" : ", ") + std::string(engine_name(e)) + " " + std::to_string(c.rows[index(e)]);
  out += "; compared: " + (others.empty() ? std::string("none") : others) + "; " + std::to_string(c.points.size()) +
         " points from " + std::to_string(c.files.size()) + (c.files.size() == 1 ? " file" : " files");
  if (c.ignored_rows > 0) out += " (" + std::to_string(c.ignored_rows) + " rows of other engines ignored)";
  out += "\n\n";

  if (!c.error_summaries.empty()) {
    const bool intervals = std::any_of(c.error_summaries.begin(), c.error_summaries.end(),
                                       [](const ErrorSummary& s) { return s.with_interval > 0; });
    out += "Prediction error against " + ref + ", |time - " + ref + "| / " + ref + ":\n";
    std::vector<std::vector<std::string>> t = {{"engine", "operation", "points", "mean", "max"}};
    if (intervals) {
      t.front().push_back(interval_level() + " interval");
      t.front().emplace_back(ref + " inside");
    }
    for (const auto& s : c.error_summaries) {
      t.push_back({std::string(engine_name(s.engine)), std::string(to_string(s.op)), std::to_string(s.points),
                   percent(s.mean_abs), percent(s.max_abs)});
      if (!intervals) continue;
      const bool any = s.with_interval > 0;
      t.back().push_back(any ? "+-" + percent(s.mean_half_width) + " mean" : "-");
      t.back().push_back(any ? std::to_string(s.inside) + "/" + std::to_string(s.with_interval) + " (" +
                                   fixed(100.0 * s.inside / s.with_interval, 0) + "%)"
                             : "-");
    }
    out += format_text_table(t) + "\n";
  }

  out += "Selectors: degradation = " + ref + " time of the pick / best " + ref +
         " time at that (procs, bytes) (1.000 = optimal); hits = picks of the best:\n";
  std::vector<std::vector<std::string>> t = {
      {"selector", "operation", "picks", "mean", "worst", "worst at", "hits", "coverage"}};
  for (const auto& s : c.selector_summaries) {
    std::string coverage = std::to_string(s.picked) + "/" + std::to_string(s.groups);
    if (s.not_in_results > 0) coverage += " (" + std::to_string(s.not_in_results) + " not in the results)";
    if (s.no_prediction > 0) coverage += " (" + std::to_string(s.no_prediction) + " without a prediction)";
    const bool any = s.picked > 0;
    t.push_back({s.selector, std::string(to_string(s.op)), std::to_string(s.picked),
                 any ? fixed(s.mean_degradation, 3) : "-", any ? fixed(s.worst_degradation, 3) : "-",
                 any ? "P=" + std::to_string(s.worst_procs) + " m=" + format_bytes(s.worst_bytes) : "-",
                 any ? std::to_string(s.hits) + " (" + fixed(100.0 * s.hits / s.picked, 0) + "%)" : "-", coverage});
  }
  out += format_text_table(t);

  bool several_roots = false;
  for (const auto& g : c.groups) several_roots = several_roots || g.root != c.groups.front().root;
  bool several_reductions = false;
  for (const auto& g : c.groups)
    several_reductions =
        several_reductions || g.datatype != c.groups.front().datatype || g.reduce_op != c.groups.front().reduce_op;
  for (const OperationInfo& info : all_operations()) {
    const Operation op = info.op;
    std::vector<std::vector<std::string>> picks;
    std::vector<std::string> head = {"procs", "bytes"};
    if (several_roots) head.push_back("root");
    if (several_reductions && info.reduces) head.push_back("reduction");
    head.push_back("best");
    for (const auto& s : c.selectors) head.push_back(s);
    picks.push_back(head);
    for (const auto& g : c.groups) {
      if (g.op != op) continue;
      std::vector<std::string> row = {std::to_string(g.procs), format_bytes(g.bytes)};
      if (several_roots) row.push_back(std::to_string(g.root));
      if (several_reductions && info.reduces) row.push_back(g.datatype + " " + g.reduce_op);
      row.push_back(short_name(g.best));
      for (const auto& p : g.picks) {
        switch (p.status) {
          case SelectorPick::Status::ok: row.push_back(short_name(p.pick) + " " + fixed(p.degradation, 3)); break;
          case SelectorPick::Status::not_in_results:
            // Built piecewise: GCC 12 warns (-Wrestrict, falsely) about "(" + a temporary string.
            row.emplace_back("(");
            row.back() += short_name(p.pick);
            row.back() += ')';
            break;
          case SelectorPick::Status::no_prediction: row.push_back("-"); break;
        }
      }
      picks.push_back(row);
    }
    if (picks.size() == 1) continue;
    out += "\nPicks, " + std::string(to_string(op)) +
           " (name[:segment] degradation; (name): Open MPI's choice, not in the results; -: no prediction):\n" +
           format_text_table(picks);
  }
  out += format_intervals(c);
  return out;
}

}  // namespace collsim
