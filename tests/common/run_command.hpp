// Runs a shell command as a user would and captures what it leaves: exit status, stdout, stderr.
// Shared by the suites that test the command-line programs (tests/cli, tests/engines/mpi).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "common/files.hpp"

namespace collsim_test {

struct Outcome {
  int status;  // exit status (the shell reports 128+N for a program killed by signal N)
  std::string out, err;
};

// `command` goes to /bin/sh as written (quote paths yourself), with stdin from /dev/null so a
// program that waits for input fails instead of hanging the suite. The output goes through files
// in a folder of its own, so concurrent calls (ctest -j) never read each other's.
inline Outcome run_command(const std::string& command) {
  static std::atomic<int> calls{0};
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() /
                       ("collsim-run-" + std::to_string(::getpid()) + "-" + std::to_string(calls.fetch_add(1)));
  fs::create_directories(dir);
  const std::string cmd =
      "(" + command + ") >" + (dir / "out").string() + " 2>" + (dir / "err").string() + " </dev/null";
  const int raw = std::system(cmd.c_str());
  Outcome o{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(dir / "out"), slurp(dir / "err")};
  fs::remove_all(dir);
  return o;
}

}  // namespace collsim_test
