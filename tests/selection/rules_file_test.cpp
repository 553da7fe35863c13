// The Open MPI 4.1 dynamic rules file written from decision tables: the exact text, what the
// format cannot hold, and the file read back the way Open MPI reads it (numbers, '#' comments),
// matched the way Open MPI matches, against DecisionTable::lookup. tests/selection/
// mpi_rules_test.cpp runs it in a real Open MPI.
#include <gtest/gtest.h>
#include <unistd.h>

#include <climits>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/choices.hpp"
#include "engines/run.hpp"
#include "selection/rules_file.hpp"

namespace collsim::selection {
namespace {

using collsim_test::pick;

std::vector<DecisionTable> example() {
  Choice chain = pick("bcast/chain", 16384);
  chain.params.fanout = 3;
  std::vector<DecisionTable> tables;
  // Gather first: the file lists collectives by Open MPI's ID whatever the order given.
  tables.emplace_back(
      Operation::gather,
      std::vector<DecisionTable::Row>{{4, {{0, pick("gather/binomial")}, {200000, pick("gather/linear_sync", 1024)}}}});
  tables.emplace_back(Operation::bcast, std::vector<DecisionTable::Row>{
                                            {1, {{0, pick("bcast/binomial")}, {65536, pick("bcast/pipeline", 8192)}}},
                                            {8, {{0, chain}}}});
  return tables;
}

TEST(RulesFile, CollectiveIds) {
  EXPECT_EQ(ompi_collective_id(Operation::bcast), 7);
  EXPECT_EQ(ompi_collective_id(Operation::gather), 9);
}

TEST(RulesFile, ExactText) {
  EXPECT_EQ(rules_file_text(example()),
            "# Open MPI coll/tuned dynamic rules (the format of Open MPI 4.1's coll_tuned_dynamic_file.c),\n"
            "# written by collsim. Use:\n"
            "#   mpirun --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename FILE\n"
            "# Per message size: from-bytes algorithm-id fanout segment-bytes. Message sizes are total\n"
            "# bytes: the vector of bcast, reduce and allreduce; for gather, scatter, allgather, alltoall and\n"
            "# reduce_scatter, one process's block times the communicator size; 0 for barrier.\n"
            "2  # collectives\n"
            "\n"
            "7  # collective ID: bcast\n"
            "2  # communicator sizes\n"
            "1  # from communicator size 1\n"
            "2  # message sizes\n"
            "0 6 0 0  # bcast/binomial segment 0\n"
            "65536 3 0 8192  # bcast/pipeline segment 8KiB\n"
            "8  # from communicator size 8\n"
            "1  # message sizes\n"
            "0 2 3 16384  # bcast/chain segment 16KiB fanout 3\n"
            "\n"
            "9  # collective ID: gather\n"
            "1  # communicator sizes\n"
            "4  # from communicator size 4\n"
            "2  # message sizes\n"
            "0 2 0 0  # gather/binomial\n"
            "800000 3 0 1024  # gather/linear_sync segment 1KiB\n");
}

TEST(RulesFile, RefusesWhatTheFormatCannotHold) {
  using Rows = std::vector<DecisionTable::Row>;
  const DecisionTable b(Operation::bcast, Rows{{1, {{0, pick("bcast/binomial")}}}});
  EXPECT_THROW(rules_file_text(std::vector<DecisionTable>{b, b}), InputError);
  Choice knomial = pick("bcast/knomial");
  knomial.params.radix = 3;
  EXPECT_THROW(rules_file_text(std::vector<DecisionTable>{DecisionTable(Operation::bcast, Rows{{1, {{0, knomial}}}})}),
               InputError);
  knomial.params.radix = 4;  // Open MPI's default radix is what it runs
  EXPECT_NO_THROW(
      rules_file_text(std::vector<DecisionTable>{DecisionTable(Operation::bcast, Rows{{1, {{0, knomial}}}})}));
  const Choice huge = pick("bcast/pipeline", std::size_t{INT_MAX} + 1);
  EXPECT_THROW(rules_file_text(std::vector<DecisionTable>{DecisionTable(Operation::bcast, Rows{{1, {{0, huge}}}})}),
               InputError);
  EXPECT_NE(rules_file_text({}).find("\n0  # collectives\n"), std::string::npos);
  // max_requests: the version-1 format has no column for it.
  Choice bounded = pick("alltoall/linear_sync");
  bounded.params.max_requests = 2;
  EXPECT_THROW(
      rules_file_text(std::vector<DecisionTable>{DecisionTable(Operation::alltoall, Rows{{1, {{0, bounded}}}})}),
      InputError);
  bounded.params.max_requests = 0;
  EXPECT_NO_THROW(
      rules_file_text(std::vector<DecisionTable>{DecisionTable(Operation::alltoall, Rows{{1, {{0, bounded}}}})}));
}

// The file read as Open MPI 4.1 reads it: longs separated by anything; '#' skips to the end of
// the line. Then matched as coll_tuned_dynamic_rules.c matches.
struct MsgRule {
  long size, alg, fanout, segment;
};
struct ComRule {
  long procs;
  std::vector<MsgRule> msgs;
};
std::map<long, std::vector<ComRule>> read_like_open_mpi(const std::string& text) {
  std::istringstream in(text);
  auto next = [&in]() {
    for (;;) {
      long v = 0;
      if (in >> v) return v;
      if (in.eof()) throw std::runtime_error("end of file");
      in.clear();
      if (in.get() == '#') in.ignore(1 << 20, '\n');
    }
  };
  std::map<long, std::vector<ComRule>> out;
  for (long n = next(); n > 0; --n) {
    const long id = next();
    auto& coms = out[id];
    for (long c = next(); c > 0; --c) {
      ComRule com{next(), {}};
      for (long m = next(); m > 0; --m) {
        MsgRule r{next(), next(), next(), next()};
        com.msgs.push_back(r);
      }
      EXPECT_EQ(com.msgs.front().size, 0) << "Open MPI drops a file whose first message size is not 0";
      coms.push_back(com);
    }
  }
  return out;
}

const MsgRule& open_mpi_match(const std::vector<ComRule>& coms, long procs, long total_bytes) {
  const ComRule* com = &coms.front();
  for (const auto& c : coms) {
    if (c.procs > procs) break;
    com = &c;
  }
  const MsgRule* msg = &com->msgs.front();
  for (const auto& m : com->msgs) {
    if (m.size > total_bytes) break;
    msg = &m;
  }
  return *msg;
}

TEST(RulesFile, OpenMpiReadsWhatTheTablesSay) {
  // A table at every communicator size 1..12, so that the per-process operations' scaling is
  // exact: Open MPI 3.1's decisions for bcast and gather, 4.1's for every operation.
  std::vector<int> procs;
  for (int p = 1; p <= 12; ++p) procs.push_back(p);
  const auto sizes = sample_sizes(1 << 22);
  const std::vector<std::size_t> no_bytes{0};
  std::vector<DecisionTable> tables;
  for (const OperationInfo& info : all_operations()) {
    const Operation op = info.op;
    const OmpiVersion v = op == Operation::bcast || op == Operation::gather ? OmpiVersion::v3_1 : OmpiVersion::v4_1;
    tables.push_back(DecisionTable::build(op, procs, info.moves_data ? sizes : no_bytes,
                                          [op, v](int p, std::size_t m) { return ompi_fixed_decision(v, op, p, m); }));
  }
  const auto rules = read_like_open_mpi(rules_file_text(tables));
  ASSERT_EQ(rules.size(), all_operations().size());
  for (const DecisionTable& t : tables) {
    const bool per_process = operation_info(t.op()).ompi_rules_size_per_process;
    const auto& coms = rules.at(ompi_collective_id(t.op()));
    for (int p = 1; p <= 14; ++p)
      for (std::size_t m = 0; m < (std::size_t{1} << 23); m = m * 3 / 2 + 1) {
        // Past the last row (12) per-process boundaries are scaled for 12 processes: skip there.
        if (per_process && p > 12) continue;
        const long total = static_cast<long>(per_process ? m * static_cast<std::size_t>(p) : m);
        const MsgRule& r = open_mpi_match(coms, p, total);
        const Choice& c = t.lookup(p, m);
        EXPECT_EQ(r.alg, c.algorithm->ompi_id) << to_string(t.op()) << " P=" << p << " m=" << m;
        EXPECT_EQ(static_cast<std::size_t>(r.segment), c.algorithm->takes(Knob::segment) ? c.params.segment : 0u);
      }
  }
}

TEST(RulesFile, WritesTheFile) {
  const auto path = std::filesystem::temp_directory_path() / ("collsim-rules-" + std::to_string(::getpid()) + ".txt");
  write_rules_file(path, example());
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_EQ(s.str(), rules_file_text(example()));
  std::filesystem::remove(path);
  EXPECT_THROW(write_rules_file("/nonexistent-dir/rules.txt", example()), InputError);
}

}  // namespace
}  // namespace collsim::selection
