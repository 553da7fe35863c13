#include "experiment/sweep/sweep.hpp"

#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <utility>

#include "engines/pipe_io.hpp"
#include "engines/run.hpp"
#include "engines/sim/sim_engine.hpp"
#include "experiment/results/measurement.hpp"
#include "experiment/results/result_files.hpp"
#include "experiment/scenario/named_files.hpp"
#include "experiment/scenario/scenario_error.hpp"
#include "support/input_error.hpp"
#include "support/units.hpp"

namespace collsim {

namespace fs = std::filesystem;

namespace {

// ---- run.json: one top-level member per line, as write_json_members writes it ----

using Members = std::vector<std::pair<std::string, std::string>>;  // name, JSON value

Members read_json_members(const std::string& path) {
  std::ifstream in(path);
  Members m;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("  \"", 0) != 0) continue;
    const auto colon = line.find("\": ");
    if (colon == std::string::npos) continue;
    std::string value = line.substr(colon + 3);
    if (!value.empty() && value.back() == ',') value.pop_back();
    m.emplace_back(line.substr(3, colon - 3), value);
  }
  return m;
}

std::string member(const Members& m, const std::string& name) {
  for (const auto& [n, v] : m)
    if (n == name) return v;
  return "";
}

// The text of a JSON string value written by json_string (our values need no unescaping: keys,
// fingerprints and shards are plain; statuses are only compared by their start).
std::string unquoted(const std::string& v) {
  return v.size() >= 2 && v.front() == '"' && v.back() == '"' ? v.substr(1, v.size() - 2) : v;
}

void write_json_members(const std::string& path, const Members& m) {
  std::string j = "{\n";
  for (std::size_t i = 0; i < m.size(); ++i)
    j += "  \"" + m[i].first + "\": " + m[i].second + (i + 1 < m.size() ? ",\n" : "\n");
  write_file_atomically(path, j + "}\n");
}

// "  \"name\": value" lines (Sweep::json_head, json_settings) as members.
Members members_of(const std::vector<std::string>& lines) {
  Members m;
  for (const auto& line : lines) {
    const auto colon = line.find("\": ");
    m.emplace_back(line.substr(line.find('"') + 1, colon - line.find('"') - 1), line.substr(colon + 3));
  }
  return m;
}

std::string json_keys(const std::vector<std::string>& keys) {
  std::string s = "[";
  for (std::size_t i = 0; i < keys.size(); ++i) s += (i ? ", \"" : "\"") + keys[i] + "\"";
  return s + "]";
}

std::vector<std::string> keys_from_json(const std::string& value) {
  std::vector<std::string> keys;
  for (std::size_t at = value.find('"'); at != std::string::npos;) {
    const auto end = value.find('"', at + 1);
    if (end == std::string::npos) break;
    keys.push_back(value.substr(at + 1, end - at - 1));
    at = value.find('"', end + 1);
  }
  return keys;
}

std::string key_of_row(const std::string& line) {
  const auto comma = line.rfind(',');
  return comma == std::string::npos ? "" : line.substr(comma + 1);
}

// The complete rows of a results.csv (the last line is dropped when it has no newline: the write
// a kill interrupted), each with its key; checks the header.
std::vector<std::string> read_rows(const std::string& path, const std::string& header) {
  const std::string text = read_input_file(path, "results file");
  std::vector<std::string> rows;
  std::size_t at = 0, number = 0;
  const std::vector<std::string> columns = split_csv(header);
  std::string written = header;  // the file's own header: older files lack columns added since
  while (at < text.size()) {
    const auto end = text.find('\n', at);
    if (end == std::string::npos) break;
    std::string line = text.substr(at, end - at);
    at = end + 1;
    if (++number == 1) {
      if (line != header && upgraded_results_header(line) != header)
        throw InputError(path + ":1: its columns are not this scenario's (" + line.substr(0, 80) + "...)");
      written = line;
      continue;
    }
    if (line.empty()) continue;
    if (written != header) line = upgraded_results_row(written, line);
    if (const std::string problem = results_row_problem(columns, split_csv(line)); !problem.empty())
      throw InputError(path + ":" + std::to_string(number) + ": not a results row (" + problem + ")");
    rows.push_back(line);
  }
  if (number == 0) throw InputError(path + ": empty (no header)");
  return rows;
}

