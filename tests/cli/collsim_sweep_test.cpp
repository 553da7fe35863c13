// Sweeps that scale (scenarios/README.md, "Large sweeps"): a run's results.csv is the same byte for
// byte whether it ran serially, with --jobs 2, in shards joined by collsim merge, or killed with
// SIGKILL part way and resumed; resume and merge refuse what does not belong together.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "common/cli_test_util.hpp"

namespace {

using namespace collsim_test;

fs::path write_file(const fs::path& p, const std::string& text) {
  std::ofstream(p) << text;
  return p;
}

// 2 engines x 2 algorithms x 3 process counts x 3 sizes = 36 points; the sim engine first, so
// that a run's rows come one by one (each sim point is a simulation of its own).
std::string sweep_scenario(const std::string& bytes = "[1KiB, 64KiB, 1MiB]") {
  return "name: sweep\nplatform: " + src("platforms/grisou.xml") +
         "\nranks_per_node: 2\nengines: [sim, model]\nmodel: {kind: two_level, from_platform: true}\n"
         "procs: [2, 8, 16]\nbytes: " +
         bytes + "\noperations:\n  - {op: bcast/binomial, segment: 8KiB}\n  - gather/binomial\n";
}

const std::size_t kPoints = 36;

std::vector<std::string> data_rows(const fs::path& csv) {
  std::vector<std::string> rows = lines(slurp(csv));
  if (!rows.empty()) rows.erase(rows.begin());
  return rows;
}

std::string key_of(const std::string& row) { return row.substr(row.rfind(',') + 1); }

// The serial run every other way of running the scenario must reproduce, run once per process.
const std::string& serial_csv() {
  static const std::string csv = [] {
    const fs::path s = write_file(scratch() / "sweep.yaml", sweep_scenario());
    const Outcome o = collsim("run " + s.string() + " --jobs 1 --out " + (scratch() / "serial").string());
    EXPECT_EQ(o.status, 0) << o.err;
    return slurp(scratch() / "serial" / "results.csv");
  }();
  return csv;
}

TEST(Sweep, SerialRunHasOneKeyedRowPerPointInPlanOrder) {
  const std::string& csv = serial_csv();
  const auto rows = lines(csv);
  ASSERT_EQ(rows.size(), kPoints + 1) << csv;
  EXPECT_EQ(rows[0],
            "engine,op,procs,bytes,segment,root,time_s,runs,mean_s,median_s,min_s,max_s,ci95_s,ci_target_met,data,"
            "protocol,datatype,reduce_op,osu_avg_s,osu_min_s,osu_max_s,interval_low_s,interval_high_s,key");
  std::set<std::string> keys;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    EXPECT_EQ(key_of(rows[i]).size(), 16u) << rows[i];
    keys.insert(key_of(rows[i]));
    // Engines outermost: the 18 sim rows, then the 18 model rows.
    EXPECT_EQ(rows[i].rfind(i <= 18 ? "sim," : "model,", 0), 0u) << rows[i];
  }
  EXPECT_EQ(keys.size(), kPoints);
}

TEST(Sweep, ParallelRunIsByteIdenticalToTheSerialOne) {
  const fs::path s = write_file(scratch() / "sweep-par.yaml", sweep_scenario());
  for (const std::string jobs : {"--jobs 2", "--jobs 3", ""}) {
    const fs::path out = scratch() / ("par" + std::to_string(jobs.size()));
    const Outcome o = collsim("run " + s.string() + " " + jobs + " --out " + out.string());
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_EQ(slurp(out / "results.csv"), serial_csv()) << jobs;
    EXPECT_NE(slurp(out / "run.json").find("\"status\": \"complete\""), std::string::npos);
    // Not a terminal: no progress line, only the run's one line.
    EXPECT_EQ(lines(o.err).size(), 1u) << o.err;
    EXPECT_EQ(o.err.find('\r'), std::string::npos) << o.err;
  }
}

