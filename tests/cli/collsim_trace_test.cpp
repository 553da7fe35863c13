// collsim measure --trace and a scenario's `trace:` key as a user runs them: the file is written
// in the format its name says, a bad name or engine is refused in one line with status 2 before
// anything runs, and a scenario writes one trace per model point, named by the row's key.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "common/cli_test_util.hpp"

namespace {

using namespace collsim_test;

const std::string kPoint = "measure --engine model --op bcast/binomial --procs 6 --bytes 3000";

TEST(MeasureTrace, WritesTheJsonWithAThreadPerRank) {
  const fs::path file = scratch() / "measure.json";
  fs::remove(file);
  const Outcome o = collsim(kPoint + " --trace " + file.string());
  ASSERT_EQ(o.status, 0) << o.err;
  ASSERT_TRUE(fs::exists(file));
  // Python's json reads it; the threads named "rank N" are 6, and 5 messages (binomial, P = 6)
  // give 5 flow starts.
  const Outcome py = run_command(
      "/usr/bin/python3 -c \"import json,sys; e=json.load(open(sys.argv[1]))['traceEvents']; "
      "print(sum(x['ph']=='M' and x['name']=='thread_name' for x in e), sum(x['ph']=='s' for x in e))\" " +
      file.string());
  ASSERT_EQ(py.status, 0) << py.err;
  EXPECT_EQ(py.out, "6 5\n");
}

TEST(MeasureTrace, WritesPajeAndCsv) {
  for (const char* ext : {"paje", "csv"}) {
    const fs::path file = scratch() / (std::string("measure.") + ext);
    const Outcome o = collsim(kPoint + " --trace " + file.string());
    ASSERT_EQ(o.status, 0) << o.err;
    const std::string text = slurp(file);
    EXPECT_EQ(text.rfind(ext == std::string("paje") ? "%EventDef" : "run,engine,label", 0), 0u) << ext;
  }
}

TEST(MeasureTrace, RefusalsAreOneLineWithStatusTwo) {
  const fs::path bad = scratch() / "measure.txt";
  const struct {
    std::string args, start;
  } cases[] = {
      {kPoint + " --trace " + bad.string(), "collsim: " + bad.string() + ": unknown trace format '.txt'"},
      {"measure --engine formula --op bcast/binomial --procs 6 --bytes 3000 --trace x.json",
       "collsim: --trace: the formula engine has no events"},
      {kPoint + " --trace-limit 1MiB", "collsim: --trace-limit applies only with --trace"},
      {"measure --engine model --op bcast/binomial --procs 64 --bytes 1000000 --segment 1024 --trace " +
           (scratch() / "big.json").string() + " --trace-limit 1MiB",
       "collsim: " + (scratch() / "big.json").string() +
           ": the trace would take more than 1 MiB (over 6168 events), above the limit of 1 MiB"},
  };
  for (const auto& c : cases) {
    const Outcome o = collsim(c.args);
    EXPECT_EQ(o.status, 2) << c.args;
    const auto err = lines(o.err);
    ASSERT_EQ(err.size(), 1u) << o.err;
    EXPECT_EQ(err[0].rfind(c.start, 0), 0u) << err[0];
  }
  EXPECT_FALSE(fs::exists(bad));
  EXPECT_FALSE(fs::exists(scratch() / "big.json"));
}

TEST(ScenarioTrace, OneFilePerModelPointNamedByItsKey) {
  const fs::path scenario = scratch_file("traced.yaml",
                                         "engines: [formula, model]\ntrace: paje\noperations:\n"
                                         "  - op: bcast/binomial\n    procs: [2, 5]\n    bytes: [1000, 70000]\n");
  const fs::path out = scratch() / "traced";
  fs::remove_all(out);
  const Outcome o = collsim("run " + scenario.string() + " --out " + out.string() + " --quiet --jobs 2");
  ASSERT_EQ(o.status, 0) << o.err;
  std::set<std::string> want, have;
  const auto rows = lines(slurp(out / "results.csv"));
  ASSERT_EQ(rows.size(), 9u);  // header, 4 formula rows, 4 model rows
  for (std::size_t i = 1; i < rows.size(); ++i)
    if (rows[i].rfind("model,", 0) == 0) want.insert(rows[i].substr(rows[i].rfind(',') + 1) + ".paje");
  for (const auto& f : fs::directory_iterator(out / "traces")) {
    have.insert(f.path().filename().string());
    EXPECT_EQ(slurp(f.path()).rfind("%EventDef", 0), 0u) << f.path();
  }
  EXPECT_EQ(want.size(), 4u);
  EXPECT_EQ(have, want);
}

TEST(ScenarioTrace, ShardsMergeWithTheirTraces) {
  const fs::path scenario = scratch_file("traced-shards.yaml",
                                         "engines: [model]\ntrace: json\noperations:\n"
                                         "  - op: bcast/binomial\n    procs: [2, 3, 4]\n    bytes: [1000]\n");
  const fs::path base = scratch() / "traced-shards";
  fs::remove_all(base);
  for (const char* k : {"1", "2"}) {
    const Outcome o =
        collsim("run " + scenario.string() + " --out " + (base / k).string() + " --quiet --shard " + k + "/2");
    ASSERT_EQ(o.status, 0) << o.err;
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(base / "1" / "traces"), fs::directory_iterator()), 2);
  const Outcome m =
      collsim("merge " + (base / "all").string() + " " + (base / "1").string() + " " + (base / "2").string());
  ASSERT_EQ(m.status, 0) << m.err;
  std::set<std::string> want, have;
  const auto rows = lines(slurp(base / "all" / "results.csv"));
  for (std::size_t i = 1; i < rows.size(); ++i) want.insert(rows[i].substr(rows[i].rfind(',') + 1) + ".json");
  for (const auto& f : fs::directory_iterator(base / "all" / "traces")) have.insert(f.path().filename().string());
  EXPECT_EQ(want.size(), 3u);
  EXPECT_EQ(have, want);
}