// The rows of a plan's points, each from the results file that gave it: --resume and merge take
// rows from files alike, and refuse alike a key that is not a point of the plan and a point given
// twice with different rows (the same row twice is the same result, kept once).
class PlanRows {
 public:
  explicit PlanRows(const std::vector<std::string>& keys) : rows_(keys.size()), from_(keys.size()) {
    for (std::size_t i = 0; i < keys.size(); ++i) index_[keys[i]] = i;
  }

  // Adds the rows of `csv` (read_rows: its header must be `header`); returns how many points
  // had no row before. A point already given another row is a conflict, unless `fastest` names
  // the time column (its index in the header): then the row with the smaller time is kept.
  std::size_t add_file(const std::string& csv, const std::string& header,
                       std::optional<std::size_t> fastest = std::nullopt) {
    std::size_t number = 1, added = 0;
    for (std::string& line : read_rows(csv, header)) {
      ++number;
      const std::string key = key_of_row(line);
      const auto it = index_.find(key);
      if (it == index_.end())
        throw InputError(csv + ": row " + std::to_string(number) + "'s key '" + key + "' is not a point of the plan");
      auto& row = rows_[it->second];
      if (row && *row != line) {
        if (!fastest)
          throw InputError(csv + ": row " + std::to_string(number) + " (key " + key + ") differs from " +
                           from_[it->second] + ": conflicting results of one point");
        if (!(time_of(line, *fastest) < time_of(*row, *fastest))) continue;
      }
      added += !row;
      row = std::move(line);
      from_[it->second] = "row " + std::to_string(number) + " of " + csv;
    }
    return added;
  }

  std::vector<std::optional<std::string>>& rows() { return rows_; }

 private:
  // The time a row states in column `column`; a row that states none is never the faster.
  static double time_of(const std::string& line, std::size_t column) {
    const std::vector<std::string> cells = split_csv(line);
    const std::optional<double> t = column < cells.size() ? parse_real(cells[column]) : std::nullopt;
    return t.value_or(std::numeric_limits<double>::infinity());
  }

  std::map<std::string, std::size_t> index_;
  std::vector<std::optional<std::string>> rows_;
  std::vector<std::string> from_;  // "row N of FILE"
};

std::string shard_text(const SweepOptions& o) { return std::to_string(o.shard) + "/" + std::to_string(o.shards); }

bool in_shard(std::size_t unit, const SweepOptions& o) {
  return unit % static_cast<std::size_t>(o.shards) == static_cast<std::size_t>(o.shard - 1);
}

// ---- the results folder of one run ----

class Folder {
 public:
  Folder(const Sweep& sw, const std::string& dir, const SweepOptions& o, std::size_t planned)
      : sw_(sw), o_(o), planned_(planned), rows_(sw.keys.size()), started_(utc_now()) {
    make_output_folder(dir);
    csv_path_ = (fs::path(dir) / "results.csv").string();
    json_path_ = (fs::path(dir) / "run.json").string();
    const bool has_csv = fs::exists(csv_path_), has_json = fs::exists(json_path_);
    const Members old = has_json ? read_json_members(json_path_) : Members{};
    if (o.resume && (has_csv || has_json)) {
      if (!has_json || !has_csv)
        throw InputError(dir + ": no " + std::string(has_json ? "results.csv" : "run.json") +
                         ": not a results folder to resume (run without --resume)");
      const std::string fp = unquoted(member(old, "plan_fingerprint"));
      if (fp != sw.fingerprint)
        throw InputError(json_path_ + ": the results of another scenario or of other settings (plan " +
                         (fp.empty() ? "unknown" : fp) + ", this one's " + sw.fingerprint +
                         "): cannot resume them; give another --out, or --force to start over");
      // A merged folder (collsim merge) has the rows of every shard: it resumes as the whole plan,
      // and keeps saying where its rows came from.
      merged_ = {{"merged_from", member(old, "merged_from")}, {"merged_rows", member(old, "merged_rows")}};
      const bool merged = !merged_.front().second.empty();
      const std::string shard = merged ? "1/1" : unquoted(member(old, "shard"));
      if (shard != shard_text(o))
        throw InputError(json_path_ + ": the results of shard " + shard + ", not " + shard_text(o) +
                         ": resume it with --shard " + shard);
      if (!member(old, "started").empty()) started_ = unquoted(member(old, "started"));
      PlanRows kept(sw.keys);
      written_ = resumed_ = kept.add_file(csv_path_, header());
      rows_ = std::move(kept.rows());
    } else if (!o.resume && !o.force && has_csv && has_json &&
               unquoted(member(old, "status")).rfind("complete", 0) != 0) {
      std::ifstream in(csv_path_);
      std::size_t rows = 0;
      for (std::string line; std::getline(in, line);) rows += !line.empty();
      if (rows > 1 && --rows > 0)
        throw InputError(dir + ": holds an unfinished run (" + std::to_string(rows) + " rows of " +
                         unquoted(member(old, "measurements_planned")) +
                         "): continue it with --resume, or start over with --force");
    }
    rewrite_csv();
    csv_.open(csv_path_, std::ios::app | std::ios::binary);
    if (!csv_) throw InputError(csv_path_ + ": cannot write the results file");
    write_json("running");
  }

