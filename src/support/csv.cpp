#include "support/csv.hpp"

#include "support/units.hpp"

namespace collsim {

std::string csv_quoted(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::vector<std::string> split_at(std::string_view text, char separator) {
  std::vector<std::string> items(1);
  for (char c : text) {
    if (c == separator)
      items.emplace_back();
    else
      items.back().push_back(c);
  }
  return items;
}

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted_field = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted_field) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cells.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted_field = false;
      } else {
        cells.back() += c;
      }
    } else if (c == '"') {
      quoted_field = true;
    } else if (c == ',') {
      cells.emplace_back();
    } else if (c != '\r') {
      cells.back() += c;
    }
  }
  return cells;
}

CsvLine& CsvLine::cell(const std::string& text) {
  if (!first_) line_ += ',';
  first_ = false;
  line_ += text;
  return *this;
}

CsvLine& CsvLine::text(const std::string& cell_text) { return cell(csv_quoted(cell_text)); }
CsvLine& CsvLine::number(double value) { return cell(format_real(value)); }
CsvLine& CsvLine::number(std::int64_t value) { return cell(std::to_string(value)); }
CsvLine& CsvLine::number(std::uint64_t value) { return cell(std::to_string(value)); }
CsvLine& CsvLine::number(const std::optional<double>& value) { return cell(value ? format_real(*value) : ""); }

}  // namespace collsim
