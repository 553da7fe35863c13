// collsim-mpi as a user runs it, under mpirun and alone (Open MPI singleton): the CSV row's
// columns for both engines (mpi, mpi-native), the readable summary, the run and fidelity
// commands, help, and one-line input errors with exit status 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "common/csv_row.hpp"
#include "common/mpirun.hpp"
#include "experiment/results/measurement.hpp"

namespace {

namespace fs = std::filesystem;
using collsim_test::lines;
using collsim_test::Outcome;
using collsim_test::slurp;

Outcome shell(const std::string& command) { return collsim_test::run_command(command); }

Outcome mpirun(int procs, const std::string& args) {
  return collsim_test::mpirun(procs, std::string(COLLSIM_MPI_BIN) + " " + args);
}

Outcome alone(const std::string& args) { return shell(std::string(COLLSIM_MPI_BIN) + " " + args); }

// Column -> value of the one data row after the header.
std::map<std::string, std::string> csv_row(const std::string& out) {
  return collsim_test::csv_row(out, collsim::csv_header());
}

TEST(MpiCli, CsvRowUnderMpirun) {
  const Outcome o = mpirun(3,
                           "measure --op bcast/binomial --bytes 10000 --segment 1024 --root 2 "
                           "--csv --min-runs 3 --max-runs 5");
  ASSERT_EQ(o.status, 0) << o.err;
  auto row = csv_row(o.out);
  EXPECT_EQ(row["engine"], "mpi");
  EXPECT_EQ(row["op"], "bcast/binomial");
  EXPECT_EQ(row["procs"], "3");
  EXPECT_EQ(row["bytes"], "10000");
  EXPECT_EQ(row["segment"], "1024");
  EXPECT_EQ(row["root"], "2");
  EXPECT_GT(std::stod(row["time_s"]), 0.0);
  EXPECT_LT(std::stod(row["time_s"]), 1.0);
  EXPECT_EQ(row["time_s"], row["median_s"]);
  const int runs = std::stoi(row["runs"]);
  EXPECT_GE(runs, 3);
  EXPECT_LE(runs, 5);
  EXPECT_LE(std::stod(row["min_s"]), std::stod(row["median_s"]));
  EXPECT_LE(std::stod(row["median_s"]), std::stod(row["max_s"]));
  EXPECT_EQ(row["data"], "ok");
}

TEST(MpiCli, GatherCsvRow) {
  const Outcome o = mpirun(2,
                           "measure --op gather/basic_linear --bytes 1001 --root 1 --csv "
                           "--max-runs 4 --min-runs 2 --ci-target 10%");
  ASSERT_EQ(o.status, 0) << o.err;
  auto row = csv_row(o.out);
  EXPECT_EQ(row["op"], "gather/basic_linear");
  EXPECT_EQ(row["procs"], "2");
  EXPECT_EQ(row["bytes"], "1001");
  EXPECT_EQ(row["segment"], "0");
  EXPECT_EQ(row["root"], "1");
  EXPECT_EQ(row["data"], "ok");
}

TEST(MpiCli, NativeEngineCsvRow) {
  const Outcome o = mpirun(3,
                           "measure --engine mpi-native --op bcast/knomial --radix 3 --bytes 10000 "
                           "--segment 1KiB --root 1 --csv --min-runs 3 --max-runs 5");
  ASSERT_EQ(o.status, 0) << o.err;
  auto row = csv_row(o.out);
  EXPECT_EQ(row["engine"], "mpi-native");
  EXPECT_EQ(row["op"], "bcast/knomial");
  EXPECT_EQ(row["procs"], "3");
  EXPECT_EQ(row["bytes"], "10000");
  EXPECT_EQ(row["segment"], "1024");
  EXPECT_EQ(row["root"], "1");
  EXPECT_GT(std::stod(row["time_s"]), 0.0);
  EXPECT_EQ(row["data"], "ok");
}

TEST(MpiCli, NativeEngineNeedsDynamicRules) {
  // The user's explicit 0 is kept (mpirun -x), so Open MPI would ignore the forcing: refused.
  const Outcome o = shell(std::string(MPIEXEC) +
                          " -q --allow-run-as-root --oversubscribe -x OMPI_MCA_coll_tuned_use_dynamic_rules=0"
                          " -np 2 " +
                          COLLSIM_MPI_BIN + " measure --engine mpi-native --op bcast/binomial --bytes 10");
  EXPECT_EQ(o.status, 2) << o.err;
  const auto ls = lines(o.err);
  ASSERT_EQ(ls.size(), 1u) << o.err;
  EXPECT_NE(ls[0].find("coll_tuned_use_dynamic_rules is 0"), std::string::npos) << ls[0];
}

TEST(MpiCli, RunMakesOneCheckedCall) {
  for (const char* engine : {"mpi", "mpi-native"}) {
    const Outcome o = mpirun(
        3, std::string("run --engine ") + engine + " --op gather/linear_sync --bytes 5000 --segment 1KiB --root 2");
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_EQ(o.out,
              std::string(engine) + " gather/linear_sync on 3 processes (root 2, 5000 bytes, segment 1024): data ok\n");
  }
}

TEST(MpiCli, FidelityTableAndCsv) {
  const fs::path csv = fs::temp_directory_path() / ("collsim-fidelity-" + std::to_string(::getpid()) + ".csv");
  // A target no 3 runs can meet: every row stops at --max-runs and says so.
  const Outcome o = mpirun(2,
                           "fidelity --ops bcast/pipeline,gather/linear_sync --sizes 8KiB..16KiB "
                           "--min-runs 2 --max-runs 3 --ci-target 1e-9 --warmup 1 --output " +
                               csv.string());
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.out.find("bcast/pipeline"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("median ratio ours/native per algorithm"), std::string::npos) << o.out;
  int marked = 0;  // of the table's rows, above the per-algorithm summary
  for (const auto& line : lines(o.out.substr(0, o.out.find("\n\nmedian ratio")))) {
    if (line.rfind("bcast/pipeline ", 0) == 0 || line.rfind("gather/linear_sync ", 0) == 0) {
      EXPECT_EQ(line.substr(line.size() - 17), "  CI above target") << line;
      ++marked;
    }
  }
  EXPECT_EQ(marked, 4) << o.out;
  EXPECT_NE(o.out.find("\n4 of 4 rows stopped at --max-runs 3 with the 95% CI of ours or Open MPI's above 1e-07% "
                       "of the mean (marked 'CI above target', ci_target_met 0 in the CSV)\n"),
            std::string::npos)
      << o.out;
  // rank 0's progress on stderr: the rows up front, then the first row done with the time left.
  EXPECT_NE(o.err.find("collsim-mpi fidelity: 4 rows, each 2 to 3 timed calls of ours and of Open MPI's\n"),
            std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("collsim-mpi fidelity: 1/4 rows in "), std::string::npos) << o.err;
  const auto rows = lines(slurp(csv));
  fs::remove(csv);
  ASSERT_EQ(rows.size(), 5u) << "header and 2 algorithms x 2 sizes";
  EXPECT_EQ(rows[0].rfind("op,procs,bytes,segment,root,runs,ours_median_s,native_median_s", 0), 0u);
  EXPECT_EQ(rows[1].rfind("bcast/pipeline,2,8192,8192,0,", 0), 0u) << rows[1];
  EXPECT_EQ(rows[4].rfind("gather/linear_sync,2,16384,1024,0,", 0), 0u) << rows[4];
  EXPECT_NE(rows[4].find(",ok"), std::string::npos) << rows[4];
  const auto header = collsim::split_csv(rows[0]);
  const auto met = std::find(header.begin(), header.end(), "ci_target_met") - header.begin();
  ASSERT_LT(static_cast<std::size_t>(met), header.size()) << rows[0];
  for (std::size_t i = 1; i < rows.size(); ++i) EXPECT_EQ(collsim::split_csv(rows[i]).at(met), "0") << rows[i];

  // --quiet: no progress lines.
  const Outcome quiet = mpirun(2, "fidelity --ops bcast/pipeline --sizes 8KiB --min-runs 2 --max-runs 2 --quiet");
  ASSERT_EQ(quiet.status, 0) << quiet.err;
  EXPECT_EQ(quiet.err.find("collsim-mpi fidelity:"), std::string::npos) << quiet.err;
}

// A barrier is measured once, at size 0; a reduction in whole elements of --datatype (rounded
// down), with its datatype and operator in the row; "all" leaves out what cannot run on P.
TEST(MpiCli, FidelityBarrierReductionsAndTheAlgorithmsThatRun) {
  const fs::path csv = fs::temp_directory_path() / ("collsim-fidelity-r-" + std::to_string(::getpid()) + ".csv");
  const Outcome o = mpirun(3,
                           "fidelity --ops barrier/bruck,reduce/binomial --sizes 1001,2002 --datatype int32 "
                           "--reduce-op max --segment 1KiB --root 2 --min-runs 2 --max-runs 3 --warmup 1 "
                           "--ci-target 100 --output " +
                               csv.string());
  ASSERT_EQ(o.status, 0) << o.err;
  const auto rows = lines(slurp(csv));
  fs::remove(csv);
  ASSERT_EQ(rows.size(), 4u) << "header, the barrier once, the reduce at 2 sizes";
  EXPECT_NE(rows[0].find(",data,datatype,reduce_op"), std::string::npos) << rows[0];
  EXPECT_EQ(rows[1].rfind("barrier/bruck,3,0,0,0,", 0), 0u) << rows[1];
  EXPECT_EQ(rows[1].substr(rows[1].size() - 5), ",ok,,") << rows[1];
  EXPECT_EQ(rows[2].rfind("reduce/binomial,3,1000,1024,2,", 0), 0u) << rows[2];
  EXPECT_EQ(rows[2].substr(rows[2].size() - 13), ",ok,int32,max") << rows[2];
  EXPECT_EQ(rows[3].rfind("reduce/binomial,3,2000,1024,2,", 0), 0u) << rows[3];
  // A target of 100 times the mean: two runs meet it (stopping there), unmarked.
  const auto header = collsim::split_csv(rows[0]);
  const auto met = std::find(header.begin(), header.end(), "ci_target_met") - header.begin();
  ASSERT_LT(static_cast<std::size_t>(met), header.size()) << rows[0];
  for (std::size_t i = 1; i < rows.size(); ++i) {
    EXPECT_EQ(collsim::split_csv(rows[i]).at(met), "1") << rows[i];
    EXPECT_EQ(collsim::split_csv(rows[i]).at(5), "2") << "runs: " << rows[i];
  }
  EXPECT_EQ(o.out.find("CI above target"), std::string::npos) << o.out;

  const Outcome all = mpirun(3, "fidelity --ops alltoall --sizes 8 --min-runs 2 --max-runs 2 --warmup 0");
  ASSERT_EQ(all.status, 0) << all.err;
  EXPECT_NE(all.out.find("alltoall/linear_sync"), std::string::npos) << all.out;
  EXPECT_EQ(all.out.find("alltoall/two_proc"), std::string::npos) << all.out;
}

TEST(MpiCli, ReadableSummary) {
  const Outcome o = mpirun(2, "measure --op bcast/binomial --bytes 8KiB --max-runs 3 --min-runs 3");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.out.find("bcast/binomial on 2 processes, 8KiB (root 0, unsegmented)"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("median "), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("mean "), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("min "), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("3 timed runs"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("data ok"), std::string::npos) << o.out;
  // Only rank 0 prints.
  EXPECT_EQ(o.out.find("bcast/binomial on"), o.out.rfind("bcast/binomial on")) << o.out;
}

// The stop rule: a run that stops at --max-runs with the CI above --ci-target says so beside the
// result (the text's line, the CSV's ci_target_met 0 with a note on stderr); one that meets the
// target says that.
TEST(MpiCli, MeasureSaysWhetherTheCiTargetWasMet) {
  const std::string point = "measure --op bcast/binomial --bytes 8KiB --min-runs 3 --max-runs 3 ";
  Outcome o = mpirun(2, point + "--ci-target 1e-9");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.out.find("\n  3 timed runs after 2 warm-up, data ok\n  CI target not met: stopped at --max-runs 3 with "
                       "the 95% CI at "),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find(" of the mean, above --ci-target 1e-07%\n"), std::string::npos) << o.out;

  o = mpirun(2, point + "--ci-target 1e-9 --csv");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(csv_row(o.out)["ci_target_met"], "0") << o.out;
  EXPECT_NE(o.err.find("collsim-mpi: note: stopped at --max-runs 3 with the 95% CI at "), std::string::npos) << o.err;

  // 100 times the mean: any 3 runs meet it.
  o = mpirun(2, point + "--ci-target 100");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.out.find("\n  3 timed runs after 2 warm-up, 95% CI within --ci-target 10000%, data ok\n"),
            std::string::npos)
      << o.out;
  EXPECT_EQ(o.out.find("not met"), std::string::npos) << o.out;
  o = mpirun(2, point + "--ci-target 100 --csv");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(csv_row(o.out)["ci_target_met"], "1") << o.out;
  EXPECT_EQ(o.err.find("note: stopped"), std::string::npos) << o.err;
}

