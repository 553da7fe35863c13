// collsim compare's logic on a hand-made set of rows whose best picks and degradations are known
// (experiment/analysis/comparison.hpp), and the results-file reader it uses (experiment/results/measurement.hpp).
#include "experiment/analysis/comparison.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "engines/run.hpp"

namespace collsim {
namespace {

namespace fs = std::filesystem;

Measurement row(const std::string& engine, const std::string& op, std::size_t bytes, std::size_t segment,
                double time_s) {
  return simulated_measurement(engine, op, 4, bytes, segment, 0, time_s, "unchecked");
}

// Broadcast on 4 processes at 1000 and 100000 bytes, gather at 1000 bytes (sim the reference).
//   1000 B:   binomial sim 10 derived 5 textbook 3 | binary_tree 8, 6, 4 | basic_linear 12, 7, 2
//             pipeline/8KiB 9, derived 4 (no textbook). Best binary_tree (8). textbook picks
//             basic_linear (12/8 = 1.5), derived pipeline (9/8 = 1.125), Open MPI 4.1 binary_tree
//             (1), 3.1 binomial (10/8 = 1.25).
//   100000 B: binomial sim 100 derived 50 textbook 20 | basic_linear 80, 60, 30 | binary_tree 90,
//             no derived, textbook 10 | pipeline/8KiB derived 1 but no sim (not a candidate).
//             Best basic_linear (80). textbook binary_tree (1.125), derived binomial (1.25), 4.1
//             basic_linear (1), 3.1 split_binary_tree/1KiB (not run).
//   gather 1000 B: binomial sim 2 derived 1 | basic_linear sim 3 derived 0.5. derived picks
//             basic_linear (1.5); 4.1 binomial (1); model (one row, basic_linear) 1.5.
std::vector<ResultsFile> files() {
  ResultsFile a{"a.csv", {}}, b{"b.csv", {}};
  a.rows = {row("sim", "bcast/binomial", 1000, 0, 10),         row("sim", "bcast/binary_tree", 1000, 0, 8),
            row("sim", "bcast/basic_linear", 1000, 0, 12),     row("sim", "bcast/pipeline", 1000, 8192, 9),
            row("sim", "bcast/binomial", 100000, 0, 100),      row("sim", "bcast/basic_linear", 100000, 0, 80),
            row("sim", "bcast/binary_tree", 100000, 0, 90),    row("sim", "gather/binomial", 1000, 0, 2),
            row("sim", "gather/basic_linear", 1000, 0, 3),     row("model", "gather/basic_linear", 1000, 0, 2.5),
            row("somebody-else", "bcast/binomial", 1000, 0, 1)};
  b.rows = {row("formula-derived", "bcast/binomial", 1000, 0, 5),
            row("formula-textbook", "bcast/binomial", 1000, 0, 3),
            row("formula-derived", "bcast/binary_tree", 1000, 0, 6),
            row("formula-textbook", "bcast/binary_tree", 1000, 0, 4),
            row("formula-derived", "bcast/basic_linear", 1000, 0, 7),
            row("formula-textbook", "bcast/basic_linear", 1000, 0, 2),
            row("formula-derived", "bcast/pipeline", 1000, 8192, 4),
            row("formula-derived", "bcast/binomial", 100000, 0, 50),
            row("formula-textbook", "bcast/binomial", 100000, 0, 20),
            row("formula-derived", "bcast/basic_linear", 100000, 0, 60),
            row("formula-textbook", "bcast/basic_linear", 100000, 0, 30),
            row("formula-textbook", "bcast/binary_tree", 100000, 0, 10),
            row("formula-derived", "bcast/pipeline", 100000, 8192, 1),
            row("formula-derived", "gather/binomial", 1000, 0, 1),
            row("formula-derived", "gather/basic_linear", 1000, 0, 0.5)};
  return {a, b};
}

const SelectorPick& pick(const Comparison& c, const SelectionGroup& g, const std::string& selector) {
  for (std::size_t i = 0; i < c.selectors.size(); ++i)
    if (c.selectors[i] == selector) return g.picks[i];
  throw std::runtime_error("no selector " + selector);
}

const SelectorSummary& summary(const Comparison& c, const std::string& selector, Operation op) {
  for (const auto& s : c.selector_summaries)
    if (s.selector == selector && s.op == op) return s;
  throw std::runtime_error("no summary " + selector);
}

TEST(Comparison, PicksAndDegradations) {
  const auto f = files();
  const Comparison c = compare_results(f, std::nullopt);
  EXPECT_EQ(c.reference, Engine::sim);  // no measurement: the simulation
  EXPECT_EQ(c.ignored_rows, 1);
  const std::vector<std::string> selectors = {"textbook", "derived", "model", "ompi-4.1", "ompi-3.1"};
  EXPECT_EQ(c.selectors, selectors);
  ASSERT_EQ(c.groups.size(), 3u);
  // Groups in (operation, procs, bytes) order.
  const SelectionGroup& small = c.groups[0];
  const SelectionGroup& large = c.groups[1];
  const SelectionGroup& gather = c.groups[2];
  EXPECT_EQ(small.bytes, 1000u);
  EXPECT_EQ(large.bytes, 100000u);
  EXPECT_EQ(gather.op, Operation::gather);

  EXPECT_EQ(small.candidates, 4);
  EXPECT_EQ(small.best.algorithm->name, "bcast/binary_tree");
  EXPECT_EQ(small.best_s, 8);
  EXPECT_EQ(pick(c, small, "textbook").pick.algorithm->name, "bcast/basic_linear");
  EXPECT_EQ(pick(c, small, "textbook").degradation, 1.5);
  EXPECT_EQ(pick(c, small, "derived").pick, (Candidate{find_algorithm("bcast/pipeline"), 8192}));
  EXPECT_EQ(pick(c, small, "derived").degradation, 1.125);
  EXPECT_EQ(pick(c, small, "ompi-4.1").pick.algorithm->name, "bcast/binary_tree");
  EXPECT_EQ(pick(c, small, "ompi-4.1").degradation, 1);
  EXPECT_EQ(pick(c, small, "ompi-3.1").pick.algorithm->name, "bcast/binomial");
  EXPECT_EQ(pick(c, small, "ompi-3.1").degradation, 1.25);
  EXPECT_EQ(pick(c, small, "model").status, SelectorPick::Status::no_prediction);

  // The pipeline's derived prediction of 1 has no sim time: not a candidate, never picked.
  EXPECT_EQ(large.candidates, 3);
  EXPECT_EQ(large.best.algorithm->name, "bcast/basic_linear");
  EXPECT_EQ(pick(c, large, "textbook").pick.algorithm->name, "bcast/binary_tree");
  EXPECT_EQ(pick(c, large, "textbook").degradation, 1.125);
  EXPECT_EQ(pick(c, large, "derived").pick.algorithm->name, "bcast/binomial");
  EXPECT_EQ(pick(c, large, "derived").degradation, 1.25);
  EXPECT_EQ(pick(c, large, "ompi-4.1").degradation, 1);
  const SelectorPick& missing = pick(c, large, "ompi-3.1");
  EXPECT_EQ(missing.status, SelectorPick::Status::not_in_results);
  EXPECT_EQ(to_string(missing.pick), "bcast/split_binary_tree segment 1KiB");

  EXPECT_EQ(pick(c, gather, "derived").pick.algorithm->name, "gather/basic_linear");
  EXPECT_EQ(pick(c, gather, "derived").degradation, 1.5);
  EXPECT_EQ(pick(c, gather, "model").degradation, 1.5);
  EXPECT_EQ(pick(c, gather, "ompi-4.1").pick.algorithm->name, "gather/binomial");
  EXPECT_EQ(pick(c, gather, "ompi-4.1").degradation, 1);

  const SelectorSummary& textbook = summary(c, "textbook", Operation::bcast);
  EXPECT_EQ(textbook.groups, 2);
  EXPECT_EQ(textbook.picked, 2);
  EXPECT_EQ(textbook.hits, 0);
  EXPECT_EQ(textbook.mean_degradation, 1.3125);
  EXPECT_EQ(textbook.worst_degradation, 1.5);
  EXPECT_EQ(textbook.worst_bytes, 1000u);
  const SelectorSummary& derived = summary(c, "derived", Operation::bcast);
  EXPECT_EQ(derived.mean_degradation, 1.1875);
  EXPECT_EQ(derived.worst_degradation, 1.25);
  EXPECT_EQ(derived.worst_bytes, 100000u);
  const SelectorSummary& ompi41 = summary(c, "ompi-4.1", Operation::bcast);
  EXPECT_EQ(ompi41.hits, 2);
  EXPECT_EQ(ompi41.mean_degradation, 1);
  const SelectorSummary& ompi31 = summary(c, "ompi-3.1", Operation::bcast);
  EXPECT_EQ(ompi31.picked, 1);
  EXPECT_EQ(ompi31.not_in_results, 1);
  EXPECT_EQ(ompi31.mean_degradation, 1.25);
  const SelectorSummary& model = summary(c, "model", Operation::bcast);
  EXPECT_EQ(model.picked, 0);
  EXPECT_EQ(model.no_prediction, 2);
  EXPECT_EQ(summary(c, "ompi-4.1", Operation::gather).hits, 1);
}

TEST(Comparison, PointsAndRelativeErrors) {
  const auto f = files();
  const Comparison c = compare_results(f, std::nullopt);
  // Every point of any known engine, the pipeline at 100000 bytes (derived only) included.
  EXPECT_EQ(c.points.size(), 10u);
  const auto& p = c.points.front();  // bcast/basic_linear 1000
  EXPECT_EQ(p.point.op, "bcast/basic_linear");
  const auto derived = static_cast<std::size_t>(Engine::formula_derived);
  const auto sim = static_cast<std::size_t>(Engine::sim);
  EXPECT_EQ(p.rel_error[derived], (7.0 - 12) / 12);
  EXPECT_FALSE(p.rel_error[sim].has_value());  // the reference itself
  EXPECT_FALSE(p.time[static_cast<std::size_t>(Engine::mpi)].has_value());

  const std::string points = comparison_points_csv(c);
  EXPECT_EQ(
      points.substr(0, points.find('\n')),
      "op,procs,bytes,segment,root,reference,reference_s,textbook_s,derived_s,model_s,sim_s,mpi_s,mpi_native_s,"
      "textbook_rel_err,derived_rel_err,model_rel_err,sim_rel_err,mpi_rel_err,mpi_native_rel_err,datatype,reduce_op,"
      "textbook_low_s,textbook_high_s,derived_low_s,derived_high_s");
  // (No row gave an interval: the last four cells are empty.)
  EXPECT_NE(points.find("\nbcast/binomial,4,1000,0,0,sim,10,3,5,,10,,,-0.7,-0.5,,,,,,,,,,\n"), std::string::npos)
      << points;
  // A point without a reference time: its predictions, no errors.
  EXPECT_NE(points.find("\nbcast/pipeline,4,100000,8192,0,sim,,,1,,,,,,,,,,,,,,,,\n"), std::string::npos) << points;

  const std::string selection = comparison_selection_csv(c);
  EXPECT_NE(selection.find("\nbcast,4,1000,0,4,bcast/binary_tree,0,8,textbook,bcast/basic_linear,0,12,1.5,ok,,\n"),
            std::string::npos)
      << selection;
  EXPECT_NE(selection.find("\nbcast,4,100000,0,3,bcast/basic_linear,0,80,ompi-3.1,bcast/split_binary_tree,1024,,,"
                           "not in the results,,\n"),
            std::string::npos)
      << selection;
  EXPECT_NE(selection.find("\nbcast,4,1000,0,4,bcast/binary_tree,0,8,model,,,,,no prediction,,\n"), std::string::npos);

  const std::string table = format_comparison(c);
  EXPECT_NE(table.find("reference: sim (9 rows)"), std::string::npos) << table;
  EXPECT_NE(table.find("textbook  bcast      2      1.312  1.500  P=4 m=1000"), std::string::npos) << table;
  EXPECT_NE(table.find("(split_binary_tree:1KiB)"), std::string::npos) << table;
}

// Reductions: one selection group per (datatype, operator), and Open MPI's decision follows
// whether the operator commutes. Reduce on 8 processes, 100 bytes: 4.1 runs binary (ID 4) for a
// commutative operator, in-order_binary (ID 6) for a non-commutative one; 3.1 is not written.
TEST(Comparison, ReductionsAreGroupedByDatatypeAndOperator) {
  auto reduce_row = [](const char* op, const char* type, const char* reduce_op, double time_s) {
    Measurement m = simulated_measurement("sim", op, 8, 96, 0, 0, time_s, "ok");
    m.datatype = type;
    m.reduce_op = reduce_op;
    return m;
  };
  ResultsFile f{
      "r.csv",
      {reduce_row("reduce/binary", "int32", "sum", 2), reduce_row("reduce/in-order_binary", "int32", "sum", 3),
       reduce_row("reduce/binary", "int64", "affine", 5), reduce_row("reduce/in-order_binary", "int64", "affine", 4)}};
  // A second engine, so that the files have a common point.
  Measurement model = reduce_row("reduce/binary", "int32", "sum", 1);
  model.engine = "model";
  f.rows.push_back(model);
  const Comparison c = compare_results(std::vector<ResultsFile>{f}, std::nullopt);
  ASSERT_EQ(c.groups.size(), 2u);
  for (const SelectionGroup& g : c.groups) {
    ASSERT_EQ(g.op, Operation::reduce);
    const bool commutes = g.reduce_op == "sum";
    EXPECT_EQ(g.best.algorithm->name, commutes ? "reduce/binary" : "reduce/in-order_binary");
    for (std::size_t i = 0; i < c.selectors.size(); ++i) {
      const SelectorPick& p = g.picks[i];
      if (c.selectors[i] == "ompi-4.1") {
        ASSERT_EQ(p.status, SelectorPick::Status::ok) << g.reduce_op;
        EXPECT_EQ(p.pick.algorithm->name, commutes ? "reduce/binary" : "reduce/in-order_binary");
        EXPECT_EQ(p.degradation, 1);
      }
      if (c.selectors[i] == "ompi-3.1") {
        EXPECT_EQ(p.status, SelectorPick::Status::no_prediction);
      }
    }
  }
  EXPECT_NE(comparison_selection_csv(c).find(",ompi-4.1,reduce/in-order_binary,0,4,1,ok,int64,affine\n"),
            std::string::npos)
      << comparison_selection_csv(c);
  EXPECT_NE(format_comparison(c).find("Picks, reduce"), std::string::npos);
}

TEST(Comparison, ReferenceEngines) {
  auto f = files();
  // A measurement makes itself the default reference; mpi-native before mpi.
  f[0].rows.push_back(row("mpi", "bcast/binomial", 1000, 0, 20));
  EXPECT_EQ(default_reference(f), Engine::mpi);
  f[0].rows.push_back(row("mpi-native", "bcast/binomial", 1000, 0, 20));
  EXPECT_EQ(default_reference(f), Engine::mpi_native);
  const Comparison c = compare_results(f, Engine::mpi);
  ASSERT_EQ(c.groups.size(), 1u);  // only the point the reference measured
  EXPECT_EQ(c.groups[0].candidates, 1);
  EXPECT_EQ(pick(c, c.groups[0], "sim").degradation, 1);  // the simulation is a selector now
}

TEST(Comparison, BadInput) {
  auto f = files();
  const auto fails = [](std::span<const ResultsFile> files, std::optional<Engine> ref, const std::string& fragment) {
    try {
      compare_results(files, ref);
      ADD_FAILURE() << "no error, expected " << fragment;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  fails(f, Engine::mpi, "a.csv, b.csv: no rows of the reference engine mpi");
  // Predictions only: nothing to compare with.
  fails(std::span(f).subspan(1), std::nullopt, "b.csv: no measured or simulated rows");
  // Engines that never meet at one point.
  std::vector<ResultsFile> apart = {{"x.csv", {row("sim", "bcast/binomial", 8, 0, 1)}},
                                    {"y.csv", {row("formula-derived", "bcast/binomial", 16, 0, 1)}}};
  fails(apart, std::nullopt, "x.csv, y.csv: no common points");
  f[1].rows.push_back(row("sim", "bcast/binomial", 1000, 0, 11));
  fails(f, std::nullopt, "b.csv: engine sim at bcast/binomial procs 4 bytes 1000 segment 0 root 0 is also in a.csv");
  f = files();
  f[0].rows.push_back(row("sim", "bcast/nonsense", 1000, 0, 11));
  fails(f, std::nullopt, "a.csv: unknown algorithm 'bcast/nonsense'");
}

class ResultsCsv : public ::testing::Test {
 protected:
  fs::path write(const std::string& text) {
    const fs::path p = fs::temp_directory_path() /
                       ("collsim-results-" + std::to_string(::getpid()) + "-" + std::to_string(paths_.size()) + ".csv");
    std::ofstream(p) << text;
    paths_.push_back(p);
    return p;
  }
  void TearDown() override {
    for (const auto& p : paths_) fs::remove(p);
  }
  std::vector<fs::path> paths_;
};

TEST_F(ResultsCsv, ReadsEveryRowInAnyColumnOrder) {
  const fs::path p = write(csv_header() + "\n" + csv_row(row("sim", "bcast/binomial", 1000, 0, 0.125)) +
                           "\n\ntime_s,op,engine,procs,bytes,segment,root\n");
  // The second header is read as a row and refused; a file with columns in another order is fine.
  EXPECT_THROW(read_results_csv(p.string()), InputError);
  const fs::path q = write("time_s,op,engine,procs,bytes,segment,root,extra\n0.5,bcast/binomial,sim,4,8KiB,0,1,x\n\n");
  const auto rows = read_results_csv(q.string());
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].time_s, 0.5);
  EXPECT_EQ(rows[0].bytes, 8192u);
  EXPECT_EQ(rows[0].root, 1);
  EXPECT_EQ(rows[0].median_s, 0.5);
}

// ci_target_met: 1 or 0 for a measured row, empty for a simulated one, and a file written before
// the column (its header ends the statistics at ci95_s) reads as unknown.
TEST_F(ResultsCsv, CiTargetMetRoundTripsAndOlderFilesLackIt) {
  Measurement met = row("mpi", "bcast/binomial", 1000, 0, 0.125);
  met.data = "ok";
  Measurement missed = met, simulated = met;
  met.ci_met = true;
  missed.ci_met = false;
  simulated.engine = "sim";
  EXPECT_NE(csv_row(met).find(",1,ok,"), std::string::npos) << csv_row(met);
  EXPECT_NE(csv_row(missed).find(",0,ok,"), std::string::npos) << csv_row(missed);
  const auto rows = read_results_csv(
      write(csv_header() + "\n" + csv_row(met) + "\n" + csv_row(missed) + "\n" + csv_row(simulated) + "\n").string());
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].ci_met, std::optional<bool>(true));
  EXPECT_EQ(rows[1].ci_met, std::optional<bool>(false));
  EXPECT_EQ(rows[2].ci_met, std::nullopt);
  const auto old = read_results_csv(
      write("engine,op,procs,bytes,segment,root,time_s,runs,mean_s,median_s,min_s,max_s,ci95_s,data,protocol,datatype,"
            "reduce_op\nmpi,bcast/binomial,4,1000,0,0,0.125,12,0.125,0.125,0.125,0.125,0.001,ok,,,\n")
          .string());
  ASSERT_EQ(old.size(), 1u);
  EXPECT_EQ(old[0].ci_met, std::nullopt);
  EXPECT_EQ(old[0].ci95_s, 0.001);
  EXPECT_TRUE(old[0].axes.empty());
}

