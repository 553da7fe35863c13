// collsim-caf and collsim-caf-counted as a user runs them, 2 images under mpirun: the data of
// real coarray assignments checked for several shapes (1-D strided, 2-D columns, negative stride,
// scalar subscripts, 3 to 7 dimensions), PUT and GET, 1 and 3 statements per segment, every
// element size, all given with collsim coarray's options; the CSV row in collsim coarray's
// columns; the MPI calls OpenCoarrays issues (one lock/put/unlock per element unless both sides
// are contiguous); and one-line input errors with exit status 2, Omni's runtime options included.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "common/csv_row.hpp"
#include "common/mpirun.hpp"
#include "experiment/results/coarray_point.hpp"

namespace {

using collsim_test::lines;
using collsim_test::Outcome;

// Few runs: these tests are about data and counts, not precise times.
const char* const kQuick = " --warmup 1 --min-runs 2 --max-runs 3";

Outcome caf(const std::string& args, const char* bin = COLLSIM_CAF_BIN, int images = 2) {
  return collsim_test::mpirun(images, std::string(bin) + " " + args);
}

// Column -> value of the one row after the header; the row must also parse back as a point.
std::map<std::string, std::string> csv_row(const std::string& out) {
  EXPECT_EQ(collsim::parse_coarray_csv(out).size(), 1u) << "the row does not parse back:\n" << out;
  return collsim_test::csv_row(out, collsim::coarray_csv_header());
}

// Runs one assignment as PUT and as GET, with 1 and 3 statements per segment, and expects the
// data right every time.
void expect_right(const std::string& sections, const std::string& extra = "") {
  for (const char* op : {" --put", " --get"})
    for (const char* copies : {" --statements 1", " --statements 3"}) {
      const Outcome o = caf(sections + op + copies + extra + kQuick);
      EXPECT_EQ(o.status, 0) << sections << op << copies << "\n" << o.out << o.err;
      EXPECT_NE(o.out.find("data ok"), std::string::npos) << sections << op << copies << "\n" << o.out;
    }
}

TEST(CafCli, OneDimensionStrided) {
  expect_right("--local 1:100:3 --local-shape 100 --remote 2:68:2 --remote-shape 70");
}

TEST(CafCli, TwoDimensionColumns) {
  expect_right("--local 1:100,1:5 --local-shape 100,10 --remote 1:100,6:10 --remote-shape 100,10");
  expect_right("--local 1:100,2:10:2 --local-shape 100,10 --remote 1:100,1:5 --remote-shape 100,12");
}

TEST(CafCli, NegativeStride) {
  expect_right("--local 10:1:-1 --local-shape 10 --remote 1:10 --remote-shape 10");
  expect_right("--local 1:7,9:1:-2 --local-shape 7,9 --remote 7:1:-1,1:5 --remote-shape 8,5");
}

TEST(CafCli, ScalarSubscripts) {
  // A row against a vector; a scalar in the first and last dimensions against a column.
  expect_right("--local 5,1:50 --local-shape 100,50 --remote 1:50 --remote-shape 50");
  expect_right("--local 3,2:20:2,7 --local-shape 4,20,8 --remote 1:10,2 --remote-shape 10,3");
  // Every subscript scalar: one element.
  expect_right("--local 2,3 --local-shape 4,5 --remote 7 --remote-shape 9");
}

TEST(CafCli, ThreeToSevenDimensions) {
  expect_right("--local 1:4,2:6:2,1:3 --local-shape 4,6,3 --remote 2:5,1:3,1:5:2 --remote-shape 6,3,5");
  expect_right(
      "--local 1:2,1:2,2,1:3:2,1:2,2:1:-1,1:2 --local-shape 2,2,2,3,2,2,2 "
      "--remote 1:2,1:2,1:2,2:1:-1,1:2,1:2 --remote-shape 3,2,2,2,2,2");
}

TEST(CafCli, EveryElementSize) {
  for (const char* bytes : {"1", "2", "4", "8", "16"}) {
    const Outcome o = caf(std::string("--local 1:300:3,2 --local-shape 300,2 --remote 2:101 --remote-shape 101 "
                                      "--elem ") +
                          bytes + kQuick);
    EXPECT_EQ(o.status, 0) << bytes << "\n" << o.err;
    EXPECT_NE(o.out.find("data ok"), std::string::npos) << bytes << "\n" << o.out;
  }
}

// collsim coarray's row: the Table 1 columns are what Omni's runtime would do for the statement
// (here case 2: NL = 8 B < NR = 4000 B <= B), the time and data are OpenCoarrays'.
TEST(CafCli, CsvRow) {
  const Outcome o = caf("--local 1:100:2,1:10 --local-shape 100,10 --remote 1:50,1:10 --remote-shape 50,10 --csv" +
                        std::string(kQuick));
  ASSERT_EQ(o.status, 0) << o.err;
  auto row = csv_row(o.out);
  EXPECT_EQ(row["engine"], "caf-native");
  EXPECT_EQ(row["op"], "coarray/put");
  EXPECT_EQ(row["case"], "2");
  EXPECT_EQ(row["nl_bytes"], "8");
  EXPECT_EQ(row["nr_bytes"], "4000");
  EXPECT_EQ(row["buffer"], "400000");
  EXPECT_EQ(row["local"], "1:100:2,1:10");
  EXPECT_EQ(row["remote_shape"], "50,10");
  EXPECT_EQ(row["elem_bytes"], "8");
  EXPECT_EQ(row["statements"], "1");
  EXPECT_GT(std::stod(row["time_s"]), 0.0);
  EXPECT_LT(std::stod(row["time_s"]), 1.0);
  const int runs = std::stoi(row["runs"]);
  EXPECT_GE(runs, 2);
  EXPECT_LE(runs, 3);
  EXPECT_LE(std::stod(row["min_s"]), std::stod(row["time_s"]) * (1 + 1e-6));
  EXPECT_EQ(row["data"], "ok");
  // The whole statement's bytes.
  EXPECT_NE(o.out.find(",table1,memory,one,2,4000,"), std::string::npos) << o.out;
}

// collsim coarray --engine caf-native and --engine mpi launch collsim-caf and collsim-mpi
// coarray as a coarray scenario does and print their row: the same statement (a(1:2000:2) of the
// target from a contiguous local(1:1000) on image 3 of 3: Table 1 case 1, NR = 8 B, so Omni's
// runtime puts each element, 1000 puts), the data right on both.
TEST(CafCli, CollsimCoarrayLaunchesTheMeasuredEngines) {
  const std::string point =
      " --local 1:1000 --local-shape 1000 --remote 1:2000:2 --remote-shape 2000 --images 3 --target 3 --csv"
      " --min-runs 2 --max-runs 3";
  for (const char* engine : {"caf-native", "mpi"}) {
    const Outcome o = collsim_test::run_command(std::string(COLLSIM_BIN) + " coarray --engine " + engine + point);
    ASSERT_EQ(o.status, 0) << engine << "\n" << o.err;
    auto row = csv_row(o.out);
    EXPECT_EQ(row["engine"], engine);
    EXPECT_EQ(row["case"], "1");
    EXPECT_EQ(row["nr_bytes"], "8");
    EXPECT_EQ(row["transfers"], "1000");
    EXPECT_EQ(row["bytes"], "8000");
    EXPECT_EQ(row["data"], "ok");
    const int runs = std::stoi(row["runs"]);
    EXPECT_GE(runs, 2);
    EXPECT_LE(runs, 3);
    EXPECT_GT(std::stod(row["min_s"]), 0.0);
    EXPECT_GE(std::stod(row["time_s"]), std::stod(row["min_s"]));
  }
}

// mpi.statistic min (--statistic min) makes the row's time its fastest run, for coarrays as for
// collectives.
TEST(CafCli, CollsimCoarrayStatisticMinIsTheFastestRun) {
  const Outcome o = collsim_test::run_command(std::string(COLLSIM_BIN) +
                                              " coarray --engine mpi --local 1:100 --local-shape 100 --remote 1:100"
                                              " --remote-shape 100 --csv --min-runs 5 --max-runs 5 --statistic min");
  ASSERT_EQ(o.status, 0) << o.err;
  auto row = csv_row(o.out);
  EXPECT_EQ(row["runs"], "5");
  EXPECT_EQ(row["time_s"], row["min_s"]);
}

// OpenCoarrays' rule, counted on the origin: both sides contiguous is one MPI_Put per statement,
// anything else one MPI_Put per element, each in its own lock/unlock epoch. The counts are in the
// summary (the CSV row has collsim coarray's columns only).
TEST(CafCli, CountsOnePutPerElementUnlessContiguous) {
  struct Case {
    std::string args;
    std::string counted;  // "N MPI_Put (BYTES B)" or "N MPI_Get (BYTES B)"
  };
  const std::vector<Case> cases = {
      // 2-element stride: 500 elements of 8 B, 500 puts.
      {"--local 1:100:2,1:10 --local-shape 100,10 --remote 1:100:2,1:10 --remote-shape 100,10", "500 MPI_Put (4000 B)"},
      // The same 4000 B contiguous on both sides: one put.
      {"--local 1:100,1:5 --local-shape 100,10 --remote 1:100,6:10 --remote-shape 100,10", "1 MPI_Put (4000 B)"},
      // Contiguous runs of 400 B on both sides are not merged: still one put per element.
      {"--local 1:50,1:10 --local-shape 100,10 --remote 1:50,1:10 --remote-shape 100,10", "500 MPI_Put (4000 B)"},
      // A contiguous column through a scalar subscript: one put, as in Fortran of that rank.
      {"--local 1:100,3 --local-shape 100,10 --remote 1:100 --remote-shape 100", "1 MPI_Put (800 B)"},
      // Three statements: three times the transfers.
      {"--local 1:100,1:5 --local-shape 100,10 --remote 1:100,6:10 --remote-shape 100,10 --statements 3",
       "3 MPI_Put (12000 B)"},
      {"--local 1:100:2,1:10 --local-shape 100,10 --remote 1:100:2,1:10 --remote-shape 100,10 --get",
       "500 MPI_Get (4000 B)"},
  };
  for (const Case& c : cases) {
    const Outcome o = caf(c.args + kQuick, COLLSIM_CAF_COUNTED_BIN);
    ASSERT_EQ(o.status, 0) << c.args << "\n" << o.err;
    EXPECT_NE(o.out.find("per segment: "), std::string::npos) << c.args << "\n" << o.out;
    EXPECT_NE(o.out.find(c.counted), std::string::npos) << c.args << "\n" << o.out;
    EXPECT_NE(o.out.find("data ok"), std::string::npos) << c.args << "\n" << o.out;
  }
  // Every put in its own exclusive-lock epoch.
  const Outcome o = caf(cases[0].args + kQuick, COLLSIM_CAF_COUNTED_BIN);
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.out.find("500 MPI_Put (4000 B), 0 MPI_Get (0 B), 500 MPI_Win_lock, 500 MPI_Win_unlock"),
            std::string::npos)
      << o.out;
}

