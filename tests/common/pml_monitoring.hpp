// Open MPI's message monitoring (pml monitoring) around one `collsim-mpi run`: the messages and
// bytes each rank sent to each other rank, counted by Open MPI itself and printed at
// MPI_Finalize. Shared by the suites that identify an algorithm by the messages it sends
// (tests/engines/mpi/mpi_pattern_test.cpp, tests/selection/mpi_rules_test.cpp).
//
// The including test target defines COLLSIM_PML_MONITORING_DEFS (tests/CMakeLists.txt: MPIEXEC,
// PML_MONITORING_PRESENT and PML_MONITORING_PROBLEM) and COLLSIM_MPI_BIN (the collsim-mpi program).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "common/run_command.hpp"

#if !defined(MPIEXEC) || !defined(PML_MONITORING_PRESENT) || !defined(PML_MONITORING_PROBLEM) || \
    !defined(COLLSIM_MPI_BIN)
#error "pml_monitoring.hpp needs COLLSIM_PML_MONITORING_DEFS and COLLSIM_MPI_BIN defined by the test target"
#endif

namespace collsim_test {

struct Report {
  int status = -1;
  std::vector<std::string> sent;  // "E <from> <to> <bytes> bytes <n> msgs sent <histogram>", sorted
  std::string err;
};

// One `collsim-mpi run --engine ENGINE ARGS` on `procs` ranks under monitoring; the per-peer lines
// ("E" for every message sent, collectives' own included) of every rank's report.
// `mpirun_options` go to mpirun before the program (e.g. "--mca NAME VALUE").
inline Report monitored(int procs, const std::string& engine, const std::string& args,
                        const std::string& mpirun_options = "") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("collsim-pattern-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  // All ranks share this host: ob1 over shared memory and self is all the runs need, and not
  // probing the rest (pml ucx and cm, btl tcp) takes a third off each run's start. The pml is
  // chosen by exclusion, as naming ob1 would leave out the monitoring pml that wraps it. Monitoring
  // counts at the pml, above the transports, so what it reports does not depend on them.
  const std::string cmd = std::string(MPIEXEC) +
                          " -q --allow-run-as-root --oversubscribe --mca pml ^ucx,cm --mca btl self,vader"
                          " --mca pml_monitoring_enable 1 --mca pml_monitoring_enable_output 1 " +
                          mpirun_options + " --output-filename " + (dir / "ranks").string() + " -np " +
                          std::to_string(procs) + " " + COLLSIM_MPI_BIN + " run --engine " + engine + " " + args;
  const Outcome o = run_command(cmd);
  Report r;
  r.status = o.status;
  r.err = o.err;
  // Each rank's own output files (ranks/1/rank.N/stdout, stderr): the report of a rank is printed
  // piecewise, so in mpirun's merged output the ranks' lines can interleave.
  std::error_code ec;
  for (const auto& f : fs::recursive_directory_iterator(dir / "ranks", ec)) {
    if (!f.is_regular_file()) continue;
    std::istringstream in(slurp(f.path()));
    for (std::string line; std::getline(in, line);)
      if (line.rfind("E\t", 0) == 0) r.sent.push_back(line);
  }
  fs::remove_all(dir);
  std::sort(r.sent.begin(), r.sent.end());
  return r;
}

// The lines without their size histograms: who sent how many messages and bytes to whom.
inline std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l.substr(0, l.find("\t", l.find("msgs"))) + "\n";
  return out;
}

struct Monitoring {
  bool present = false;  // this Open MPI has the pml monitoring component
  std::string problem;   // why the tests cannot run although it should be there; empty if none
};

// Whether monitoring exists was asked of Open MPI itself (ompi_info) when the build was
// configured (tests/CMakeLists.txt): only an Open MPI built without the pml monitoring component
// skips the tests. Where it exists, every test asserts that its runs exited cleanly and reported
// lines, so monitoring that is there but broken fails them all.
inline Monitoring monitoring() { return {PML_MONITORING_PRESENT != 0, PML_MONITORING_PROBLEM}; }

}  // namespace collsim_test

// In a test body: fail when monitoring should work and does not, skip when Open MPI lacks it.
#define REQUIRE_MONITORING()                                                                                   \
  do {                                                                                                         \
    ASSERT_EQ(collsim_test::monitoring().problem, "");                                                         \
    if (!collsim_test::monitoring().present) GTEST_SKIP() << "this Open MPI was built without pml monitoring"; \
  } while (false)
