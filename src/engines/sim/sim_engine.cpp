// The process side of the sim engine: fork a child that hosts the simulation, stream its results
// back through a pipe, and turn the ways a child can end into InputError / EngineError.
#include "engines/sim/sim_engine.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
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
    for (int v : {pl.block, pl.round_robin, pl.sockets, pl.by_socket ? 1 : 0}) put(p, static_cast<std::int64_t>(v));
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
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

// Runs one child simulation; returns the platform's size in count mode, and fills `hockney` in
// hockney mode.
PlatformSize simulate(Mode mode, const SimConfig& config, std::span<const RunSpec> specs,
                      const std::function<void(std::size_t, const RunResult&)>& on_result,
                      models::TwoLevelHockney* hockney = nullptr) {
  const std::string& file = config.platform_file;
  {
    // SimGrid reports some unreadable files by exiting: check here first.
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw InputError(file + ": cannot open: " + std::strerror(errno));
    struct stat st {};
    const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    ::close(fd);
    if (!regular) throw InputError(file + ": not a regular file");
  }
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

  bool loaded = false, done = false;
  std::optional<std::string> input_error, platform_error, engine_error;
  std::size_t results = 0;
  PlatformSize size;
  try {
    for (;;) {
      std::uint32_t len = 0;
      if (!read_exact(read_end.get(), &len, sizeof len)) break;
      std::string payload(len, '\0');
      if (len == 0 || !read_exact(read_end.get(), payload.data(), len)) break;
      const auto kind = static_cast<Kind>(payload[0]);
      RecordReader rec(std::string_view(payload).substr(1));
      switch (kind) {
        case Kind::loaded: loaded = true; break;
        case Kind::done: done = true; break;
        case Kind::host_count:
          size.hosts = static_cast<std::size_t>(rec.get<std::uint64_t>());
          size.capacity = static_cast<std::size_t>(rec.get<std::uint64_t>());
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
          }
          break;
        case Kind::input_error: input_error = rec.rest(); break;
        case Kind::platform_error: platform_error = rec.rest(); break;
        case Kind::engine_error: engine_error = rec.rest(); break;
        case Kind::result: {
          const auto index = static_cast<std::size_t>(rec.get<std::uint64_t>());
          RunResult r;
          r.time_s = rec.get<double>();
          const auto n = rec.get<std::uint64_t>();
          r.finish_s.reserve(static_cast<std::size_t>(n));
          for (std::uint64_t i = 0; i < n; ++i) r.finish_s.push_back(rec.get<double>());
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
          ++results;
          on_result(index, r);
          break;
        }
      }
    }
  } catch (...) {
    ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    throw;
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const std::string captured = read_all(err.get());

  // Input errors are one line for the user; anything else keeps SimGrid's own words too.
  if (platform_error) throw PlatformError(*platform_error);
  if (input_error) throw InputError(*input_error);
  const std::string said = simgrid_message(last_words(captured));
  // The process died while SimGrid did something that could end it so (sim::Attempt).
  if (const sim::Attempt::Error e = sim::Attempt::error(shared.get(), file); !e.message.empty() && !done) {
    const std::string what = e.message + ((e.flags & sim::Attempt::simgrid_words) && !said.empty() ? ": " + said : "");
    if (e.flags & sim::Attempt::platform) throw PlatformError(what);
    throw InputError(what);
  }
  if (!loaded && !engine_error)
    throw PlatformError(file + ": SimGrid could not load the platform" + (said.empty() ? "" : ": " + said));
  if (!captured.empty()) forward(captured);
  if (engine_error) throw EngineError(*engine_error);
  if (done && WIFEXITED(status) && WEXITSTATUS(status) == 0) return size;

  const std::string hint = WIFSIGNALED(status) ? stack_overflow_hint(captured) : std::string{};
  const std::string how = WIFSIGNALED(status) ? "was killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
                                                    strsignal(WTERMSIG(status)) + ")"
                                              : "exited with status " + std::to_string(WEXITSTATUS(status));
  throw EngineError("sim engine: the simulation process " + how + " after " + std::to_string(results) + " of " +
                    std::to_string(specs.size()) + " runs" +
                    (!hint.empty()  ? ": " + hint
                     : said.empty() ? ""
                                    : ": " + said));
}

}  // namespace

void run_sim(const SimConfig& config, std::span<const RunSpec> specs,
             const std::function<void(std::size_t index, const RunResult&)>& on_result) {
  simulate(Mode::run, config, specs, on_result);
}

models::TwoLevelHockney platform_hockney(const SimConfig& config) {
  models::TwoLevelHockney h;
  simulate(
      Mode::hockney, config, {}, [](std::size_t, const RunResult&) {}, &h);
  return h;
}

std::size_t platform_host_count(const std::string& platform_file) {
  SimConfig config;
  config.platform_file = platform_file;
  return platform_size(config).hosts;
}

PlatformSize platform_size(const SimConfig& config) {
  return simulate(Mode::count, config, {}, [](std::size_t, const RunResult&) {});
}

}  // namespace collsim