TEST(Sweep, ShardsAreDisjointAndMergeIntoTheSerialRun) {
  const fs::path s = write_file(scratch() / "sweep-shard.yaml", sweep_scenario());
  std::set<std::string> seen;
  std::size_t total = 0;
  std::string parts;
  for (int k = 1; k <= 3; ++k) {
    const fs::path out = scratch() / ("shard" + std::to_string(k));
    const Outcome o =
        collsim("run " + s.string() + " --jobs 2 --shard " + std::to_string(k) + "/3 --out " + out.string());
    ASSERT_EQ(o.status, 0) << o.err;
    const auto rows = data_rows(out / "results.csv");
    EXPECT_EQ(rows.size(), kPoints / 3);  // round robin over the plan: balanced
    for (const auto& r : rows) seen.insert(key_of(r));
    total += rows.size();
    EXPECT_NE(slurp(out / "run.json").find("\"shard\": \"" + std::to_string(k) + "/3\""), std::string::npos);
    parts += " " + out.string();
  }
  EXPECT_EQ(total, kPoints);
  EXPECT_EQ(seen.size(), kPoints);  // disjoint, and together the whole plan
  const fs::path merged = scratch() / "merged";
  const Outcome m = collsim("merge " + merged.string() + parts);
  ASSERT_EQ(m.status, 0) << m.err;
  EXPECT_EQ(slurp(merged / "results.csv"), serial_csv());
  const std::string json = slurp(merged / "run.json");
  EXPECT_NE(json.find("\"status\": \"complete\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"measurements_written\": 36"), std::string::npos) << json;
  // A part given twice is no conflict: its rows are the same.
  EXPECT_EQ(collsim("merge " + (scratch() / "merged2").string() + parts + " " + (scratch() / "shard1").string()).status,
            0);
}

// Starts collsim in a process group of its own, its output to /dev/null; returns its pid.
pid_t start_in_own_group(const std::vector<std::string>& args) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    const int null = ::open("/dev/null", O_RDWR);
    ::dup2(null, 0);
    ::dup2(null, 1);
    ::dup2(null, 2);
    std::vector<char*> argv{const_cast<char*>(COLLSIM_BIN)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(COLLSIM_BIN, argv.data());
    _exit(127);
  }
  ::setpgid(pid, pid);  // also here, so the group exists before we signal it
  return pid;
}

std::size_t complete_rows(const fs::path& csv) {
  const std::string text = slurp(csv);
  const auto n = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  return n > 0 ? n - 1 : 0;
}

TEST(Sweep, RunKilledPartWayThenResumedEqualsTheUninterruptedRun) {
  const fs::path s = write_file(scratch() / "sweep-kill.yaml", sweep_scenario());
  const fs::path out = scratch() / "killed";
  const pid_t pid = start_in_own_group({"run", s.string(), "--jobs", "2", "--out", out.string()});
  ASSERT_GT(pid, 0);
  // Wait for the first rows, then kill the whole group (the run, its workers, their simulations).
  std::size_t rows = 0;
  int status = 0;
  bool ended = false;
  while (rows < 3) {
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      ended = true;
      break;
    }
    ::usleep(2000);
    rows = complete_rows(out / "results.csv");
  }
  ASSERT_FALSE(ended) << "the run ended before it could be killed";
  ::kill(-pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  const std::size_t kept = data_rows(out / "results.csv").size();
  ASSERT_GE(kept, 3u);
  ASSERT_LT(kept, kPoints) << "the kill landed after the last row";
  EXPECT_NE(slurp(out / "run.json").find("\"status\": \"running\""), std::string::npos);

  // Without --resume the unfinished run is not overwritten.
  expect_bad_input("run " + s.string() + " --out " + out.string(), "holds an unfinished run");
  const Outcome o = collsim("run " + s.string() + " --jobs 2 --resume --out " + out.string());
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.err.find("resuming"), std::string::npos) << o.err;
  EXPECT_EQ(slurp(out / "results.csv"), serial_csv());
  EXPECT_NE(slurp(out / "run.json").find("\"status\": \"complete\""), std::string::npos);
  // Resuming a complete run runs nothing and changes nothing.
  const Outcome again = collsim("run " + s.string() + " --resume --out " + out.string());
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_NE(again.err.find(": 36 rows there, 0 to run"), std::string::npos) << again.err;
  EXPECT_EQ(slurp(out / "results.csv"), serial_csv());
}

