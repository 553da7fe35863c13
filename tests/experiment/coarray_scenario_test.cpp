// Coarray scenarios (experiment/scenario/coarray_scenario.hpp, coarray_runner.hpp): a good file loads with
// the meaning scenarios/README.md gives each field, every problem names its FILE:LINE:COLUMN,
// sweeps multiply in the documented order, the mpi engines' command lines carry the shared point
// options, and a tiny study runs on the model engine, writing checked rows.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/files.hpp"
#include "experiment/results/coarray_point.hpp"
#include "experiment/results/measurement.hpp"
#include "experiment/scenario/coarray_scenario.hpp"
#include "experiment/scenario/plan_keys.hpp"
#include "experiment/scenario/scenario_error.hpp"
#include "experiment/sweep/coarray_runner.hpp"

namespace collsim {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = COLLSIM_SOURCE_DIR;

using collsim_test::slurp;
using collsim_test::write_file;

fs::path fresh_dir(const std::string& name) { return collsim_test::fresh_dir("coarray-scenario", name); }

// A scenario head naming the platform by absolute path, then `points` (YAML text, indented by 4).
std::string scenario(const std::string& points, const std::string& engines = "[model]", const std::string& extra = "") {
  return "name: tiny\nplatform: " + (kSource / "platforms/grisou.xml").string() + "\nengines: " + engines + "\n" +
         extra + "coarray:\n  points:\n" + points;
}

const std::string kGroup =
    "    - sweep: s\n"
    "      local: \":,:\"\n"
    "      local_shape: 100,4\n"
    "      remote: \"1:100,:\"\n"
    "      remote_shape: 200,4\n";

// The message of load_coarray_scenario on `text`, or "" when it loads.
std::string load_error(const std::string& text) {
  const fs::path p = write_file(fresh_dir("error") / "s.yaml", text);
  try {
    load_coarray_scenario(p.string());
  } catch (const ScenarioError& e) {
    return std::string(e.what()).substr(p.string().size());
  }
  return "";
}

// Of the model's settings a coarray scenario takes the copy's rate and per-call cost (the model
// is the platform's otherwise); win_sync's cost is not one of them.
TEST(CoarrayScenario, TheModelsCopyCosts) {
  const fs::path p = write_file(fresh_dir("copy") / "s.yaml",
                                scenario(kGroup, "[model]", "model: {copy_bandwidth: 5GBps, copy_overhead: 30ns}\n"));
  const CoarrayScenario sc = load_coarray_scenario(p.string());
  EXPECT_EQ(sc.model.copy_bandwidth, 5e9);
  EXPECT_DOUBLE_EQ(sc.model.copy_overhead, 30e-9);
  EXPECT_NE(load_error(scenario(kGroup, "[model]", "model: {copy_overhead: -1ns}\n")).find("model.copy_overhead"),
            std::string::npos);
  EXPECT_NE(load_error(scenario(kGroup, "[model]", "model: {sync_overhead: 1us}\n")).find("sync_overhead"),
            std::string::npos);
}

TEST(CoarrayScenario, GoodFileLoads) {
  const fs::path p = write_file(
      fresh_dir("good") / "s.yaml",
      scenario(kGroup + "      mode: [blocking, nonblocking]\n"
                        "      buffer: [4000, 400KB]\n"
                        "      statements: [1, 4]\n"
                        "      registered: [false, true]\n"
                        "      packing: [table1, omni]\n"
                        "    - {op: get, elem: 4, local: \":\", local_shape: \"10\", remote: \"1:20:2\", "
                        "remote_shape: \"20\", get_behaviour: omni}\n",
               "[model, sim, mpi, caf-native]", "model: {copy_bandwidth: 5.0e+9}\nmpi: {min_runs: 3, max_runs: 7}\n"));
  EXPECT_TRUE(is_coarray_scenario(p.string()));
  const CoarrayScenario sc = load_coarray_scenario(p.string());
  EXPECT_EQ(sc.engines, (std::vector<Engine>{Engine::model, Engine::sim, Engine::mpi, Engine::caf_native}));
  EXPECT_EQ(sc.model.copy_bandwidth, 5e9);
  EXPECT_EQ(sc.model.kind, ModelConfig::Kind::two_level);  // from the platform
  EXPECT_GT(sc.model.two_level.inter.alpha, 0);
  EXPECT_EQ(sc.mpi.min_runs, 3);
  EXPECT_TRUE(sc.real_bytes);
  ASSERT_EQ(sc.groups.size(), 2u);
  const CoarrayGroup& a = sc.groups[0];
  EXPECT_EQ(a.label, "s");
  EXPECT_EQ(a.local.contiguous_bytes(), 3200u);
  EXPECT_EQ(a.remote.contiguous_bytes(), 800u);
  EXPECT_EQ(a.buffers, (std::vector<std::size_t>{4000, 400000}));
  EXPECT_EQ(a.registered, (std::vector<bool>{false, true}));
  EXPECT_EQ(a.packings, (std::vector<coarray::Packing>{coarray::Packing::table1, coarray::Packing::omni}));
  const CoarrayGroup& b = sc.groups[1];
  EXPECT_TRUE(b.get);
  EXPECT_EQ(b.label, "group 2");
  EXPECT_EQ(b.local.shape().element_bytes, 4u);
  EXPECT_EQ(b.get_behaviour, coarray::GetBehaviour::omni);
  EXPECT_EQ(b.packings, (std::vector<coarray::Packing>{coarray::Packing::table1}));
}

// A point's key names Omni's packing only when it is chosen: the keys of folders written before
// the packing existed, all Table 1's, are unchanged, so those folders resume.
TEST(CoarrayScenario, PackingKeyOnlyWhenOmni) {
  const fs::path p = write_file(fresh_dir("keys") / "s.yaml", scenario(kGroup + "      packing: [table1, omni]\n"));
  const CoarrayScenario sc = load_coarray_scenario(p.string());
  const auto plan = expand_coarray_plan(sc);
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(coarray_point_text(sc, plan[0]),
            "engine=model;sweep=s;op=coarray/put;local=1:100,1:4;local_shape=100,4;remote=1:100,1:4;"
            "remote_shape=200,4;elem=8;statements=1;buffer=400000;registered=0;get_behaviour=table1;images=2");
  EXPECT_EQ(coarray_point_text(sc, plan[1]),
            "engine=model;sweep=s;op=coarray/put;local=1:100,1:4;local_shape=100,4;remote=1:100,1:4;"
            "remote_shape=200,4;elem=8;statements=1;buffer=400000;registered=0;get_behaviour=table1;packing=omni;"
            "images=2");
}

// A results row from before the packing, sync, pattern and images columns gains an empty cell for
// each, and reads as Table 1's packing, a segment ended by sync memory, pattern one on 2 images.
TEST(CoarrayScenario, ResultsWithoutPackingReadAsTable1) {
  const std::string old =
      "engine,op,case,nl_bytes,nr_bytes,buffer,unit_bytes,transfers,copies,time_s,local,local_shape,remote,"
      "remote_shape,elem_bytes,statements,registered,get_behaviour,bytes,runs,min_s,ci95_s,ci_target_met,data";
  const std::string row =
      "model,coarray/put,3,8,800,256,256,4,100,0.001,1:200:2,200,1:100,100,8,1,0,table1,800,1,"
      "0.001,0,,ok";
  EXPECT_EQ(upgraded_results_header(old), coarray_csv_header());
  const std::string upgraded = upgraded_results_row(old, row);
  EXPECT_EQ(upgraded,
            "model,coarray/put,3,8,800,256,256,4,100,0.001,1:200:2,200,1:100,100,8,1,0,table1,,,,,800,1,"
            "0.001,0,,ok");
  const auto rows = parse_coarray_csv(coarray_csv_header() + "\n" + upgraded + "\n");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].point.options.packing, coarray::Packing::table1);
  EXPECT_EQ(rows[0].point.sync, coarray::SyncKind::memory);
  EXPECT_EQ(rows[0].point.pattern, coarray::Pattern::one);
  EXPECT_EQ(rows[0].point.images, 2);
  EXPECT_EQ(parse_coarray_csv(old + "\n" + row + "\n").at(0).point.options.packing, coarray::Packing::table1);
  EXPECT_EQ(parse_coarray_csv(old + "\n" + row + "\n").at(0).point.sync, coarray::SyncKind::memory);
}

