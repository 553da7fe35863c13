#include <gtest/gtest.h>

#include "cli/measure_options.hpp"

namespace collsim::cli {
namespace {

ParsedOptions parse(std::vector<std::string> words, bool with_procs = true) {
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  const auto defs = call_options(with_procs);
  return parse_options(argv, defs);
}

TEST(Options, ReadsACall) {
  const RunSpec s =
      read_call(parse({"--op", "bcast/binomial", "--procs=13", "--bytes", "4MiB", "--root", "3", "--segment", "8KiB"}));
  EXPECT_EQ(s.algorithm->name, "bcast/binomial");
  EXPECT_EQ(s.procs, 13);
  EXPECT_EQ(s.bytes, 4u << 20);
  EXPECT_EQ(s.params.root, 3);
  EXPECT_EQ(s.params.segment, 8192u);
}

void expect_usage_error(std::vector<std::string> words, const std::string& fragment) {
  try {
    read_call(parse(std::move(words)));
    FAIL() << "accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(Options, RejectsBadInputWithOneClearLine) {
  expect_usage_error({"--op", "bcast/nope", "--procs", "2", "--bytes", "1"}, "unknown algorithm 'bcast/nope'");
  expect_usage_error({"--op", "bcast/binomial", "--procs", "0", "--bytes", "1"}, "--procs: 0 is out of range");
  expect_usage_error({"--op", "bcast/binomial", "--procs", "4", "--bytes", "-5"}, "--bytes: '-5' is not a size");
  expect_usage_error({"--op", "bcast/binomial", "--procs", "4", "--bytes", "1", "--root", "4"},
                     "--root 4 is not a rank of 4 processes");
  expect_usage_error({"--op", "bcast/binomial", "--procs", "4"}, "missing --bytes");
  expect_usage_error({"--procs", "4", "--bytes", "1"}, "missing --op");
  EXPECT_THROW(parse({"--frobnicate"}), UsageError);
  EXPECT_THROW(parse({"--procs"}), UsageError);
  EXPECT_THROW(parse({"--csv=yes"}), UsageError);
  EXPECT_THROW(parse({"--procs", "2", "--procs", "3"}), UsageError);
}

}  // namespace
}  // namespace collsim::cli

namespace collsim::cli {
namespace {

TEST(Options, KnobsOnlyWhereTheAlgorithmHasThem) {
  expect_usage_error({"--op", "bcast/binomial", "--procs", "4", "--bytes", "8", "--fanout", "2"},
                     "--fanout does not apply to bcast/binomial (only to bcast/chain, reduce/chain)");
  expect_usage_error({"--op", "bcast/chain", "--procs", "4", "--bytes", "8", "--radix", "3"},
                     "--radix does not apply to bcast/chain (only to bcast/knomial)");
  expect_usage_error({"--op", "gather/basic_linear", "--procs", "4", "--bytes", "8", "--segment", "2"},
                     "--segment does not apply to gather/basic_linear (it takes no segment)");
  expect_usage_error({"--op", "bcast/chain", "--procs", "4", "--bytes", "8", "--fanout", "33"},
                     "--fanout must be between 1 and 32, not 33");
  expect_usage_error({"--op", "bcast/knomial", "--procs", "4", "--bytes", "8", "--radix", "1"},
                     "--radix must be at least 2, not 1");
  EXPECT_EQ(read_call(parse({"--op", "bcast/chain", "--procs", "4", "--bytes", "8", "--fanout", "3"})).params.fanout,
            3);
  EXPECT_EQ(read_call(parse({"--op", "bcast/binary", "--procs", "4", "--bytes", "8"})).algorithm->name,
            "bcast/binary_tree");
}

}  // namespace
}  // namespace collsim::cli
