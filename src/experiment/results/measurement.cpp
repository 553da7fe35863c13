#include "experiment/results/measurement.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <map>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include "engines/run.hpp"
#include "experiment/scenario/named_files.hpp"
#include "support/statistics.hpp"
#include "support/units.hpp"

namespace collsim {

Measurement simulated_measurement(std::string engine, std::string op, int procs, std::size_t bytes, std::size_t segment,
                                  int root, double time_s, std::string data) {
  Measurement m;
  m.engine = std::move(engine);
  m.op = std::move(op);
  m.procs = procs;
  m.bytes = bytes;
  m.segment = segment;
  m.root = root;
  m.time_s = m.mean_s = m.median_s = m.min_s = m.max_s = time_s;
  m.data = std::move(data);
  return m;
}

std::string csv_header() {
  return "engine,op,procs,bytes,segment,root,time_s,runs,mean_s,median_s,min_s,max_s,ci95_s,ci_target_met,data,"
         "protocol,datatype,reduce_op,osu_avg_s,osu_min_s,osu_max_s,interval_low_s,interval_high_s";
}

std::string ci_met_cell(const std::optional<bool>& met) { return met ? (*met ? "1" : "0") : ""; }

bool read_ci_met_cell(const std::string& cell, std::optional<bool>& met) {
  if (cell != "" && cell != "0" && cell != "1") return false;
  met = cell.empty() ? std::nullopt : std::optional<bool>(cell == "1");
  return true;
}

namespace {
// Columns added to results files after they were first written, each after the column named
// beside it (which may be one added before it in this list); a file without one reads as if its
// cells were empty.
constexpr std::pair<const char*, const char*> kAddedColumns[] = {{"ci_target_met", "ci95_s"},
                                                                 {"osu_avg_s", "reduce_op"},
                                                                 {"osu_min_s", "osu_avg_s"},
                                                                 {"osu_max_s", "osu_min_s"},
                                                                 {"interval_low_s", "osu_max_s"},
                                                                 {"interval_high_s", "interval_low_s"},
                                                                 {"packing", "get_behaviour"},
                                                                 {"sync", "packing"},
                                                                 {"pattern", "sync"},
                                                                 {"images", "pattern"}};

// `header` with the added columns it lacks, each after its anchor (none when it lacks the anchor:
// not a results header); `at` gets where each one landed, in increasing order.
std::vector<std::string> with_added_columns(std::vector<std::string> header, std::vector<std::size_t>& at) {
  std::vector<bool> added(header.size(), false);
  for (const auto& [column, after] : kAddedColumns) {
    if (std::find(header.begin(), header.end(), column) != header.end()) continue;
    const auto anchor = std::find(header.begin(), header.end(), after);
    if (anchor == header.end()) continue;
    const auto pos = anchor - header.begin() + 1;
    header.insert(header.begin() + pos, column);
    added.insert(added.begin() + pos, true);
  }
  at.clear();
  for (std::size_t i = 0; i < added.size(); ++i)
    if (added[i]) at.push_back(i);
  return header;
}

std::string joined(const std::vector<std::string>& cells) {
  std::string out;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (i > 0) out += ',';
    out += csv_quoted(cells[i]);
  }
  return out;
}
}  // namespace

std::string upgraded_results_header(const std::string& header) {
  std::vector<std::size_t> at;
  const std::vector<std::string> cells = with_added_columns(split_csv(header), at);
  return at.empty() ? header : joined(cells);
}

std::string upgraded_results_row(const std::string& header, const std::string& row) {
  std::vector<std::size_t> at;
  with_added_columns(split_csv(header), at);
  if (at.empty()) return row;
  std::vector<std::string> cells = split_csv(row);
  // Positions in the upgraded row, in increasing order: each insertion leaves the earlier ones.
  for (std::size_t i : at)
    if (i <= cells.size()) cells.insert(cells.begin() + static_cast<std::ptrdiff_t>(i), "");
  return joined(cells);
}

std::string critical_path_header() { return "cp_latency_s,cp_transfer_s,cp_wait_s,cp_copy_s,cp_other_s"; }

std::string critical_path_cells(const Measurement& m) {
  if (!m.critical_path) return ",,,,";
  const PathShares& s = *m.critical_path;
  return format_real(s.latency) + "," + format_real(s.transfer) + "," + format_real(s.waiting) + "," +
         format_real(s.copying) + "," + format_real(s.other);
}

Measurement simulated_measurement(std::string engine, const RunSpec& spec, double time_s, std::string data) {
  Measurement m = simulated_measurement(std::move(engine), "", 0, 0, 0, 0, time_s, std::move(data));
  set_call(m, spec);
  return m;
}