TEST(MpiCli, SingletonWithoutMpirun) {
  const Outcome o = alone("measure --op bcast/binomial --bytes 100 --csv --min-runs 2 --max-runs 2");
  ASSERT_EQ(o.status, 0) << o.err;
  auto row = csv_row(o.out);
  EXPECT_EQ(row["procs"], "1");
  EXPECT_EQ(row["runs"], "2");
}

TEST(MpiCli, HelpWorksWithoutMpirun) {
  Outcome o = alone("--help");
  EXPECT_EQ(o.status, 0);
  EXPECT_NE(o.out.find("\n  mpirun -np P collsim-mpi measure"), std::string::npos) << o.out;
  o = alone("measure --help");
  EXPECT_EQ(o.status, 0);
  for (const char* option : {"--op", "--bytes", "--root", "--segment", "--fanout", "--radix", "--csv", "--min-runs",
                             "--max-runs", "--ci-target", "--engine", "mpi-native"})
    EXPECT_NE(o.out.find(option), std::string::npos) << option << " missing from\n" << o.out;
  o = alone("fidelity --help");
  EXPECT_EQ(o.status, 0);
  for (const char* option : {"--sizes", "--ops", "--segment", "--gather-segment", "--output", "interleaved", "--quiet"})
    EXPECT_NE(o.out.find(option), std::string::npos) << option << " missing from\n" << o.out;
  // The stop rule's defaults, the same in every command that measures.
  for (const char* command : {"measure", "fidelity", "coarray"}) {
    o = alone(std::string(command) + " --help");
    EXPECT_NE(o.out.find("timed runs at least (default 10)"), std::string::npos) << command << "\n" << o.out;
    EXPECT_NE(o.out.find("timed runs at most (default 200)"), std::string::npos) << command << "\n" << o.out;
    EXPECT_NE(o.out.find("(default 2.5%)"), std::string::npos) << command << "\n" << o.out;
  }
  o = alone("run --help");
  EXPECT_EQ(o.status, 0);
  EXPECT_NE(o.out.find("pml_monitoring_enable"), std::string::npos) << o.out;
  o = mpirun(2, "measure --help");
  EXPECT_EQ(o.status, 0);
  EXPECT_EQ(o.out.find("usage:"), o.out.rfind("usage:")) << "printed by more than one rank";
}

