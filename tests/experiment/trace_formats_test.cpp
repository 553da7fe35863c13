// The trace file formats (experiment/trace/trace_files.hpp) on the model engine's traces: the Chrome
// trace JSON parses (Python's json module) with a thread per rank, one flow start and one flow end
// per message bound to a slice at the message's times; the Paje file defines every event it uses,
// creates containers before using them, ends every link it starts and goes forward in time; and a
// trace above the size limit is refused in one line.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "common/model_configs.hpp"
#include "common/run_command.hpp"
#include "common/run_specs.hpp"
#include "engines/model/model_engine.hpp"
#include "experiment/trace/trace_files.hpp"
#include "registry/registry.hpp"
#include "support/input_error.hpp"

namespace collsim {
namespace {

RunSpec spec(const char* algorithm, int procs, std::size_t bytes, std::size_t segment) {
  return collsim_test::named_spec(algorithm, procs, bytes, segment);
}

TracedRun traced(const ModelConfig& c, RunSpec s, double* time = nullptr) {
  TraceBuffer buffer;
  s.trace = &buffer;
  const RunResult r = run_model(c, s);
  if (time) *time = r.time_s;
  return {"model", describe(s), s.procs, buffer.take()};
}

std::size_t messages(const TracedRun& run) {
  return static_cast<std::size_t>(std::count_if(run.events.begin(), run.events.end(),
                                                [](const TraceEvent& e) { return e.kind == TraceKind::send_start; }));
}

using collsim_test::loggp;

// Two runs (their message ids overlap: the file must keep their flows apart).
std::vector<TracedRun> two_runs(double* first_time = nullptr) {
  return {traced(ModelConfig{}, spec("bcast/pipeline", 8, 100000, 16384), first_time),
          traced(loggp(), spec("bcast/binomial", 5, 5000, 0))};
}

// Per process of a Chrome trace: "pid threads_named_rank_N flow_starts flow_ends starts==ends
// distinct_ids starts_bound_to_a_send_slice ends_bound_to_an_arrive_slice last_end_us".
const char* const kJsonSummary = R"PY(
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
for pid in sorted({e["pid"] for e in events}):
    ev = [e for e in events if e["pid"] == pid]
    threads = [e for e in ev if e["ph"] == "M" and e["name"] == "thread_name" and e["args"]["name"] == "rank %d" % e["tid"]]
    s = sorted(e["id"] for e in ev if e["ph"] == "s")
    f = sorted(e["id"] for e in ev if e["ph"] == "f" and e.get("bp") == "e")
    def bound(kind, name):
        n = 0
        for i, e in enumerate(ev):
            if e["ph"] == kind and i > 0:
                p = ev[i - 1]
                n += p["ph"] == "X" and p["name"] == name and p["tid"] == e["tid"] and p["ts"] == e["ts"]
        return n
    end = max(e["ts"] + e.get("dur", 0) for e in ev if e["ph"] == "X")
    print(pid, len(threads), len(s), len(f), int(s == f), len(set(s)), bound("s", "send"), bound("f", "arrive"), repr(end))
)PY";

TEST(TraceFormats, ChromeJsonParsesWithAThreadPerRankAndAFlowPerMessage) {
  double time = 0;
  const auto runs = two_runs(&time);
  const std::string path = ::testing::TempDir() + "/trace_formats.json";
  write_trace(path, runs);
  const std::string script = ::testing::TempDir() + "/trace_summary.py";
  std::ofstream(script) << kJsonSummary;
  const auto o = collsim_test::run_command("/usr/bin/python3 " + script + " " + path);
  ASSERT_EQ(o.status, 0) << o.err;
  std::istringstream in(o.out);
  std::set<long> all_ids;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    std::size_t pid = 0, threads = 0, starts = 0, ends = 0, same = 0, distinct = 0, bound_s = 0, bound_f = 0;
    double end = 0;
    ASSERT_TRUE(in >> pid >> threads >> starts >> ends >> same >> distinct >> bound_s >> bound_f >> end) << o.out;
    const std::size_t n = messages(runs[i]);
    ASSERT_GT(n, 0u);
    EXPECT_EQ(pid, i);
    EXPECT_EQ(threads, static_cast<std::size_t>(runs[i].procs));
    EXPECT_EQ(starts, n);
    EXPECT_EQ(ends, n);
    EXPECT_EQ(same, 1u) << "the flow ends are not the flow starts' ids";
    EXPECT_EQ(distinct, n);
    EXPECT_EQ(bound_s, n) << "a flow start not right after its send slice";
    EXPECT_EQ(bound_f, n) << "a flow end not right after its arrive slice";
    if (i == 0) {
      EXPECT_NEAR(end, time * 1e6, 1e-9) << "the last operation ends at the run's time, in microseconds";
    }
  }
  // Flow ids are file-wide: the second run's do not reuse the first's.
  const std::string text = collsim_test::slurp(path);
  std::size_t count = 0;
  for (auto at = text.find("\"ph\":\"s\""); at != std::string::npos; at = text.find("\"ph\":\"s\"", at + 1)) {
    const auto id = text.find("\"id\":", at);
    all_ids.insert(std::stol(text.substr(id + 5)));
    ++count;
  }
  EXPECT_EQ(all_ids.size(), count);
  EXPECT_EQ(count, messages(runs[0]) + messages(runs[1]));
}

// Paje lines split into fields, "quoted strings" as one.
std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < line.size();) {
    if (line[i] == ' ') {
      ++i;
    } else if (line[i] == '"') {
      const auto end = line.find('"', i + 1);
      out.push_back(line.substr(i + 1, end - i - 1));
      i = end + 1;
    } else {
      const auto end = std::min(line.find(' ', i), line.size());
      out.push_back(line.substr(i, end - i));
      i = end;
    }
  }
  return out;
}