  std::string header() const { return sw_.header + ",key"; }
  bool has(std::size_t point) const { return rows_[point].has_value(); }
  std::size_t resumed() const { return resumed_; }
  std::string csv_path() const { return csv_path_; }

  // False when the folder has the point's row already (a unit re-run on resume gives it again).
  bool add(std::size_t point, const std::string& text) {
    if (rows_[point]) return false;
    std::string line = text + "," + sw_.keys[point];
    csv_ << line << '\n' << std::flush;
    rows_[point] = std::move(line);
    ++written_;
    return true;
  }

  std::vector<std::string> rows() const {
    std::vector<std::string> out;
    for (const auto& r : rows_)
      if (r) out.push_back(*r);
    return out;
  }

  void finish(const std::string& status) {
    csv_.close();
    rewrite_csv();
    write_json(status);
  }

 private:
  void rewrite_csv() {
    std::string text = header() + "\n";
    for (const auto& r : rows_)
      if (r) text += *r + "\n";
    write_file_atomically(csv_path_, text, "results file");
  }

  void write_json(const std::string& status) {
    Members m = members_of(sw_.json_head);
    m.emplace_back("status", json_string(status));
    m.emplace_back("started", json_string(started_));
    m.emplace_back("updated", json_string(utc_now()));
    m.emplace_back("measurements_planned", std::to_string(planned_));
    m.emplace_back("measurements_written", std::to_string(written_));
    m.emplace_back("results_csv", json_string("results.csv"));
    for (auto& s : members_of(sw_.json_settings)) m.push_back(std::move(s));
    m.emplace_back("shard", json_string(shard_text(o_)));
    for (const auto& [name, value] : merged_)
      if (!value.empty()) m.emplace_back(name, value);
    m.emplace_back("plan_points", std::to_string(sw_.keys.size()));
    m.emplace_back("plan_fingerprint", json_string(sw_.fingerprint));
    m.emplace_back("plan_keys", json_keys(sw_.keys));
    write_json_members(json_path_, m);
  }

  const Sweep& sw_;
  const SweepOptions& o_;
  Members merged_;  // a resumed merged folder's merged_from and merged_rows (empty otherwise)
  std::size_t planned_, written_ = 0, resumed_ = 0;
  std::vector<std::optional<std::string>> rows_;
  std::string csv_path_, json_path_, started_;
  std::ofstream csv_;
};

// ---- worker processes ----

enum class Record : std::uint8_t { row = 1, unit_done, input_error, engine_error, other_error };

// One record: kind, u64 point (or unit), u32 length, text; written with one write() when short.
std::string record(Record kind, std::uint64_t index, const std::string& text) {
  std::string r(1, static_cast<char>(kind));
  r.append(reinterpret_cast<const char*>(&index), sizeof index);
  const auto len = static_cast<std::uint32_t>(text.size());
  r.append(reinterpret_cast<const char*>(&len), sizeof len);
  return r + text;
}

