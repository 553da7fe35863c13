// collsim compare and collsim select as a user runs them: the files and tables they write, their
// plots, and the one-line errors of bad input. The numbers themselves are checked in
// tests/experiment/comparison_test.cpp and tests/selection.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "common/cli_test_util.hpp"

namespace {

using namespace collsim_test;

// Broadcast on 4 processes at 1000 bytes: sim binomial 10, binary_tree 8 (the best), basic_linear
// 12; derived 5, 6, 4 picks basic_linear (degradation 1.5); Open MPI 4.1 picks binary_tree (1).
const char* const kRows =
    "engine,op,procs,bytes,segment,root,time_s\n"
    "sim,bcast/binomial,4,1000,0,0,10\n"
    "sim,bcast/binary_tree,4,1000,0,0,8\n"
    "sim,bcast/basic_linear,4,1000,0,0,12\n"
    "formula-derived,bcast/binomial,4,1000,0,0,5\n"
    "formula-derived,bcast/binary_tree,4,1000,0,0,6\n"
    "formula-derived,bcast/basic_linear,4,1000,0,0,4\n"
    "formula-derived,bcast/binomial,4,2000,0,0,5\n";

TEST(Compare, WritesTablesAndFiles) {
  const fs::path csv = scratch_file("rows.csv", kRows);
  const fs::path out = scratch() / "compare-out";
  const Outcome o = collsim("compare " + csv.string() + " --out " + out.string());
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.out.find("reference: sim (3 rows); compared: formula-derived 4; 4 points from 1 file"), std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("derived   bcast      1      1.500  1.500  P=4 m=1000  0 (0%)    1/1"), std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("4      1000   binary_tree:0  basic_linear 1.500  binary_tree:0 1.000"), std::string::npos)
      << o.out;
  const std::string points = slurp(out / "comparison.csv");
  EXPECT_NE(points.find("\nbcast/basic_linear,4,1000,0,0,sim,12,,4,,12,,,,-0.6666666666666666,,,,,,,,,,\n"),
            std::string::npos)
      << points;
  // The derived prediction at 2000 bytes has nothing to compare with, and stays in the file.
  EXPECT_NE(points.find("\nbcast/binomial,4,2000,0,0,sim,,,5,"), std::string::npos) << points;
  const std::string selection = slurp(out / "selection.csv");
  EXPECT_NE(selection.find("bcast,4,1000,0,3,bcast/binary_tree,0,8,derived,bcast/basic_linear,0,12,1.5,ok,,\n"),
            std::string::npos)
      << selection;
  EXPECT_FALSE(fs::exists(out / "comparison.csv.tmp"));

  // --csv: the per-point file on stdout.
  const Outcome c = collsim("compare " + csv.string() + " --csv");
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_EQ(c.out, points);
}

TEST(Compare, BadInput) {
  const fs::path csv = scratch_file("rows.csv", kRows);
  expect_bad_input("compare", "compare needs at least one results file");
  expect_refused("compare " + (scratch() / "missing.csv").string(),
                 "collsim: " + (scratch() / "missing.csv").string() +
                     ": cannot open the results file (No such file or directory)");
  // Rows as collsim merge and --resume take them (results_row_problem): one cell per column, times
  // that are non-negative numbers.
  const std::string head = "engine,op,procs,bytes,segment,root,time_s\nsim,bcast/binomial,4,1000,0,0,10\n";
  for (const auto& [row, problem] : std::vector<std::pair<std::string, std::string>>{
           {"formula-derived,bcast/binomial,4,1000,0,0,5,7", "8 cells, the header has 7"},
           {"formula-derived,bcast/binomial,4,1000,0", "5 cells, the header has 7"},
           {"formula-derived,bcast/binomial,4,1000,0,0,-5",
            "time_s is '-5', not a time (a non-negative number of seconds)"}}) {
    const fs::path bad = scratch_file("bad-row.csv", head + row + "\n");
    expect_refused("compare " + bad.string(), "collsim: " + bad.string() + ":3: not a results row (" + problem + ")");
  }
  const fs::path fidelity = scratch_file("fidelity.csv", "op,procs,bytes,ours_median_s\nbcast/binomial,4,8,1\n");
  expect_refused("compare " + fidelity.string(),
                 "collsim: " + fidelity.string() +
                     ":1: not a collsim results CSV (its header lacks engine,op,procs,bytes,segment,root,time_s)");
  const fs::path apart = scratch_file("apart.csv",
                                      "engine,op,procs,bytes,segment,root,time_s\n"
                                      "sim,bcast/binomial,4,8,0,0,1\n"
                                      "formula-derived,bcast/binomial,4,16,0,0,1\n");
  expect_bad_input("compare " + apart.string(), "no common points");
  expect_refused("compare " + csv.string() + " --reference formula",
                 "collsim: --reference: 'formula' is not an engine to compare with: sim, mpi, mpi-native, model");
  expect_bad_input("compare " + csv.string() + " --reference mpi", "no rows of the reference engine mpi");
  expect_bad_input("compare " + csv.string() + " " + csv.string(), "is also in");
}