void set_statistics(Measurement& m, const Summary& s, bool ci_met, std::string data) {
  m.runs = static_cast<int>(s.runs);
  m.mean_s = s.mean;
  m.median_s = s.median;
  m.min_s = s.min;
  m.max_s = s.max;
  m.ci95_s = s.ci95;
  m.ci_met = ci_met;
  m.time_s = s.median;
  m.data = std::move(data);
}

Measurement measured_row(std::string engine, const RunSpec& spec, const Summary& s, bool ci_met, std::string data) {
  Measurement m;
  m.engine = std::move(engine);
  set_call(m, spec);
  set_statistics(m, s, ci_met, std::move(data));
  return m;
}

void set_call(Measurement& m, const RunSpec& spec) {
  m.op = std::string(spec.algorithm->name);
  m.procs = spec.procs;
  m.bytes = spec.bytes;
  m.segment = spec.algorithm->takes(Knob::segment) ? spec.params.segment : 0;
  m.root = spec.params.root;
  m.datatype.clear();
  m.reduce_op.clear();
  if (operation_info(spec.algorithm->op).reduces) {
    m.datatype = to_string(spec.params.reduction.type);
    m.reduce_op = to_string(spec.params.reduction.op);
  }
}

std::string csv_row(const Measurement& m) {
  return CsvLine()
      .text(m.engine)
      .text(m.op)
      .number(m.procs)
      .number(m.bytes)
      .number(m.segment)
      .number(m.root)
      .number(m.time_s)
      .number(m.runs)
      .number(m.mean_s)
      .number(m.median_s)
      .number(m.min_s)
      .number(m.max_s)
      .number(m.ci95_s)
      .text(ci_met_cell(m.ci_met))
      .text(m.data)
      .text(m.protocol)
      .text(m.datatype)
      .text(m.reduce_op)
      .number(m.osu ? std::optional(m.osu->avg_s) : std::nullopt)
      .number(m.osu ? std::optional(m.osu->min_s) : std::nullopt)
      .number(m.osu ? std::optional(m.osu->max_s) : std::nullopt)
      .number(m.interval ? std::optional(m.interval->low_s) : std::nullopt)
      .number(m.interval ? std::optional(m.interval->high_s) : std::nullopt)
      .str();
}

std::string results_row_problem(const std::vector<std::string>& header, const std::vector<std::string>& cells) {
  if (cells.size() != header.size())
    return std::to_string(cells.size()) + " cells, the header has " + std::to_string(header.size());
  // The measured times: csv_header()'s columns in seconds (a coarray row has some of them). The
  // critical path's shares are not checked: rounding may leave cp_other_s an ulp below 0.
  static const std::vector<std::string> times = [] {
    std::vector<std::string> out;
    for (std::string& column : split_csv(csv_header()))
      if (column.ends_with("_s")) out.push_back(std::move(column));
    return out;
  }();
  for (std::size_t i = 0; i < header.size(); ++i) {
    // time_s is every row's result; the statistics may be empty (a simulated engine's row).
    if ((cells[i].empty() && header[i] != "time_s") || std::find(times.begin(), times.end(), header[i]) == times.end())
      continue;
    const auto t = parse_real(cells[i]);
    if (!t || *t < 0) return header[i] + " is '" + cells[i] + "', not a time (a non-negative number of seconds)";
  }
  return "";
}