[[noreturn]] void worker_main(const Sweep& sw, pid_t parent, int from_parent, int to_parent) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a worker whose parent died has nobody to report to
  if (::getppid() != parent) _exit(0);
  ::signal(SIGPIPE, SIG_DFL);
  auto send = [&](Record kind, std::uint64_t index, const std::string& text) {
    if (!write_all(to_parent, record(kind, index, text))) _exit(3);
  };
  for (std::uint64_t unit = 0; read_exact(from_parent, &unit, sizeof unit);) {
    try {
      sw.run_unit(sw.units[unit], [&](std::size_t point, const std::string& row) { send(Record::row, point, row); });
      send(Record::unit_done, unit, "");
    } catch (const InputError& e) {
      send(Record::input_error, unit, e.what());
      _exit(0);
    } catch (const ScenarioError& e) {
      send(Record::input_error, unit, e.what());
      _exit(0);
    } catch (const EngineError& e) {
      send(Record::engine_error, unit, e.what());
      _exit(0);
    } catch (const std::exception& e) {
      send(Record::other_error, unit, e.what());
      _exit(0);
    }
  }
  end_sim_server();  // waited for here, its processor time is the worker's (the run's CPU time)
  _exit(0);          // no destructors, no atexit handlers, no flushing of the parent's buffers
}

class Progress {
 public:
  Progress(bool on, std::size_t total) : on_(on && total > 0 && ::isatty(STDERR_FILENO)), total_(total) {}
  void point_done() { ++done_; }
  void show(bool now = false) {
    if (!on_) return;
    const auto t = Clock::now();
    if (!now && t - shown_ < std::chrono::milliseconds(250)) return;
    shown_ = t;
    const double elapsed = std::chrono::duration<double>(t - start_).count();
    const double rate = elapsed > 0 ? static_cast<double>(done_) / elapsed : 0;
    char line[160];
    if (done_ > 0 && rate > 0) {
      const double eta = static_cast<double>(total_ - done_) / rate;
      std::snprintf(line, sizeof line, "\r%zu/%zu points, %.3g/s, ETA %s\033[K", done_, total_, rate,
                    duration(eta).c_str());
    } else {
      std::snprintf(line, sizeof line, "\r%zu/%zu points\033[K", done_, total_);
    }
    std::cerr << line << std::flush;
  }
  void clear() {
    if (on_) std::cerr << "\r\033[K" << std::flush;
  }

 private:
  using Clock = std::chrono::steady_clock;
  static std::string duration(double s) {
    const long long t = std::llround(s);
    char b[32];
    if (t >= 3600)
      std::snprintf(b, sizeof b, "%lldh%02lldm", t / 3600, t / 60 % 60);
    else if (t >= 60)
      std::snprintf(b, sizeof b, "%lldm%02llds", t / 60, t % 60);
    else
      std::snprintf(b, sizeof b, "%llds", t);
    return b;
  }
  bool on_;
  std::size_t total_, done_ = 0;
  Clock::time_point start_ = Clock::now(), shown_{};
};

struct Failure {
  Record kind;
  std::string message;
};

[[noreturn]] void rethrow(const Failure& f) {
  if (f.kind == Record::input_error) throw InputError(f.message);
  if (f.kind == Record::engine_error) throw EngineError(f.message);
  throw std::runtime_error(f.message);
}

