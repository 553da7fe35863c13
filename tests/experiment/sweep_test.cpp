// run_sweep's resume and completeness rules on a plan of its own: a unit stopped part-way is run
// again on --resume (its missing rows come back, the rows it wrote are kept), and run.json says
// "complete" only when every planned point has its row.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/files.hpp"
#include "experiment/sweep/mpi_launcher.hpp"
#include "experiment/sweep/sweep.hpp"

namespace collsim {
namespace {

namespace fs = std::filesystem;

// mpi.launches: of launches timed 5, 2, 4 and 3 (here the rows are their times), the fastest is
// 2; the median of the four is the lower middle one, 3; of one launch, that one.
TEST(MpiLaunches, TheFastestOrTheLowerMiddleLaunch) {
  const auto self = [](double t) { return t; };
  EXPECT_EQ(pick_launch(std::vector<double>{5, 2, 4, 3}, true, self), 2);
  EXPECT_EQ(pick_launch(std::vector<double>{5, 2, 4, 3}, false, self), 3);
  EXPECT_EQ(pick_launch(std::vector<double>{5, 2, 4}, false, self), 4);
  EXPECT_EQ(pick_launch(std::vector<double>{7}, false, self), 7);
}

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("collsim-sweep-test-" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  return dir;
}

using collsim_test::slurp;

// Six points in three units: {0, 1, 2}, {3}, {4, 5}. A point's row is "v<point>".
Sweep plan() {
  Sweep sw;
  sw.kind = "collective";
  sw.header = "value";
  sw.keys = {"k0", "k1", "k2", "k3", "k4", "k5"};
  sw.fingerprint = "test-plan";
  sw.units = {{{0, 1, 2}}, {{3}}, {{4, 5}}};
  sw.json_head = {"  \"tool\": \"sweep_test\""};
  return sw;
}

// A point's row. (Built without `"v" + std::string`, for which GCC 12 warns falsely: -Wrestrict.)
std::string row(std::size_t point) {
  std::string r = std::to_string(point);
  r.insert(r.begin(), 'v');
  return r;
}

using Emit = std::function<void(std::size_t, const std::string&)>;

std::vector<std::string> run(const Sweep& sw, const fs::path& dir, bool resume) {
  SweepOptions o;
  o.jobs = 1;
  o.resume = resume;
  o.progress = false;
  std::ostringstream err;
  return run_sweep(
      sw, dir.string(), o, [](const std::vector<std::string>&) { return "complete"; }, "", err, [] {});
}

std::string status_of(const fs::path& dir) {
  const std::string json = slurp(dir / "run.json");
  const auto at = json.find("\"status\": \"");
  if (at == std::string::npos) return "";
  const auto from = at + 11;
  return json.substr(from, json.find('"', from) - from);
}

const std::string kWhole = "value,key\nv0,k0\nv1,k1\nv2,k2\nv3,k3\nv4,k4\nv5,k5\n";

// The first unit writes the row of its first point and stops (as a killed worker would, the run
// failing); resumed, that unit runs again, and the result is the uninterrupted run's.
TEST(SweepResume, AUnitStoppedPartWayRunsAgain) {
  const fs::path dir = scratch("part-way");
  Sweep sw = plan();
  sw.run_unit = [](const SweepUnit& u, const Emit& emit) {
    emit(u.points.front(), row(u.points.front()));
    if (u.points.front() == 0) throw std::runtime_error("stopped");
    for (std::size_t k = 1; k < u.points.size(); ++k) emit(u.points[k], row(u.points[k]));
  };
  EXPECT_THROW(run(sw, dir, false), std::runtime_error);
  EXPECT_EQ(slurp(dir / "results.csv"), "value,key\nv0,k0\n");
  EXPECT_EQ(status_of(dir).rfind("failed", 0), 0u) << status_of(dir);

  sw.run_unit = [](const SweepUnit& u, const Emit& emit) {
    for (std::size_t p : u.points) emit(p, row(p));
  };
  const std::vector<std::string> rows = run(sw, dir, true);
  EXPECT_EQ(rows.size(), 6u);
  EXPECT_EQ(slurp(dir / "results.csv"), kWhole);
  EXPECT_EQ(status_of(dir), "complete");
}

// A run whose units end without some of their rows (no error from them) is not complete: it
// fails, run.json says how many points lack a row, and a resume then finishes it.
TEST(SweepResume, CompleteOnlyWhenEveryPlannedPointHasItsRow) {
  const fs::path dir = scratch("rows-missing");
  Sweep sw = plan();
  sw.run_unit = [](const SweepUnit& u, const Emit& emit) {
    for (std::size_t p : u.points)
      if (p != 2 && p != 5) emit(p, row(p));
  };
  try {
    run(sw, dir, false);
    FAIL() << "a run without all its rows succeeded";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("2 of the 6 planned points have no row"), std::string::npos) << e.what();
  }
  EXPECT_EQ(status_of(dir).rfind("failed: 2 of the 6 planned points have no row", 0), 0u) << status_of(dir);
  EXPECT_EQ(slurp(dir / "results.csv"), "value,key\nv0,k0\nv1,k1\nv3,k3\nv4,k4\n");

  sw.run_unit = [](const SweepUnit& u, const Emit& emit) {
    for (std::size_t p : u.points) emit(p, row(p));
  };
  run(sw, dir, true);
  EXPECT_EQ(slurp(dir / "results.csv"), kWhole);
  EXPECT_EQ(status_of(dir), "complete");
}

}  // namespace
}  // namespace collsim