// The segment ends with sync all on every image or with sync images between origin (image 3) and
// target (image 1), on 3 images: the data right for PUT and GET, the row names the end, and the
// origin's MPI calls per segment show OpenCoarrays' MPI_Barrier for sync all alone.
TEST(CafCli, SegmentEndsWithSyncAllOrSyncImages) {
  for (const char* sync : {"all", "images"})
    for (const char* op : {"--put", "--get"}) {
      const Outcome o = caf(std::string("--local 1:10:2 --local-shape 10 --remote 1:5 --remote-shape 5 --origin 3 "
                                        "--target 1 --csv --sync ") +
                                sync + " " + op + kQuick,
                            COLLSIM_CAF_BIN, 3);
      ASSERT_EQ(o.status, 0) << sync << op << "\n" << o.err;
      auto row = csv_row(o.out);
      EXPECT_EQ(row["sync"], sync);
      EXPECT_EQ(row["data"], "ok");
    }
  for (const char* sync : {"all", "images"}) {
    const Outcome o = caf(
        std::string("--local 1:1000 --local-shape 1000 --remote 1:1000 --remote-shape 1000 --sync ") + sync + kQuick,
        COLLSIM_CAF_COUNTED_BIN, 3);
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_NE(o.out.find(std::string("1 MPI_Put (8000 B)")), std::string::npos) << o.out;
    EXPECT_NE(o.out.find(std::string(sync) == "all" ? "1 MPI_Barrier" : "0 MPI_Barrier"), std::string::npos) << o.out;
  }
}

