#include <gtest/gtest.h>

#include "experiment/units.hpp"

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