// Runs `todo` (unit indices, plan order) on `jobs` workers, dispatching each unit to the next idle
// worker; an exclusive unit waits until every worker is idle and runs alone. After a failure no
// unit starts; the running ones finish and their rows count.
void run_units(const Sweep& sw, const std::vector<std::size_t>& todo, int jobs,
               const std::function<bool(std::size_t, const std::string&)>& on_row, Progress& progress) {
  struct Worker {
    pid_t pid = -1;
    int to = -1, from = -1;
    long unit = -1;  // running, or -1
    bool dead = false;
  };
  const std::size_t n = std::min<std::size_t>(static_cast<std::size_t>(std::max(jobs, 1)), todo.size());
  std::vector<Worker> workers(n);
  std::fflush(nullptr);
  std::cout.flush();
  std::cerr.flush();
  // A worker that died is noticed by its pipe's end, not by a SIGPIPE that would end this process.
  struct IgnoreSigpipe {
    struct sigaction saved {};
    IgnoreSigpipe() {
      struct sigaction ignore {};
      ignore.sa_handler = SIG_IGN;
      ::sigemptyset(&ignore.sa_mask);
      ::sigaction(SIGPIPE, &ignore, &saved);
    }
    ~IgnoreSigpipe() { ::sigaction(SIGPIPE, &saved, nullptr); }
  };
  const IgnoreSigpipe no_sigpipe;
  const pid_t parent = ::getpid();
  for (std::size_t i = 0; i < n; ++i) {
    int down[2], up[2];
    if (::pipe(down) != 0 || ::pipe(up) != 0) throw EngineError(std::string("pipe: ") + std::strerror(errno));
    const pid_t pid = ::fork();
    if (pid < 0) throw EngineError(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
      // Only this worker's ends: another worker's pipe held open here would hide its end.
      for (std::size_t k = 0; k < i; ++k) {
        ::close(workers[k].to);
        ::close(workers[k].from);
      }
      ::close(down[1]);
      ::close(up[0]);
      worker_main(sw, parent, down[0], up[1]);
    }
    ::close(down[0]);
    ::close(up[1]);
    workers[i] = {pid, down[1], up[0], -1, false};
  }

  std::optional<Failure> failure;
  std::size_t next = 0;
  bool exclusive_running = false;
  auto busy = [&] {
    std::size_t b = 0;
    for (const auto& w : workers) b += w.unit >= 0;
    return b;
  };
  for (;;) {
    while (!failure && next < todo.size() && !exclusive_running) {
      const SweepUnit& unit = sw.units[todo[next]];
      if (unit.exclusive && busy() > 0) break;
      Worker* idle = nullptr;
      for (auto& w : workers)
        if (w.unit < 0 && !w.dead) idle = &w;
      if (!idle) break;
      const std::uint64_t u = todo[next];
      if (!write_all(idle->to, std::string(reinterpret_cast<const char*>(&u), sizeof u))) {
        idle->dead = true;
        failure = Failure{Record::engine_error, "a worker process ended unexpectedly"};
        break;
      }
      idle->unit = static_cast<long>(todo[next]);
      exclusive_running = unit.exclusive;
      ++next;
    }
    if (busy() == 0) break;
    std::vector<pollfd> fds;
    std::vector<Worker*> polled;
    for (auto& w : workers)
      if (w.unit >= 0) {
        fds.push_back({w.from, POLLIN, 0});
        polled.push_back(&w);
      }
    const int ready = ::poll(fds.data(), fds.size(), 250);
    if (ready < 0 && errno != EINTR) throw EngineError(std::string("poll: ") + std::strerror(errno));
    for (std::size_t i = 0; ready > 0 && i < fds.size(); ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      Worker& w = *polled[i];
      std::uint8_t kind = 0;
      std::uint64_t index = 0;
      std::uint32_t len = 0;
      std::string text;
      bool ok = read_exact(w.from, &kind, 1) && read_exact(w.from, &index, sizeof index) &&
                read_exact(w.from, &len, sizeof len);
      if (ok) {
        text.resize(len);
        ok = read_exact(w.from, text.data(), len);
      }
      const bool was_exclusive = sw.units[static_cast<std::size_t>(w.unit)].exclusive;
      if (!ok) {
        const SweepUnit& unit = sw.units[static_cast<std::size_t>(w.unit)];
        failure = Failure{Record::engine_error,
                          "the worker process running point " + sw.keys[unit.points.front()] + " ended unexpectedly"};
        w.unit = -1;
        w.dead = true;
      } else if (static_cast<Record>(kind) == Record::row) {
        if (on_row(static_cast<std::size_t>(index), text)) progress.point_done();
        continue;
      } else if (static_cast<Record>(kind) == Record::unit_done) {
        w.unit = -1;
      } else {
        if (!failure) failure = Failure{static_cast<Record>(kind), text};
        w.unit = -1;
        w.dead = true;
      }
      if (was_exclusive) exclusive_running = false;
    }
    progress.show();
  }
  for (auto& w : workers) {
    ::close(w.to);
    ::close(w.from);
    int status = 0;
    while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (failure) rethrow(*failure);
}

}  // namespace

int usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return std::max(1, CPU_COUNT(&set));
}

void parse_shard(const std::string& text, SweepOptions& o, const Environment& env) {
  if (text == "slurm" || text == "auto") {
    const std::optional<ArrayShard> task = slurm_array_shard(env);
    if (!task && text == "slurm")
      throw InputError(
          "--shard slurm: SLURM_ARRAY_TASK_ID is not set: this is not a task of a Slurm job array (sbatch "
          "--array; --shard auto runs the whole plan outside one)");
    o.shard = task ? task->shard : 1;
    o.shards = task ? task->shards : 1;
    return;
  }
  const auto slash = text.find('/');
  const auto k = slash == std::string::npos ? std::nullopt : parse_integer(text.substr(0, slash));
  const auto n = slash == std::string::npos ? std::nullopt : parse_integer(text.substr(slash + 1));
  if (!k || !n || *n < 1 || *k < 1 || *k > *n || *n > kMaxShards)
    throw InputError("--shard: '" + text + "' is not K/N with 1 <= K <= N (e.g. 2/8), slurm or auto");
  o.shard = static_cast<int>(*k);
  o.shards = static_cast<int>(*n);
}

std::vector<std::string> run_sweep(const Sweep& sw, const std::string& dir, const SweepOptions& o,
                                   const std::function<std::string(const std::vector<std::string>&)>& status,
                                   const std::string& announce, std::ostream& err,
                                   const std::function<void()>& on_failure) {
  // The units this run plans: its shard's, but those whose engine is unavailable here.
  auto planned_here = [&](std::size_t u) { return in_shard(u, o) && (sw.skipped.empty() || !sw.skipped[u]); };
  std::size_t planned = 0;
  for (std::size_t u = 0; u < sw.units.size(); ++u)
    if (planned_here(u)) planned += sw.units[u].points.size();
  Folder folder(sw, dir, o, planned);
  std::vector<std::size_t> todo;
  std::size_t to_run = 0;
  for (std::size_t u = 0; u < sw.units.size(); ++u) {
    if (!planned_here(u)) continue;
    std::size_t missing = 0;
    for (std::size_t p : sw.units[u].points) missing += !folder.has(p);
    if (missing == 0) continue;
    todo.push_back(u);
    to_run += missing;
  }
  err << announce;
  if (o.resume)
    err << "collsim: resuming " << dir << ": " << folder.resumed() << " rows there, " << to_run << " to run\n";
  Progress progress(o.progress, to_run);
  try {
    run_units(
        sw, todo, o.jobs > 0 ? o.jobs : usable_cores(),
        [&](std::size_t point, const std::string& row) { return folder.add(point, row); }, progress);
    // "complete" only when every point planned here has its row: a unit that ended without all
    // of its rows is a failure of the run, never a finished one.
    std::size_t without_row = 0;
    for (std::size_t u = 0; u < sw.units.size(); ++u)
      if (planned_here(u))
        for (std::size_t p : sw.units[u].points) without_row += !folder.has(p);
    if (without_row > 0)
      throw std::runtime_error(std::to_string(without_row) + " of the " + std::to_string(planned) +
                               " planned points have no row: their units ended without them");
  } catch (const std::exception& e) {
    progress.clear();
    folder.finish(std::string("failed: ") + e.what());
    try {
      on_failure();
    } catch (const std::exception&) {
      // Showing what was measured is a courtesy: the run's own error is the one to report.
    }
    throw;
  }
  progress.clear();
  const std::vector<std::string> rows = folder.rows();
  folder.finish(status(rows));
  return rows;
}