// A kill can land in the middle of writing a row: resume drops that cut last line and runs the
// point again.
TEST(Sweep, ResumeDropsALastLineCutShort) {
  const fs::path s =
      write_file(scratch() / "cut.yaml",
                 "engines: [model]\nprocs: [2, 4, 8]\nbytes: [1000, 2000]\noperations: [bcast/binomial]\n");
  const fs::path whole = scratch() / "cut-whole", cut = scratch() / "cut";
  ASSERT_EQ(collsim("run " + s.string() + " --out " + whole.string()).status, 0);
  const std::string csv = slurp(whole / "results.csv");
  fs::create_directories(cut);
  fs::copy_file(whole / "run.json", cut / "run.json");
  const auto rows = lines(csv);
  ASSERT_EQ(rows.size(), 7u);
  write_file(cut / "results.csv", rows[0] + "\n" + rows[1] + "\n" + rows[4] + "\n" + rows[2].substr(0, 30));
  const Outcome o = collsim("run " + s.string() + " --resume --out " + cut.string());
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.err.find(": 2 rows there, 4 to run"), std::string::npos) << o.err;
  EXPECT_EQ(slurp(cut / "results.csv"), csv);
}

TEST(Sweep, ResumeRefusesTheResultsOfAnotherScenario) {
  const fs::path a = write_file(scratch() / "sweep-a.yaml", sweep_scenario("[1KiB]"));
  const fs::path b = write_file(scratch() / "sweep-b.yaml", sweep_scenario("[2KiB]"));
  const fs::path out = scratch() / "sweep-ab";
  ASSERT_EQ(collsim("run " + a.string() + " --out " + out.string()).status, 0);
  expect_bad_input("run " + b.string() + " --resume --out " + out.string(),
                   "the results of another scenario or of other settings");
  // A shard resumes only as that shard.
  const fs::path part = scratch() / "sweep-a-part";
  ASSERT_EQ(collsim("run " + a.string() + " --shard 1/2 --out " + part.string()).status, 0);
  expect_bad_input("run " + a.string() + " --shard 2/2 --resume --out " + part.string(),
                   "the results of shard 1/2, not 2/2");
  expect_bad_input("run " + a.string() + " --shard 3/2", "--shard: '3/2' is not K/N");
  expect_bad_input("run " + a.string() + " --resume --force", "--resume and --force exclude each other");
}

// --resume keeps the folder's rows only as merge would take them: a row of another point's result
// for the same key (a hand edit, another run's file) is refused, with one line and nothing on
// stdout, where it used to be kept and shown in the final table.
TEST(Sweep, ResumeRefusesWhatMergeRefusesBeforeAnyOutput) {
  const fs::path s = write_file(scratch() / "resume-conflict.yaml",
                                "engines: [model]\nprocs: [2, 4]\nbytes: [1000, 2000]\noperations: [bcast/binomial]\n");
  const fs::path whole = scratch() / "resume-whole", out = scratch() / "resume-conflict";
  ASSERT_EQ(collsim("run " + s.string() + " --out " + whole.string()).status, 0);
  const auto rows = lines(slurp(whole / "results.csv"));
  ASSERT_EQ(rows.size(), 5u);
  // Rows 1 and 3 of 4, then row 1 again with another time (9.99 s for 10.8 us).
  fs::create_directories(out);
  fs::copy_file(whole / "run.json", out / "run.json");
  const auto at = rows[1].find(",1.") + 1;  // the time: 1.08...e-05
  ASSERT_NE(at, 0u) << rows[1];
  const std::string time = rows[1].substr(at, rows[1].find(',', at) - at);
  std::string conflicting = rows[1];
  conflicting.replace(at, time.size(), "9.99");
  const std::string head = rows[0] + "\n" + rows[1] + "\n" + rows[3] + "\n";
  write_file(out / "results.csv", head + conflicting + "\n");
  const std::string csv = (out / "results.csv").string();
  expect_refused("run " + s.string() + " --resume --out " + out.string(),
                 "collsim: " + csv + ": row 4 (key " + key_of(rows[1]) + ") differs from row 2 of " + csv +
                     ": conflicting results of one point");
  // The same row twice is the same result: kept once.
  write_file(out / "results.csv", head + rows[1] + "\n");
  const Outcome again = collsim("run " + s.string() + " --resume --out " + out.string());
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_NE(again.err.find(": 2 rows there, 2 to run"), std::string::npos) << again.err;
  EXPECT_EQ(slurp(out / "results.csv"), slurp(whole / "results.csv"));
  // Rows merge would refuse: a negative time, a missing cell; and another scenario's folder.
  std::string negative = rows[1];
  negative.insert(at, "-");
  write_file(out / "results.csv", rows[0] + "\n" + negative + "\n");
  expect_refused("run " + s.string() + " --resume --out " + out.string(),
                 "collsim: " + csv + ":2: not a results row (time_s is '-" + time +
                     "', not a time (a non-negative number of seconds))");
  write_file(out / "results.csv", rows[0] + "\n" + rows[1].substr(rows[1].find(',') + 1) + "\n");
  expect_refused("run " + s.string() + " --resume --out " + out.string(),
                 "collsim: " + csv + ":2: not a results row (" + std::to_string(cells(rows[1]).size() - 1) +
                     " cells, the header has " + std::to_string(cells(rows[0]).size()) + ")");
  const fs::path other = write_file(scratch() / "resume-other.yaml",
                                    "engines: [model]\nprocs: 2\nbytes: 1\noperations: [bcast/binomial]\n");
  const Outcome refused = collsim("run " + other.string() + " --resume --out " + out.string());
  EXPECT_EQ(refused.status, 2) << refused.err;
  EXPECT_EQ(refused.out, "") << "a refused --resume printed the folder's table";
  EXPECT_EQ(std::count(refused.err.begin(), refused.err.end(), '\n'), 1) << refused.err;
}

