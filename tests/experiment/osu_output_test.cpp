// The OSU output parser (experiment/analysis/osu_output.hpp) on fixtures written in OSU's printf
// formats (tests/data/osu/: 5.x and 7.x headers of each benchmark), and on bad files: each is one
// "FILE:LINE: problem".
#include <gtest/gtest.h>

#include <string>

#include "experiment/analysis/osu_output.hpp"
#include "support/input_error.hpp"

namespace collsim {
namespace {

std::string fixture(const std::string& name) { return std::string(COLLSIM_SOURCE_DIR) + "/tests/data/osu/" + name; }

TEST(OsuOutput, Latency5xHeaderSizesFromZero) {
  const OsuOutput o = read_osu_output(fixture("v5_osu_latency.txt"));
  EXPECT_EQ(o.benchmark, OsuBenchmark::latency);
  EXPECT_EQ(o.version, "5.6.3");
  ASSERT_EQ(o.columns, std::vector<std::string>{"Latency (us)"});
  ASSERT_EQ(o.rows.size(), 18u);
  EXPECT_EQ(o.rows[0].bytes, 0u);
  EXPECT_EQ(o.rows[0].line, 3);
  EXPECT_DOUBLE_EQ(o.main_value(o.rows[0]), 0.21e-6);
  EXPECT_EQ(o.rows.back().bytes, 65536u);
  EXPECT_DOUBLE_EQ(o.rows.back().values[0], 13.21);
}

TEST(OsuOutput, Latency7xHeaderWithDatatype) {
  const OsuOutput o = read_osu_output(fixture("v7_osu_latency.txt"));
  EXPECT_EQ(o.benchmark, OsuBenchmark::latency);
  EXPECT_EQ(o.version, "7.3");
  ASSERT_EQ(o.columns, std::vector<std::string>{"Avg Latency(us)"});
  ASSERT_EQ(o.rows.size(), 17u);
  EXPECT_EQ(o.rows[0].bytes, 1u);
  EXPECT_EQ(o.rows[0].line, 5);  // a blank line, the title, the datatype, the columns
  EXPECT_DOUBLE_EQ(o.rows[12].values[0], 1.22);
}

TEST(OsuOutput, BandwidthsInMegabytesPerSecond) {
  const OsuOutput bw = read_osu_output(fixture("v7_osu_bw.txt"));
  EXPECT_EQ(bw.benchmark, OsuBenchmark::bw);
  EXPECT_EQ(bw.version, "7.4");
  ASSERT_EQ(bw.rows.size(), 17u);
  EXPECT_DOUBLE_EQ(bw.main_value(bw.rows.back()), 11130.08e6);  // MB/s is 1e6 bytes/s
  const OsuOutput bibw = read_osu_output(fixture("v5_osu_bibw.txt"));
  EXPECT_EQ(bibw.benchmark, OsuBenchmark::bibw);
  ASSERT_EQ(bibw.rows.size(), 13u);
  EXPECT_DOUBLE_EQ(bibw.rows.back().values[0], 7930.28);
}

TEST(OsuOutput, MultipleBandwidthStatesItsPairs) {
  const OsuOutput o = read_osu_output(fixture("v7_osu_mbw_mr.txt"));
  EXPECT_EQ(o.benchmark, OsuBenchmark::mbw_mr);
  EXPECT_EQ(o.pairs, 4);
  ASSERT_EQ(o.columns, (std::vector<std::string>{"MB/s", "Messages/s"}));
  ASSERT_EQ(o.rows.size(), 6u);
  EXPECT_EQ(o.rows.back().bytes, 1048576u);
  EXPECT_DOUBLE_EQ(o.rows.back().values[1], 30043.20);
}

TEST(OsuOutput, BroadcastWithAndWithoutFullColumns) {
  const OsuOutput full = read_osu_output(fixture("v7_osu_bcast_full.txt"));
  EXPECT_EQ(full.benchmark, OsuBenchmark::bcast);
  ASSERT_EQ(full.columns,
            (std::vector<std::string>{"Avg Latency(us)", "Min Latency(us)", "Max Latency(us)", "Iterations"}));
  ASSERT_EQ(full.rows.size(), 6u);
  EXPECT_EQ(full.rows.back().values, (std::vector<double>{415.22, 190.40, 589.37, 10000}));
  const OsuOutput avg = read_osu_output(fixture("v5_osu_bcast.txt"));
  EXPECT_EQ(avg.version, "5.6.3");
  ASSERT_EQ(avg.rows.size(), 4u);
  EXPECT_DOUBLE_EQ(avg.rows.back().values[0], 93.80);
}

// The message of parsing `text` as file "f.txt" (empty when it parses).
std::string refusal(const std::string& text) {
  try {
    parse_osu_output("f.txt", text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

const std::string kLatency = "# OSU MPI Latency Test v7.3\n# Datatype: MPI_CHAR.\n# Size       Avg Latency(us)\n";

TEST(OsuOutput, BadFilesAreOneLineWithFileAndLine) {
  EXPECT_EQ(refusal(""), "f.txt:1: empty file: no OSU output");
  EXPECT_EQ(refusal("# OSU MPI Allreduce Latency Test v7.3\n# Size  Avg Latency(us)\n1  2.0\n"),
            "f.txt:1: unknown benchmark 'OSU MPI Allreduce Latency Test v7.3' (collsim reads osu_latency, osu_bw, "
            "osu_bibw, osu_mbw_mr and osu_bcast output)");
  EXPECT_EQ(refusal(kLatency + "1   0.20\n2   fast\n"), "f.txt:5: Avg Latency(us) 'fast' is not a number");
  EXPECT_EQ(refusal(kLatency + "1   0.20\nx   0.30\n"), "f.txt:5: size 'x' is not a whole number of bytes");
  EXPECT_EQ(refusal(kLatency + "4   0.20\n2   0.30\n"), "f.txt:5: size 2 after 4 (line 4): sizes must increase");
  EXPECT_EQ(refusal(kLatency + "4   0.20\n4   0.30\n"), "f.txt:5: size 4 after 4 (line 4): sizes must increase");
  EXPECT_EQ(refusal(kLatency + "1   0.20   0.10\n"),
            "f.txt:4: 3 columns where the header has 2 (Size, Avg Latency(us))");
  EXPECT_EQ(refusal(kLatency), "f.txt:3: no measurements: osu_latency printed no rows");
  EXPECT_EQ(refusal("1   0.20\n"), "f.txt:1: not OSU output: '1   0.20' before a '# OSU MPI ... Test' title line");
  EXPECT_EQ(refusal("# OSU MPI Latency Test v7.3\n1   0.20\n"),
            "f.txt:2: a row before the column header ('# Size ...'): '1   0.20'");
  EXPECT_EQ(refusal("# OSU MPI Bandwidth Test v7.3\n# Size      Avg Latency(us)\n"),
            "f.txt:2: columns 'Size, Avg Latency(us)' are not osu_bw's (Size, Bandwidth (MB/s))");
  EXPECT_EQ(refusal("# OSU MPI Latency Test\n# Size  Avg Latency(us)  Validation\n"),
            "f.txt:2: column 'Validation' is not one collsim reads (run without -c or -t)");
  EXPECT_EQ(refusal(kLatency + "1  0.2\n# OSU MPI Latency Test v7.3\n"),
            "f.txt:5: a second title '# OSU MPI Latency Test v7.3': one benchmark run per file");
  EXPECT_EQ(refusal(kLatency + "1  0.2\n# Datatype: MPI_INT.\n"),
            "f.txt:5: a second datatype: one run of one datatype per file (OSU's -T with one type)");
  EXPECT_EQ(refusal("# OSU MPI-CUDA Latency Test v7.3\n"),
            "f.txt:1: 'OSU MPI-CUDA Latency Test v7.3' measures device buffers; collsim calibrates host memory (run "
            "without -d)");
  EXPECT_EQ(refusal("# OSU MPI Multiple Bandwidth / Message Rate Test v7.3\n# Size  MB/s  Messages/s\n1 2 3\n"),
            "f.txt:3: osu_mbw_mr output without its '# [ pairs: P ] [ window size: W ]' line");
}

TEST(OsuOutput, CarriageReturnsAndOtherCommentsAreIgnored) {
  const OsuOutput o =
      parse_osu_output("f.txt", "\r\n# OSU MPI Latency Test v7.3\r\n# a note\r\n# Size  Latency (us)\r\n8  0.25\r\n");
  ASSERT_EQ(o.rows.size(), 1u);
  EXPECT_EQ(o.rows[0].bytes, 8u);
  EXPECT_EQ(o.rows[0].line, 5);
}

}  // namespace
}  // namespace collsim
