// Parsing and printing of byte sizes ("8KiB", "4MiB", "1048576") and times, shared by the
// command line and scenario files so both accept exactly the same spellings.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace collsim {

// Bytes from "123", "8KiB", "4 MiB", "1GiB", "16kB" (kB/MB/GB are decimal); nullopt if the text
// is not a non-negative whole number of bytes.
std::optional<std::size_t> parse_bytes(std::string_view text);
// Whole number (may be negative); nullopt on anything else.
std::optional<long long> parse_integer(std::string_view text);
// Finite floating-point number; nullopt on anything else.
std::optional<double> parse_real(std::string_view text);

// 8192 -> "8KiB", 1000 -> "1000" (exact binary multiples only, so the text parses back).
std::string format_bytes(std::size_t bytes);
// A number for CSV and JSON: the shortest text that reads back as the same double.
std::string format_real(double value);
// 0.0001234 -> "123.4 us": a readable duration with 4 significant digits.
std::string format_seconds(double seconds);
// A JSON string literal of `text`, escaped.
std::string json_string(const std::string& text);

}  // namespace collsim