TEST(TraceFormats, PajeDefinesWhatItUsesCreatesBeforeUseAndEndsEveryLink) {
  const auto runs = two_runs();
  const std::string path = ::testing::TempDir() + "/trace_formats.paje";
  write_trace(path, runs);
  std::ifstream in(path);
  std::map<std::string, std::pair<std::string, std::vector<std::string>>> defs;  // id -> (event, field names)
  std::set<std::string> types = {"0"}, values, live = {"0"}, destroyed;
  std::map<std::string, int> links;  // key -> started - ended
  std::map<std::string, std::size_t> used;
  double last = -1;
  std::string line, open_def;
  for (int n = 1; std::getline(in, line); ++n) {
    const std::string where = path + ":" + std::to_string(n) + ": " + line;
    const auto f = fields(line);
    if (f.empty()) continue;
    if (f[0] == "%EventDef") {
      ASSERT_EQ(f.size(), 3u) << where;
      open_def = f[2];
      defs[open_def] = {f[1], {}};
      continue;
    }
    if (f[0] == "%EndEventDef") {
      open_def.clear();
      continue;
    }
    if (f[0] == "%") {
      ASSERT_FALSE(open_def.empty()) << where;
      defs[open_def].second.push_back(f[1]);
      continue;
    }
    ASSERT_TRUE(defs.count(f[0])) << "event not defined in the header: " << where;
    const auto& [event, names] = defs.at(f[0]);
    ASSERT_EQ(f.size(), names.size() + 1) << where;
    ++used[event];
    std::map<std::string, std::string> v;
    for (std::size_t k = 0; k < names.size(); ++k) v[names[k]] = f[k + 1];
    if (v.count("Time")) {
      const double t = std::stod(v["Time"]);
      EXPECT_GE(t, last) << "back in time: " << where;
      last = t;
      EXPECT_EQ(v["Time"].find_first_of("eE"), std::string::npos) << "a time in exponent notation: " << where;
    }
    if (event.rfind("PajeDefine", 0) == 0 && event != "PajeDefineEntityValue") {
      EXPECT_TRUE(types.count(v["Type"])) << "parent type not defined: " << where;
      types.insert(v["Alias"]);
    } else if (event == "PajeDefineEntityValue") {
      EXPECT_TRUE(types.count(v["Type"])) << where;
      values.insert(v["Type"] + "/" + v["Alias"]);
    } else if (event == "PajeCreateContainer") {
      EXPECT_TRUE(types.count(v["Type"])) << where;
      EXPECT_TRUE(live.count(v["Container"])) << "parent not created: " << where;
      live.insert(v["Alias"]);
    } else if (event == "PajeDestroyContainer") {
      EXPECT_TRUE(live.erase(v["Name"])) << where;
    } else {
      EXPECT_TRUE(types.count(v["Type"])) << where;
      for (const char* c : {"Container", "StartContainer", "EndContainer"})
        if (v.count(c)) {
          EXPECT_TRUE(live.count(v[c])) << c << " not created or already destroyed: " << where;
        }
      if (v.count("Value")) {
        EXPECT_TRUE(values.count(v["Type"] + "/" + v["Value"])) << "undefined value: " << where;
      }
      if (event == "PajeStartLink") ++links[v["Key"]];
      if (event == "PajeEndLink") --links[v["Key"]];
    }
  }
  EXPECT_EQ(live, std::set<std::string>{"0"}) << "containers left alive";
  for (const auto& [key, open] : links) EXPECT_EQ(open, 0) << "link " << key;
  EXPECT_EQ(links.size(), messages(runs[0]) + messages(runs[1]));
  EXPECT_EQ(used["PajeStartLink"], links.size());
  EXPECT_EQ(used["PajePushState"], used["PajePopState"]);
  EXPECT_GT(used["PajePushState"], 0u);
  EXPECT_EQ(used["PajeCreateContainer"], 2u + 8u + 5u);
}

// pajeng's reader, where installed (Debian package pajeng), takes the file as a whole.
TEST(TraceFormats, PajeReadByPajeng) {
  if (!std::filesystem::exists("/usr/bin/pj_dump")) GTEST_SKIP() << "pj_dump (pajeng) not installed";
  const std::string path = ::testing::TempDir() + "/trace_pajeng.paje";
  write_trace(path, two_runs());
  const auto o = collsim_test::run_command("/usr/bin/pj_dump " + path + " | grep -c '^Link'");
  EXPECT_EQ(o.err, "");
  const auto runs = two_runs();
  EXPECT_EQ(std::stoul(o.out), messages(runs[0]) + messages(runs[1]));
}

TEST(TraceFormats, AboveTheLimitRefusedInOneLineWithTheEstimate) {
  const auto runs = two_runs();
  std::size_t events = runs[0].events.size() + runs[1].events.size();
  const std::uint64_t estimate = estimated_trace_bytes(".json", runs);
  EXPECT_EQ(estimate, events * trace_bytes_per_event(".json"));
  const std::string path = ::testing::TempDir() + "/trace_limit.json";
  std::filesystem::remove(path);
  try {
    write_trace(path, runs, estimate - 1);
    FAIL() << "no refusal";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    EXPECT_NE(what.find(path + ": the trace would take about "), std::string::npos) << what;
    EXPECT_NE(what.find("(" + std::to_string(events) + " events)"), std::string::npos) << what;
    EXPECT_NE(what.find("fewer processes"), std::string::npos) << what;
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  write_trace(path, runs, estimate);  // at the limit: written
  EXPECT_TRUE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace collsim
