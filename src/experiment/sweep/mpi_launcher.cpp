#include "experiment/sweep/mpi_launcher.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <filesystem>
#include <sstream>

#include "support/units.hpp"

namespace collsim {

// Runs argv, capturing stdout and stderr, killing the whole process group after timeout_s.
Captured run_captured(const std::vector<std::string>& argv, double timeout_s) {
  int out_pipe[2], err_pipe[2];
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0) throw EngineError("cannot create pipes for mpirun");
  const pid_t pid = fork();
  if (pid < 0) throw EngineError("cannot fork to start mpirun");
  if (pid == 0) {
    setpgid(0, 0);
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    close(out_pipe[0]), close(err_pipe[0]), close(out_pipe[1]), close(err_pipe[1]);
    const int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  setpgid(pid, pid);
  close(out_pipe[1]);
  close(err_pipe[1]);
  Captured c;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&c.out, &c.err};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  int open_fds = 2;
  while (open_fds > 0) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      c.timed_out = true;
      kill(-pid, SIGKILL);
      break;
    }
    if (poll(fds, 2, static_cast<int>(std::min<long long>(left.count(), INT_MAX))) < 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[4096];
      const ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<std::size_t>(n));
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) close(f.fd);
  int raw = 0;
  waitpid(pid, &raw, 0);
  c.status = !c.timed_out && WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return c;
}

// The first thing the output says, on one line. mpirun frames its notices between rules of
// dashes ("-----...\nPrimary job terminated normally, but 1 process returned\na non-zero exit
// code..."), so its first line is a rule that says nothing: rules and blank lines are skipped, and
// a framed notice is joined up to its closing rule.
std::string first_message(const std::string& text) {
  std::istringstream in(text);
  std::string out;
  bool framed = false;
  for (std::string line; std::getline(in, line);) {
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
    const bool rule = !line.empty() && line.find_first_not_of('-') == std::string::npos;
    if (rule || line.empty()) {
      if (!out.empty()) break;
      framed |= rule;
      continue;
    }
    out += (out.empty() ? "" : " ") + line;
    if (!framed) break;
  }
  return out;
}

std::string mpi_program(const MpiLaunch& launch) {
  if (!launch.program.empty()) return launch.program;
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "collsim-mpi";
  return (self.parent_path() / "collsim-mpi").string();
}

std::vector<std::string> launcher_command(const MpiLaunch& launch) {
  if (!launch.launcher.empty()) return launch.launcher;
  std::vector<std::string> cmd{"mpirun", "--oversubscribe"};
  if (geteuid() == 0) cmd.push_back("--allow-run-as-root");
  return cmd;
}

namespace {

Measurement run_mpi_launch(const MpiLaunch& launch, Engine engine, const RunSpec& spec) {
  std::vector<std::string> argv = launcher_command(launch);
  const std::vector<std::string> rest = {"-np",
                                         std::to_string(spec.procs),
                                         mpi_program(launch),
                                         "measure",
                                         "--engine",
                                         std::string(engine_name(engine)),
                                         "--op",
                                         std::string(spec.algorithm->name),
                                         "--bytes",
                                         std::to_string(spec.bytes),
                                         "--min-runs",
                                         std::to_string(launch.min_runs),
                                         "--max-runs",
                                         std::to_string(launch.max_runs),
                                         "--ci-target",
                                         format_real(launch.ci_target),  // every digit: to_string rounds 1e-9 to 0
                                         "--csv"};
  argv.insert(argv.end(), rest.begin(), rest.end());
  // Only the knobs the algorithm has, and a root where the operation has one: collsim-mpi rejects
  // the others.
  auto knob = [&](bool has, const char* name, long long value) {
    if (!has) return;
    argv.push_back(name);
    argv.push_back(std::to_string(value));
  };
  knob(operation_info(spec.algorithm->op).rooted, "--root", spec.params.root);
  knob(spec.algorithm->takes(Knob::segment), "--segment", static_cast<long long>(spec.params.segment));
  knob(spec.algorithm->takes(Knob::fanout), "--fanout", spec.params.fanout);
  knob(spec.algorithm->takes(Knob::radix), "--radix", spec.params.radix);
  knob(spec.algorithm->takes(Knob::max_requests), "--max-requests", spec.params.max_requests);
  knob(spec.then_gather > 0, "--then-gather", static_cast<long long>(spec.then_gather));
  if (spec.timed_on_root) argv.push_back("--timed-on-root");
  const Captured c = run_captured(argv, launch.timeout_s);
  const std::string what = std::string(engine_name(engine)) + " " + describe(spec);
  if (c.timed_out)
    throw EngineError(what + ": timed out: no answer from " + argv[0] + " after " + format_real(launch.timeout_s) +
                      " s (mpi.timeout)");
  if (c.status == 2) throw InputError(what + ": " + first_message(c.err));
  if (c.status == 127) throw InputError(what + ": cannot start " + argv[0]);
  auto row = parse_csv_output(c.out);
  if (!row || (c.status != 0 && c.status != 1))
    throw EngineError(what + " failed (exit status " + std::to_string(c.status) +
                      "): " + first_message(c.err.empty() ? c.out : c.err));
  if (launch.time_is_min) row->time_s = row->min_s;
  return *row;
}

}  // namespace

Measurement run_mpi_point(const MpiLaunch& launch, Engine engine, const RunSpec& spec) {
  std::vector<Measurement> rows;
  for (int i = 0; i < std::max(1, launch.launches); ++i) rows.push_back(run_mpi_launch(launch, engine, spec));
  return pick_launch(std::move(rows), launch.time_is_min, [](const Measurement& m) { return m.time_s; });
}

}  // namespace collsim