// An output folder that cannot be made is bad input (exit status 2), not a failed run, and is
// refused before anything runs.
TEST(Merge, AnOutputFolderThatCannotBeMadeIsBadInput) {
  const fs::path s =
      write_file(scratch() / "blocked.yaml", "engines: [model]\nprocs: 2\nbytes: 1000\noperations: [bcast/binomial]\n");
  const fs::path file = write_file(scratch() / "blocked-file", "a file, not a folder\n");
  const std::string out = (file / "out").string();
  expect_refused("run " + s.string() + " --out " + out,
                 "collsim: " + out + ": cannot create the output folder (Not a directory)");
  const fs::path part = scratch() / "blocked-part";
  ASSERT_EQ(collsim("run " + s.string() + " --out " + part.string()).status, 0);
  expect_refused("merge " + out + " " + part.string(),
                 "collsim: " + out + ": cannot create the output folder (Not a directory)");
}

TEST(Merge, RefusesConflictsOtherScenariosAndMissingPoints) {
  const fs::path s = write_file(scratch() / "merge.yaml",
                                "engines: [model]\nprocs: [2, 4]\nbytes: [1000, 2000]\noperations: [bcast/binomial]\n");
  const fs::path p1 = scratch() / "m1", p2 = scratch() / "m2";
  ASSERT_EQ(collsim("run " + s.string() + " --shard 1/2 --out " + p1.string()).status, 0);
  ASSERT_EQ(collsim("run " + s.string() + " --shard 2/2 --out " + p2.string()).status, 0);
  // Missing points: an error naming how many, unless --partial.
  const fs::path out = scratch() / "m-out";
  expect_bad_input("merge " + out.string() + " " + p1.string(), "merge: 2 of 4 points of the plan are in no part");
  EXPECT_FALSE(fs::exists(out / "results.csv"));
  const Outcome partial = collsim("merge " + out.string() + " " + p1.string() + " --partial");
  ASSERT_EQ(partial.status, 0) << partial.err;
  EXPECT_EQ(data_rows(out / "results.csv").size(), 2u);
  EXPECT_NE(slurp(out / "run.json").find("\"status\": \"partial\""), std::string::npos);
  // Conflicting rows: the same key with another time.
  const fs::path p3 = scratch() / "m3";
  fs::create_directories(p3);
  fs::copy_file(p1 / "run.json", p3 / "run.json");
  auto rows = lines(slurp(p1 / "results.csv"));
  rows[1].replace(rows[1].find(",1.") + 1, 2, "9.");
  std::string text;
  for (const auto& r : rows) text += r + "\n";
  write_file(p3 / "results.csv", text);
  expect_bad_input("merge " + out.string() + " " + p1.string() + " " + p2.string() + " " + p3.string(),
                   "conflicting results of one point");
  // Another scenario's folder.
  const fs::path other = write_file(scratch() / "merge-other.yaml",
                                    "engines: [model]\nprocs: [2]\nbytes: [1000]\noperations: [bcast/binomial]\n");
  ASSERT_EQ(collsim("run " + other.string() + " --out " + (scratch() / "m4").string()).status, 0);
  expect_bad_input("merge " + out.string() + " " + p1.string() + " " + (scratch() / "m4").string(),
                   "the results of another scenario or of other settings");
}