// `sync` is an axis inside packing, outside statements; only a sync other than memory is named in
// a point's key (so the keys of results written before it resume) and on the measured engines'
// command lines (caf-native's too: the segment's end is the statement's, not Omni's runtime's);
// the results row names it and reads back; a row with another value is refused.
TEST(CoarrayScenario, SyncIsAnAxis) {
  const fs::path p = write_file(
      fresh_dir("sync") / "s.yaml",
      scenario(kGroup + "      sync: [memory, all, images]\n      statements: [1, 2]\n", "[model, caf-native]",
               "mpi: {launcher: [mpirun], min_runs: 3, max_runs: 9, ci_target: 0.05}\n"));
  CoarrayScenario sc = load_coarray_scenario(p.string());
  sc.caf_program = "/opt/collsim-caf";
  const auto plan = expand_coarray_plan(sc);
  ASSERT_EQ(plan.size(), 12u);
  const coarray::SyncKind want[] = {coarray::SyncKind::memory, coarray::SyncKind::all, coarray::SyncKind::images};
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(plan[i].point.sync, want[i / 2]) << i;
    EXPECT_EQ(plan[i].point.statements, i % 2 == 0 ? 1u : 2u) << i;
  }
  const std::string head =
      "engine=model;sweep=s;op=coarray/put;local=1:100,1:4;local_shape=100,4;remote=1:100,1:4;remote_shape=200,4;"
      "elem=8;statements=1;buffer=400000;registered=0;get_behaviour=table1;";
  EXPECT_EQ(coarray_point_text(sc, plan[0]), head + "images=2");
  EXPECT_EQ(coarray_point_text(sc, plan[2]), head + "sync=all;images=2");
  EXPECT_EQ(coarray_point_text(sc, plan[4]), head + "sync=images;images=2");
  auto joined = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& a : v) s += (s.empty() ? "" : " ") + a;
    return s;
  };
  EXPECT_EQ(joined(coarray_mpi_command(sc, Engine::caf_native, plan[8].point)),
            "mpirun -np 2 /opt/collsim-caf --put --local 1:100,1:4 --local-shape 100,4 --remote 1:100,1:4 "
            "--remote-shape 200,4 --elem 8 --statements 1 --sync all --origin 1 --target 2 --min-runs 3 "
            "--max-runs 9 --ci-target 0.05 --csv");
  CoarrayRow row;
  row.engine = "model";
  row.point = plan[4].point;
  row.data = "ok";
  const std::string csv = coarray_csv_header() + "\n" + coarray_csv_row(row) + "\n";
  EXPECT_NE(coarray_csv_row(row).find(",table1,images,"), std::string::npos) << coarray_csv_row(row);
  EXPECT_EQ(parse_coarray_csv(csv).at(0).point.sync, coarray::SyncKind::images);
  std::string bad = csv;
  bad.replace(bad.find(",images,", bad.find('\n')), 8, ",images2,");  // the row's sync, not the header's column
  EXPECT_THROW(parse_coarray_csv(bad), InputError);
}