TEST(Compare, Plots) {
  const fs::path csv = scratch_file("rows.csv", kRows);
  const fs::path png = scratch() / "compare-png";
  // Without a Python that has matplotlib: one line, exit 2, nothing written.
  const Outcome none = run_command("COLLSIM_PYTHON=/nonexistent/python3 " + std::string(COLLSIM_BIN) + " compare " +
                                   csv.string() + " --plots " + png.string());
  EXPECT_EQ(none.status, 2);
  EXPECT_EQ(none.err, "collsim: --plots needs python3 with matplotlib (Debian: apt-get install python3-matplotlib)\n");
  EXPECT_FALSE(fs::exists(png));

  if (run_command("/usr/bin/python3 -c 'import matplotlib'").status != 0 &&
      run_command("python3 -c 'import matplotlib'").status != 0)
    GTEST_SKIP() << "no python3 with matplotlib";
  const Outcome o = collsim("compare " + csv.string() + " --plots " + png.string());
  ASSERT_EQ(o.status, 0) << o.err;
  for (const char* f : {"comparison.csv", "selection.csv", "bcast_p4.png", "degradation_bcast.png"})
    EXPECT_TRUE(fs::exists(png / f)) << f << "\n" << o.out;
  // Each figure names the engines it draws, as its title and legend do: only those in the files.
  EXPECT_NE(o.out.find("\n  bcast_p4.png: sim (dots), derived formula (solid)\n"), std::string::npos) << o.out;

  // With textbook predictions at two sizes they are dashed lines; the model engine's, at one size,
  // markers. A barrier (no size: its candidates across, so markers) and points of 0 bytes and 0 s
  // (at the "0" ticks) draw too.
  const fs::path more = scratch_file("more.csv", std::string(kRows) +
                                                     "formula-textbook,bcast/binomial,4,1000,0,0,6\n"
                                                     "formula-textbook,bcast/binomial,4,2000,0,0,7\n"
                                                     "formula-textbook,bcast/binary_tree,4,1000,0,0,7\n"
                                                     "model,bcast/binomial,4,1000,0,0,9\n"
                                                     "sim,bcast/binomial,4,0,0,0,0\n"
                                                     "formula-textbook,bcast/binomial,4,0,0,0,0\n"
                                                     "sim,barrier/linear,4,0,0,0,2e-05\n"
                                                     "sim,barrier/bruck,4,0,0,0,1.5e-05\n"
                                                     "formula-textbook,barrier/linear,4,0,0,0,2.2e-05\n"
                                                     "formula-textbook,barrier/bruck,4,0,0,0,1.4e-05\n");
  const fs::path png2 = scratch() / "compare-png-textbook";
  const Outcome t = collsim("compare " + more.string() + " --plots " + png2.string());
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_EQ(t.err, "");
  EXPECT_NE(t.out.find("plots in " + png2.string() +
                       ":\n"
                       "  barrier_p4.png: sim (dots), textbook formula (crosses)\n"
                       "  bcast_p4.png: sim (dots), textbook formula (dashed), derived formula (solid), "
                       "model engine (squares)\n"
                       "  degradation_barrier.png: degradation of each selector's pick\n"
                       "  degradation_bcast.png: degradation of each selector's pick\n"),
            std::string::npos)
      << t.out;
  for (const char* f : {"barrier_p4.png", "bcast_p4.png", "degradation_barrier.png"})
    EXPECT_TRUE(fs::exists(png2 / f)) << f;
  const Outcome help = run_command(src("tools/plot_compare") + " --help");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("--points"), std::string::npos);
}