// The row `row` with its cell `column` (counted from 0) replaced by `value`.
std::string with_cell(const std::string& row, std::size_t column, const std::string& value) {
  std::size_t begin = 0;
  for (std::size_t c = 0; c < column; ++c) begin = row.find(',', begin) + 1;
  const std::size_t end = row.find(',', begin);
  return row.substr(0, begin) + value + row.substr(end);
}

// --fastest: runs of one scenario made at different times; each point keeps its fastest row,
// whichever folder has it, and the rows two folders share are kept once.
TEST(Merge, FastestKeepsEachPointsSmallestTime) {
  const fs::path s = write_file(scratch() / "fastest.yaml",
                                "engines: [model]\nprocs: [2, 4]\nbytes: [1000, 2000]\noperations: [bcast/binomial]\n");
  const fs::path a = scratch() / "fast-a", b = scratch() / "fast-b";
  ASSERT_EQ(collsim("run " + s.string() + " --out " + a.string()).status, 0);
  std::vector<std::string> rows = lines(slurp(a / "results.csv"));
  ASSERT_EQ(rows.size(), 5u);
  ASSERT_EQ(rows[0].rfind("engine,op,procs,bytes,segment,root,time_s,", 0), 0u) << rows[0];
  // Folder a: points 1 and 2 at 5 and 3 ms; folder b: the same points at 4 and 6 ms, the other
  // two as in a.
  std::vector<std::string> in_a = rows, in_b = rows;
  in_a[1] = with_cell(rows[1], 6, "0.005");
  in_a[2] = with_cell(rows[2], 6, "0.003");
  in_b[1] = with_cell(rows[1], 6, "0.004");
  in_b[2] = with_cell(rows[2], 6, "0.006");
  auto text = [](const std::vector<std::string>& r) {
    std::string t;
    for (const auto& line : r) t += line + "\n";
    return t;
  };
  fs::create_directories(b);
  fs::copy_file(a / "run.json", b / "run.json");
  write_file(a / "results.csv", text(in_a));
  write_file(b / "results.csv", text(in_b));
  const fs::path out = scratch() / "fast-out";
  expect_bad_input("merge " + out.string() + " " + a.string() + " " + b.string(), "conflicting results of one point");
  const Outcome m = collsim("merge " + out.string() + " " + a.string() + " " + b.string() + " --fastest");
  ASSERT_EQ(m.status, 0) << m.err;
  EXPECT_NE(m.out.find("the fastest row of each point: 4 of 4 points, complete"), std::string::npos) << m.out;
  EXPECT_EQ(slurp(out / "results.csv"), text({rows[0], in_b[1], in_a[2], rows[3], rows[4]}));
  EXPECT_NE(slurp(out / "run.json").find("\"merged_rows\": \"fastest\""), std::string::npos);
  // The merged folder resumes as the whole plan: nothing to run, its rows and provenance kept.
  const Outcome r = collsim("run " + s.string() + " --resume --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(slurp(out / "results.csv"), text({rows[0], in_b[1], in_a[2], rows[3], rows[4]}));
  const std::string json = slurp(out / "run.json");
  EXPECT_NE(json.find("\"merged_rows\": \"fastest\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"merged_from\": ["), std::string::npos) << json;
  EXPECT_NE(json.find("\"shard\": \"1/1\""), std::string::npos) << json;
}

// A results folder written before the ci_target_met column (no such column in its header and
// rows) still resumes and merges, into today's columns: its rows gain the empty cell.
TEST(Sweep, FoldersFromBeforeTheCiTargetColumnResumeAndMerge) {
  const fs::path s = write_file(scratch() / "old-columns.yaml",
                                "engines: [model]\nprocs: [2, 4]\nbytes: [1000, 2000]\noperations: [bcast/binomial]\n");
  const fs::path whole = scratch() / "old-columns-whole";
  ASSERT_EQ(collsim("run " + s.string() + " --out " + whole.string()).status, 0);
  const std::string csv = slurp(whole / "results.csv");
  const auto rows = lines(csv);
  ASSERT_EQ(rows.size(), 5u);
  // The same lines without the column (a model row quotes no cell).
  const auto header = cells(rows[0]);
  const auto column = std::find(header.begin(), header.end(), "ci_target_met") - header.begin();
  ASSERT_LT(static_cast<std::size_t>(column), header.size()) << rows[0];
  auto older = [&](const std::vector<std::string>& from) {
    std::string text;
    for (const std::string& line : from) {
      auto kept = cells(line);
      kept.erase(kept.begin() + column);
      for (std::size_t i = 0; i < kept.size(); ++i) text += (i ? "," : "") + kept[i];
      text += "\n";
    }
    return text;
  };
  const fs::path resumed = scratch() / "old-columns-resumed";
  fs::create_directories(resumed);
  fs::copy_file(whole / "run.json", resumed / "run.json");
  write_file(resumed / "results.csv", older({rows[0], rows[1], rows[3]}));
  const Outcome o = collsim("run " + s.string() + " --resume --out " + resumed.string());
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.err.find(": 2 rows there, 2 to run"), std::string::npos) << o.err;
  EXPECT_EQ(slurp(resumed / "results.csv"), csv);

  const fs::path p1 = scratch() / "old-columns-1", p2 = scratch() / "old-columns-2";
  ASSERT_EQ(collsim("run " + s.string() + " --shard 1/2 --out " + p1.string()).status, 0);
  ASSERT_EQ(collsim("run " + s.string() + " --shard 2/2 --out " + p2.string()).status, 0);
  write_file(p1 / "results.csv", older(lines(slurp(p1 / "results.csv"))));
  for (const std::string& parts : {p1.string() + " " + p2.string(), p2.string() + " " + p1.string()}) {
    const fs::path out = scratch() / "old-columns-merged";
    const Outcome m = collsim("merge " + out.string() + " " + parts);
    ASSERT_EQ(m.status, 0) << parts << "\n" << m.err;
    EXPECT_EQ(slurp(out / "results.csv"), csv) << parts;
    fs::remove_all(out);
  }
}