TEST(ResultsCsvColumns, AnOlderHeaderAndItsRowsGainTheEmptyCiTargetMetCell) {
  const std::string old = "engine,op,time_s,ci95_s,data,taper,key";
  EXPECT_EQ(upgraded_results_header(old), "engine,op,time_s,ci95_s,ci_target_met,data,taper,key");
  EXPECT_EQ(upgraded_results_row(old, "mpi,bcast/binomial,1,0.5,\"a, b\",4,k1"),
            "mpi,bcast/binomial,1,0.5,,\"a, b\",4,k1");
  // A header with every column, or one that is no results header, stays as it is.
  EXPECT_EQ(upgraded_results_header(csv_header()), csv_header());
  EXPECT_EQ(upgraded_results_row(csv_header(), "x,y"), "x,y");
  EXPECT_EQ(upgraded_results_header("op,bytes,ours_s"), "op,bytes,ours_s");
}

// OSU timing's columns: written at full precision when the row has them, empty when not; read
// back as written. A file from before them (reduce_op its last standard column) gains three empty
// cells after reduce_op, in order, and reads as a row without them.
TEST_F(ResultsCsv, OsuColumnsRoundTripAndOlderFilesGainThemEmpty) {
  Measurement osu = simulated_measurement("model", "bcast/binomial", 4, 100000, 0, 0, 0.00022, "ok");
  osu.osu = OsuTimes{0.1 / 3, 0.00011, 0.00023};
  const Measurement plain = simulated_measurement("sim", "bcast/binomial", 4, 100000, 0, 0, 0.00022, "ok");
  EXPECT_NE(csv_row(osu).find(",0.03333333333333333,0.00011,0.00023"), std::string::npos) << csv_row(osu);
  EXPECT_TRUE(csv_row(plain).ends_with(",,,")) << csv_row(plain);
  const auto rows = read_results_csv(write(csv_header() + "\n" + csv_row(osu) + "\n" + csv_row(plain) + "\n").string());
  ASSERT_EQ(rows.size(), 2u);
  ASSERT_TRUE(rows[0].osu);
  EXPECT_EQ(rows[0].osu->avg_s, 0.1 / 3);
  EXPECT_EQ(rows[0].osu->min_s, 0.00011);
  EXPECT_EQ(rows[0].osu->max_s, 0.00023);
  EXPECT_FALSE(rows[1].osu);
  EXPECT_TRUE(rows[1].axes.empty());

  const std::string old = "engine,op,time_s,ci95_s,ci_target_met,datatype,reduce_op,taper,key";
  EXPECT_EQ(upgraded_results_header(old),
            "engine,op,time_s,ci95_s,ci_target_met,datatype,reduce_op,osu_avg_s,osu_min_s,osu_max_s,interval_low_s,"
            "interval_high_s,taper,key");
  EXPECT_EQ(upgraded_results_row(old, "mpi,bcast/binomial,1,0.5,1,,,4,k1"), "mpi,bcast/binomial,1,0.5,1,,,,,,,,4,k1");
  // Every kind of added column at once: ci_target_met after ci95_s, the osu ones after reduce_op,
  // the interval's after them.
  EXPECT_EQ(upgraded_results_row("engine,ci95_s,reduce_op,key", "model,0,sum,k"), "model,0,,sum,,,,,,k");
}

