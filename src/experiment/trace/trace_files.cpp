#include "experiment/trace/trace_files.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <sstream>

#include "comm/comm.hpp"
#include "experiment/results/measurement.hpp"
#include "experiment/scenario/named_files.hpp"
#include "experiment/trace/critical_path.hpp"
#include "support/input_error.hpp"
#include "support/units.hpp"

namespace collsim {

namespace {

constexpr const char* kColumns =
    "run,engine,label,procs,kind,op,time,rank,peer,tag,bytes,message,request,protocol,latency";
constexpr int kColumnCount = 15;

std::string extension_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  const auto dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  return path.substr(dot);
}

template <class T>
T number(const std::string& text, const std::string& where, const char* column) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size())
    throw InputError(where + ": " + column + " '" + text + "' is not a number");
  return value;
}

}  // namespace

OpKind op_kind_named(const std::string& name) {
  for (OpKind k : kAllOpKinds)
    if (name == to_string(k)) return k;
  throw InputError("unknown operation '" + name + "'");
}

TraceKind trace_kind_named(const std::string& name) {
  for (auto k :
       {TraceKind::post, TraceKind::complete, TraceKind::send_start, TraceKind::arrive, TraceKind::request_done})
    if (name == to_string(k)) return k;
  throw InputError("unknown trace event kind '" + name + "'");
}

TraceProtocol trace_protocol_named(const std::string& name) {
  for (auto p : {TraceProtocol::none, TraceProtocol::eager, TraceProtocol::rendezvous, TraceProtocol::one_sided})
    if (name == to_string(p)) return p;
  throw InputError("unknown protocol '" + name + "'");
}

std::string trace_csv(const std::vector<TracedRun>& runs) {
  std::ostringstream out;
  out << kColumns << "\n";
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const TracedRun& run = runs[i];
    const std::string head = std::to_string(i) + "," + csv_quoted(run.engine) + "," + csv_quoted(run.label) + "," +
                             std::to_string(run.procs) + ",";
    for (const TraceEvent& e : run.events)
      out << head << to_string(e.kind) << ',' << to_string(e.op) << ',' << format_real(e.time) << ',' << e.rank << ','
          << e.peer << ',' << e.tag << ',' << e.bytes << ',' << e.message << ',' << e.request << ','
          << to_string(e.protocol) << ',' << format_real(e.latency) << "\n";
  }
  return out.str();
}

std::vector<TracedRun> read_trace_csv(const std::string& path) {
  std::ifstream in = open_input_file(path, "trace file");
  std::string line;
  if (!std::getline(in, line) || line != kColumns)
    throw InputError(path + ":1: not a collsim trace (its header must be " + std::string(kColumns) + ")");
  std::vector<TracedRun> runs;
  std::vector<std::vector<int>> lines;  // per run, the line of each event
  for (int n = 2; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    const std::string where = path + ":" + std::to_string(n);
    const std::vector<std::string> f = split_csv(line);
    if (static_cast<int>(f.size()) != kColumnCount)
      throw InputError(where + ": " + std::to_string(f.size()) + " fields, expected " + std::to_string(kColumnCount));
    const auto run = number<std::size_t>(f[0], where, "run");
    if (run > runs.size())
      throw InputError(where + ": run " + f[0] + " comes before run " + std::to_string(runs.size()));
    if (run == runs.size()) {
      runs.push_back({f[1], f[2], number<int>(f[3], where, "procs"), {}});
      lines.emplace_back();
    }
    TraceEvent e;
    try {
      e.kind = trace_kind_named(f[4]);
      e.op = op_kind_named(f[5]);
      e.protocol = trace_protocol_named(f[13]);
    } catch (const InputError& bad) {
      throw InputError(where + ": " + bad.what());
    }
    e.time = number<double>(f[6], where, "time");
    e.rank = number<int>(f[7], where, "rank");
    e.peer = number<int>(f[8], where, "peer");
    e.tag = number<int>(f[9], where, "tag");
    e.bytes = number<std::uint64_t>(f[10], where, "bytes");
    e.message = number<std::int64_t>(f[11], where, "message");
    e.request = number<std::int64_t>(f[12], where, "request");
    e.latency = number<double>(f[14], where, "latency");
    // The walk orders events by time: "nan" or "inf", which from_chars takes, would break it.
    if (!std::isfinite(e.time)) throw InputError(where + ": time '" + f[6] + "' is not a finite number");
    if (!std::isfinite(e.latency)) throw InputError(where + ": latency '" + f[14] + "' is not a finite number");
    if (e.rank < 0 || e.rank >= runs[run].procs)
      throw InputError(where + ": rank " + f[7] + " is not one of the run's " + f[3] + " processes");
    runs[run].events.push_back(e);
    lines[run].push_back(n);
  }
  // What the engines' traces keep: events after their causes, each cause there.
  for (std::size_t r = 0; r < runs.size(); ++r) {
    try {
      critical_path(runs[r].events);
    } catch (const TraceContractError& broken) {
      throw InputError(path + ":" + std::to_string(lines[r][broken.event()]) + ": " + broken.what());
    }
  }
  return runs;
}

