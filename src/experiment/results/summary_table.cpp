#include "experiment/results/summary_table.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>

#include "engines/engine.hpp"
#include "support/text_table.hpp"
#include "support/units.hpp"

namespace collsim {

namespace {

// (cluster, algorithm, procs, bytes, segment, root)
using Key = std::tuple<std::string, std::string, int, std::size_t, std::size_t, int>;

// `text[c]`: column c holds words (algorithm names, data checks), left-aligned; the others hold
// numbers, right-aligned so their digits line up. The first row names the columns.
std::string render(const std::vector<std::vector<std::string>>& cells, const std::vector<bool>& text) {
  std::vector<bool> right(text.size());
  for (std::size_t c = 0; c < text.size(); ++c) right[c] = !text[c];
  return format_text_table(cells, right, true);
}

// A reducing operation's row names its reduction: " (int32 sum)"; empty for the others.
std::string reduction_text(const Measurement& m) {
  return m.datatype.empty() ? "" : " (" + m.datatype + " " + m.reduce_op + ")";
}

// The cluster of a row: its axes, "taper=4 map_by=ppr:2:node"; empty without axes.
std::string axes_text(const Measurement& m) {
  std::string out;
  for (const auto& [name, value] : m.axes) out += (out.empty() ? "" : " ") + name + "=" + value;
  return out;
}

}  // namespace

std::string format_results_table(const std::vector<Measurement>& rows) {
  std::vector<std::string> engines;
  std::vector<Key> order;
  std::map<Key, std::map<std::string, const Measurement*>> cells;
  bool many_roots = false, checked = false, clusters = false, wide = false;
  for (const auto& m : rows) {
    if (std::find(engines.begin(), engines.end(), m.engine) == engines.end()) engines.push_back(m.engine);
    Key k{axes_text(m), m.op + reduction_text(m), m.procs, m.bytes, m.segment, m.root};
    clusters |= !m.axes.empty();
    if (!cells.count(k)) order.push_back(k);
    cells[k][m.engine] = &m;
    many_roots |= m.root != 0;
    checked |= m.data != "unchecked";
  }
  std::vector<std::vector<std::string>> out;
  std::vector<std::string> header{"algorithm", "procs", "bytes", "segment"};
  if (clusters) header.insert(header.begin(), "cluster");
  if (many_roots) header.push_back("root");
  for (const auto& e : engines) header.push_back(e);
  if (engines.size() == 2) header.push_back(engines[1] + "/" + engines[0]);
  if (checked) header.push_back("data");
  out.push_back(header);
  for (const Key& k : order) {
    const auto& by_engine = cells[k];
    std::vector<std::string> line{std::get<1>(k), std::to_string(std::get<2>(k)), format_bytes(std::get<3>(k)),
                                  std::get<4>(k) ? format_bytes(std::get<4>(k)) : "-"};
    if (clusters) line.insert(line.begin(), std::get<0>(k));
    if (many_roots) line.push_back(std::to_string(std::get<5>(k)));
    // Every engine's wrong bytes, not only the last one's; "ok" only when some engine checked.
    std::string data;
    bool verified = false;
    for (const auto& e : engines) {
      auto it = by_engine.find(e);
      // A measured time whose runs stopped at max_runs with the CI above its target.
      const bool loose = it != by_engine.end() && it->second->ci_met == false;
      wide |= loose;
      line.push_back(it == by_engine.end() ? "" : format_seconds(it->second->time_s) + (loose ? " *" : ""));
      if (it == by_engine.end() || it->second->data == "unchecked") continue;
      verified = true;
      if (it->second->data != "ok") data += (data.empty() ? "" : "; ") + e + ": " + it->second->data;
    }
    if (data.empty()) data = verified ? "ok" : "unchecked";
    if (engines.size() == 2) {
      auto a = by_engine.find(engines[0]), b = by_engine.find(engines[1]);
      char ratio[32] = "";
      if (a != by_engine.end() && b != by_engine.end() && a->second->time_s > 0)
        std::snprintf(ratio, sizeof ratio, "%.3f", b->second->time_s / a->second->time_s);
      line.push_back(ratio);
    }
    if (checked) line.push_back(data);
    out.push_back(std::move(line));
  }
  std::vector<bool> text(header.size(), false);
  text[0] = true;
  if (clusters) text[1] = true;
  if (checked) text.back() = true;
  return render(out, text) + (wide ? kCiMissedNote : "");
}

std::string engine_legend(const std::vector<Measurement>& rows) {
  std::vector<std::string> seen;
  for (const auto& m : rows)
    if (std::find(seen.begin(), seen.end(), m.engine) == seen.end()) seen.push_back(m.engine);
  std::string out;
  for (const auto& e : seen) {
    const auto engine = parse_engine(e, kCollectiveEngines);
    if (!engine) continue;
    out += (out.empty() ? "Columns: " : "; ") + e + " = " + std::string(engine_info(*engine).description);
  }
  return out.empty() ? out : out + ".\n";
}

namespace {
std::string variant(const Measurement& m) { return m.segment ? m.op + " (" + format_bytes(m.segment) + ")" : m.op; }
}  // namespace

std::string format_fastest_table(const std::vector<Measurement>& rows) {
  // (engine, operation, cluster) -> (procs, bytes) -> candidates, each (time, variant)
  using Point = std::pair<int, std::size_t>;
  using Group = std::tuple<std::string, std::string, std::string>;
  std::map<Group, std::map<Point, std::vector<std::pair<double, std::string>>>> groups;
  std::vector<Group> order;
  for (const auto& m : rows) {
    if (m.root != 0) continue;  // compare like with like: root 0 only
    const std::string operation = m.op.substr(0, m.op.find('/')) + reduction_text(m);
    const Group key{m.engine, operation, axes_text(m)};
    if (!groups.count(key)) order.push_back(key);
    groups[key][{m.procs, m.bytes}].emplace_back(m.time_s, variant(m));
  }
  std::string out;
  for (const auto& key : order) {
    auto& points = groups[key];
    std::size_t most = 0;
    for (const auto& [point, candidates] : points) most = std::max(most, candidates.size());
    if (most < 2) continue;
    std::vector<std::vector<std::string>> cells{{"procs", "bytes", "fastest", "time", "runner-up", "slower by"}};
    for (auto& [point, candidates] : points) {
      std::sort(candidates.begin(), candidates.end());
      std::vector<std::string> line{std::to_string(point.first), format_bytes(point.second), candidates[0].second,
                                    format_seconds(candidates[0].first)};
      if (candidates.size() > 1) {
        char pct[32];
        const double best = candidates[0].first;
        std::snprintf(pct, sizeof pct, "%.1f%%", best > 0 ? 100.0 * (candidates[1].first / best - 1) : 0.0);
        line.push_back(candidates[1].second);
        line.push_back(pct);
      }
      cells.push_back(std::move(line));
    }
    const std::string& cluster = std::get<2>(key);
    out += "\nfastest " + std::get<1>(key) + " per (procs, bytes) on engine " + std::get<0>(key) +
           (cluster.empty() ? "" : " (" + cluster + ")") + ":\n" +
           render(cells, {false, false, true, false, true, false});
  }
  return out;
}

}  // namespace collsim