// One line on stderr, from rank 0 only, nothing on stdout, exit status 2 from every rank.
void expect_usage_error(int procs, const std::string& args, const std::string& start) {
  const Outcome o = mpirun(procs, args);
  EXPECT_EQ(o.status, 2) << args << "\n" << o.err;
  EXPECT_EQ(o.out, "") << args;
  const auto ls = lines(o.err);
  ASSERT_EQ(ls.size(), 1u) << args << "\n" << o.err;
  EXPECT_EQ(ls[0].rfind(start, 0), 0u) << ls[0];
}

TEST(MpiCli, BadInputIsOneLineAndStatus2) {
  expect_usage_error(3, "measure --op bcast/nope --bytes 10", "collsim-mpi: unknown algorithm 'bcast/nope' (one of: ");
  expect_usage_error(2, "measure --op bcast/binomial --bytes 12x",
                     "collsim-mpi: --bytes: '12x' is not a size in bytes");
  expect_usage_error(3, "measure --op bcast/binomial --bytes 10 --root 3",
                     "collsim-mpi: --root 3 is not a rank of 3 processes");
  expect_usage_error(2, "measure --op bcast/binomial --bytes 10 --min-runs 0",
                     "collsim-mpi: --min-runs: 0 is out of range");
  expect_usage_error(2, "measure --op bcast/binomial --bytes 10 --min-runs 5 --max-runs 4",
                     "collsim-mpi: --max-runs 4 is below --min-runs 5");
  expect_usage_error(2, "measure --op bcast/binomial --bytes 10 --ci-target abc", "collsim-mpi: --ci-target: 'abc'");
  expect_usage_error(2, "measure --op bcast/binomial --bytes 10 --frobnicate",
                     "collsim-mpi: unknown option --frobnicate");
  expect_usage_error(2, "measure --op bcast/binomial", "collsim-mpi: missing --bytes");
  expect_usage_error(2, "frobnicate", "collsim-mpi: unknown command 'frobnicate'");
  expect_usage_error(2, "", "collsim-mpi: missing command");
}