namespace {

// The operations during which a rank only waits (for messages, the others, remote completion):
// drawn as waiting in both viewers.
bool is_wait(OpKind op) {
  return op == OpKind::wait_all || op == OpKind::wait_any || op == OpKind::barrier || op == OpKind::flush ||
         op == OpKind::win_sync;
}

// One operation of a rank: its post and its complete (the contract: they alternate per rank).
struct OpSpan {
  const TraceEvent* post;
  const TraceEvent* complete;
  std::size_t seq;  // the post's place among the run's events
};

std::vector<OpSpan> op_spans(const TracedRun& run) {
  std::vector<std::size_t> open(static_cast<std::size_t>(run.procs), run.events.size());
  std::vector<OpSpan> spans;
  for (std::size_t k = 0; k < run.events.size(); ++k) {
    const TraceEvent& e = run.events[k];
    if (e.kind != TraceKind::post && e.kind != TraceKind::complete) continue;
    const auto r = static_cast<std::size_t>(e.rank);
    if (e.kind == TraceKind::post) {
      open[r] = k;
    } else if (open[r] < run.events.size()) {
      spans.push_back({&run.events[open[r]], &e, open[r]});
      open[r] = run.events.size();
    }
  }
  return spans;
}

// A piece of output placed in time: sorted by time, then by phase, then in the order the engine
// recorded what it shows, so that at one instant a rank's slices come in the order they happened.
struct Timed {
  double time;
  int phase;  // Paje: 0 containers created, 1 events, 2 and 3 containers destroyed
  std::size_t seq;
  std::string text;
};

void sort_in_time(std::vector<Timed>& items) {
  std::sort(items.begin(), items.end(), [](const Timed& a, const Timed& b) {
    if (a.time != b.time) return a.time < b.time;
    if (a.phase != b.phase) return a.phase < b.phase;
    return a.seq < b.seq;
  });
}

// Trace Event Format times are microseconds; full precision.
std::string micros(double seconds) { return format_real(seconds * 1e6); }

// Seconds in plain decimal notation (Paje readers take no exponent), the shortest that reads back.
std::string paje_time(double seconds) {
  char out[400];
  const auto end = std::to_chars(out, out + sizeof out, seconds, std::chars_format::fixed).ptr;
  return std::string(out, end);
}

std::string paje_quoted(std::string text) {
  std::replace(text.begin(), text.end(), '"', '\'');
  return "\"" + text + "\"";
}

std::string run_title(const TracedRun& run) { return run.engine + ": " + run.label; }

// "168 MiB", "12 KiB": a size for people, rounded up.
std::string rough_size(std::uint64_t bytes) {
  if (bytes >= (1ull << 30)) return std::to_string((bytes + (1ull << 30) - 1) >> 30) + " GiB";
  if (bytes >= (1ull << 20)) return std::to_string((bytes + (1ull << 20) - 1) >> 20) + " MiB";
  return std::to_string((bytes + 1023) >> 10) + " KiB";
}

}  // namespace