// Derived predictions with their prediction intervals (interval_low_s, interval_high_s) beside
// the simulation: binomial's [4, 6] holds sim's 5 at 1000 bytes, [8, 12] not sim's 13 at 2000.
const char* const kIntervalRows =
    "engine,op,procs,bytes,segment,root,time_s,interval_low_s,interval_high_s\n"
    "sim,bcast/binomial,4,1000,0,0,5e-06,,\n"
    "sim,bcast/binomial,4,2000,0,0,1.3e-05,,\n"
    "sim,bcast/binomial,4,4000,0,0,2e-05,,\n"
    "formula-derived,bcast/binomial,4,1000,0,0,5e-06,4e-06,6e-06\n"
    "formula-derived,bcast/binomial,4,2000,0,0,1e-05,8e-06,1.2e-05\n"
    "formula-derived,bcast/binomial,4,4000,0,0,2e-05,1.6e-05,2.4e-05\n";

TEST(Compare, ShowsPredictionIntervals) {
  const fs::path csv = scratch_file("intervals.csv", kIntervalRows);
  const Outcome o = collsim("compare " + csv.string());
  ASSERT_EQ(o.status, 0) << o.err;
  // Mean half-width: (1e-6/5e-6 + 2e-6/1e-5 + 4e-6/2e-5) / 3 = 20%; sim inside at 2 of 3 points.
  EXPECT_NE(o.out.find("95% interval  sim inside"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("+-20.0% mean  2/3 (67%)"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("Predictions with their 95% prediction intervals"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("bcast/binomial  4      2000   0        13 us  10 us [8 us, 12 us]   no"), std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("bcast/binomial  4      1000   0        5 us   5 us [4 us, 6 us]     yes"), std::string::npos)
      << o.out;
  const Outcome c = collsim("compare " + csv.string() + " --csv");
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_NE(c.out.find(",datatype,reduce_op,textbook_low_s,textbook_high_s,derived_low_s,derived_high_s\n"),
            std::string::npos)
      << c.out;
  EXPECT_NE(c.out.find(",,,,4e-06,6e-06\n"), std::string::npos) << c.out;
  // Files without the columns show no interval table.
  const Outcome plain = collsim("compare " + scratch_file("rows.csv", kRows).string());
  EXPECT_EQ(plain.out.find("prediction intervals"), std::string::npos) << plain.out;
}

// The plot shades the interval: tab10's first colour (#1f77b4, the only candidate's) at the band's
// alpha 0.2 over white is (210, 228, 240); the figure with intervals has a patch of it, the same
// figure without them only the few pixels where the line's antialiased edge happens to match (47).
TEST(Compare, PlotsShadeTheInterval) {
  if (run_command("/usr/bin/python3 -c 'import matplotlib'").status != 0) GTEST_SKIP() << "no python3 with matplotlib";
  const fs::path with_csv = scratch_file("band.csv", kIntervalRows);
  std::string plain_rows;
  std::istringstream in(kIntervalRows);
  for (std::string line; std::getline(in, line);)  // the same rows without the two interval cells
    plain_rows += line.substr(0, line.rfind(',', line.rfind(',') - 1)) + "\n";
  const fs::path plain_csv = scratch_file("noband.csv", plain_rows);
  const fs::path with_dir = scratch() / "band-png", plain_dir = scratch() / "noband-png";
  const Outcome o = collsim("compare " + with_csv.string() + " --plots " + with_dir.string());
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.out.find("  bcast_p4.png: sim (dots), derived formula (solid, 95% prediction interval shaded)\n"),
            std::string::npos)
      << o.out;
  ASSERT_EQ(collsim("compare " + plain_csv.string() + " --plots " + plain_dir.string()).status, 0);
  auto band_pixels = [](const fs::path& png) {
    const Outcome count = run_command(
        "/usr/bin/python3 -c \"import sys, matplotlib.image as m; a = (m.imread(sys.argv[1])[:, :, :3] * 255).round(); "
        "print(int(((abs(a[:, :, 0] - 210) <= 2) & (abs(a[:, :, 1] - 228) <= 2) & (abs(a[:, :, 2] - 240) <= "
        "2)).sum()))\" " +
        png.string());
    EXPECT_EQ(count.status, 0) << count.err;
    return std::stoi(count.out.empty() ? "-1" : count.out);
  };
  EXPECT_GT(band_pixels(with_dir / "bcast_p4.png"), 2000);
  EXPECT_LT(band_pixels(plain_dir / "bcast_p4.png"), 200);
}

TEST(Select, PrintsTheTableAndWritesRules) {
  const fs::path rules = scratch() / "rules.txt";
  const Outcome o = collsim("select --op bcast,gather --procs 4 --params " + src("tests/data/select_params.yaml") +
                            " --segments 0 --max-bytes 64KiB --rules-out " + rules.string());
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.out.find("bcast: derived formulas, parameters"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("  every communicator size (built at 4):\n    from 0            bcast/binomial segment 0\n"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("from 0            gather/binomial\n"), std::string::npos) << o.out;
  const std::string text = slurp(rules);
  EXPECT_NE(text.find("2  # collectives"), std::string::npos) << text;
  EXPECT_NE(text.find("0 6 0 0  # bcast/binomial"), std::string::npos) << text;
  EXPECT_NE(text.find("0 2 0 0  # gather/binomial"), std::string::npos) << text;

  // Hockney costs instead of a file; under one port the choice changes with the message size.
  const Outcome h = collsim("select --op bcast --procs 4,16 --alpha 2e-5 --beta 8e-10 --one-port");
  ASSERT_EQ(h.status, 0) << h.err;
  EXPECT_NE(h.out.find("  procs 1 to 15 (built at 4):\n"), std::string::npos) << h.out;
  EXPECT_NE(h.out.find("  procs 16 and more (built at 16):\n"), std::string::npos) << h.out;
  EXPECT_GT(std::count(h.out.begin(), h.out.end(), '\n'), 6) << h.out;

  const Outcome help = collsim("select --help");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("--rules-out FILE"), std::string::npos);
}

// Every operation at once: each gets its table from its own sizes (a barrier's only size is 0, a
// reduction's are whole elements), two_proc algorithms only where Open MPI runs them, and the
// rules file has every collective with its Open MPI ID.
TEST(Select, EveryOperation) {
  const fs::path rules = scratch() / "all-rules.txt";
  const Outcome o = collsim(
      "select --op all --procs 2,4,7 --alpha 2e-5 --beta 8e-10 --reduce-gamma 2.5e-10 "
      "--datatype int64 --reduce-op max --max-bytes 64KiB --rules-out " +
      rules.string());
  ASSERT_EQ(o.status, 0) << o.err;
  for (const char* header : {"bcast: ", "gather: ", "scatter: ", "reduce (int64 max): ", "allreduce (int64 max): ",
                             "allgather: ", "alltoall: ", "barrier: ", "reduce_scatter (int64 max): "})
    EXPECT_TRUE(o.out.starts_with(header) || o.out.find(std::string("\n") + header) != std::string::npos)
        << header << "\n"
        << o.out;
  EXPECT_NE(o.out.find("reduction 2.5e-10 s/byte"), std::string::npos) << o.out;
  // The barrier's table: one size per communicator size.
  const std::size_t barrier = o.out.find("barrier: ");
  ASSERT_NE(barrier, std::string::npos);
  const std::string barrier_table = o.out.substr(barrier, o.out.find("reduce_scatter", barrier) - barrier);
  EXPECT_EQ(std::count(barrier_table.begin(), barrier_table.end(), '\n'), 1 + 3 * 2) << barrier_table;
  // A reduction's sizes are whole int64s: every boundary of its tables is a multiple of 8.
  const Outcome r = collsim(
      "select --op reduce,allreduce,reduce_scatter --procs 2,4,7 --alpha 2e-5 --beta 8e-10 "
      "--one-port --reduce-gamma 2.5e-10 --datatype int64 --max-bytes 64KiB");
  ASSERT_EQ(r.status, 0) << r.err;
  int boundaries = 0;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t from = line.find("    from ");
    if (from != 0) continue;
    std::istringstream cell(line.substr(9));
    std::string size;
    cell >> size;
    // The table's sizes: bytes, or whole KiB and MiB (multiples of 8 already).
    std::size_t digits = 0;
    const unsigned long long bytes = std::stoull(size, &digits);
    const std::string unit = size.substr(digits);
    ASSERT_TRUE(unit.empty() || unit == "KiB" || unit == "MiB") << line;
    if (unit.empty()) {
      EXPECT_EQ(bytes % 8, 0u) << line;
    }
    boundaries += bytes > 0;
  }
  EXPECT_GT(boundaries, 0) << r.out;
  // two_proc only in the row built at 2 processes.
  std::size_t at = 0;
  while ((at = o.out.find("/two_proc", at + 1)) != std::string::npos) {
    const std::size_t row = o.out.rfind("(built at ", at);
    EXPECT_EQ(o.out.compare(row, 12, "(built at 2)"), 0) << o.out.substr(row, at - row);
  }
  const std::string text = slurp(rules);
  EXPECT_NE(text.find("9  # collectives"), std::string::npos) << text;
  for (const char* id :
       {"0  # collective ID: allgather", "2  # collective ID: allreduce", "3  # collective ID: alltoall",
        "6  # collective ID: barrier", "7  # collective ID: bcast", "9  # collective ID: gather",
        "11  # collective ID: reduce", "12  # collective ID: reduce_scatter", "15  # collective ID: scatter"})
    EXPECT_NE(text.find(id), std::string::npos) << id << "\n" << text;
}

TEST(Select, BadInput) {
  const std::string costs = " --alpha 1e-5 --beta 1e-9";
  expect_refused("select --procs 4" + costs,
                 "collsim: missing --op (one or more of bcast, gather, scatter, reduce, "
                 "allreduce, allgather, alltoall, barrier, reduce_scatter, or all)");
  expect_refused("select --op scan --procs 4" + costs,
                 "collsim: --op: 'scan' is not an operation (bcast, gather, "
                 "scatter, reduce, allreduce, allgather, alltoall, barrier, "
                 "reduce_scatter, or all)");
  expect_bad_input("select --op bcast --procs 4 --datatype int32" + costs,
                   "--datatype applies to reducing operations (reduce, allreduce, reduce_scatter)");
  expect_bad_input("select --op allreduce --procs 4 --datatype float --reduce-op band" + costs,
                   "--reduce-op: band applies to");
  expect_bad_input("select --op allreduce --procs 4 --datatype double --max-bytes 7" + costs,
                   "--max-bytes 7 holds no whole double element for allreduce");
  expect_bad_input(
      "select --op bcast --procs 4 --params " + src("tests/data/select_params.yaml") + " --reduce-gamma 1e-10",
      "--params gives the formulas their parameters: --reduce-gamma cannot be given too");
  expect_bad_input("select --op bcast,bcast --procs 4" + costs, "--op: bcast given twice");
  expect_bad_input("select --op bcast" + costs, "missing --procs");
  expect_bad_input("select --op bcast --procs 4,0" + costs, "--procs: '0' is not a process count");
  expect_bad_input("select --op bcast --procs 4", "--params FILE, or --alpha S and --beta S");
  expect_bad_input("select --op bcast --procs 4 --alpha 1e-5", "--params FILE, or --alpha S and --beta S");
  expect_bad_input("select --op bcast --procs 4 --params " + src("tests/data/select_params.yaml") + costs,
                   "--params gives the formulas their parameters: --alpha cannot be given too");
  expect_bad_input("select --op bcast --procs 4 --formula exact" + costs,
                   "--formula: 'exact' is not derived or textbook");
  expect_bad_input("select --op bcast --procs 4 --segments 8KiB,x" + costs, "--segments: 'x' is not a segment size");
  expect_bad_input("select --op bcast --procs 4 --params " + (scratch() / "none.yaml").string(),
                   "cannot open the parameters file");
}

}  // namespace