// `images` and `pattern` are the innermost axes (pattern innermost); a point's key names a pattern
// other than one, and its images; the measured engines' command lines take -np from the point and
// name the pattern instead of --origin/--target; halo on 2 images and an unknown pattern are
// refused at their place.
TEST(CoarrayScenario, ImagesAndPatternAreAxes) {
  const fs::path p = write_file(fresh_dir("pattern") / "s.yaml",
                                scenario(kGroup + "      images: [3, 4]\n      pattern: [one, all-to-one, halo]\n",
                                         "[model, mpi]", "mpi: {launcher: [mpirun], min_runs: 3, max_runs: 9}\n"));
  const CoarrayScenario sc = load_coarray_scenario(p.string());
  const auto plan = expand_coarray_plan(sc);
  ASSERT_EQ(plan.size(), 12u);
  EXPECT_EQ(plan[0].point.images, 3);
  EXPECT_EQ(plan[1].point.pattern, coarray::Pattern::all_to_one);
  EXPECT_EQ(plan[5].point.images, 4);
  EXPECT_EQ(plan[5].point.pattern, coarray::Pattern::halo);
  const std::string head =
      "engine=model;sweep=s;op=coarray/put;local=1:100,1:4;local_shape=100,4;remote=1:100,1:4;remote_shape=200,4;"
      "elem=8;statements=1;buffer=400000;registered=0;get_behaviour=table1;";
  EXPECT_EQ(coarray_point_text(sc, plan[0]), head + "images=3");
  EXPECT_EQ(coarray_point_text(sc, plan[5]), head + "pattern=halo;images=4");
  const std::vector<std::string> argv = coarray_mpi_command(sc, Engine::mpi, plan[11].point);
  std::string line;
  for (const auto& a : argv) line += " " + a;
  EXPECT_NE(line.find(" -np 4 "), std::string::npos) << line;
  EXPECT_NE(line.find(" --pattern halo "), std::string::npos) << line;
  EXPECT_EQ(line.find("--origin"), std::string::npos) << line;
  CoarrayRow row;
  row.engine = "model";
  row.point = plan[5].point;
  row.data = "ok";
  const auto back = parse_coarray_csv(coarray_csv_header() + "\n" + coarray_csv_row(row) + "\n").at(0).point;
  EXPECT_EQ(back.pattern, coarray::Pattern::halo);
  EXPECT_EQ(back.images, 4);

  EXPECT_NE(load_error(scenario(kGroup + "      pattern: [ring, halo]\n"))
                .find(":11:23: pattern: halo needs at least 3 images"),
            std::string::npos)
      << load_error(scenario(kGroup + "      pattern: [ring, halo]\n"));
  EXPECT_NE(load_error(scenario(kGroup + "      pattern: star\n"))
                .find("pattern: 'star' is not one, all-to-one, ring or halo"),
            std::string::npos);
  EXPECT_NE(load_error(scenario(kGroup + "      images: 1\n")).find("images"), std::string::npos);
  // A group's images beyond the platform's room are refused where the group asks for them.
  EXPECT_NE(load_error(scenario(kGroup + "      images: [2, 100000]\n", "[sim]")).find(":11:"), std::string::npos)
      << load_error(scenario(kGroup + "      images: [2, 100000]\n", "[sim]"));
}