std::string trace_json(const std::vector<TracedRun>& runs) {
  std::string out = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  bool first = true;
  auto put = [&](const std::string& event) {
    if (!first) out += ",\n";
    first = false;
    out += event;
  };
  std::int64_t id_base = 0;  // flow and async ids are file-wide: each run's messages get their own
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const TracedRun& run = runs[i];
    const std::string pid = "\"pid\":" + std::to_string(i);
    put("{\"name\":\"process_name\",\"ph\":\"M\"," + pid + ",\"args\":{\"name\":" + json_string(run_title(run)) + "}}");
    put("{\"name\":\"process_sort_index\",\"ph\":\"M\"," + pid + ",\"args\":{\"sort_index\":" + std::to_string(i) +
        "}}");
    for (int r = 0; r < run.procs; ++r) {
      const std::string tid = pid + ",\"tid\":" + std::to_string(r);
      put("{\"name\":\"thread_name\",\"ph\":\"M\"," + tid + ",\"args\":{\"name\":\"rank " + std::to_string(r) + "\"}}");
      put("{\"name\":\"thread_sort_index\",\"ph\":\"M\"," + tid + ",\"args\":{\"sort_index\":" + std::to_string(r) +
          "}}");
    }
    std::vector<Timed> items;
    for (const OpSpan& s : op_spans(run)) {
      const TraceEvent& p = *s.post;
      const double length = s.complete->time - p.time;
      items.push_back({p.time, 1, s.seq,
                       "{\"name\":\"" + std::string(to_string(p.op)) + "\",\"cat\":\"" +
                           (is_wait(p.op) ? "wait" : "operation") + "\",\"ph\":\"X\",\"ts\":" + micros(p.time) +
                           ",\"dur\":" + micros(length) + "," + pid + ",\"tid\":" + std::to_string(p.rank) +
                           ",\"args\":{\"peer\":" + std::to_string(p.peer) + ",\"tag\":" + std::to_string(p.tag) +
                           ",\"bytes\":" + std::to_string(p.bytes) + ",\"request\":" + std::to_string(p.request) +
                           "}}"});
    }
    std::int64_t last_id = -1;
    for (std::size_t k = 0; k < run.events.size(); ++k) {
      const TraceEvent& e = run.events[k];
      const std::string tid = pid + ",\"tid\":" + std::to_string(e.rank);
      const std::string ts = ",\"ts\":" + micros(e.time) + ",";
      const std::string id = std::to_string(id_base + e.message);
      const std::string args = ",\"args\":{\"message\":" + std::to_string(e.message) +
                               ",\"peer\":" + std::to_string(e.peer) + ",\"tag\":" + std::to_string(e.tag) +
                               ",\"bytes\":" + std::to_string(e.bytes) + ",\"protocol\":\"" + to_string(e.protocol) +
                               "\"";
      if (e.kind == TraceKind::send_start || e.kind == TraceKind::arrive) last_id = std::max(last_id, e.message);
      if (e.kind == TraceKind::send_start) {
        // A zero-length slice for the flow arrow to leave from, the flow's start bound to it, and
        // the transfer as an async slice (its own row under the run) until the arrival.
        items.push_back({e.time, 1, k,
                         "{\"name\":\"send\",\"cat\":\"message\",\"ph\":\"X\"" + ts + "\"dur\":0," + tid + args +
                             ",\"latency_us\":" + (e.latency < 0 ? "null" : micros(e.latency)) + "}},\n" +
                             "{\"name\":\"message\",\"cat\":\"message\",\"ph\":\"s\",\"id\":" + id + ts + tid +
                             "},\n{\"name\":\"transfer " + std::to_string(e.rank) + "->" + std::to_string(e.peer) +
                             "\",\"cat\":\"transfer\",\"ph\":\"b\",\"id\":" + id + ts + tid + args + "}}"});
      } else if (e.kind == TraceKind::arrive) {
        items.push_back({e.time, 1, k,
                         "{\"name\":\"arrive\",\"cat\":\"message\",\"ph\":\"X\"" + ts + "\"dur\":0," + tid + args +
                             "}},\n{\"name\":\"message\",\"cat\":\"message\",\"ph\":\"f\",\"bp\":\"e\",\"id\":" + id +
                             ts + tid + "},\n{\"name\":\"transfer " + std::to_string(e.peer) + "->" +
                             std::to_string(e.rank) + "\",\"cat\":\"transfer\",\"ph\":\"e\",\"id\":" + id + ts + tid +
                             "}"});
      } else if (e.kind == TraceKind::request_done) {
        items.push_back({e.time, 1, k,
                         "{\"name\":\"request_done\",\"cat\":\"request\",\"ph\":\"i\",\"s\":\"t\"" + ts + tid + args +
                             ",\"request\":" + std::to_string(e.request) + "}}"});
      }
    }
    id_base += last_id + 1;
    sort_in_time(items);
    for (const Timed& t : items) put(t.text);
  }
  out += "\n]}\n";
  return out;
}