TEST(MpiCli, NativeAndFidelityBadInputIsOneLineAndStatus2) {
  expect_usage_error(2, "measure --engine sim --op bcast/binomial --bytes 10",
                     "collsim-mpi: --engine: 'sim' is not available: mpi, mpi-native");
  expect_usage_error(2, "measure --engine mpi-native --op bcast/binomial --bytes 3GiB",
                     "collsim-mpi: mpi-native bcast/binomial on 2 processes (root 0, 3221225472 "
                     "bytes): 3221225472 bytes do not fit the int count of MPI_Bcast");
  expect_usage_error(2, "fidelity --sizes 4MiB..8KiB", "collsim-mpi: --sizes: '4MiB..8KiB' is not a range");
  expect_usage_error(2, "fidelity --ops bcast/nope", "collsim-mpi: --ops: unknown algorithm 'bcast/nope'");
  expect_usage_error(2, "fidelity --output /nonexistent/dir/f.csv", "collsim-mpi: --output: cannot write");
  expect_usage_error(3, "fidelity --ops barrier/two_proc",
                     "collsim-mpi: --ops: barrier/two_proc does not run on 3 processes");
  expect_usage_error(2, "fidelity --ops reduce --datatype quad", "collsim-mpi: --datatype 'quad' is not one of");
  // What Open MPI cannot run is refused before the table's header is printed; a range up to the
  // largest size_t stops doubling there (it looped, doubling past it to 0, until memory ran out).
  expect_usage_error(2, "fidelity --ops bcast/binomial --sizes 1..18446744073709551615",
                     "collsim-mpi: mpi-native bcast/binomial on 2 processes (root 0, 2147483648 bytes, segment 8192): "
                     "2147483648 bytes do not fit the int count of MPI_Bcast");
}

}  // namespace