namespace {
// The columns every results row must have; the others fall back (statistics to time_s).
constexpr const char* kRequired[] = {"engine", "op", "procs", "bytes", "segment", "root", "time_s"};

// One row from its cells under `header`; on failure, nullopt and what is wrong in `problem`.
std::optional<Measurement> row_from_cells(const std::vector<std::string>& header, const std::vector<std::string>& cells,
                                          std::string& problem) {
  std::map<std::string, std::string> v;
  for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i) v[header[i]] = cells[i];
  for (const char* key : kRequired)
    if (!v.count(key)) {
      problem = std::string("no ") + key + " value";
      return std::nullopt;
    }
  Measurement m;
  const char* field = "";
  try {
    field = "engine";
    m.engine = v.at("engine");
    field = "op";
    m.op = v.at("op");
    if (m.engine.empty() || m.op.empty()) throw std::invalid_argument("empty");
    field = "procs";
    const long long procs = parse_integer(v.at("procs")).value();
    if (procs < 1 || procs > INT_MAX) throw std::out_of_range("procs");
    m.procs = static_cast<int>(procs);
    field = "bytes";
    m.bytes = parse_bytes(v.at("bytes")).value();
    field = "segment";
    m.segment = parse_bytes(v.at("segment")).value();
    field = "root";
    const long long root = parse_integer(v.at("root")).value();
    if (root < 0 || root >= procs) throw std::out_of_range("root");
    m.root = static_cast<int>(root);
    field = "time_s";
    m.time_s = parse_real(v.at("time_s")).value();  // finite: parse_real refuses nan and inf
    if (m.time_s < 0) throw std::out_of_range("time_s");
    auto real_or = [&](const char* key, double fallback) {
      auto it = v.find(key);
      return it == v.end() ? fallback : parse_real(it->second).value_or(fallback);
    };
    m.runs = static_cast<int>(real_or("runs", 1));
    m.mean_s = real_or("mean_s", m.time_s);
    m.median_s = real_or("median_s", m.time_s);
    m.min_s = real_or("min_s", m.time_s);
    m.max_s = real_or("max_s", m.time_s);
    m.ci95_s = real_or("ci95_s", 0);
    field = "ci_target_met";  // files before the column have none: unknown
    if (v.count(field) && !read_ci_met_cell(v[field], m.ci_met)) throw std::invalid_argument(field);
    m.data = v.count("data") ? v["data"] : "unchecked";
    m.protocol = v.count("protocol") ? v["protocol"] : "";
    m.datatype = v.count("datatype") ? v["datatype"] : "";  // files before reductions have neither
    m.reduce_op = v.count("reduce_op") ? v["reduce_op"] : "";
    if (v.count("osu_avg_s") && !v["osu_avg_s"].empty()) {  // files before OSU timing have none
      OsuTimes t;
      for (auto [column, value] :
           {std::pair{"osu_avg_s", &t.avg_s}, {"osu_min_s", &t.min_s}, {"osu_max_s", &t.max_s}}) {
        field = column;
        *value = parse_real(v.at(column)).value();
      }
      m.osu = t;
    }
    if (v.count("interval_low_s") && !v["interval_low_s"].empty()) {  // files before intervals have none
      models::TimeInterval t;
      for (auto [column, value] : {std::pair{"interval_low_s", &t.low_s}, {"interval_high_s", &t.high_s}}) {
        field = column;
        *value = parse_real(v.at(column)).value();
      }
      if (!(t.low_s <= m.time_s && m.time_s <= t.high_s)) {
        problem = "the interval [" + v["interval_low_s"] + ", " + v["interval_high_s"] + "] does not hold time_s " +
                  v["time_s"];
        return std::nullopt;
      }
      m.interval = t;
    }
    static const std::vector<std::string> path_columns = split_csv(critical_path_header());
    if (v.count(path_columns[0]) && !v[path_columns[0]].empty()) {
      PathShares s;
      double* shares[] = {&s.latency, &s.transfer, &s.waiting, &s.copying, &s.other};
      for (std::size_t i = 0; i < path_columns.size(); ++i) {
        field = path_columns[i].c_str();
        *shares[i] = parse_real(v.at(path_columns[i])).value();
      }
      m.critical_path = s;
    }
    // Columns beyond the standard ones, the critical path's and the key are the cluster's axes,
    // in file order.
    static const std::vector<std::string> standard = split_csv(csv_header());
    for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i)
      if (header[i] != "key" && std::find(standard.begin(), standard.end(), header[i]) == standard.end() &&
          std::find(path_columns.begin(), path_columns.end(), header[i]) == path_columns.end())
        m.axes.emplace_back(header[i], cells[i]);
  } catch (const std::exception&) {
    problem = std::string(field) + " is '" + (v.count(field) ? v[field] : "") + "'";
    return std::nullopt;
  }
  return m;
}

bool is_results_header(const std::vector<std::string>& header) {
  for (const char* key : kRequired)
    if (std::find(header.begin(), header.end(), key) == header.end()) return false;
  return true;
}
}  // namespace

std::optional<Measurement> parse_csv_output(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> header;
  while (std::getline(in, line))
    if (line.rfind("engine,", 0) == 0) {
      header = split_csv(line);
      break;
    }
  if (header.empty() || !std::getline(in, line)) return std::nullopt;
  std::string problem;
  return row_from_cells(header, split_csv(line), problem);
}

std::vector<Measurement> read_results_csv(const std::string& path) {
  std::ifstream in = open_input_file(path, "results file");
  std::string line;
  std::size_t number = 0;
  std::vector<std::string> header;
  while (header.empty() && std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    header = split_csv(line);
    if (!is_results_header(header))
      throw InputError(path + ":" + std::to_string(number) +
                       ": not a collsim results CSV (its header lacks engine,op,procs,bytes,segment,root,time_s)");
  }
  if (header.empty()) throw InputError(path + ": not a collsim results CSV (the file is empty)");
  std::vector<Measurement> rows;
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::vector<std::string> cells = split_csv(line);
    std::string problem = results_row_problem(header, cells);
    auto m = problem.empty() ? row_from_cells(header, cells, problem) : std::nullopt;
    if (!m) throw InputError(path + ":" + std::to_string(number) + ": not a results row (" + problem + ")");
    rows.push_back(std::move(*m));
  }
  return rows;
}

}  // namespace collsim
