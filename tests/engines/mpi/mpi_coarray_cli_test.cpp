// collsim-mpi coarray as a user runs it: one point per Table 1 case (0 to 4, non-blocking PUT and
// Omni's GET included) on 2 processes and one on 3, each checked byte for byte by the program
// ("data ok") and its CSV columns checked against the case the runtime must pick; the readable
// summary, help, and one-line input errors with exit status 2.
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

Outcome mpirun(int procs, const std::string& args) {
  return collsim_test::mpirun(procs, std::string(COLLSIM_MPI_BIN) + " coarray " + args);
}

// Few runs: these tests are about data and columns, not precise times.
const char* const kQuick = " --warmup 1 --min-runs 2 --max-runs 3";

// Column -> value of the one row after the header; the row must parse back as a point with
// sane statistics.
std::map<std::string, std::string> csv_row(const std::string& out) {
  const auto rows = collsim::parse_coarray_csv(out);
  EXPECT_EQ(rows.size(), 1u) << "the row does not parse back:\n" << out;
  for (const collsim::CoarrayRow& r : rows) {
    EXPECT_LE(r.min_s, r.time_s) << out;
    EXPECT_GE(r.ci95_s, 0.0) << out;
    EXPECT_GT(r.time_s, 0.0) << out;
    EXPECT_LT(r.time_s, 1.0) << out;
  }
  return collsim_test::csv_row(out, collsim::coarray_csv_header());
}

struct CasePoint {
  std::string args;
  std::string op, table_case, nl, nr, buffer, unit, transfers, statements;
};

// One point per case of Table 1 (NL, NR: contiguous lengths; B: the buffer), 8-byte elements.
const std::vector<CasePoint>& case_points() {
  static const std::vector<CasePoint> points = {
      // 0: registered local data, DMA whatever NL and NR; 50 strided elements, one put each.
      {"--local 1:100:2 --local-shape 100 --remote 1:50 --remote-shape 50 --registered", "coarray/put", "0", "8", "400",
       "400000", "8", "50", "1"},
      // The same registered per statement: the MPI library registers what it registers, and the
      // bytes still arrive (nothing is charged on mpi).
      {"--local 1:100:2 --local-shape 100 --remote 1:50 --remote-shape 50 --registered --registration per-statement",
       "coarray/put", "0", "8", "400", "400000", "8", "50", "1"},
      // 1: NR = 8 <= NL = 800 and <= B: one put per element of the remote side.
      {"--local 1:100 --local-shape 100 --remote 1:200:2 --remote-shape 200", "coarray/put", "1", "800", "8", "400000",
       "8", "100", "1"},
      // 2: NL = 8 < NR = 800 <= B: packed into the buffer, one put of NR.
      {"--local 1:200:2 --local-shape 200 --remote 1:100 --remote-shape 100", "coarray/put", "2", "8", "800", "400000",
       "800", "1", "1"},
      // 3: NL = 8 < B = 256 < NR = 800, three non-blocking statements per segment.
      {"--local 1:200:2 --local-shape 200 --remote 1:100 --remote-shape 100 --buffer 256 --nonblocking 3",
       "coarray/put-nb", "3", "8", "800", "256", "256", "12", "3"},
      // The same under Omni's XMP_PUT_NB (no wait before the buffer is refilled) and double buffering.
      {"--local 1:200:2 --local-shape 200 --remote 1:100 --remote-shape 100 --buffer 256 --nonblocking nowait "
       "--statements 3",
       "coarray/put-nb-nowait", "3", "8", "800", "256", "256", "12", "3"},
      {"--local 1:200:2 --local-shape 200 --remote 1:100 --remote-shape 100 --buffer 256 --nonblocking double "
       "--statements 3",
       "coarray/put-nb-double", "3", "8", "800", "256", "256", "12", "3"},
      // 4: B = 256 < NR = 800 and B <= NL = 800: in pieces of B straight from the local array.
      {"--local 1:100 --local-shape 100 --remote 1:100 --remote-shape 100 --buffer 256", "coarray/put", "4", "800",
       "800", "256", "256", "4", "1"},
      // 3 packed as Omni packs: a piece fewer than fills B = 16, so one 8-byte piece per put.
      {"--local 1:200:2 --local-shape 200 --remote 1:100 --remote-shape 100 --buffer 16 --packing omni", "coarray/put",
       "3", "8", "800", "16", "8", "100", "1"},
      // GET in case 3 the way Omni does it: one get per NL piece.
      {"--get --get-behaviour omni --local 1:200:2 --local-shape 200 --remote 1:100 --remote-shape 100 --buffer 256",
       "coarray/get", "3", "8", "800", "256", "256", "100", "1"},
  };
  return points;
}