TEST(CoarrayScenario, CollectiveScenarioIsNotCoarray) {
  EXPECT_FALSE(is_coarray_scenario((kSource / "scenarios/quickstart.yaml").string()));
  EXPECT_TRUE(is_coarray_scenario((kSource / "scenarios/coarray-cases.yaml").string()));
  EXPECT_NO_THROW(load_coarray_scenario((kSource / "scenarios/coarray-cases.yaml").string()));
}

// The README's example loads, so the documentation cannot drift from the loader.
TEST(CoarrayScenario, ReadmeExampleLoads) {
  const std::string doc = slurp(kSource / "scenarios/README.md");
  const auto section = doc.find("## Coarray scenarios");
  ASSERT_NE(section, std::string::npos);
  const auto start = doc.find("```yaml\n", section) + 8;
  std::string text = doc.substr(start, doc.find("```", start) - start);
  const std::string relative = "../platforms/grisou.xml";
  text.replace(text.find(relative), relative.size(), (kSource / "platforms/grisou.xml").string());
  const fs::path p = write_file(fresh_dir("readme") / "s.yaml", text);
  const CoarrayScenario sc = load_coarray_scenario(p.string());
  ASSERT_EQ(sc.groups.size(), 2u);
  EXPECT_EQ(sc.groups[0].label, "strided");
  EXPECT_EQ(sc.groups[0].local.contiguous_bytes(), 8000u);
  EXPECT_EQ(sc.groups[0].remote.contiguous_bytes(), 160000u);
  EXPECT_EQ(sc.model.copy_bandwidth, 5e9);
  EXPECT_EQ(sc.sim.protocol, "tcp+shm");
  EXPECT_EQ(expand_coarray_plan(sc).size(),
            4u * (4 * 2 * 2 * 2 * 2 * 3 * 2 * 2 + 1));  // mode (blocking and 3 non-blocking), buffer,
                                                        // statements, registered, packing, sync, images, pattern
}

