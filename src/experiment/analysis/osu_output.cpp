#include "experiment/analysis/osu_output.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "experiment/scenario/named_files.hpp"
#include "support/input_error.hpp"
#include "support/units.hpp"

namespace collsim {

namespace {

struct Known {
  OsuBenchmark benchmark;
  std::string_view title;  // after "OSU MPI "
  // The column sets OSU prints for it, after "Size" (-f adds min, max and iterations).
  std::vector<std::vector<std::string_view>> layouts;
};

const std::vector<Known>& known() {
  static const std::vector<Known> table = {
      {OsuBenchmark::latency,
       "Latency Test",
       {{"Latency (us)"},
        {"Avg Latency(us)"},
        {"Avg Latency(us)", "Min Latency(us)", "Max Latency(us)", "Iterations"}}},
      {OsuBenchmark::bw, "Bandwidth Test", {{"Bandwidth (MB/s)"}}},
      {OsuBenchmark::bibw, "Bi-Directional Bandwidth Test", {{"Bandwidth (MB/s)"}}},
      {OsuBenchmark::mbw_mr, "Multiple Bandwidth / Message Rate Test", {{"MB/s", "Messages/s"}, {"MB/s"}}},
      {OsuBenchmark::bcast,
       "Broadcast Latency Test",
       {{"Avg Latency(us)"}, {"Avg Latency(us)", "Min Latency(us)", "Max Latency(us)", "Iterations"}}},
  };
  return table;
}

// Column names, longest first where one is the end of another ("Bandwidth (MB/s)", "MB/s").
constexpr std::string_view kColumnNames[] = {
    "Bandwidth (MB/s)", "Avg Latency(us)", "Min Latency(us)", "Max Latency(us)",
    "Latency (us)",     "Messages/s",      "Iterations",      "MB/s"};

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string joined(const std::vector<std::string_view>& names) {
  std::string s = "Size";
  for (auto n : names) s += ", " + std::string(n);
  return s;
}

std::vector<std::string_view> split_words(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    const std::size_t start = i;
    while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

class Reader {
 public:
  Reader(const std::string& file, OsuOutput& out) : file_(file), out_(out) {}

  [[noreturn]] void fail(int line, const std::string& problem) const {
    throw InputError(file_ + ":" + std::to_string(line) + ": " + problem);
  }

  void line(int number, std::string_view text) {
    text = trim(text);
    if (text.empty()) return;
    if (text.front() == '#') return header(number, trim(text.substr(1)));
    if (!titled_) fail(number, "not OSU output: '" + std::string(text) + "' before a '# OSU MPI ... Test' title line");
    if (layout_ == nullptr) fail(number, "a row before the column header ('# Size ...'): '" + std::string(text) + "'");
    row(number, text);
  }

  void finish(int lines) const {
    if (lines == 0) fail(1, "empty file: no OSU output");
    if (!titled_) fail(1, "not OSU output: no '# OSU MPI ... Test' title line");
    if (out_.rows.empty())
      fail(lines, std::string("no measurements: ") + to_string(out_.benchmark) + " printed no rows");
  }

 private:
  void header(int number, std::string_view text) {
    if (text.starts_with("OSU ")) return title(number, text);
    if (!titled_) return;  // before the title: not OSU's, and the title's absence is reported
    if (text.starts_with("Datatype:")) {
      if (datatype_) fail(number, "a second datatype: one run of one datatype per file (OSU's -T with one type)");
      datatype_ = true;
      return;
    }
    if (text.starts_with("[ pairs:")) {
      const auto words = split_words(text);  // [ pairs: P ] [ window size: W ]
      const auto p = words.size() > 2 ? parse_integer(words[2]) : std::nullopt;
      if (!p || *p < 1) fail(number, "'# " + std::string(text) + "' does not state the number of pairs");
      if (text.find("varied") != std::string_view::npos)
        fail(number, "osu_mbw_mr with varied window sizes (-v) prints a table collsim does not read");
      out_.pairs = static_cast<int>(*p);
      return;
    }
    if (text.starts_with("Size")) return columns(number, trim(text.substr(4)));
    // Other comment lines (5.x's buffer placement, 7.x's notes) say nothing collsim uses.
  }

  void title(int number, std::string_view text) {
    if (titled_) fail(number, "a second title '# " + std::string(text) + "': one benchmark run per file");
    const std::string whole(text);
    if (text.starts_with("OSU MPI-"))
      fail(number, "'" + whole + "' measures device buffers; collsim calibrates host memory (run without -d)");
    if (!text.starts_with("OSU MPI ")) fail(number, "unknown benchmark '" + whole + "'");
    std::string_view rest = text.substr(8);
    // A version at the end: " v7.3", " v5.6.3".
    const auto v = rest.rfind(" v");
    if (v != std::string_view::npos && v + 2 < rest.size() &&
        std::all_of(rest.begin() + static_cast<std::ptrdiff_t>(v) + 2, rest.end(),
                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; })) {
      out_.version = std::string(rest.substr(v + 2));
      rest = rest.substr(0, v);
    }
    for (const Known& k : known())
      if (rest == k.title) {
        out_.benchmark = k.benchmark;
        known_ = &k;
        titled_ = true;
        return;
      }
    fail(number, "unknown benchmark '" + whole +
                     "' (collsim reads osu_latency, osu_bw, osu_bibw, osu_mbw_mr and osu_bcast output)");
  }

  void columns(int number, std::string_view text) {
    if (!titled_) fail(number, "a column header before the '# OSU MPI ... Test' title line");
    if (layout_ != nullptr) fail(number, "a second column header: one run of one datatype per file");
    std::vector<std::string_view> names;
    while (!(text = trim(text)).empty()) {
      const auto* name = std::find_if(std::begin(kColumnNames), std::end(kColumnNames),
                                      [&](std::string_view n) { return text.starts_with(n); });
      if (name == std::end(kColumnNames))
        fail(number, "column '" + std::string(text) + "' is not one collsim reads (run without -c or -t)");
      names.push_back(*name);
      text.remove_prefix(name->size());
    }
    for (const auto& layout : known_->layouts)
      if (layout == names) {
        layout_ = &layout;
        for (auto n : names) out_.columns.emplace_back(n);
        return;
      }
    std::string expected;
    for (const auto& layout : known_->layouts) expected += (expected.empty() ? "" : " or ") + joined(layout);
    fail(number, "columns '" + joined(names) + "' are not " + to_string(out_.benchmark) + "'s (" + expected + ")");
  }

  void row(int number, std::string_view text) {
    const auto words = split_words(text);
    if (words.size() != layout_->size() + 1)
      fail(number, std::to_string(words.size()) + " columns where the header has " +
                       std::to_string(layout_->size() + 1) + " (" + joined(*layout_) + ")");
    OsuRow r;
    r.line = number;
    const auto size = parse_integer(words[0]);
    if (!size || *size < 0) fail(number, "size '" + std::string(words[0]) + "' is not a whole number of bytes");
    r.bytes = static_cast<std::size_t>(*size);
    for (std::size_t i = 1; i < words.size(); ++i) {
      const auto v = parse_real(words[i]);
      if (!v || !std::isfinite(*v) || *v < 0)
        fail(number, std::string((*layout_)[i - 1]) + " '" + std::string(words[i]) + "' is not a number");
      r.values.push_back(*v);
    }
    if (!out_.rows.empty() && r.bytes <= out_.rows.back().bytes)
      fail(number, "size " + std::to_string(r.bytes) + " after " + std::to_string(out_.rows.back().bytes) + " (line " +
                       std::to_string(out_.rows.back().line) + "): sizes must increase");
    out_.rows.push_back(std::move(r));
  }

  const std::string& file_;
  OsuOutput& out_;
  const Known* known_ = nullptr;
  const std::vector<std::string_view>* layout_ = nullptr;
  bool titled_ = false, datatype_ = false;
};

}  // namespace

const char* to_string(OsuBenchmark b) {
  switch (b) {
    case OsuBenchmark::latency: return "osu_latency";
    case OsuBenchmark::bw: return "osu_bw";
    case OsuBenchmark::bibw: return "osu_bibw";
    case OsuBenchmark::mbw_mr: return "osu_mbw_mr";
    case OsuBenchmark::bcast: return "osu_bcast";
  }
  return "?";
}

double OsuOutput::main_value(const OsuRow& row) const {
  const bool latency = benchmark == OsuBenchmark::latency || benchmark == OsuBenchmark::bcast;
  return latency ? row.values.at(0) * 1e-6 : row.values.at(0) * 1e6;
}

OsuOutput parse_osu_output(const std::string& file, std::string_view text) {
  OsuOutput out;
  out.file = file;
  Reader reader(file, out);
  int number = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    reader.line(++number, text.substr(start, end - start));
    start = end + 1;
  }
  reader.finish(number);
  if (out.benchmark == OsuBenchmark::mbw_mr && out.pairs == 0)
    throw InputError(file + ":" + std::to_string(out.rows.front().line) +
                     ": osu_mbw_mr output without its '# [ pairs: P ] [ window size: W ]' line");
  return out;
}

OsuOutput read_osu_output(const std::string& path) {
  return parse_osu_output(path, read_input_file(path, "OSU output"));
}

}  // namespace collsim