void expect_point(int procs, const CasePoint& p, const std::string& extra = "") {
  const Outcome o = mpirun(procs, p.args + extra + " --csv" + kQuick);
  ASSERT_EQ(o.status, 0) << p.args << "\n" << o.out << o.err;
  auto row = csv_row(o.out);
  EXPECT_EQ(row["engine"], "mpi") << p.args;
  EXPECT_EQ(row["op"], p.op) << p.args;
  EXPECT_EQ(row["case"], p.table_case) << p.args;
  EXPECT_EQ(row["nl_bytes"], p.nl) << p.args;
  EXPECT_EQ(row["nr_bytes"], p.nr) << p.args;
  EXPECT_EQ(row["buffer"], p.buffer) << p.args;
  EXPECT_EQ(row["unit_bytes"], p.unit) << p.args;
  EXPECT_EQ(row["transfers"], p.transfers) << p.args;
  EXPECT_EQ(row["statements"], p.statements) << p.args;
  const int runs = std::stoi(row["runs"]);
  EXPECT_GE(runs, 2) << p.args;
  EXPECT_LE(runs, 3) << p.args;
  EXPECT_EQ(row["data"], "ok") << p.args;
}

TEST(MpiCoarrayCli, EveryCaseOnTwoProcesses) {
  for (const CasePoint& p : case_points()) expect_point(2, p);
}

TEST(MpiCoarrayCli, EveryCaseOnThreeProcesses) {
  // Image 3 runs the statements against image 1; image 2 only joins the synchronisations.
  for (const CasePoint& p : case_points()) expect_point(3, p, " --origin 3 --target 1");
}

TEST(MpiCoarrayCli, ReadableSummary) {
  const Outcome o =
      mpirun(2, "--local 1:200:2 --local-shape 200 --remote 1:100 --remote-shape 100" + std::string(kQuick));
  ASSERT_EQ(o.status, 0) << o.err;
  for (const char* text : {"coarray/put remote(1:100)[2] = local(1:200:2), 1 per segment, B = 400000 on engine mpi, "
                           "2 images\n",
                           "\ncase       2  (NL < NR <= B)\n", "\nNL, NR     8 B, 800 B", "\nunit       800 B\n",
                           "\ntransfers  1 puts", "\ntime       median ", " min ", "95% CI +- ", "\ndata       ok\n"})
    EXPECT_NE(o.out.find(text), std::string::npos) << text << " missing from\n" << o.out;
  // Only rank 0 prints.
  EXPECT_EQ(o.out.find("on engine mpi"), o.out.rfind("on engine mpi")) << o.out;
}

TEST(MpiCoarrayCli, Help) {
  const Outcome o = collsim_test::run_command(std::string(COLLSIM_MPI_BIN) + " coarray --help");
  EXPECT_EQ(o.status, 0) << o.err;
  for (const char* text : {"--put",
                           "--get",
                           "--local",
                           "--local-shape",
                           "--remote",
                           "--remote-shape",
                           "--elem",
                           "--buffer",
                           "--registered",
                           "--registration",
                           "--heap",
                           "--nonblocking",
                           "--statements",
                           "--get-behaviour",
                           "--packing",
                           "--origin",
                           "--target",
                           "--min-runs",
                           "--max-runs",
                           "--ci-target",
                           "--warmup",
                           "--csv",
                           "lower:upper:stride",
                           "case 0"})
    EXPECT_NE(o.out.find(text), std::string::npos) << text << " missing from\n" << o.out;
  const Outcome top = collsim_test::run_command(std::string(COLLSIM_MPI_BIN) + " --help");
  EXPECT_NE(top.out.find("collsim-mpi coarray"), std::string::npos) << top.out;
  EXPECT_NE(top.out.find("time a segment of coarray PUT/GET statements"), std::string::npos) << top.out;
}

// One line on stderr, from rank 0 only, nothing on stdout, exit status 2 from every rank.
void expect_usage_error(int procs, const std::string& args, const std::string& has) {
  const Outcome o =
      procs > 0 ? mpirun(procs, args) : collsim_test::run_command(std::string(COLLSIM_MPI_BIN) + " coarray " + args);
  EXPECT_EQ(o.status, 2) << args << "\n" << o.err;
  EXPECT_EQ(o.out, "") << args;
  const auto ls = lines(o.err);
  ASSERT_EQ(ls.size(), 1u) << args << "\n" << o.err;
  EXPECT_EQ(ls[0].rfind("collsim-mpi: ", 0), 0u) << ls[0];
  EXPECT_NE(ls[0].find(has), std::string::npos) << ls[0];
}

TEST(MpiCoarrayCli, BadInputIsOneLineAndStatus2) {
  // A section outside its array.
  expect_usage_error(2, "--local 1:11 --local-shape 10 --remote 1:11 --remote-shape 12", "1:11");
  // Sections that do not conform.
  expect_usage_error(2, "--local 1:10 --local-shape 10 --remote 1:9 --remote-shape 10", "1:9");
  expect_usage_error(2, "--local 1:10 --local-shape 10 --remote-shape 10", "missing --remote");
  expect_usage_error(3, "--local 1:10 --local-shape 10 --remote 1:10 --remote-shape 10 --target 4", "4");
  expect_usage_error(2, "--get --nonblocking 2 --local 1:10 --local-shape 10 --remote 1:10 --remote-shape 10",
                     "--nonblocking");
  expect_usage_error(2, "--nonblocking later --local 1:10 --local-shape 10 --remote 1:10 --remote-shape 10",
                     "--nonblocking: 'later' is not safe, nowait or double");
  // One process (a singleton without mpirun) is one image.
  expect_usage_error(0, "--local 1:10 --local-shape 10 --remote 1:10 --remote-shape 10", "at least 2 images");
}

}  // namespace