TEST_F(ResultsCsv, RefusesWhatIsNotAResultsFile) {
  const auto refused = [](const fs::path& p, const std::string& fragment) {
    try {
      read_results_csv(p.string());
      ADD_FAILURE() << "read " << p;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), p.string() + fragment);
    }
  };
  refused(fs::temp_directory_path() / "collsim-no-such-file.csv",
          ": cannot open the results file (No such file or directory)");
  refused(fs::temp_directory_path(), ": is a directory, not a results file");
  refused(write(""), ": not a collsim results CSV (the file is empty)");
  refused(write("op,bytes,ours_s\nbcast/binomial,8,1\n"),
          ":1: not a collsim results CSV (its header lacks engine,op,procs,bytes,segment,root,time_s)");
  const std::string header = "engine,op,procs,bytes,segment,root,time_s,mean_s\n";
  refused(write(header + "sim,bcast/binomial,4,1000,0,0,fast,1\n"),
          ":2: not a results row (time_s is 'fast', not a time (a non-negative number of seconds))");
  refused(write(header + "sim,bcast/binomial,4,1000,0,4,1,1\n"), ":2: not a results row (root is '4')");
  // As collsim merge and --resume read rows (results_row_problem): one cell per column, times
  // that are non-negative numbers.
  refused(write(header + "sim,bcast/binomial,4\n"), ":2: not a results row (3 cells, the header has 8)");
  refused(write(header + "sim,bcast/binomial,4,1000,0,0,1,1,extra\n"),
          ":2: not a results row (9 cells, the header has 8)");
  refused(write(header + "sim,bcast/binomial,4,1000,0,0,-1e-05,1\n"),
          ":2: not a results row (time_s is '-1e-05', not a time (a non-negative number of seconds))");
  refused(write(header + "sim,bcast/binomial,4,1000,0,0,1,nan\n"),
          ":2: not a results row (mean_s is 'nan', not a time (a non-negative number of seconds))");
  refused(write(csv_header() + "\nmpi,bcast/binomial,4,1000,0,0,1,3,1,1,1,1,0.1,yes,ok,,,,,,,,\n"),
          ":2: not a results row (ci_target_met is 'yes')");
}

}  // namespace
}  // namespace collsim