std::string merge_results(const std::string& out, const std::vector<std::string>& parts, bool partial, bool fastest) {
  if (parts.empty()) throw InputError("merge: no results folders to merge (collsim merge OUT DIR...)");
  Members first;
  std::string fingerprint, header;
  std::vector<std::string> keys;
  std::optional<PlanRows> plan_rows;
  std::optional<std::size_t> time_column;  // --fastest: where each row states its time
  std::string sources = "[";
  for (const std::string& dir : parts) {
    const std::string json = (fs::path(dir) / "run.json").string(), csv = (fs::path(dir) / "results.csv").string();
    if (!fs::exists(json) || !fs::exists(csv))
      throw InputError(dir + ": not a collsim results folder (no run.json or results.csv)");
    const Members m = read_json_members(json);
    const std::string fp = unquoted(member(m, "plan_fingerprint"));
    if (fp.empty()) throw InputError(json + ": no plan_fingerprint (written by an older collsim): cannot merge it");
    std::ifstream in(csv);
    std::string h;
    std::getline(in, h);
    if (first.empty()) {
      first = m;
      fingerprint = fp;
      header = upgraded_results_header(h);
      keys = keys_from_json(member(m, "plan_keys"));
      plan_rows.emplace(keys);
      if (fastest) {
        const std::vector<std::string> columns = split_csv(header);
        const auto at = std::find(columns.begin(), columns.end(), "time_s");
        if (at == columns.end()) throw InputError(csv + ": no time_s column: --fastest cannot compare its rows");
        time_column = static_cast<std::size_t>(at - columns.begin());
      }
    } else if (fp != fingerprint) {
      throw InputError(json + ": the results of another scenario or of other settings than " + parts.front() +
                       " (plan " + fp + ", not " + fingerprint + ")");
    }
    sources += std::string(sources.size() > 1 ? ", " : "") + json_string(dir);
    plan_rows->add_file(csv, header, time_column);
  }
  const std::vector<std::optional<std::string>>& rows = plan_rows->rows();
  std::size_t present = 0;
  std::string missing;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (rows[i]) {
      ++present;
    } else if (missing.size() < 200) {
      missing += (missing.empty() ? "" : " ") + keys[i];
    }
  }
  if (present < keys.size() && !partial)
    throw InputError("merge: " + std::to_string(keys.size() - present) + " of " + std::to_string(keys.size()) +
                     " points of the plan are in no part (keys " + missing + (missing.size() >= 200 ? " ..." : "") +
                     "); merge what there is with --partial");
  make_output_folder(out);
  std::string text = header + "\n";
  for (const auto& r : rows)
    if (r) text += *r + "\n";
  write_file_atomically((fs::path(out) / "results.csv").string(), text, "results file");
  // The parts' traces (a scenario's `trace:`), named by key: one point's trace is the same in
  // every part that ran it.
  std::error_code ec;
  for (const std::string& dir : parts) {
    const fs::path traces = fs::path(dir) / "traces";
    if (!fs::is_directory(traces) || fs::equivalent(dir, out, ec)) continue;
    fs::create_directories(fs::path(out) / "traces", ec);
    fs::copy(traces, fs::path(out) / "traces", fs::copy_options::overwrite_existing | fs::copy_options::recursive, ec);
    if (ec) throw InputError(out + "/traces: cannot copy the traces of " + dir + ": " + ec.message());
  }
  const std::string status = present == keys.size() ? "complete" : "partial";
  Members m;
  for (auto& [name, value] : first) {
    if (name == "status") value = json_string(status);
    if (name == "updated") value = json_string(utc_now());
    if (name == "measurements_planned") value = std::to_string(keys.size());
    if (name == "measurements_written") value = std::to_string(present);
    if (name == "shard") {
      m.emplace_back("merged_from", sources + "]");
      if (fastest) m.emplace_back("merged_rows", json_string("fastest"));
      continue;
    }
    m.emplace_back(name, value);
  }
  write_json_members((fs::path(out) / "run.json").string(), m);
  return "merged " + std::to_string(parts.size()) + " folder(s)" + (fastest ? ", the fastest row of each point" : "") +
         ": " + std::to_string(present) + " of " + std::to_string(keys.size()) + " points, " + status + ", in " +
         (fs::path(out) / "results.csv").string();
}

}  // namespace collsim
