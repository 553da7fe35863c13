#include <gtest/gtest.h>

#include "support/units.hpp"

namespace collsim {
namespace {

TEST(Units, ParsesByteSizes) {
  EXPECT_EQ(parse_bytes("0"), 0u);
  EXPECT_EQ(parse_bytes("1048576"), 1048576u);
  EXPECT_EQ(parse_bytes("8KiB"), 8192u);
  EXPECT_EQ(parse_bytes("4 MiB"), 4u << 20);
  EXPECT_EQ(parse_bytes("1GiB"), 1u << 30);
  EXPECT_EQ(parse_bytes("16kB"), 16000u);
  EXPECT_EQ(parse_bytes("2MB"), 2000000u);
  EXPECT_EQ(parse_bytes("12B"), 12u);
}

TEST(Units, RejectsWhatIsNotASize) {
  for (const char* bad : {"", "-5", "KiB", "1.5MiB", "12 parsecs", "0x10", "99999999999999999999"})
    EXPECT_FALSE(parse_bytes(bad).has_value()) << bad;
}

TEST(Units, FormatsBytesSoTheyParseBack) {
  for (std::size_t b : {std::size_t{0}, std::size_t{1000}, std::size_t{8192}, std::size_t{3} << 20,
                        std::size_t{1} << 30, std::size_t{1025}})
    EXPECT_EQ(parse_bytes(format_bytes(b)), b);
  EXPECT_EQ(format_bytes(8192), "8KiB");
  EXPECT_EQ(format_bytes(1000), "1000");
}

TEST(Units, ParsesLargeByteSizes) {
  EXPECT_EQ(parse_bytes("2TiB"), std::size_t{2} << 40);
  EXPECT_EQ(parse_bytes("1PiB"), std::size_t{1} << 50);
  EXPECT_EQ(parse_bytes("3TB"), std::size_t{3000000000000});
  EXPECT_EQ(parse_bytes("1PB"), std::size_t{1000000000000000});
  EXPECT_EQ(format_bytes(std::size_t{5} << 40), "5TiB");
  EXPECT_FALSE(parse_bytes("20000PiB").has_value());  // beyond 2^64
}

TEST(Units, ParsesTimes) {
  // Each unit spelled is the same double as its plain decimal.
  EXPECT_EQ(parse_seconds("10us"), 1e-5);
  EXPECT_EQ(parse_seconds("5 us"), 5e-6);
  EXPECT_EQ(parse_seconds("1.5ms"), 1.5e-3);
  EXPECT_EQ(parse_seconds("3ns"), 3e-9);
  EXPECT_EQ(parse_seconds("2s"), 2.0);
  EXPECT_EQ(parse_seconds("2e-6"), 2e-6);
  EXPECT_EQ(parse_seconds("-5us"), -5e-6);  // the caller refuses the sign, naming its option
  for (const char* bad : {"", "us", "10 parsecs", "10uss", "nan", "inf s", "10 B"})
    EXPECT_FALSE(parse_seconds(bad).has_value()) << bad;
}

TEST(Units, ParsesRatesInBytesAndBits) {
  EXPECT_EQ(parse_rate("1.25GBps"), 1.25e9);
  EXPECT_EQ(parse_rate("10Gbps"), 1.25e9);
  EXPECT_EQ(parse_rate("10GbE"), 1.25e9);
  EXPECT_EQ(parse_rate("3GiBps"), 3.0 * 1073741824);
  EXPECT_EQ(parse_rate("100Mbps"), 12.5e6);
  EXPECT_EQ(parse_rate("5e9"), 5e9);
  for (const char* bad : {"", "0", "0GBps", "-1GBps", "GBps", "5 furlongs", "5GB"})
    EXPECT_FALSE(parse_rate(bad).has_value()) << bad;
}

TEST(Units, ParsesTimesPerByteOrTheirRates) {
  EXPECT_EQ(parse_seconds_per_byte("8e-10"), 8e-10);
  EXPECT_DOUBLE_EQ(*parse_seconds_per_byte("0.8ns"), 0.8e-9);
  EXPECT_DOUBLE_EQ(*parse_seconds_per_byte("0.8ns/B"), 0.8e-9);
  EXPECT_EQ(parse_seconds_per_byte("1.25GBps"), 1 / 1.25e9);
  EXPECT_EQ(parse_seconds_per_byte("10Gbps"), 1 / 1.25e9);
  for (const char* bad : {"", "/B", "0.8 furlongs", "0GBps"})
    EXPECT_FALSE(parse_seconds_per_byte(bad).has_value()) << bad;
}

TEST(Units, ParsesFractionsAndPercentages) {
  EXPECT_EQ(parse_fraction("0.025"), 0.025);
  EXPECT_EQ(parse_fraction("2.5%"), 0.025);
  EXPECT_EQ(parse_fraction("50 %"), 0.5);
  for (const char* bad : {"", "%", "2.5 percent", "x"}) EXPECT_FALSE(parse_fraction(bad).has_value()) << bad;
}

TEST(Units, ParsesNumbers) {
  EXPECT_EQ(parse_integer("-3"), -3);
  EXPECT_FALSE(parse_integer("3.5"));
  EXPECT_DOUBLE_EQ(*parse_real("1e-6"), 1e-6);
  EXPECT_FALSE(parse_real("nan"));
  EXPECT_FALSE(parse_real("1e-6s"));
}

TEST(Units, FormatsSeconds) {
  EXPECT_EQ(format_seconds(0.0001234), "123.4 us");
  EXPECT_EQ(format_seconds(0.5), "500 ms");
  EXPECT_EQ(format_seconds(2), "2 s");
}

}  // namespace
}  // namespace collsim