TEST(CoarrayScenario, ErrorsNameTheirPosition) {
  EXPECT_EQ(
      load_error(scenario(kGroup + "      colour: red\n")),
      ":11:7: unknown key 'colour' in a coarray point group (expected one of: sweep, op, mode, elem, local, "
      "local_shape, remote, remote_shape, buffer, statements, registered, registration, heap, get_behaviour, packing, "
      "nonblocking, sync, scheme, pattern, images)");
  EXPECT_EQ(load_error(scenario(kGroup + "      op: send\n")), ":11:11: op: 'send' is not put or get");
  EXPECT_EQ(load_error(scenario(kGroup + "      buffer: [4000, 0]\n")), ":11:22: buffer must be at least 1 byte");
  EXPECT_EQ(load_error(scenario(kGroup + "      statements: [1, x]\n")),
            ":11:23: statements: 'x' is not a whole number");
  EXPECT_EQ(load_error(scenario(kGroup + "      packing: [omni, fujitsu]\n")),
            ":11:23: packing: 'fujitsu' is not table1 or omni");
  EXPECT_EQ(load_error(scenario(kGroup + "      packing: [omni, omni]\n")).substr(0, 7), ":11:23:");
  EXPECT_EQ(load_error(scenario(kGroup + "      sync: [all, barrier]\n")),
            ":11:19: sync: 'barrier' is not memory, all or images");
  EXPECT_EQ(load_error(scenario(kGroup + "      sync: [images, images]\n")).substr(0, 7), ":11:22:");
  EXPECT_EQ(load_error(scenario(kGroup + "      registered: maybe\n")),
            ":11:19: registered: 'maybe' is not true or false");
  EXPECT_EQ(load_error(scenario(kGroup + "      mode: [blocking, eager]\n")),
            ":11:24: mode: 'eager' is not blocking or nonblocking");
  EXPECT_EQ(load_error(scenario(kGroup + "      op: get\n      mode: nonblocking\n")),
            ":12:13: mode: nonblocking applies to op: put only (GET always blocks)");
  EXPECT_EQ(load_error(scenario(kGroup + "      mode: nonblocking\n      nonblocking: [safe, eager]\n")),
            ":12:27: nonblocking: 'eager' is not safe, nowait or double");
  EXPECT_EQ(load_error(scenario(kGroup + "      nonblocking: nowait\n")),
            ":11:20: nonblocking applies to mode: nonblocking only (op: put, a non-blocking PUT)");
  EXPECT_EQ(load_error(scenario(kGroup, "[model, gpu]")),
            ":3:18: 'gpu' is not a coarray engine: model, sim, mpi, caf-native");
  // Sections: the algorithms' message, at the text that is wrong.
  std::string e = load_error(
      scenario("    - {local: \"1:200,:\", local_shape: \"100,4\", remote: \"1:100,:\", remote_shape: \"200,4\"}\n"));
  EXPECT_EQ(e.substr(0, 14), ":6:15: local: ") << e;
  e = load_error(scenario("    - {local: \":\", local_shape: \"100,0\", remote: \":\", remote_shape: \"100\"}\n"));
  EXPECT_EQ(e.substr(0, 20), ":6:33: local_shape: ") << e;
  e = load_error(scenario("    - {local: \":\", local_shape: \"100\", remote: \":\", remote_shape: \"99\"}\n"));
  EXPECT_EQ(e.substr(0, 7), ":6:48: ") << e;  // not conformable: at the remote section
  EXPECT_EQ(load_error(scenario("    - {local: \":\", local_shape: \"100\"}\n")),
            ":6:7: a coarray point group needs 'remote'");
  EXPECT_EQ(load_error(scenario("    []\n")).substr(0, 7), ":6:5: c");
  EXPECT_EQ(load_error("engines: [model]\ncoarray: {points: []}\n"),
            ":1:10: the model and sim engines need a 'platform' (a SimGrid platform file)");
  // Slips, refused as in collective scenarios (scenario_test.cpp): a repeated key or value, a
  // name that is no plain name.
  EXPECT_EQ(load_error(scenario(kGroup + "      local: \":,1\"\n")), ":11:7: duplicate key 'local' (first at line 7)");
  EXPECT_EQ(load_error(scenario(kGroup, "[model, model]")),
            ":3:18: engines: 'model' is listed twice (item 1 is the same)");
  EXPECT_EQ(load_error(scenario(kGroup + "      buffer: [400, 4000, 400]\n")),
            ":11:27: buffer: '400' is listed twice (item 1 is the same)");
  EXPECT_EQ(load_error(std::string("name: a/b\n") + scenario(kGroup).substr(std::string("name: tiny\n").size())),
            ":1:7: name: 'a/b' is not a plain name (it names the results folder results/NAME: not empty, not . or "
            ".., no /)");
}

