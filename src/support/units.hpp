// Parsing and printing of byte sizes ("8KiB", "4MiB", "1048576"), times ("10us"), rates
// ("1.25GBps", "10Gbps") and costs per byte ("0.8ns", or a rate: its inverse), shared by the
// command line, scenario files and platform generation, so all accept exactly the same spellings.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace collsim {

// Bytes from "123", "8KiB", "4 MiB", "1GiB", "2TiB", "16kB" (kB/MB/GB/TB/PB are decimal); nullopt
// if the text is not a non-negative whole number of bytes.
std::optional<std::size_t> parse_bytes(std::string_view text);
// Seconds from "2e-6", "10us", "1.5 ms", "3ns", "1s" (a bare number is seconds); nullopt on
// anything else. The sign is the caller's to check.
std::optional<double> parse_seconds(std::string_view text);
// Bytes per second from "1.25GBps", "10Gbps", "25GbE", "3GiBps", "1e9" (a bare number is bytes/s;
// a lower-case b is bits); nullopt on anything else, zero and negative rates included.
std::optional<double> parse_rate(std::string_view text);
// Seconds per byte (Hockney's beta, a reduction's gamma) from "8e-10", "0.8ns", "0.8ns/B", or a
// rate, whose inverse it is: "1.25GBps" is 8e-10; nullopt on anything else. The sign is the
// caller's to check (a rate is never zero or negative).
std::optional<double> parse_seconds_per_byte(std::string_view text);
// A fraction from "0.025" or "2.5%"; nullopt on anything else. The sign is the caller's to check.
std::optional<double> parse_fraction(std::string_view text);
// What each of the three reads, for error messages: "a time (e.g. 10us, 1.5ms, 2e-6; ...)".
extern const char* const kSecondsHint;
extern const char* const kRateHint;
extern const char* const kSecondsPerByteHint;
// Whole number (may be negative); nullopt on anything else.
std::optional<long long> parse_integer(std::string_view text);
// Finite floating-point number; nullopt on anything else.
std::optional<double> parse_real(std::string_view text);

// The quantities of options and scenario keys, each read by one function with one wording of its
// problems, so that the command line and the files refuse the same text with the same words.
enum class Quantity {
  seconds,           // at least 0
  seconds_per_byte,  // at least 0
  rate,              // above 0
  rate_or_zero,      // above 0, or 0 where it means "none" (a free copy)
};
struct QuantityRead {
  double value = 0;
  std::string problem;  // empty when `value` holds: "'x' is not a time (e.g. ...)", "-1us must be at least 0"
};
QuantityRead read_quantity(Quantity kind, const std::string& text);
// A whole number in [min, max], or the problem ("'x' is not a whole number", "9 is out of range [1, 8]").
struct IntegerRead {
  long long value = 0;
  std::string problem;
};
IntegerRead read_integer(const std::string& text, long long min, long long max);
// A size in bytes, or the problem ("'x' is not a size in bytes (e.g. ...)").
struct SizeRead {
  std::size_t value = 0;
  std::string problem;
};
SizeRead read_size(const std::string& text);

// 8192 -> "8KiB", 1000 -> "1000" (exact binary multiples only, so the text parses back).
std::string format_bytes(std::size_t bytes);
// A number for CSV and JSON: the shortest text that reads back as the same double.
std::string format_real(double value);
// `value` with `decimals` decimals ("%.*f"), for tables.
std::string fixed(double value, int decimals);
// 0.0001234 -> "123.4 us": a readable duration with 4 significant digits.
std::string format_seconds(double seconds);
// A JSON string literal of `text`, escaped.
std::string json_string(const std::string& text);
// `text` for an XML attribute value or text: & < > " as entities.
std::string xml_escaped(const std::string& text);

}  // namespace collsim
