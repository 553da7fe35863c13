// CSV as collsim writes and reads it (RFC 4180): results, comparisons and benchmark rows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace collsim {

// One CSV field, quoted when it holds a comma, a quote or a newline.
std::string csv_quoted(const std::string& field);
// One line split into its fields, honouring quotes.
std::vector<std::string> split_csv(const std::string& line);
// "a,b,,c" -> {"a", "b", "", "c"}: the items between the separators, as written (no quoting),
// for option values ("5us,1us") and dotted keys ("model.intra.alpha").
std::vector<std::string> split_at(std::string_view text, char separator);

// One line of cells, comma-separated, built left to right: text quoted where needed, numbers at
// full precision (format_real), an absent value as an empty cell. str() has no line break.
class CsvLine {
 public:
  CsvLine& text(const std::string& cell);
  CsvLine& number(double value);
  CsvLine& number(std::int64_t value);
  CsvLine& number(std::uint64_t value);
  CsvLine& number(int value) { return number(static_cast<std::int64_t>(value)); }
  CsvLine& number(const std::optional<double>& value);
  const std::string& str() const { return line_; }

 private:
  CsvLine& cell(const std::string& text);
  std::string line_;
  bool first_ = true;
};

}  // namespace collsim
