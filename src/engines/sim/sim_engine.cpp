// The process side of the sim engine: fork a child that hosts the simulation, stream its results
// back through a pipe, and turn the ways a child can end into InputError / EngineError.
#include "engines/sim/sim_engine.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "engines/pipe_io.hpp"
#include "engines/sim/simulation.hpp"

namespace collsim {

namespace {

// Pipe records: u32 length of what follows, u8 kind, payload.
enum class Kind : std::uint8_t {
  loaded = 1,
  result,
  input_error,
  engine_error,
  host_count,
  hockney,
  done,
  platform_error
};

// A trace event on the pipe: time, latency, bytes, message, request (8 bytes each), rank, peer,
// tag (4 each), kind, op, protocol (1 each).
constexpr std::size_t kEventBytes = 5 * 8 + 3 * 4 + 3;

class RecordWriter final : public sim::Reporter {
 public:
  explicit RecordWriter(int fd) : fd_(fd) {}

  void loaded() { send(Kind::loaded, {}); }
  void host_count(std::size_t n, std::size_t capacity) {
    std::string p;
    put(p, static_cast<std::uint64_t>(n));
    put(p, static_cast<std::uint64_t>(capacity));
    send(Kind::host_count, p);
  }
  void hockney(const models::TwoLevelHockney& h) {
    std::string p;
    for (double v : {h.intra.alpha, h.intra.beta, h.inter.alpha, h.inter.beta}) put(p, v);
    const models::Placement& pl = h.placement;
    for (int v : {pl.block, pl.round_robin, pl.sockets, pl.by_socket ? 1 : 0, pl.cores_per_socket, pl.cores_per_group,
                  pl.cores_per_numa, pl.by_numa ? 1 : 0, pl.numa_block})
      put(p, static_cast<std::int64_t>(v));
    // The socket, NUMA and core-group levels, each if any: a flag, then its alpha and beta.
    for (const auto* level : {&h.cross_socket, &h.cross_numa, &h.cross_group}) {
      put(p, static_cast<std::int64_t>(*level ? 1 : 0));
      if (*level)
        for (double v : {(*level)->alpha, (*level)->beta}) put(p, v);
    }
    send(Kind::hockney, p);
  }
  void done() { send(Kind::done, {}); }
  void input_error(const std::string& msg) { send(Kind::input_error, msg); }
  void platform_error(const std::string& msg) { send(Kind::platform_error, msg); }
  void engine_error(const std::string& msg) { send(Kind::engine_error, msg); }

  void result(std::size_t index, const RunResult& r, std::span<const TraceEvent> trace, bool trace_lost) override {
    std::string p;
    put(p, static_cast<std::uint64_t>(index));
    put(p, r.time_s);
    put(p, static_cast<std::uint64_t>(r.finish_s.size()));
    for (double f : r.finish_s) put(p, f);
    put(p, static_cast<std::uint64_t>(r.osu_s.size()));
    for (double f : r.osu_s) put(p, f);
    put(p, static_cast<std::uint64_t>(r.protocol.size()));
    p += r.protocol;
    put(p, static_cast<std::uint8_t>(trace_lost));
    put(p, static_cast<std::uint64_t>(trace.size()));
    p.reserve(p.size() + trace.size() * kEventBytes + r.data_error.size());
    for (const TraceEvent& e : trace) {
      put(p, e.time);
      put(p, e.latency);
      put(p, static_cast<std::uint64_t>(e.bytes));
      put(p, static_cast<std::int64_t>(e.message));
      put(p, static_cast<std::int64_t>(e.request));
      put(p, static_cast<std::int32_t>(e.rank));
      put(p, static_cast<std::int32_t>(e.peer));
      put(p, static_cast<std::int32_t>(e.tag));
      put(p, static_cast<std::uint8_t>(e.kind));
      put(p, static_cast<std::uint8_t>(e.op));
      put(p, static_cast<std::uint8_t>(e.protocol));
    }
    p += r.data_error;
    if (p.size() >= std::numeric_limits<std::uint32_t>::max())
      fail("sim engine: the trace of run " + std::to_string(index) + " (" + std::to_string(trace.size()) +
           " events) is too large to send back (4 GiB at most)");
    send(Kind::result, p);
  }
  [[noreturn]] void fail(const std::string& message) override {
    engine_error(message);
    _exit(0);
  }

