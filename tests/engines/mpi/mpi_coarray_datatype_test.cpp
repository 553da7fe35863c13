// collsim-mpi coarray --scheme datatype on 2 processes: each statement is one MPI_Rput (MPI_Rget)
// of derived datatypes (engines/mpi/mpi_datatype.hpp); the program checks the bytes of a 1-D
// strided section, a 2-D column section, a negative stride, a rank-3 section and an empty one,
// PUT and GET, and the CSV names the scheme and its one transfer.
#include <gtest/gtest.h>

#include <string>

#include "common/csv_row.hpp"
#include "common/datatype_sections.hpp"
#include "common/mpirun.hpp"
#include "experiment/results/coarray_point.hpp"

namespace {

using collsim_test::DatatypeSection;
using collsim_test::kDatatypeSections;
using collsim_test::Outcome;

TEST(MpiCoarrayDatatype, StridedSectionsArriveOnTwoProcesses) {
  for (const char* op : {"--put", "--get"})
    for (const DatatypeSection& c : kDatatypeSections) {
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
      kDatatypeSections[1].args;
  const Outcome o = collsim_test::mpirun(2, std::string(COLLSIM_MPI_BIN) + args);
  ASSERT_EQ(o.status, 0) << o.out << o.err;
  auto row = collsim_test::csv_row(o.out, collsim::coarray_csv_header());
  EXPECT_EQ(row["op"], "coarray/put-nb");
  EXPECT_EQ(row["transfers"], "2");
  EXPECT_EQ(row["data"], "ok");
}

}  // namespace