// registration: a sweep of registered points only; Omni's heap refuses a group whose array
// registered once does not fit (3200 bytes + B = 403200 in a heap of 1 KiB).
TEST(CoarrayScenario, RegistrationSweepAndOmnisHeap) {
  const fs::path p =
      write_file(fresh_dir("registration") / "s.yaml",
                 scenario(kGroup + "      registered: [false, true]\n      registration: [once, per-statement]\n"));
  const CoarrayScenario sc = load_coarray_scenario(p.string());
  const auto plan = expand_coarray_plan(sc);
  ASSERT_EQ(plan.size(), 3u);
  EXPECT_FALSE(plan[0].point.options.registered);
  EXPECT_EQ(plan[1].point.options.registration, coarray::RegisterWhen::once);
  EXPECT_EQ(plan[2].point.options.registration, coarray::RegisterWhen::per_statement);
  EXPECT_EQ(coarray_point_text(sc, plan[1]).find("registration="), std::string::npos);
  EXPECT_NE(coarray_point_text(sc, plan[2]).find(";registered=1;get_behaviour=table1;registration=per-statement;"),
            std::string::npos);
  EXPECT_EQ(load_error(scenario(kGroup + "      registration: once\n")),
            ":11:21: registration applies to registered: true only");
  EXPECT_EQ(load_error(scenario(kGroup + "      registered: true\n      registration: [once, sometimes]\n")),
            ":12:28: registration: 'sometimes' is not once or per-statement");
  EXPECT_EQ(load_error(scenario(kGroup + "      registered: true\n      heap: 1KiB\n")).substr(0, 60),
            ":12:13: registered: the registered local array (3200 bytes) ");
  EXPECT_EQ(
      load_error(scenario(kGroup + "      registered: true\n      registration: per-statement\n      heap: 1KiB\n")),
      "");
}

TEST(CoarrayScenario, SweepsMultiply) {
  const fs::path p = write_file(fresh_dir("plan") / "s.yaml", scenario(kGroup +
                                                                           "      mode: [blocking, nonblocking]\n"
                                                                           "      buffer: [400, 4000, 40000]\n"
                                                                           "      statements: [1, 2, 4, 8, 16]\n"
                                                                           "      registered: [false, true]\n" +
                                                                           kGroup,
                                                                       "[model, sim]"));
  const auto plan = expand_coarray_plan(load_coarray_scenario(p.string()));
  ASSERT_EQ(plan.size(), 2u * (2 * 2 * 3 * 5 + 1));
  // Engines outermost, statements innermost, then buffer, registered, mode.
  EXPECT_EQ(plan[0].engine, Engine::model);
  EXPECT_EQ(plan[1].point.statements, 2u);
  EXPECT_EQ(plan[5].point.options.buffer_bytes, 4000u);
  EXPECT_TRUE(plan[15].point.options.registered);
  EXPECT_EQ(plan[30].point.mode, coarray::PutMode::nonblocking);
  EXPECT_EQ(plan[61].engine, Engine::sim);
  EXPECT_EQ(plan[61].index, 0u);
  EXPECT_EQ(plan[60].index, 60u);
}

