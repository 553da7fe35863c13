// collsim coarray --scheme datatype: one put (get) of MPI derived datatypes a statement, on the
// model engine against hand calculations of its cost rule (models/coarray_cost.hpp: the origin's
// overhead o(m) for each of its k pieces of m = min(NL, NR) bytes, then the bytes as one
// transfer) and the closed form it prints; the data of strided sections (1-D strided, a 2-D
// column section, a negative stride, a rank-3 section, an empty one) checked on the model and sim
// engines, PUT and GET; and the options that mean nothing for it refused with one line, exit 2.
#include <gtest/gtest.h>

#include <string>

#include "common/cli_test_util.hpp"
#include "common/csv_row.hpp"
#include "common/datatype_sections.hpp"
#include "experiment/results/coarray_point.hpp"

namespace collsim_test {
namespace {

// The one row's cell of `column` (quoted cells hold commas: sections).
std::string cell(const std::string& out, const std::string& column) {
  return csv_row(out, collsim::coarray_csv_header())[column];
}

// a(1:1000:2,1:50)[2] = b(1:500,1:50) of real(8): NL = 200000 B, NR = 8 B, so k = 25000 pieces of
// m = 8 B, S = 200000 B.
const std::string kStrided = " --remote 1:1000:2,1:50 --remote-shape 1000,100 --local 1:500,1:50 --local-shape 500,50";
// alpha 1 us, beta 1 ns/B, o = 0.1 us for every operation whatever its size.
const std::string kModel =
    "coarray --engine model --alpha 1e-6 --beta 1e-9 --send-overhead 0:0.1us:0 --scheme datatype";

TEST(CollsimCoarrayDatatype, BlockingPutByHand) {
  // k*o = 25000 x 0.1 us = 2500 us; the bytes: alpha + beta*S = 1 + 200 us, so the put arrives at
  // 2701 us; its flush: o(0) + alpha = 1.1 us, 2702.1 us; the segment's sync memory: o(0), nothing
  // to flush: 2702.2 us. (Table 1 on the same section is case 1, 25000 blocking puts.)
  const Outcome o = collsim(kModel + " --csv" + kStrided);
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(cell(o.out, "case"), "datatype");
  EXPECT_EQ(cell(o.out, "nl_bytes"), "200000");
  EXPECT_EQ(cell(o.out, "nr_bytes"), "8");
  EXPECT_EQ(cell(o.out, "unit_bytes"), "200000");
  EXPECT_EQ(cell(o.out, "transfers"), "1");
  EXPECT_EQ(cell(o.out, "copies"), "0");
  EXPECT_NEAR(std::stod(cell(o.out, "time_s")), 2702.2e-6, 1e-11);
  EXPECT_EQ(cell(o.out, "data"), "ok");
  // The readable summary: the scheme, its pieces, and the closed form, equal.
  const Outcome text = collsim(kModel + kStrided);
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("scheme     datatype  (one put of MPI derived datatypes a statement: 25000 pieces"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("cost model 2.702 ms  (0.0027022 s"), std::string::npos) << text.out;
  // Without overheads: alpha + beta*S + alpha = 202 us, one contiguous put's time.
  const Outcome bare = collsim("coarray --engine model --alpha 1e-6 --beta 1e-9 --scheme datatype --csv" + kStrided);
  ASSERT_EQ(bare.status, 0) << bare.err;
  EXPECT_NEAR(std::stod(cell(bare.out, "time_s")), 202e-6, 1e-11);
}

TEST(CollsimCoarrayDatatype, NonBlockingAndGetByHand) {
  // Two non-blocking statements: the first's bytes leave at 2500 us and hold the port 200 us;
  // the second's overheads end at 5000 us, its put arrives at 5000 + 1 + 200 = 5201 us; the
  // end's flush_all: o(0), then the acknowledgement: 5202.1 us.
  const Outcome nb = collsim(kModel + " --nonblocking safe --statements 2 --csv" + kStrided);
  ASSERT_EQ(nb.status, 0) << nb.err;
  EXPECT_EQ(cell(nb.out, "transfers"), "2");
  EXPECT_NEAR(std::stod(cell(nb.out, "time_s")), 5202.1e-6, 1e-11);
  EXPECT_EQ(cell(nb.out, "data"), "ok");
  // GET of the same section: 2500 us of overheads, 2*alpha + beta*S = 202 us, the end's o(0):
  // 2702.1 us.
  const Outcome get = collsim(kModel + " --get --csv" + kStrided);
  ASSERT_EQ(get.status, 0) << get.err;
  EXPECT_EQ(cell(get.out, "op"), "coarray/get");
  EXPECT_NEAR(std::stod(cell(get.out, "time_s")), 2702.1e-6, 1e-11);
  EXPECT_EQ(cell(get.out, "data"), "ok");
  // With a get's own overhead of 0.2 us, each piece pays it: 5000 us, + 202 us, and the end's
  // flush_all still o(0) = 0.1 us: 5202.1 us, and the closed form the same.
  const std::string own = kModel + " --get --get-overhead 0:0.2us:0";
  const Outcome slow = collsim(own + " --csv" + kStrided);
  ASSERT_EQ(slow.status, 0) << slow.err;
  EXPECT_NEAR(std::stod(cell(slow.out, "time_s")), 5202.1e-6, 1e-11);
  EXPECT_NE(collsim(own + kStrided).out.find("cost model 5.202 ms  (0.0052021 s"), std::string::npos);
}

// The sections of common/datatype_sections.hpp, PUT and GET, each engine; the data column must be ok.
TEST(CollsimCoarrayDatatype, DataOnModelAndSim) {
  for (const char* engine : {"model", "sim"})
    for (const char* op : {"--put", "--get"})
      for (const DatatypeSection& c : kDatatypeSections) {
        const std::string args = std::string("coarray --engine ") + engine + " --scheme datatype --csv " + op + c.args;
        const Outcome o = collsim(args);
        ASSERT_EQ(o.status, 0) << args << "\n" << o.err;
        EXPECT_EQ(cell(o.out, "case"), "datatype") << args;
        EXPECT_EQ(cell(o.out, "transfers"), c.transfers) << args;
        EXPECT_EQ(cell(o.out, "data"), "ok") << args;
      }
}

TEST(CollsimCoarrayDatatype, OptionsThatMeanNothingAreRefused) {
  for (const char* option : {"--packing omni", "--buffer 64", "--registered", "--registered --heap 1GiB"})
    expect_bad_input(std::string("coarray --engine model --scheme datatype ") + option + kStrided,
                     "means nothing with --scheme datatype");
  expect_bad_input("coarray --engine model --scheme datatype --get --get-behaviour omni" + kStrided,
                   "--get-behaviour means nothing with --scheme datatype");
  expect_bad_input("coarray --engine model --scheme datatype --nonblocking nowait" + kStrided,
                   "--nonblocking nowait means nothing with --scheme datatype");
  expect_bad_input("coarray --engine model --scheme vector" + kStrided, "--scheme: 'vector' is not table1 or datatype");
  expect_bad_input("coarray --engine caf-native --scheme datatype" + kStrided,
                   "--scheme does not apply to caf-native: Debian's OpenCoarrays is built without -DSTRIDED");
}

}  // namespace
}  // namespace collsim_test
