// Message patterns: each algorithm of ours against Open MPI's own forced to it (engine
// mpi-native), seen by Open MPI's message monitoring (pml monitoring), which counts at MPI_Finalize
// the messages and bytes each rank sent to each other rank, with a histogram of their sizes.
//
// `collsim-mpi run` makes one call and otherwise sends the same messages for both engines (one
// communicator duplication, a barrier, a reduction), so equal reports mean that the two sent the
// same number of messages of the same sizes between the same ranks. This is what shows that the
// forcing works (an unforced Open MPI picks another algorithm; a wrong segment size, fanout or
// radix changes the counts, see the controls below) and that our algorithms move the bytes as
// Open MPI's do.
//
// Whether monitoring exists is asked of Open MPI itself (ompi_info): only an Open MPI built
// without the pml monitoring component skips these tests. Where it exists, a probe run that
// fails or reports nothing fails every test here, since nothing else shows that our algorithms
// send what Open MPI's send.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "common/run_command.hpp"

namespace {

namespace fs = std::filesystem;
using collsim_test::run_command;
using collsim_test::slurp;

struct Report {
  int status = -1;
  std::vector<std::string> sent;  // "E <from> <to> <bytes> bytes <n> msgs sent <histogram>", sorted
  std::string err;
};

// One call under monitoring; the per-peer lines ("E" for every message sent, collectives' own
// included) of every rank's report.
Report monitored(int procs, const std::string& engine, const std::string& args) {
  const fs::path dir = fs::temp_directory_path() / ("collsim-pattern-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string cmd = std::string(MPIEXEC) +
                          " -q --allow-run-as-root --oversubscribe --mca pml_monitoring_enable 1"
                          " --mca pml_monitoring_enable_output 1 --output-filename " +
                          (dir / "ranks").string() + " -np " + std::to_string(procs) + " " + COLLSIM_MPI_BIN +
                          " run --engine " + engine + " " + args;
  const collsim_test::Outcome o = run_command(cmd);
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

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l.substr(0, l.find("\t", l.find("msgs"))) + "\n";
  return out;
}

struct Monitoring {
  bool present = false;  // this Open MPI has the pml monitoring component
  std::string problem;   // why the tests cannot run although it should be there; empty if none
};

const Monitoring& monitoring() {
  static const Monitoring m = [] {
    Monitoring r;
    const std::string ompi_info = OMPI_INFO;
    if (ompi_info.empty()) {
      r.problem = "ompi_info was not found beside " + std::string(MPIEXEC) +
                  ": cannot tell whether this Open MPI has pml monitoring";
      return r;
    }
    const collsim_test::Outcome info = run_command(ompi_info + " --parsable --param pml monitoring");
    if (info.status != 0) {
      r.problem = ompi_info + " --parsable --param pml monitoring failed (exit status " + std::to_string(info.status) +
                  "): " + info.err;
      return r;
    }
    // "mca:pml:monitoring:version:..." lines list the component when it was built.
    r.present = info.out.find("mca:pml:monitoring:") != std::string::npos;
    if (!r.present) return r;
    const std::string probe = "--op bcast/binomial --bytes 64";
    const Report rep = monitored(2, "mpi", probe);
    if (rep.status != 0 || rep.sent.empty())
      r.problem = "Open MPI has pml monitoring (ompi_info), but the probe `collsim-mpi run --engine mpi " + probe +
                  "` on 2 ranks exited with status " + std::to_string(rep.status) + " and reported " +
                  std::to_string(rep.sent.size()) + " monitoring lines; stderr: " + rep.err;
    return r;
  }();
  return m;
}

// In a test body: fail when monitoring should work and does not, skip when Open MPI lacks it.
#define REQUIRE_MONITORING()                                                                     \
  do {                                                                                           \
    ASSERT_EQ(monitoring().problem, "");                                                         \
    if (!monitoring().present) GTEST_SKIP() << "this Open MPI was built without pml monitoring"; \
  } while (false)

struct Case {
  int procs;
  std::string args;
};

void PrintTo(const Case& c, std::ostream* os) { *os << "-np " << c.procs << " " << c.args; }

class Pattern : public ::testing::TestWithParam<Case> {};

TEST_P(Pattern, OursSendsWhatOpenMpiSends) {
  REQUIRE_MONITORING();
  const Case& c = GetParam();
  const Report ours = monitored(c.procs, "mpi", c.args);
  const Report native = monitored(c.procs, "mpi-native", c.args);
  ASSERT_EQ(ours.status, 0) << ours.err;
  ASSERT_EQ(native.status, 0) << native.err;
  ASSERT_FALSE(ours.sent.empty()) << ours.err;
  ASSERT_FALSE(native.sent.empty()) << native.err;
  EXPECT_EQ(joined(ours.sent), joined(native.sent)) << "ours left, Open MPI's right";
  EXPECT_EQ(ours.sent, native.sent) << "same counts, other message sizes (histograms)";
}

// 4 processes as in the fidelity benchmark (root 1, a size that is no multiple of a segment),
// then other sizes of communicator, roots and knobs, and the fallbacks of split_binary_tree.
const Case kCases[] = {
    {4, "--op bcast/basic_linear --bytes 100001 --root 1"},
    {4, "--op bcast/chain --bytes 100001 --segment 8KiB --root 1"},
    {4, "--op bcast/pipeline --bytes 100001 --segment 8KiB --root 1"},
    {4, "--op bcast/split_binary_tree --bytes 100001 --segment 8KiB --root 1"},
    {4, "--op bcast/binary_tree --bytes 100001 --segment 8KiB --root 1"},
    {4, "--op bcast/binomial --bytes 100001 --segment 8KiB --root 1"},
    {4, "--op bcast/knomial --bytes 100001 --segment 8KiB --root 1"},
    {4, "--op bcast/scatter_allgather --bytes 100001 --root 1"},
    {4, "--op bcast/scatter_allgather_ring --bytes 100001 --root 1"},
    {4, "--op gather/basic_linear --bytes 100001 --root 1"},
    {4, "--op gather/binomial --bytes 100001 --root 1"},
    {4, "--op gather/linear_sync --bytes 100001 --segment 1KiB --root 1"},
    {8, "--op bcast/chain --bytes 100001 --segment 8KiB --fanout 3 --root 5"},
    {8, "--op bcast/knomial --bytes 100001 --segment 4KiB --radix 3 --root 2"},
    {5, "--op bcast/knomial --bytes 30000 --segment 1KiB --radix 2 --root 4"},
    {5, "--op bcast/split_binary_tree --bytes 100001 --segment 8KiB --root 3"},
    {8, "--op bcast/split_binary_tree --bytes 8KiB --segment 8KiB --root 6"},
    {2, "--op bcast/split_binary_tree --bytes 100001 --segment 8KiB"},
    {5, "--op bcast/binary_tree --bytes 65539 --segment 8KiB --root 4"},
    {5, "--op bcast/scatter_allgather --bytes 100001 --root 1"},
    {6, "--op bcast/scatter_allgather_ring --bytes 100001 --root 4"},
    {7, "--op gather/binomial --bytes 1001 --root 3"},
    {7, "--op gather/linear_sync --bytes 10001 --segment 1KiB --root 6"},
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string name = "np" + std::to_string(info.param.procs) + "_";
  std::istringstream in(info.param.args);
  std::string op, word;
  in >> word >> op;
  for (char c : op) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name + "_" + std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(Every, Pattern, ::testing::ValuesIn(kCases), case_name);

// The comparison sees the knobs: Open MPI forced to another radix, segment size or fanout sends
// something else than ours.
TEST(PatternControl, AnotherRadixSegmentOrFanoutIsSeen) {
  REQUIRE_MONITORING();
  const std::string knomial = "--op bcast/knomial --bytes 64KiB --segment 8KiB";
  EXPECT_NE(monitored(8, "mpi", knomial + " --radix 4").sent, monitored(8, "mpi-native", knomial + " --radix 2").sent);
  EXPECT_NE(monitored(4, "mpi", "--op bcast/pipeline --bytes 64KiB --segment 8KiB").sent,
            monitored(4, "mpi-native", "--op bcast/pipeline --bytes 64KiB --segment 16KiB").sent);
  const std::string chain = "--op bcast/chain --bytes 64KiB --segment 8KiB";
  EXPECT_NE(monitored(5, "mpi", chain + " --fanout 2").sent, monitored(5, "mpi-native", chain + " --fanout 4").sent);
}

}  // namespace