std::string trace_paje(const std::vector<TracedRun>& runs) {
  // The header: every event kind this file uses, with the fields Paje requires of it.
  std::string out =
      "%EventDef PajeDefineContainerType 0\n%  Alias string\n%  Type string\n%  Name string\n%EndEventDef\n"
      "%EventDef PajeDefineStateType 1\n%  Alias string\n%  Type string\n%  Name string\n%EndEventDef\n"
      "%EventDef PajeDefineEventType 2\n%  Alias string\n%  Type string\n%  Name string\n%EndEventDef\n"
      "%EventDef PajeDefineLinkType 3\n%  Alias string\n%  Type string\n%  StartContainerType string\n"
      "%  EndContainerType string\n%  Name string\n%EndEventDef\n"
      "%EventDef PajeDefineEntityValue 4\n%  Alias string\n%  Type string\n%  Name string\n%  Color color\n"
      "%EndEventDef\n"
      "%EventDef PajeCreateContainer 5\n%  Time date\n%  Alias string\n%  Type string\n%  Container string\n"
      "%  Name string\n%EndEventDef\n"
      "%EventDef PajeDestroyContainer 6\n%  Time date\n%  Type string\n%  Name string\n%EndEventDef\n"
      "%EventDef PajePushState 7\n%  Time date\n%  Type string\n%  Container string\n%  Value string\n%EndEventDef\n"
      "%EventDef PajePopState 8\n%  Time date\n%  Type string\n%  Container string\n%EndEventDef\n"
      "%EventDef PajeStartLink 9\n%  Time date\n%  Type string\n%  Container string\n%  Value string\n"
      "%  StartContainer string\n%  Key string\n%EndEventDef\n"
      "%EventDef PajeEndLink 10\n%  Time date\n%  Type string\n%  Container string\n%  Value string\n"
      "%  EndContainer string\n%  Key string\n%EndEventDef\n"
      "%EventDef PajeNewEvent 11\n%  Time date\n%  Type string\n%  Container string\n%  Value string\n"
      "%EndEventDef\n"
      // The types: runs hold ranks; a rank is in one operation at a time (waiting ones in red),
      // messages link two ranks of a run, and requests complete as events.
      "0 RUN 0 \"Run\"\n0 RANK RUN \"Rank\"\n1 OP RANK \"Operation\"\n2 DONE RANK \"Request done\"\n"
      "3 MSG RUN RANK RANK \"Message\"\n";
  for (OpKind op : kAllOpKinds) {
    const std::string name = to_string(op);
    const char* color = is_wait(op)                                  ? "\"0.9 0.2 0.2\""
                        : op == OpKind::copy                         ? "\"0.9 0.7 0.1\""
                        : op == OpKind::reduce_local                 ? "\"0.3 0.7 0.3\""
                        : op == OpKind::put || op == OpKind::get     ? "\"0.5 0.3 0.8\""
                        : op == OpKind::isend || op == OpKind::irecv ? "\"0.2 0.5 0.9\""
                                                                     : "\"0.6 0.6 0.6\"";
    out += "4 " + name + " OP " + paje_quoted(is_wait(op) ? name + " (waiting)" : name) + " " + color + "\n";
  }
  out += "4 request_done DONE \"request done\" \"0.1 0.6 0.1\"\n";
  for (auto p : {TraceProtocol::none, TraceProtocol::eager, TraceProtocol::rendezvous, TraceProtocol::one_sided})
    out += std::string("4 ") + to_string(p) + " MSG " + paje_quoted(to_string(p)) + " \"0 0 0\"\n";

  std::vector<Timed> items;
  std::size_t n = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const TracedRun& run = runs[i];
    const std::string run_alias = std::string("R").append(std::to_string(i));
    auto rank_alias = [&](int r) { return run_alias + "P" + std::to_string(r); };
    double start = 0, end = 0;
    for (const TraceEvent& e : run.events) {
      start = std::min(start, e.time);  // merged mpi traces may start a little before 0
      end = std::max(end, e.time);
    }
    items.push_back(
        {start, 0, n++, "5 " + paje_time(start) + " " + run_alias + " RUN 0 " + paje_quoted(run_title(run))});
    for (int r = 0; r < run.procs; ++r)
      items.push_back({start, 0, n++,
                       "5 " + paje_time(start) + " " + rank_alias(r) + " RANK " + run_alias + " \"rank " +
                           std::to_string(r) + "\""});
    for (const TraceEvent& e : run.events) {
      const std::string at = paje_time(e.time) + " ";
      const std::string key = run_alias + "M" + std::to_string(e.message);
      switch (e.kind) {
        case TraceKind::post:
          items.push_back({e.time, 1, n++, "7 " + at + "OP " + rank_alias(e.rank) + " " + to_string(e.op)});
          break;
        case TraceKind::complete: items.push_back({e.time, 1, n++, "8 " + at + "OP " + rank_alias(e.rank)}); break;
        case TraceKind::send_start:
          items.push_back(
              {e.time, 1, n++,
               "9 " + at + "MSG " + run_alias + " " + to_string(e.protocol) + " " + rank_alias(e.rank) + " " + key});
          break;
        case TraceKind::arrive:
          items.push_back(
              {e.time, 1, n++,
               "10 " + at + "MSG " + run_alias + " " + to_string(e.protocol) + " " + rank_alias(e.rank) + " " + key});
          break;
        case TraceKind::request_done:
          items.push_back({e.time, 1, n++, "11 " + at + "DONE " + rank_alias(e.rank) + " request_done"});
          break;
      }
    }
    const std::string at = paje_time(end) + " ";
    for (int r = 0; r < run.procs; ++r) items.push_back({end, 2, n++, "6 " + at + "RANK " + rank_alias(r)});
    items.push_back({end, 3, n++, "6 " + at + "RUN " + run_alias});
  }
  sort_in_time(items);
  for (const Timed& t : items) out += t.text + "\n";
  return out;
}