// Two operations of one algorithm whose grids overlap: the shared point is measured once for each.
TEST(Sweep, RepeatedPointsGetKeysOfTheirOwn) {
  const fs::path s = write_file(scratch() / "repeat.yaml",
                                "engines: [model]\nprocs: 2\nbytes: 1000\noperations:\n  - bcast/binomial\n"
                                "  - {op: bcast/binomial, bytes: [1000, 2000]}\n");
  const fs::path out = scratch() / "repeat";
  ASSERT_EQ(collsim("run " + s.string() + " --out " + out.string()).status, 0);
  const auto rows = data_rows(out / "results.csv");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_NE(key_of(rows[0]), key_of(rows[1]));
  EXPECT_EQ(rows[0].substr(0, rows[0].rfind(',')), rows[1].substr(0, rows[1].rfind(',')));
}

TEST(Sweep, CoarrayScenarioInParallelAndInShardsEqualsTheSerialRun) {
  const fs::path s = write_file(scratch() / "coarray-sweep.yaml",
                                "engines: [model, sim]\nplatform: " + src("platforms/grisou.xml") +
                                    "\ncoarray:\n  points:\n    - {sweep: s, local: \":\", local_shape: \"1000\", "
                                    "remote: \"1:2000:2\", remote_shape: \"2000\", buffer: [800, 8000, 400000], "
                                    "statements: [1, 2]}\n");
  const fs::path serial = scratch() / "ca-serial", par = scratch() / "ca-par";
  ASSERT_EQ(collsim("run " + s.string() + " --jobs 1 --out " + serial.string()).status, 0);
  ASSERT_EQ(collsim("run " + s.string() + " --jobs 2 --out " + par.string()).status, 0);
  const std::string csv = slurp(serial / "results.csv");
  EXPECT_EQ(data_rows(serial / "results.csv").size(), 12u);
  EXPECT_EQ(slurp(par / "results.csv"), csv);
  std::string parts;
  for (int k = 1; k <= 2; ++k) {
    const fs::path out = scratch() / ("ca-shard" + std::to_string(k));
    ASSERT_EQ(collsim("run " + s.string() + " --shard " + std::to_string(k) + "/2 --out " + out.string()).status, 0);
    parts += " " + out.string();
  }
  ASSERT_EQ(collsim("merge " + (scratch() / "ca-merged").string() + parts).status, 0);
  EXPECT_EQ(slurp(scratch() / "ca-merged" / "results.csv"), csv);
}

}  // namespace