// Every pattern on 3 images (ring and all-to-one on 2 too): each image runs the statements to its
// target(s) into a copy of its own, contiguous and strided, PUT and GET, ended by each sync; every
// image checks its side. halo on 2 images and --origin with a pattern are refused in one line.
TEST(CafCli, PatternsOnEveryImage) {
  struct Case {
    const char* pattern;
    int images;
    const char* sync;
  };
  for (const Case c : {Case{"all-to-one", 3, "memory"}, Case{"ring", 3, "images"}, Case{"halo", 3, "all"},
                       Case{"halo", 3, "images"}, Case{"ring", 2, "memory"}, Case{"all-to-one", 2, "images"}})
    for (const char* op : {"--put", "--get"})
      for (const char* sections : {"--local 1:10:2 --local-shape 10 --remote 1:5 --remote-shape 5",
                                   "--local 1:5 --local-shape 5 --remote 1:10:2 --remote-shape 10"}) {
        const std::string args = std::string(sections) + " --statements 2 --csv --pattern " + c.pattern + " --sync " +
                                 c.sync + " " + op + kQuick;
        const Outcome o = caf(args, COLLSIM_CAF_BIN, c.images);
        ASSERT_EQ(o.status, 0) << args << "\n" << o.err;
        auto row = csv_row(o.out);
        EXPECT_EQ(row["pattern"], c.pattern) << args;
        EXPECT_EQ(row["images"], std::to_string(c.images)) << args;
        EXPECT_EQ(row["data"], "ok") << args;
      }
  for (const char* bad : {"--pattern halo", "--pattern ring --origin 2"}) {
    const Outcome o = caf(std::string("--local 1:10 --local-shape 10 --remote 1:10 --remote-shape 10 ") + bad);
    EXPECT_EQ(o.status, 2) << bad << "\n" << o.err;
    EXPECT_EQ(lines(o.err).size(), 1u) << o.err;
  }
}