std::uint64_t trace_bytes_per_event(const std::string& extension) {
  // Measured on the model engine's traces (bcast binomial P = 64 and pipeline P = 16: 155 and 148
  // bytes per event in JSON, 40 in Paje, 145 in CSV with a 60-character label), rounded up; the
  // CSV's engine and label columns come on top.
  if (extension == ".csv") return 80;
  if (extension == ".json") return 170;
  if (extension == ".paje") return 45;
  return 0;
}

std::uint64_t estimated_trace_bytes(const std::string& extension, const std::vector<TracedRun>& runs) {
  std::uint64_t bytes = 0;
  for (const TracedRun& run : runs) {
    std::uint64_t per_event = trace_bytes_per_event(extension);
    if (extension == ".csv") per_event += run.engine.size() + run.label.size();
    bytes += per_event * run.events.size();
  }
  return bytes;
}

std::string trace_extension(const std::string& path) {
  const std::string ext = extension_of(path);
  if (ext != ".csv" && ext != ".json" && ext != ".paje")
    throw InputError(path + ": unknown trace format '" + ext + "' (.csv, .json for Perfetto, .paje for ViTE)");
  return ext;
}

namespace {
std::string over_limit(const std::string& path, const std::string& size, const std::string& events,
                       std::uint64_t limit) {
  return path + ": the trace would take " + size + " (" + events + " events), above the limit of " + rough_size(limit) +
         ": trace fewer processes, fewer segments (a larger --segment) or fewer bytes, or raise the trace limit";
}
}  // namespace

std::size_t trace_event_limit(const std::string& extension, std::uint64_t limit) {
  return static_cast<std::size_t>(limit / trace_bytes_per_event(extension));
}

void check_trace_kept(const TraceBuffer& buffer, const std::string& what, const std::string& extension,
                      std::uint64_t limit) {
  if (!buffer.overflowed()) return;
  const std::size_t kept = trace_event_limit(extension, limit);
  throw InputError(over_limit(what, "more than " + rough_size(limit), "over " + std::to_string(kept), limit));
}

void write_trace(const std::string& path, const std::vector<TracedRun>& runs, std::uint64_t limit) {
  const std::string ext = trace_extension(path);
  std::size_t events = 0;
  for (const TracedRun& run : runs) events += run.events.size();
  const std::uint64_t estimate = estimated_trace_bytes(ext, runs);
  if (estimate > limit)
    throw InputError(over_limit(path, "about " + rough_size(estimate), std::to_string(events), limit));
  const std::string text = ext == ".csv" ? trace_csv(runs) : ext == ".json" ? trace_json(runs) : trace_paje(runs);
  write_file_atomically(path, text, "trace");
}

}  // namespace collsim
