// The terminal tables of `collsim run`, checked as exact text on hand-made rows: the side-by-side
// engine columns, the ratio column, the root and data columns, and the fastest variant per
// (P, m) with its runner-up, ties and missing engines. Column widths below are the widest cell
// of each column (header included); cells are two spaces apart, trailing spaces dropped, text
// columns left-aligned and number columns right-aligned.
#include "experiment/results/summary_table.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace collsim {
namespace {

Measurement row(const std::string& engine, const std::string& op, int procs, std::size_t bytes, std::size_t segment,
                int root, double time_s, const std::string& data = "unchecked") {
  return simulated_measurement(engine, op, procs, bytes, segment, root, time_s, data);
}

TEST(ResultsTable, EnginesSideBySideWithTheirRatio) {
  const std::vector<Measurement> rows = {
      row("model", "bcast/binomial", 4, 8192, 0, 0, 15e-6), row("sim", "bcast/binomial", 4, 8192, 0, 0, 30e-6),
      row("model", "bcast/pipeline", 4, 8192, 1024, 0, 20e-6),  // no sim time: empty cells
      row("sim", "bcast/binomial", 8, 1000, 0, 0, 1e-3),        // no model time: empty cells
  };
  // Widths: algorithm 14, procs 5, bytes 5, segment 7, model 5, sim 5, sim/model 9. Engines in
  // first-seen order; one row per (op, P, m, segment, root) in first-seen order; the ratio is
  // sim/model = 30/15 = 2.000, left empty when either time is missing. Sizes are printed in
  // binary units when exact (8192 = 8KiB), else in bytes (1000). No root column (all roots 0),
  // no data column (nothing checked).
  EXPECT_EQ(format_results_table(rows),
            "algorithm       procs  bytes  segment  model  sim    sim/model\n"
            "--------------------------------------------------------------\n"
            "bcast/binomial      4   8KiB        -  15 us  30 us      2.000\n"
            "bcast/pipeline      4   8KiB     1KiB  20 us\n"
            "bcast/binomial      8   1000        -          1 ms\n");
}

// A measured time whose runs stopped at max_runs with the CI above its target is marked, with a
// note under the table; one that met it, and a simulated one, are not.
TEST(ResultsTable, MarksTheTimesWhoseRunsMissedTheCiTarget) {
  std::vector<Measurement> rows = {
      row("model", "bcast/binomial", 4, 8192, 0, 0, 15e-6), row("mpi", "bcast/binomial", 4, 8192, 0, 0, 30e-6),
      row("model", "bcast/binomial", 8, 8192, 0, 0, 20e-6), row("mpi", "bcast/binomial", 8, 8192, 0, 0, 40e-6)};
  rows[1].ci_met = false;
  rows[3].ci_met = true;
  EXPECT_EQ(format_results_table(rows),
            "algorithm       procs  bytes  segment  model  mpi      mpi/model\n"
            "----------------------------------------------------------------\n"
            "bcast/binomial      4   8KiB        -  15 us  30 us *      2.000\n"
            "bcast/binomial      8   8KiB        -  20 us    40 us      2.000\n"
            "* stopped at max_runs with the 95% CI above ci_target: less certain than asked (ci_target_met 0)\n");
  rows[1].ci_met = true;
  EXPECT_EQ(format_results_table(rows).find('*'), std::string::npos) << format_results_table(rows);
}

TEST(ResultsTable, ThreeEnginesRootsAndDataChecks) {
  const std::vector<Measurement> rows = {
      row("model", "gather/binomial", 2, 1024, 0, 1, 1.5e-3, "ok"),
      row("sim", "gather/binomial", 2, 1024, 0, 1, 2.5e-3, "byte 7 differs"),
      row("mpi", "gather/binomial", 2, 1024, 0, 1, 2e-3, "byte 0 differs"),
      row("model", "gather/binomial", 2, 1024, 0, 0, 1.2e-3, "ok"),
      row("model", "gather/binomial", 4, 1024, 0, 0, 3e-3, "unchecked"),
  };
  // Three engines: no ratio column. A root other than 0 adds the root column. Some bytes were
  // checked, so a data column: every engine's wrong bytes, "ok" when all checked bytes were
  // right, "unchecked" when no engine checked that point. Widths: 15, 5, 5, 7, 4, 6, 6, 4, 40.
  EXPECT_EQ(format_results_table(rows),
            "algorithm        procs  bytes  segment  root  model   sim     mpi   data\n"
            "------------------------------------------------------------------------------------------------------"
            "------\n"
            "gather/binomial      2   1KiB        -     1  1.5 ms  2.5 ms  2 ms  sim: byte 7 differs; mpi: byte 0 "
            "differs\n"
            "gather/binomial      2   1KiB        -     0  1.2 ms                ok\n"
            "gather/binomial      4   1KiB        -     0    3 ms                unchecked\n");
}

TEST(ResultsTable, RatioNeedsBothTimesAndANonZeroBase) {
  // sim/model with model = 0 has no ratio; 1.5 / 1 = 1.500; 1 / 3 = 0.333 (three decimals).
  const std::vector<Measurement> rows = {
      row("model", "bcast/binomial", 1, 8, 0, 0, 0),    row("sim", "bcast/binomial", 1, 8, 0, 0, 1e-6),
      row("model", "bcast/binomial", 2, 8, 0, 0, 1e-6), row("sim", "bcast/binomial", 2, 8, 0, 0, 1.5e-6),
      row("model", "bcast/binomial", 3, 8, 0, 0, 3e-6), row("sim", "bcast/binomial", 3, 8, 0, 0, 1e-6),
  };
  EXPECT_EQ(format_results_table(rows),
            "algorithm       procs  bytes  segment  model  sim     sim/model\n"
            "---------------------------------------------------------------\n"
            "bcast/binomial      1      8        -    0 s    1 us\n"
            "bcast/binomial      2      8        -   1 us  1.5 us      1.500\n"
            "bcast/binomial      3      8        -   3 us    1 us      0.333\n");
}

TEST(FastestTable, FastestVariantPerPointAndEngine) {
  const std::vector<Measurement> rows = {
      row("model", "bcast/binomial", 4, 8192, 0, 0, 15e-6),
      row("model", "bcast/pipeline", 4, 8192, 1024, 0, 20e-6),
      row("model", "bcast/binary_tree", 4, 8192, 0, 0, 15e-6),  // ties with binomial
      row("model", "bcast/chain", 4, 8192, 0, 1, 1e-6),         // root 1: not compared
      row("model", "bcast/binomial", 8, 1000, 0, 0, 50e-6),     // the only candidate there
      row("model", "gather/basic_linear", 4, 1024, 0, 0, 10e-6),
      row("sim", "bcast/binomial", 4, 8192, 0, 0, 30e-6),
      row("sim", "bcast/pipeline", 4, 8192, 1024, 0, 25e-6),
      row("sim", "gather/basic_linear", 4, 1024, 0, 0, 40e-6),
      row("sim", "gather/binomial", 4, 1024, 0, 0, 40e-6),
  };
  // One table per (engine, operation) in first-seen order, points by (P, m) ascending.
  //  - model bcast, (4, 8KiB): binary_tree and binomial tie at 15 us; a tie goes to the
  //    alphabetically first name (binary_tree < binomial), the other is runner-up, 0.0% slower.
  //    The 1 us chain is from root 1 and does not count. (8, 1000): one candidate, no runner-up.
  //  - model gather: one algorithm only, nothing to compare, no table.
  //  - sim bcast, (4, 8KiB): pipeline with 1 KiB segments (named with its segment) at 25 us;
  //    binomial 30 us is 30/25 - 1 = 20.0% slower.
  //  - sim gather, (4, 1KiB): a tie at 40 us, basic_linear before binomial.
  EXPECT_EQ(format_fastest_table(rows),
            "\nfastest bcast per (procs, bytes) on engine model:\n"
            "procs  bytes  fastest            time   runner-up       slower by\n"
            "-----------------------------------------------------------------\n"
            "    4   8KiB  bcast/binary_tree  15 us  bcast/binomial       0.0%\n"
            "    8   1000  bcast/binomial     50 us\n"
            "\nfastest bcast per (procs, bytes) on engine sim:\n"
            "procs  bytes  fastest                time   runner-up       slower by\n"
            "---------------------------------------------------------------------\n"
            "    4   8KiB  bcast/pipeline (1KiB)  25 us  bcast/binomial      20.0%\n"
            "\nfastest gather per (procs, bytes) on engine sim:\n"
            "procs  bytes  fastest              time   runner-up        slower by\n"
            "--------------------------------------------------------------------\n"
            "    4   1KiB  gather/basic_linear  40 us  gather/binomial       0.0%\n");
}

TEST(FastestTable, SegmentSizesAreVariantsToo) {
  // One algorithm at two segment sizes is a comparison: 12 / 10 - 1 = 20.0%.
  const std::vector<Measurement> rows = {
      row("sim", "bcast/binomial", 16, 1 << 20, 0, 0, 12e-3),
      row("sim", "bcast/binomial", 16, 1 << 20, 8192, 0, 10e-3),
  };
  EXPECT_EQ(format_fastest_table(rows),
            "\nfastest bcast per (procs, bytes) on engine sim:\n"
            "procs  bytes  fastest                time   runner-up       slower by\n"
            "---------------------------------------------------------------------\n"
            "   16   1MiB  bcast/binomial (8KiB)  10 ms  bcast/binomial      20.0%\n");
}

TEST(FastestTable, ReductionsAreComparedPerDatatypeAndOperator) {
  // The same algorithms under two reductions: two tables, never one algorithm's int32 time
  // against another's double time. The results table keeps both rows of an algorithm apart.
  auto reduction_row = [](const char* op, const char* type, double time_s) {
    Measurement m = row("model", op, 4, 4000, 0, 0, time_s);
    m.datatype = type;
    m.reduce_op = "sum";
    return m;
  };
  const std::vector<Measurement> rows = {
      reduction_row("reduce/binomial", "int32", 10e-6), reduction_row("reduce/linear", "int32", 20e-6),
      reduction_row("reduce/binomial", "double", 30e-6), reduction_row("reduce/linear", "double", 15e-6)};
  EXPECT_EQ(format_fastest_table(rows),
            "\nfastest reduce (int32 sum) per (procs, bytes) on engine model:\n"
            "procs  bytes  fastest          time   runner-up      slower by\n"
            "--------------------------------------------------------------\n"
            "    4   4000  reduce/binomial  10 us  reduce/linear     100.0%\n"
            "\nfastest reduce (double sum) per (procs, bytes) on engine model:\n"
            "procs  bytes  fastest        time   runner-up        slower by\n"
            "--------------------------------------------------------------\n"
            "    4   4000  reduce/linear  15 us  reduce/binomial     100.0%\n");
  const std::string table = format_results_table(rows);
  EXPECT_NE(table.find("reduce/binomial (int32 sum)"), std::string::npos) << table;
  EXPECT_NE(table.find("reduce/binomial (double sum)"), std::string::npos) << table;
}

TEST(FastestTable, NothingToCompareIsEmpty) {
  EXPECT_EQ(format_fastest_table({}), "");
  // One algorithm per engine and point, or a second one only from another root.
  EXPECT_EQ(format_fastest_table({row("model", "bcast/binomial", 4, 8, 0, 0, 1e-6),
                                  row("sim", "bcast/pipeline", 4, 8, 0, 0, 2e-6),
                                  row("model", "bcast/chain", 4, 8, 0, 2, 1e-7)}),
            "");
}

}  // namespace
}  // namespace collsim
