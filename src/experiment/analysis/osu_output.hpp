// The text output of the OSU micro-benchmarks (5.x to 7.x) that `collsim calibrate --from-osu`
// reads: osu_latency, osu_bw, osu_bibw, osu_mbw_mr and osu_bcast. A file is one run of one
// benchmark: its title line ("# OSU MPI Latency Test v7.3"), optional header lines (7.x's
// "# Datatype: MPI_CHAR.", osu_mbw_mr's "# [ pairs: 4 ] [ window size: 64 ]"), the column header
// ("# Size" and the benchmark's columns) and one row per message size. The formats are OSU's
// printf formats (osu_util_mpi.c print_only_header / print_stats, osu_latency.c, osu_bw.c,
// osu_mbw_mr.c in 7.4; osu_pt2pt.c and osu_coll.c in 5.x); rows are read by splitting on
// whitespace, so the column widths do not matter. Anything else is refused with
// "FILE:LINE: problem" (InputError).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace collsim {

enum class OsuBenchmark { latency, bw, bibw, mbw_mr, bcast };
// The program's name: "osu_latency", ...
const char* to_string(OsuBenchmark b);

struct OsuRow {
  std::size_t bytes = 0;
  // One per column after the size, in the file's unit (us, MB/s = 1e6 B/s, messages/s, count).
  std::vector<double> values;
  int line = 0;  // in the file, from 1
};

struct OsuOutput {
  std::string file;
  OsuBenchmark benchmark = OsuBenchmark::latency;
  std::string version;               // "7.3"; empty when the title has none
  std::vector<std::string> columns;  // after "Size", as OSU names them ("Avg Latency(us)", ...)
  int pairs = 0;                     // osu_mbw_mr: the pairs its header states; else 0
  std::vector<OsuRow> rows;          // sizes strictly increasing

  // The first column of a row in seconds (latencies) or bytes per second (bandwidths).
  double main_value(const OsuRow& row) const;
};

// Parses `text`, the content of `file` (named in the messages). Throws InputError
// "FILE:LINE: problem" for an empty file, a missing or unknown title, a column header that is not
// the benchmark's, a row before it, a row with another number of columns or a value that is not
// a number, and sizes that do not increase.
OsuOutput parse_osu_output(const std::string& file, std::string_view text);
// The same from a file on disk (InputError "FILE: cannot read the OSU output" when it cannot be read).
OsuOutput read_osu_output(const std::string& path);

}  // namespace collsim