TEST(CafCli, MoreImagesStayIdle) {
  const Outcome o =
      caf("--local 1:10:2 --local-shape 10 --remote 1:5 --remote-shape 5 --origin 3 --target 1" + std::string(kQuick),
          COLLSIM_CAF_BIN, 3);
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.out.find("data ok"), std::string::npos) << o.out;
}

TEST(CafCli, BadElementSizeIsOneLine) {
  const Outcome o = caf("--local 1:10 --local-shape 10 --remote 1:10 --remote-shape 10 --elem 3");
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(lines(o.err).size(), 1u) << o.err;
  EXPECT_NE(o.err.find("element size 3"), std::string::npos) << o.err;
}

TEST(CafCli, InputErrorsAreOneLine) {
  for (const char* args : {
           "--local 1:10 --local-shape 10 --remote 1:9 --remote-shape 10",              // shapes differ
           "--local 1:11 --local-shape 10 --remote 1:11 --remote-shape 12",             // outside the bounds
           "--local 1:10:0 --local-shape 10 --remote 1:10 --remote-shape 10",           // stride 0
           "--local 1:x --local-shape 10 --remote 1:10 --remote-shape 10",              // not an integer
           "--local 1:10,1 --local-shape 10 --remote 1:10 --remote-shape 10",           // rank
           "--local 1:10 --local-shape 10 --remote 1:10 --remote-shape 10 --target 5",  // no image 5
           "--local 1:10 --local-shape 10 --remote-shape 10",                           // no --remote
           "--local 1:10 --local-shape 10 --remote 1:10 --remote-shape 10 --copies 2",  // the old option
       }) {
    const Outcome o = caf(args);
    EXPECT_EQ(o.status, 2) << args;
    EXPECT_EQ(lines(o.err).size(), 1u) << args << "\n" << o.err;
  }
}

// Omni's runtime options have no meaning for OpenCoarrays: refused with a line saying so.
TEST(CafCli, OmniRuntimeOptionsDoNotApply) {
  const std::string point = "--local 1:10 --local-shape 10 --remote 1:10 --remote-shape 10";
  for (const char* extra : {" --buffer 64", " --registered", " --nonblocking 2", " --nonblocking nowait",
                            " --get --get-behaviour omni", " --packing omni"}) {
    const Outcome o = caf(point + extra);
    EXPECT_EQ(o.status, 2) << extra;
    EXPECT_EQ(o.out, "") << extra;
    const auto ls = lines(o.err);
    ASSERT_EQ(ls.size(), 1u) << extra << "\n" << o.err;
    EXPECT_NE(ls[0].find("does not apply to caf-native"), std::string::npos) << ls[0];
  }
}

// Sections written as collsim coarray takes them: omitted bounds and ':' (a lone ':' as --local=:,
// since mpirun takes a lone ':' argument for its MPMD separator).
TEST(CafCli, FortranSectionSyntax) {
  expect_right("--local ::2,: --local-shape 20,3 --remote 3:,2:4 --remote-shape 12,4");
  expect_right("--local=: --local-shape 16 --remote :16 --remote-shape 20 --elem 4");
}

TEST(CafCli, OneImageIsOneLine) {
  const Outcome o = collsim_test::run_command(std::string(COLLSIM_CAF_BIN) +
                                              " --local 1:10 --local-shape 10 --remote 1:10 --remote-shape 10");
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(lines(o.err).size(), 1u) << o.err;
  EXPECT_NE(o.err.find("at least 2 images"), std::string::npos) << o.err;
}

TEST(CafCli, Help) {
  const Outcome o = collsim_test::run_command(std::string(COLLSIM_CAF_BIN) + " --help");
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.out.find("caf-native"), std::string::npos);
  for (const char* text : {"--local", "--remote-shape", "--elem", "--statements", "--put", "--get", "--min-runs",
                           "--csv", "do not apply to caf-native", "Table 1", "lower:upper:stride"})
    EXPECT_NE(o.out.find(text), std::string::npos) << text << " missing from\n" << o.out;
  // Refused options are not offered.
  EXPECT_EQ(o.out.find("--nonblocking N"), std::string::npos) << o.out;
}

}  // namespace