// `nonblocking` replaces the group's non-blocking mode by its list, in place: blocking, then
// safe, nowait and double, each with both statement counts; the mpi engine's command names it.
TEST(CoarrayScenario, NonBlockingModesAreAnAxis) {
  const fs::path p =
      write_file(fresh_dir("modes") / "s.yaml", scenario(kGroup + "      mode: [blocking, nonblocking]\n"
                                                                  "      nonblocking: [safe, nowait, double]\n"
                                                                  "      statements: [1, 3]\n"));
  const auto plan = expand_coarray_plan(load_coarray_scenario(p.string()));
  ASSERT_EQ(plan.size(), 8u);
  const coarray::PutMode want[] = {coarray::PutMode::blocking, coarray::PutMode::nonblocking, coarray::PutMode::nowait,
                                   coarray::PutMode::double_buffered};
  for (std::size_t i = 0; i < plan.size(); ++i) {
    EXPECT_EQ(plan[i].point.mode, want[i / 2]) << i;
    EXPECT_EQ(plan[i].point.statements, i % 2 == 0 ? 1u : 3u) << i;
  }
  EXPECT_EQ(plan[4].point.op(), "coarray/put-nb-nowait");
  EXPECT_EQ(plan[6].point.op(), "coarray/put-nb-double");
}

// `scheme: datatype` runs every point of its group as one datatype transfer a statement: its key
// names it, collsim-mpi is given --scheme datatype and none of Table 1's runtime options, and the
// keys that mean nothing for it are refused where they are written.
TEST(CoarrayScenario, DatatypeScheme) {
  const fs::path p = write_file(fresh_dir("dt") / "s.yaml",
                                scenario(kGroup + "      scheme: datatype\n      mode: [blocking, nonblocking]\n",
                                         "[model, mpi]", "mpi: {launcher: [mpirun], program: /opt/collsim-mpi}\n"));
  const CoarrayScenario sc = load_coarray_scenario(p.string());
  const auto plan = expand_coarray_plan(sc);
  ASSERT_EQ(plan.size(), 4u);
  EXPECT_EQ(plan[0].point.options.scheme, coarray::Method::datatype);
  EXPECT_EQ(coarray_point_text(sc, plan[0]),
            "engine=model;sweep=s;op=coarray/put;local=1:100,1:4;local_shape=100,4;remote=1:100,1:4;"
            "remote_shape=200,4;elem=8;statements=1;buffer=400000;registered=0;get_behaviour=table1;scheme=datatype;"
            "images=2");
  std::string line;
  for (const auto& a : coarray_mpi_command(sc, Engine::mpi, plan[3].point)) line += (line.empty() ? "" : " ") + a;
  EXPECT_EQ(line,
            "mpirun -np 2 /opt/collsim-mpi coarray --put --local 1:100,1:4 --local-shape 100,4 --remote 1:100,1:4 "
            "--remote-shape 200,4 --elem 8 --statements 1 --nonblocking safe --scheme datatype --origin 1 --target 2 "
            "--min-runs 10 --max-runs 200 --ci-target 0.025 --csv");
  EXPECT_EQ(load_error(scenario(kGroup + "      scheme: vector\n")),
            ":11:15: scheme: 'vector' is not table1 or datatype");
  EXPECT_EQ(load_error(scenario(kGroup + "      scheme: datatype\n      packing: omni\n")),
            ":12:16: packing means nothing with scheme: datatype (no buffer, nothing registered)");
  EXPECT_EQ(load_error(scenario(kGroup + "      scheme: datatype\n      buffer: 4000\n")),
            ":12:15: buffer means nothing with scheme: datatype (no buffer, nothing registered)");
  EXPECT_EQ(load_error(scenario(kGroup + "      scheme: datatype\n", "[model, caf-native]")),
            ":11:15: scheme: datatype cannot run on caf-native: Debian's OpenCoarrays is built without -DSTRIDED "
            "(drop caf-native from engines, or the key)");
}