 private:
  template <class T>
  static void put(std::string& out, T v) {
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    out.append(b, sizeof(T));
  }
  void send(Kind kind, const std::string& payload) {
    std::string rec;
    put(rec, static_cast<std::uint32_t>(payload.size() + 1));
    rec.push_back(static_cast<char>(kind));
    rec += payload;
    if (!write_all(fd_, rec)) _exit(3);  // the parent is gone: nobody to report to
  }
  int fd_;
};

class RecordReader {
 public:
  explicit RecordReader(std::string_view payload) : p_(payload) {}
  template <class T>
  T get() {
    T v{};
    if (pos_ + sizeof(T) > p_.size()) throw EngineError("sim engine: truncated record from the simulation");
    std::memcpy(&v, p_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  std::string text(std::size_t n) {
    if (pos_ + n > p_.size()) throw EngineError("sim engine: truncated record from the simulation");
    pos_ += n;
    return std::string(p_.substr(pos_ - n, n));
  }
  std::string rest() { return std::string(p_.substr(pos_)); }

 private:
  std::string_view p_;  // the payload, owned by the caller
  std::size_t pos_ = 0;
};

enum class Mode { run, count, hockney };

[[noreturn]] void child_main(int out_fd, int err_fd, Mode mode, const SimConfig& config,
                             const CheckedPlatform& platform, char* shared, std::span<const RunSpec> specs) {
  ::dup2(err_fd, STDERR_FILENO);
  RecordWriter out(out_fd);
  sim::Attempt attempt(shared);
  try {
    sim::Simulation simulation(config, platform, attempt);
    out.loaded();
    if (mode == Mode::count)
      out.host_count(simulation.host_count(), simulation.capacity());
    else if (mode == Mode::hockney)
      out.hockney(simulation.hockney());
    else
      simulation.run(specs, out);
    out.done();
  } catch (const PlatformError& e) {
    out.platform_error(e.what());
  } catch (const InputError& e) {
    out.input_error(e.what());
  } catch (const std::exception& e) {
    out.engine_error(std::string("sim engine: ") + e.what());
  } catch (...) {
    out.engine_error("sim engine: unknown exception in the simulation");
  }
  // No destructors, no atexit handlers, no flushing of stdio buffers inherited from the parent.
  _exit(0);
}

std::string read_all(int fd) {
  std::string s;
  if (::lseek(fd, 0, SEEK_SET) < 0) return s;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    s.append(buf, static_cast<std::size_t>(n));
  }
  return s;
}

// The line of a dead child's stderr that best says why: the last error line (SimGrid's CRITICAL,
// a sanitizer's ERROR), else the last line.
std::string last_words(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    if (end > begin) lines.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  for (auto it = lines.rbegin(); it != lines.rend(); ++it)
    if (it->find("CRITICAL]") != std::string::npos || it->find("ERROR") != std::string::npos) return *it;
  return lines.empty() ? std::string{} : lines.back();
}

// "[0.000000] ./src/x.cpp:179: [root/CRITICAL] Model 'NOPE' is invalid" -> "Model 'NOPE' is invalid"
std::string simgrid_message(const std::string& line) {
  for (const char* level : {"/CRITICAL] ", "/ERROR] ", "/WARNING] "}) {
    const auto at = line.find(level);
    if (at != std::string::npos) return line.substr(at + std::strlen(level));
  }
  return line;
}

// SimGrid's report of an access violation, which a stack overflowing into its guard page causes
// (simulation.cpp keeps guard pages when the actors fit), as what to do about it; "" if absent.
std::string stack_overflow_hint(const std::string& text) {
  const std::string size = "(current size is ";
  const auto at = text.find(size);
  if (text.find("Access violation") == std::string::npos || at == std::string::npos) return {};
  const auto end = text.find(')', at);
  if (end == std::string::npos) return {};
  return "SimGrid saw an access violation, as a stack overflow causes: try a larger contexts/stack-size in sim.cfg "
         "(current size is " +
         text.substr(at + size.size(), end - at - size.size()) + ")";
}

void forward(const std::string& text) {
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(STDERR_FILENO, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

// Memory shared with the simulation process (sim::Attempt), mapped before the fork.
class SharedPage {
 public:
  SharedPage()
      : p_(static_cast<char*>(
            ::mmap(nullptr, sim::Attempt::kBytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0))) {
    if (p_ == MAP_FAILED) throw EngineError(std::string("sim engine: mmap: ") + std::strerror(errno));
  }
  ~SharedPage() { ::munmap(p_, sim::Attempt::kBytes); }
  SharedPage(const SharedPage&) = delete;
  SharedPage& operator=(const SharedPage&) = delete;
  char* get() const { return p_; }

 private:
  char* p_;
};

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

// SimGrid reports some unreadable files by exiting: check here first.
void check_readable(const std::string& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError(file + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  ::close(fd);
  if (!regular) throw InputError(file + ": not a regular file");
}

// What the records of one simulation process said.
struct Outcome {
  bool loaded = false, done = false;
  std::optional<std::string> input_error, platform_error, engine_error;
  std::size_t results = 0;
  PlatformSize size;
};

// Reads the records of a simulation from `fd` until its end of file, handing over the results.
void read_records(int fd, Outcome& o, std::span<const RunSpec> specs,
                  const std::function<void(std::size_t, const RunResult&)>& on_result,
                  models::TwoLevelHockney* hockney) {
  for (;;) {
    std::uint32_t len = 0;
    if (!read_exact(fd, &len, sizeof len)) break;
    std::string payload(len, '\0');
    if (len == 0 || !read_exact(fd, payload.data(), len)) break;
    const auto kind = static_cast<Kind>(payload[0]);
    RecordReader rec(std::string_view(payload).substr(1));
    switch (kind) {
      case Kind::loaded: o.loaded = true; break;
      case Kind::done: o.done = true; break;
      case Kind::host_count:
        o.size.hosts = static_cast<std::size_t>(rec.get<std::uint64_t>());
        o.size.capacity = static_cast<std::size_t>(rec.get<std::uint64_t>());
        break;
      case Kind::hockney:
        if (hockney) {
          hockney->intra.alpha = rec.get<double>();
          hockney->intra.beta = rec.get<double>();
          hockney->inter.alpha = rec.get<double>();
          hockney->inter.beta = rec.get<double>();
          models::Placement& pl = hockney->placement;
          pl.block = static_cast<int>(rec.get<std::int64_t>());
          pl.round_robin = static_cast<int>(rec.get<std::int64_t>());
          pl.sockets = static_cast<int>(rec.get<std::int64_t>());
          pl.by_socket = static_cast<int>(rec.get<std::int64_t>()) != 0;
          pl.cores_per_socket = static_cast<int>(rec.get<std::int64_t>());
          pl.cores_per_group = static_cast<int>(rec.get<std::int64_t>());
          pl.cores_per_numa = static_cast<int>(rec.get<std::int64_t>());
          pl.by_numa = rec.get<std::int64_t>() != 0;
          pl.numa_block = static_cast<int>(rec.get<std::int64_t>());
          for (auto* level : {&hockney->cross_socket, &hockney->cross_numa, &hockney->cross_group})
            if (rec.get<std::int64_t>() != 0) {
              const double alpha = rec.get<double>();
              *level = models::Hockney{alpha, rec.get<double>()};
            }
        }
        break;
      case Kind::input_error: o.input_error = rec.rest(); break;
      case Kind::platform_error: o.platform_error = rec.rest(); break;
      case Kind::engine_error: o.engine_error = rec.rest(); break;
      case Kind::result: {
        const auto index = static_cast<std::size_t>(rec.get<std::uint64_t>());
        RunResult r;
        r.time_s = rec.get<double>();
        const auto n = rec.get<std::uint64_t>();
        r.finish_s.reserve(static_cast<std::size_t>(n));
        for (std::uint64_t i = 0; i < n; ++i) r.finish_s.push_back(rec.get<double>());
        const auto osu = rec.get<std::uint64_t>();
        r.osu_s.reserve(static_cast<std::size_t>(osu));
        for (std::uint64_t i = 0; i < osu; ++i) r.osu_s.push_back(rec.get<double>());
        r.protocol = rec.text(static_cast<std::size_t>(rec.get<std::uint64_t>()));
        const bool lost = rec.get<std::uint8_t>() != 0;
        const auto events = rec.get<std::uint64_t>();
        TraceSink* sink = index < specs.size() ? specs[index].trace : nullptr;
        if (sink && lost) sink->lost();
        for (std::uint64_t i = 0; i < events; ++i) {
          TraceEvent e;
          e.time = rec.get<double>();
          e.latency = rec.get<double>();
          e.bytes = rec.get<std::uint64_t>();
          e.message = rec.get<std::int64_t>();
          e.request = rec.get<std::int64_t>();
          e.rank = rec.get<std::int32_t>();
          e.peer = rec.get<std::int32_t>();
          e.tag = rec.get<std::int32_t>();
          e.kind = static_cast<TraceKind>(rec.get<std::uint8_t>());
          e.op = static_cast<OpKind>(rec.get<std::uint8_t>());
          e.protocol = static_cast<TraceProtocol>(rec.get<std::uint8_t>());
          if (sink) sink->record(e);
        }
        r.data_error = rec.rest();
        ++o.results;
        on_result(index, r);
        break;
      }
    }
  }
}

void wait_for(pid_t pid, int& status) {
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

// Turns how a simulation process ended (its records, wait status and stderr) into the error it
// means; returns when it ran to its end.
void judge(const Outcome& o, int status, const std::string& captured, const char* shared, const std::string& file,
           std::size_t specs) {
  // Input errors are one line for the user; anything else keeps SimGrid's own words too.
  if (o.platform_error) throw PlatformError(*o.platform_error);
  if (o.input_error) throw InputError(*o.input_error);
  const std::string said = simgrid_message(last_words(captured));
  // The process died while SimGrid did something that could end it so (sim::Attempt).
  if (const sim::Attempt::Error e = sim::Attempt::error(shared, file); !e.message.empty() && !o.done) {
    const std::string what = e.message + ((e.flags & sim::Attempt::simgrid_words) && !said.empty() ? ": " + said : "");
    if (e.flags & sim::Attempt::platform) throw PlatformError(what);
    throw InputError(what);
  }
  if (!o.loaded && !o.engine_error)
    throw PlatformError(file + ": SimGrid could not load the platform" + (said.empty() ? "" : ": " + said));
  if (!captured.empty()) forward(captured);
  if (o.engine_error) throw EngineError(*o.engine_error);
  if (o.done && WIFEXITED(status) && WEXITSTATUS(status) == 0) return;

  const std::string hint = WIFSIGNALED(status) ? stack_overflow_hint(captured) : std::string{};
  const std::string how = WIFSIGNALED(status) ? "was killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
                                                    strsignal(WTERMSIG(status)) + ")"
                                              : "exited with status " + std::to_string(WEXITSTATUS(status));
  throw EngineError("sim engine: the simulation process " + how + " after " + std::to_string(o.results) + " of " +
                    std::to_string(specs) + " runs" +
                    (!hint.empty()  ? ": " + hint
                     : said.empty() ? ""
                                    : ": " + said));
}

// Runs one child simulation; returns the platform's size in count mode, and fills `hockney` in
// hockney mode.
PlatformSize simulate(Mode mode, const SimConfig& config, std::span<const RunSpec> specs,
                      const std::function<void(std::size_t, const RunResult&)>& on_result,
                      models::TwoLevelHockney* hockney = nullptr) {
  const std::string& file = config.platform_file;
  check_readable(file);
  // Before SimGrid sees the file (platform_file.hpp).
  const CheckedPlatform platform = check_platform_file(file);
  const SharedPage shared;
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) throw EngineError(std::string("sim engine: pipe: ") + std::strerror(errno));
  Fd read_end(p[0]), write_end(p[1]);
  // The child's stderr goes to an anonymous file, so SimGrid's own messages can be attached to
  // our error messages instead of interleaving with the caller's output.
  Fd err(::memfd_create("collsim-sim-stderr", MFD_CLOEXEC));
  if (err.get() < 0) throw EngineError(std::string("sim engine: memfd_create: ") + std::strerror(errno));

  // Some SimGrid failures call exit(), which would flush a copy of the caller's stdio buffers.
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw EngineError(std::string("sim engine: fork: ") + std::strerror(errno));
  if (pid == 0) {
    // A simulation nobody waits for any more stops with its caller.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) _exit(0);
    child_main(write_end.get(), err.get(), mode, config, platform, shared.get(), specs);
  }
  write_end.reset();

  Outcome outcome;
  try {
    read_records(read_end.get(), outcome, specs, on_result, hockney);
  } catch (...) {
    ::kill(pid, SIGKILL);
    int status = 0;
    wait_for(pid, status);
    throw;
  }
  int status = 0;
  wait_for(pid, status);
  judge(outcome, status, read_all(err.get()), shared.get(), file, specs.size());
  return outcome.size;
}

// ---- The simulation server: a platform loaded once, a simulation forked from it per call ----
//
// Loading a platform (creating SimGrid's engine, reading the file, sealing its zones) is most of
// what a small point costs (tools/bench/README.md, "Per-point set-up"), and SimGrid allows one
// engine per process. So run_sim_reusing_platform keeps a process (the server) that has loaded
// config's platform and waits; for each call it forks a child from that state, which runs the
// specs exactly as a fresh simulation process would after loading (nothing has run in the
// server), and streams its records through a pipe that the caller made, as run_sim does.
//
// The caller and the server talk over a socket: a request is the specs by value (the server's
// address space is a copy of the caller's as it was at the server's start, so pointers into the
// caller are not passed), with the write end of the call's pipe and its stderr file attached
// (SCM_RIGHTS); the answer is the child's wait status. A child that crashes leaves the server
// serving; a server that dies is started again by the next call.

// The platform file as it was when the server loaded it: a file rewritten since (tests do) is
// loaded again.
struct FileStamp {
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  std::int64_t mtime_ns = 0;
  bool operator==(const FileStamp&) const = default;
};

std::optional<FileStamp> stamp_of(const std::string& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return std::nullopt;
  return FileStamp{st.st_dev, st.st_ino, st.st_size,
                   static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

// A spec as the server receives it: a collective call of a registry algorithm, by value.
static_assert(std::is_trivially_copyable_v<AlgorithmParams> && std::is_trivially_copyable_v<Timing>);

template <class T>
void put_raw(std::string& out, const T& v) {
  static_assert(std::is_trivially_copyable_v<T>);
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

// Specs the server can run: collective calls of algorithms the registry finds by name (a
// program, or a test's own algorithm, lives only in the caller's memory).
bool servable(std::span<const RunSpec> specs) {
  for (const RunSpec& s : specs)
    if (s.program || !s.algorithm || find_algorithm(s.algorithm->name) != s.algorithm) return false;
  return true;
}

std::string encode_specs(std::span<const RunSpec> specs) {
  std::string out;
  put_raw(out, static_cast<std::uint64_t>(specs.size()));
  for (const RunSpec& s : specs) {
    put_raw(out, static_cast<std::uint64_t>(s.algorithm->name.size()));
    out += s.algorithm->name;
    put_raw(out, s.params);
    put_raw(out, static_cast<std::int64_t>(s.procs));
    put_raw(out, static_cast<std::uint64_t>(s.bytes));
    put_raw(out, static_cast<std::uint8_t>(s.real_bytes));
    put_raw(out, static_cast<std::uint64_t>(s.then_gather));
    put_raw(out, static_cast<std::uint8_t>(s.timed_on_root));
    put_raw(out, s.timing);
    put_raw(out, static_cast<std::uint8_t>(s.trace != nullptr));
    put_raw(out, static_cast<std::uint64_t>(s.trace ? s.trace->max_events() : 0));
  }
  return out;
}

// In the simulation, RunSpec::trace only asks for the events and bounds them (simulation.hpp).
class EventBound final : public TraceSink {
 public:
  explicit EventBound(std::size_t max) : max_(max) {}
  void record(const TraceEvent&) override {}
  std::size_t max_events() const override { return max_; }

 private:
  std::size_t max_;
};

struct DecodedSpecs {
  std::vector<RunSpec> specs;
  std::vector<EventBound> bounds;  // reserved: the specs point into it
};

DecodedSpecs decode_specs(std::string_view data) {
  RecordReader rec(data);
  DecodedSpecs d;
  const auto n = static_cast<std::size_t>(rec.get<std::uint64_t>());
  d.specs.resize(n);
  d.bounds.reserve(n);
  for (RunSpec& s : d.specs) {
    s.algorithm = find_algorithm(rec.text(static_cast<std::size_t>(rec.get<std::uint64_t>())));
    s.params = rec.get<AlgorithmParams>();
    s.procs = static_cast<int>(rec.get<std::int64_t>());
    s.bytes = static_cast<std::size_t>(rec.get<std::uint64_t>());
    s.real_bytes = rec.get<std::uint8_t>() != 0;
    s.then_gather = static_cast<std::size_t>(rec.get<std::uint64_t>());
    s.timed_on_root = rec.get<std::uint8_t>() != 0;
    s.timing = rec.get<Timing>();
    const bool traced = rec.get<std::uint8_t>() != 0;
    const auto max = static_cast<std::size_t>(rec.get<std::uint64_t>());
    if (traced) s.trace = &d.bounds.emplace_back(max);
  }
  return d;
}

// Writes all of data on a socket without SIGPIPE (a sweep's worker dies of it, sweep.cpp);
// false when the other end is gone.
bool send_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t k = ::send(fd, p, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}

// A request: its length (u64) with the two descriptors attached, then the encoded specs.
bool send_request(int socket, const std::string& specs, int out_fd, int err_fd) {
  const auto len = static_cast<std::uint64_t>(specs.size());
  iovec iov{const_cast<std::uint64_t*>(&len), sizeof len};
  alignas(cmsghdr) char control[CMSG_SPACE(2 * sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(2 * sizeof(int));
  const int fds[2] = {out_fd, err_fd};
  std::memcpy(CMSG_DATA(c), fds, sizeof fds);
  ssize_t k;
  while ((k = ::sendmsg(socket, &msg, MSG_NOSIGNAL)) < 0 && errno == EINTR) {
  }
  if (k != static_cast<ssize_t>(sizeof len)) return false;  // a socket with room sends 8 bytes whole
  return send_all(socket, specs.data(), specs.size());
}

// The server's side: false at the end of the requests (the caller is gone).
bool receive_request(int socket, std::string& specs, int& out_fd, int& err_fd) {
  std::uint64_t len = 0;
  iovec iov{&len, sizeof len};
  alignas(cmsghdr) char control[CMSG_SPACE(2 * sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t k;
  while ((k = ::recvmsg(socket, &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
  }
  const cmsghdr* c = k == static_cast<ssize_t>(sizeof len) ? CMSG_FIRSTHDR(&msg) : nullptr;
  if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(2 * sizeof(int))) return false;
  int fds[2];
  std::memcpy(fds, CMSG_DATA(c), sizeof fds);
  out_fd = fds[0];
  err_fd = fds[1];
  specs.assign(static_cast<std::size_t>(len), '\0');
  return read_exact(socket, specs.data(), specs.size());
}

// The server process: loads the platform as child_main does, reports it on `load_fd` and closes
// it, then forks one simulation per request until the caller goes away.
[[noreturn]] void server_main(int load_fd, int err_fd, int socket, const SimConfig& config,
                              const CheckedPlatform& platform, char* shared) {
  ::dup2(err_fd, STDERR_FILENO);
  ::close(err_fd);
  std::optional<sim::Simulation> simulation;
  sim::Attempt attempt(shared);
  {
    RecordWriter out(load_fd);
    try {
      simulation.emplace(config, platform, attempt);
      out.loaded();
      out.host_count(simulation->host_count(), simulation->capacity());
    } catch (const PlatformError& e) {
      out.platform_error(e.what());
    } catch (const InputError& e) {
      out.input_error(e.what());
    } catch (const std::exception& e) {
      out.engine_error(std::string("sim engine: ") + e.what());
    } catch (...) {
      out.engine_error("sim engine: unknown exception in the simulation");
    }
    if (!simulation) _exit(0);
    ::close(load_fd);
  }
  const pid_t server = ::getpid();
  for (;;) {
    std::string request;
    int out_fd = -1, run_err = -1;
    if (!receive_request(socket, request, out_fd, run_err)) _exit(0);
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != server) _exit(0);
      ::close(socket);
      ::dup2(run_err, STDERR_FILENO);
      RecordWriter out(out_fd);
      try {
        const DecodedSpecs d = decode_specs(request);
        simulation->run(d.specs, out);
        out.done();
      } catch (const PlatformError& e) {
        out.platform_error(e.what());
      } catch (const InputError& e) {
        out.input_error(e.what());
      } catch (const std::exception& e) {
        out.engine_error(std::string("sim engine: ") + e.what());
      } catch (...) {
        out.engine_error("sim engine: unknown exception in the simulation");
      }
      _exit(0);
    }
    // The caller sees the end of the pipe when the child is gone, not when this process is.
    ::close(out_fd);
    ::close(run_err);
    int status = 0;
    if (pid < 0)
      status = 3 << 8;  // as a child that could not report
    else
      wait_for(pid, status);
    const auto answer = static_cast<std::int32_t>(status);
    if (!send_all(socket, reinterpret_cast<const char*>(&answer), sizeof answer)) _exit(0);
  }
}

class Server {
 public:
  // Starts a server for `config`, or throws what loading its platform throws (as run_sim).
  Server(const SimConfig& config, FileStamp stamp) : config_(config), stamp_(stamp) {
    const std::string& file = config.platform_file;
    const CheckedPlatform platform = check_platform_file(file);
    int s[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, s) != 0)
      throw EngineError(std::string("sim engine: socketpair: ") + std::strerror(errno));
    Fd mine(s[0]), theirs(s[1]);
    int p[2];
    if (::pipe2(p, O_CLOEXEC) != 0) throw EngineError(std::string("sim engine: pipe: ") + std::strerror(errno));
    Fd read_end(p[0]), write_end(p[1]);
    Fd err(::memfd_create("collsim-sim-stderr", MFD_CLOEXEC));
    if (err.get() < 0) throw EngineError(std::string("sim engine: memfd_create: ") + std::strerror(errno));
    std::fflush(nullptr);
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) throw EngineError(std::string("sim engine: fork: ") + std::strerror(errno));
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) _exit(0);
      ::close(mine.get());
      server_main(write_end.get(), err.get(), theirs.get(), config, platform, shared_.get());
    }
    write_end.reset();
    theirs.reset();
    Outcome outcome;
    try {
      read_records(
          read_end.get(), outcome, {}, [](std::size_t, const RunResult&) {}, nullptr);
    } catch (...) {
      ::kill(pid, SIGKILL);
      int status = 0;
      wait_for(pid, status);
      throw;
    }
    load_words_ = read_all(err.get());
    if (!outcome.loaded) {
      int status = 0;
      wait_for(pid, status);
      judge(outcome, status, load_words_, shared_.get(), file, 0);
      throw PlatformError(file + ": SimGrid could not load the platform");  // judge throws first
    }
    pid_ = pid;
    socket_ = std::move(mine);
    capacity_ = outcome.size.capacity;
  }
  ~Server() {
    // Only the process that started it may end it (a fork of the caller holds a copy of this).
    // The end of its socket ends it between calls; a call abandoned part way is killed.
    if (pid_ > 0 && ::getpid() == owner_) {
      socket_.reset();
      if (!idle_) ::kill(pid_, SIGKILL);
      int status = 0;
      wait_for(pid_, status);
    }
  }
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Ranks that fit on the platform under config's placement.
  std::size_t capacity() const { return capacity_; }

  bool serves(const SimConfig& config, const std::optional<FileStamp>& stamp) const {
    return ::getpid() == owner_ && stamp && *stamp == stamp_ && config == config_;
  }

  // Runs the specs in a child of the server, as simulate() in a fresh process. Throws like it;
  // `dead` is set when the server is gone (killed, or ended because the call was abandoned).
  void run(std::span<const RunSpec> specs, const std::function<void(std::size_t, const RunResult&)>& on_result,
           bool& dead) {
    std::memset(shared_.get(), 0, sim::Attempt::kBytes);
    int p[2];
    if (::pipe2(p, O_CLOEXEC) != 0) throw EngineError(std::string("sim engine: pipe: ") + std::strerror(errno));
    Fd read_end(p[0]), write_end(p[1]);
    Fd err(::memfd_create("collsim-sim-stderr", MFD_CLOEXEC));
    if (err.get() < 0) throw EngineError(std::string("sim engine: memfd_create: ") + std::strerror(errno));
    idle_ = false;
    const bool sent = send_request(socket_.get(), encode_specs(specs), write_end.get(), err.get());
    write_end.reset();
    Outcome outcome;
    outcome.loaded = true;
    try {
      if (sent) read_records(read_end.get(), outcome, specs, on_result, nullptr);
    } catch (...) {
      // Its child stops with it (PR_SET_PDEATHSIG).
      dead = true;
      throw;
    }
    std::int32_t answer = 0;
    int status = 0;
    if (sent && read_exact(socket_.get(), &answer, sizeof answer)) {
      status = answer;
      idle_ = true;
    } else {
      // The server died: its own end is what the caller is told, as a simulation process's.
      dead = true;
      socket_.reset();
      ::kill(pid_, SIGKILL);
      wait_for(pid_, status);
      pid_ = -1;
    }
    judge(outcome, status, load_words_ + read_all(err.get()), shared_.get(), config_.platform_file, specs.size());
  }

 private:
  SimConfig config_;
  FileStamp stamp_;
  pid_t owner_ = ::getpid();
  pid_t pid_ = -1;
  bool idle_ = true;  // waiting for a request, not running one
  std::size_t capacity_ = 0;
  Fd socket_;
  SharedPage shared_;       // the Attempt of the server and of each of its children
  std::string load_words_;  // what SimGrid said while loading, part of every call's stderr
};

// This process's server (one: a sweep's worker runs its points in plan order, where points of
// one platform and configuration follow each other).
std::unique_ptr<Server>& the_server() {
  static std::unique_ptr<Server> server;
  return server;
}

}  // namespace

void run_sim(const SimConfig& config, std::span<const RunSpec> specs,
             const std::function<void(std::size_t index, const RunResult&)>& on_result) {
  simulate(Mode::run, config, specs, on_result);
}

void run_sim_reusing_platform(const SimConfig& config, std::span<const RunSpec> specs,
                              const std::function<void(std::size_t index, const RunResult&)>& on_result) {
  if (!servable(specs)) return run_sim(config, specs, on_result);
  std::unique_ptr<Server>& server = the_server();
  check_readable(config.platform_file);
  const std::optional<FileStamp> stamp = stamp_of(config.platform_file);
  if (server && !server->serves(config, stamp)) server.reset();
  if (!server) server = std::make_unique<Server>(config, stamp.value_or(FileStamp{}));
  // A run over most of the platform writes to most of what the server loaded, and copying those
  // pages from it (copy on write) costs as much as loading the platform afresh, or more
  // (tools/bench/README.md, "Per-point set-up"): such a run gets a fresh process.
  int procs = 0;
  for (const RunSpec& s : specs) procs = std::max(procs, s.procs);
  if (2 * static_cast<std::size_t>(std::max(procs, 0)) > server->capacity()) return run_sim(config, specs, on_result);
  bool dead = false;
  try {
    server->run(specs, on_result, dead);
  } catch (...) {
    if (dead) server.reset();
    throw;
  }
  if (dead) server.reset();
}

models::TwoLevelHockney platform_hockney(const SimConfig& config) {
  models::TwoLevelHockney h;
  simulate(
      Mode::hockney, config, {}, [](std::size_t, const RunResult&) {}, &h);
  return h;
}

models::RegistrationCost platform_registration(const SimConfig& config) {
  return check_platform_file(config.platform_file).registration;
}

void end_sim_server() { the_server().reset(); }

std::size_t platform_host_count(const std::string& platform_file) {
  SimConfig config;
  config.platform_file = platform_file;
  return platform_size(config).hosts;
}

PlatformSize platform_size(const SimConfig& config) {
  return simulate(Mode::count, config, {}, [](std::size_t, const RunResult&) {});
}

}  // namespace collsim