TEST(ScenarioTrace, BadValueRefusedWithItsPosition) {
  const fs::path scenario = scratch_file(
      "bad-trace.yaml",
      "engines: [model]\ntrace: svg\noperations:\n  - op: bcast/binomial\n    procs: [2]\n    bytes: [1]\n");
  const Outcome o = collsim("run " + scenario.string() + " --out " + (scratch() / "bad-trace").string());
  EXPECT_EQ(o.status, 2);
  const auto err = lines(o.err);
  ASSERT_EQ(err.size(), 1u) << o.err;
  EXPECT_EQ(err[0], "collsim: " + scenario.string() + ":2:8: trace: 'svg' is not json, paje or csv");
}

TEST(ScenarioTrace, LimitWithoutTraceOrTooSmallIsRefused) {
  const std::string ops =
      "operations:\n  - op: bcast/binomial\n    procs: [4]\n    bytes: [100000]\n    segment: [1000]\n";
  const fs::path lone = scratch_file("lone-limit.yaml", "engines: [model]\ntrace_limit: 1MiB\n" + ops);
  Outcome o = collsim("run " + lone.string() + " --out " + (scratch() / "lone-limit").string());
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.err, "collsim: " + lone.string() + ":2:14: trace_limit applies only with trace: json|paje|csv\n");
  // 1 KiB is less than this point's trace: the run stops at it with the estimate.
  const fs::path small = scratch_file("small-limit.yaml", "engines: [model]\ntrace: json\ntrace_limit: 1KiB\n" + ops);
  o = collsim("run " + small.string() + " --quiet --out " + (scratch() / "small-limit").string());
  EXPECT_EQ(o.status, 2) << o.err;
  // Its events are held up to the limit (1 KiB / 170 bytes per JSON event: 6), not all of them.
  EXPECT_NE(o.err.find(": the trace would take more than 1 KiB (over 6 events), above the limit of 1 KiB"),
            std::string::npos)
      << o.err;
}

}  // namespace