TEST(CoarrayScenario, MpiCommandLines) {
  const fs::path q =
      write_file(fresh_dir("mpi2") / "s.yaml",
                 scenario(kGroup + "      mode: nonblocking\n      statements: 4\n      registered: true\n" +
                              "    - {op: get, local: \":\", local_shape: \"10\", remote: \"1:20:2\", "
                              "remote_shape: \"20\"}\n",
                          "[mpi, caf-native]",
                          "mpi: {launcher: [mpirun, -x, A], program: /opt/collsim-mpi, min_runs: 3, "
                          "max_runs: 9, ci_target: 0.05}\n"));
  CoarrayScenario sc = load_coarray_scenario(q.string());
  sc.caf_program = "/opt/collsim-caf";
  const auto plan = expand_coarray_plan(sc);
  ASSERT_EQ(plan.size(), 4u);
  auto joined = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& a : v) s += (s.empty() ? "" : " ") + a;
    return s;
  };
  EXPECT_EQ(joined(coarray_mpi_command(sc, Engine::mpi, plan[0].point)),
            "mpirun -x A -np 2 /opt/collsim-mpi coarray --put --local 1:100,1:4 --local-shape 100,4 --remote "
            "1:100,1:4 --remote-shape 200,4 --elem 8 --statements 4 --nonblocking safe --buffer 400000 --registered "
            "--origin 1 "
            "--target 2 --min-runs 3 --max-runs 9 --ci-target 0.05 --csv");
  EXPECT_EQ(joined(coarray_mpi_command(sc, Engine::caf_native, plan[3].point)),
            "mpirun -x A -np 2 /opt/collsim-caf --get --local 1:10 --local-shape 10 --remote 1:20:2 --remote-shape 20 "
            "--elem 8 --statements 1 --origin 1 --target 2 --min-runs 3 --max-runs 9 --ci-target 0.05 --csv");
  // Absent programs: one line each, and the plan runs without them.
  EXPECT_EQ(coarray_engine_unavailable(sc, Engine::mpi), "/opt/collsim-mpi is not built");
  EXPECT_EQ(coarray_engine_unavailable(sc, Engine::caf_native), "/opt/collsim-caf is not built");
  std::vector<std::string> skipped;
  std::size_t rows = 0;
  run_coarray_plan(
      sc, plan, [&](const CoarrayPlanPoint&, const CoarrayRow&) { ++rows; },
      [&](const std::string& engine, const std::string&) { skipped.push_back(engine); });
  EXPECT_EQ(rows, 0u);
  EXPECT_EQ(skipped, (std::vector<std::string>{"mpi", "caf-native"}));
}

TEST(CoarrayScenario, TinyRunOnModel) {
  const fs::path dir = fresh_dir("run");
  const fs::path p =
      write_file(dir / "s.yaml", scenario(kGroup + "      buffer: [400, 400000]\n      statements: [1, 2]\n", "[model]",
                                          "model: {copy_bandwidth: 5.0e+9}\n"));
  std::ostringstream out, err;
  ASSERT_EQ(run_coarray_scenario(p.string(), (dir / "out").string(), "", false, out, err), 0) << err.str();
  const std::string csv = slurp(dir / "out/results.csv");
  std::istringstream lines(csv);
  std::vector<std::string> rows;
  for (std::string l; std::getline(lines, l);) rows.push_back(l);
  ASSERT_EQ(rows.size(), 5u) << csv;
  EXPECT_EQ(rows[0], coarray_results_header() + ",key");
  // NL 3200 (the whole local array), NR 800 (half the coarray's first dimension): B = 400 is case
  // 4, B = 400000 case 1; every row's bytes checked.
  EXPECT_EQ(rows[1].substr(0, 33), "model,coarray/put,4,3200,800,400,");
  EXPECT_EQ(rows[3].substr(0, 36), "model,coarray/put,1,3200,800,400000,");
  for (std::size_t i = 1; i < rows.size(); ++i) EXPECT_NE(rows[i].find(",ok,s"), std::string::npos) << rows[i];
  const auto parsed = parse_coarray_csv(csv);
  ASSERT_EQ(parsed.size(), 4u);
  EXPECT_GT(parsed[2].time_s, 0);
  EXPECT_EQ(parsed[3].point.statements, 2u);
  EXPECT_NE(out.str().find("sweep"), std::string::npos);
  EXPECT_NE(slurp(dir / "out/run.json").find("\"status\": \"complete\""), std::string::npos);
}

}  // namespace
}  // namespace collsim
