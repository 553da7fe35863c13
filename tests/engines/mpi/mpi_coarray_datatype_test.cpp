// collsim-mpi coarray --scheme datatype on 2 processes: each statement is one MPI_Rput (MPI_Rget)
// of derived datatypes (engines/mpi/mpi_datatype.hpp); the program checks the bytes of a 1-D
// strided section, a 2-D column section, a negative stride, a rank-3 section and an empty one,
// PUT and GET, and the CSV names the scheme and its one transfer.
#include <gtest/gtest.h>

#include <string>

#include "common/csv_row.hpp"
#include "common/mpirun.hpp"
#include "experiment/results/coarray_point.hpp"

namespace {

using collsim_test::Outcome;

struct Case {
  std::string args, transfers;
};
// The sections of tests/cli/collsim_coarray_datatype_test.cpp, 8-byte elements (no section is
// written ':' alone, which mpirun would take for its separator of programs).
const Case kCases[] = {
    {" --local 1:200:2 --local-shape 200 --remote 1:100 --remote-shape 100", "1"},
    {" --local :,: --local-shape 10,3 --remote :,2:8:3 --remote-shape 10,10", "1"},
    {" --local 100:1:-1 --local-shape 100 --remote 1:100 --remote-shape 100", "1"},
    {" --local :,:,: --local-shape 2,2,2 --remote 2:3,1:4:3,2:3 --remote-shape 4,4,4", "1"},
    {" --local 3:2 --local-shape 10 --remote 5:4 --remote-shape 10", "0"},
};

TEST(MpiCoarrayDatatype, StridedSectionsArriveOnTwoProcesses) {
  for (const char* op : {"--put", "--get"})
    for (const Case& c : kCases) {
      const std::string args =
          std::string(" coarray --scheme datatype --csv --warmup 1 --min-runs 2 --max-runs 3 ") + op + c.args;
      const Outcome o = collsim_test::mpirun(2, std::string(COLLSIM_MPI_BIN) + args);
      ASSERT_EQ(o.status, 0) << args << "\n" << o.out << o.err;
      auto row = collsim_test::csv_row(o.out, collsim::coarray_csv_header());
      EXPECT_EQ(row["case"], "datatype") << args;
      EXPECT_EQ(row["transfers"], c.transfers) << args;
      EXPECT_EQ(row["data"], "ok") << args;
      // The row reads back as a datatype point.
      const auto rows = collsim::parse_coarray_csv(o.out);
      ASSERT_EQ(rows.size(), 1u) << o.out;
      EXPECT_EQ(rows[0].point.options.scheme, collsim::coarray::Method::datatype) << args;
    }
}

TEST(MpiCoarrayDatatype, NonBlockingStatementsCompleteAtTheSegmentEnd) {
  const std::string args =
      " coarray --scheme datatype --nonblocking safe --statements 2 --csv --warmup 1 --min-runs 2 --max-runs 3" +
      kCases[1].args;
  const Outcome o = collsim_test::mpirun(2, std::string(COLLSIM_MPI_BIN) + args);
  ASSERT_EQ(o.status, 0) << o.out << o.err;
  auto row = collsim_test::csv_row(o.out, collsim::coarray_csv_header());
  EXPECT_EQ(row["op"], "coarray/put-nb");
  EXPECT_EQ(row["transfers"], "2");
  EXPECT_EQ(row["data"], "ok");
}

}  // namespace
