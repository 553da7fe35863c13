// collsim-mpi: measures collective algorithms on real MPI; launched by mpirun, one process per
// rank. Every rank parses the same arguments and reaches the same verdict on them, so input
// errors need no communication: rank 0 alone prints them and every rank exits with status 2
// after a clean MPI_Finalize.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/coarray_options.hpp"
#include "cli/measure_options.hpp"
#include "cli/mpi_measure_options.hpp"
#include "cli/options.hpp"
#include "cli/time_left.hpp"
#include "engines/mpi/algorithm_call.hpp"
#include "engines/mpi/fidelity.hpp"
#include "engines/mpi/measure.hpp"
#include "engines/mpi/mpi_t.hpp"
#include "engines/mpi/native_call.hpp"
#include "engines/mpi/pingpong.hpp"
#include "engines/mpi/trace_gather.hpp"
#include "engines/run.hpp"
#include "experiment/coarray_point.hpp"
#include "experiment/measurement.hpp"
#include "experiment/trace_files.hpp"
#include "support/units.hpp"

namespace collsim {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;  // wrong bytes, or the run itself failed
constexpr int kExitUsage = 2;

const char* const kUsage =
    "usage: mpirun -np P collsim-mpi measure --op NAME --bytes SIZE [--engine mpi|mpi-native] ...\n"
    "       mpirun -np P collsim-mpi fidelity [--sizes 8KiB..4MiB] [--ops all] [--output FILE] ...\n"
    "       mpirun -np P collsim-mpi run --op NAME --bytes SIZE [--engine mpi|mpi-native] ...\n"
    "       mpirun -np 2 collsim-mpi pingpong [--sizes 1..4MiB] [--output FILE] ...\n"
    "       mpirun -np 2 collsim-mpi coarray --local SECTION --local-shape DIMS --remote SECTION ...\n"
    "       collsim-mpi algorithms\n"
    "       collsim-mpi [COMMAND] --help\n"
    "\n"
    "Runs collective algorithms on real MPI, the same algorithm source as the simulated engines.\n"
    "Every rank starts a call at one common date (clocks synchronised to rank 0); a call's time\n"
    "is the last rank's finish minus that date. Calls are repeated until the 95% confidence\n"
    "interval of the mean is within --ci-target of it; the reported time is the median.\n"
    "\n"
    "engines:\n"
    "  mpi          our algorithms over MPI point-to-point messages (default)\n"
    "  mpi-native   Open MPI's own MPI_Bcast / MPI_Gather, forced through MPI_T to the algorithm\n"
    "               of the same name and ID (coll_tuned_<op>_algorithm) and the same segment\n"
    "               size, chain fanout and k-nomial radix; same buffers, checks and timing\n"
    "\n"
    "commands:\n"
    "  measure      time one algorithm on the processes mpirun started\n"
    "  fidelity     time every algorithm against Open MPI's own, interleaved call by call\n"
    "  run          one untimed call, data checked (to watch its messages with a tool)\n"
    "  pingpong     point-to-point latency and bandwidth between rank 0 and another rank\n"
    "  coarray      time a segment of coarray PUT/GET statements (Table 1's schemes) over MPI RMA\n"
    "  algorithms   list the algorithms\n";

std::vector<cli::OptionDef> measure_options() {
  std::vector<cli::OptionDef> defs = cli::call_options(false);
  for (auto& d : cli::stop_rule_options()) defs.push_back(d);
  defs.push_back({"engine", "NAME",
                  "mpi: our algorithms over MPI point-to-point (default); mpi-native: Open MPI's "
                  "own MPI_Bcast/MPI_Gather forced to the algorithm of the same name and knobs"});
  defs.push_back({"trace", "FILE",
                  "write the events of one call, the first timed one after the warm-up, to FILE; its "
                  "extension picks the format (.csv; .json Perfetto; .paje ViTE); engine mpi only"});
  defs.push_back({"help", "", "print this help"});
  return defs;
}

std::string measure_usage() {
  return "usage: mpirun -np P collsim-mpi measure --op NAME --bytes SIZE [options]\n"
         "\n"
         "Times one algorithm on the P processes and prints a summary (or a CSV row): ours\n"
         "(--engine mpi), or Open MPI's own MPI_Bcast/MPI_Gather forced to the algorithm of the\n"
         "same name and knobs (--engine mpi-native; it refuses, with status 2, anything that\n"
         "would leave Open MPI free to pick another). Exit status: 0 when the data was right,\n"
         "1 when a byte was wrong or the run failed, 2 on bad input.\n"
         "--trace records the first timed call (not the warm-up, not the later repetitions): on\n"
         "each rank the posts and completions of its operations and, for each request, the moment\n"
         "the wait that completed it returned (MPI shows nothing in between), on the common time\n"
         "axis of the timing protocol (clock offsets to rank 0 applied), merged on rank 0, which\n"
         "pairs each isend with the irecv it met (the message id of both request_done events).\n"
         "\n"
         "options:\n" +
         cli::format_options(measure_options());
}

void print_summary(const Measurement& m, const MpiMeasurement& result, const MeasureOptions& options) {
  std::string where = "root " + std::to_string(m.root) + ", ";
  where += m.segment ? "segment " + format_bytes(m.segment) : std::string("unsegmented");
  std::cout << m.op << " on " << m.procs << " processes, " << format_bytes(m.bytes) << " (" << where << "), engine "
            << m.engine << "\n";
  if (m.runs > 0) {
    char spread[32];
    std::snprintf(spread, sizeof spread, "%.1f%%", m.mean_s > 0 ? 100 * m.ci95_s / m.mean_s : 0.0);
    std::cout << "  median " << format_seconds(m.median_s) << "   mean " << format_seconds(m.mean_s) << " +- " << spread
              << " (95% CI)   min " << format_seconds(m.min_s) << "   max " << format_seconds(m.max_s) << "\n";
  }
  std::cout << "  " << m.runs << " timed runs after " << options.warmup << " warm-up"
            << (m.ci_met.value_or(false) ? ", 95% CI within --ci-target " + cli::percent(options.stop.ci_target) : "")
            << ", data " << m.data << "\n";
  if (const std::string missed = cli::ci_missed(m, options.stop); !missed.empty())
    std::cout << "  CI target not met: " << missed << "\n";
  std::cout << "  clocks synchronised to rank 0 within " << format_seconds(result.clock_rtt_s / 2)
            << ", start dates set " << format_seconds(result.lead_s) << " ahead\n";
}

std::string read_engine(const cli::ParsedOptions& options) {
  const std::string engine = options.text("engine", kEngineMpi);
  if (engine != kEngineMpi && engine != kEngineMpiNative)
    throw cli::UsageError("--engine: '" + engine + "' is not available (one of: mpi, mpi-native)");
  return engine;
}

// Rank 0 writes an empty trace to `path` before anything is measured, so that a format
// write_trace does not know or a file it cannot write stops every rank at once (status 2).
void check_trace_file(const std::string& path, int rank) {
  std::string problem;
  if (rank == 0) {
    try {
      write_trace(path, {});
    } catch (const std::exception& e) {
      problem = e.what();
    }
  }
  unsigned long length = problem.size();
  MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD);
  problem.resize(length);
  MPI_Bcast(problem.data(), static_cast<int>(length), MPI_CHAR, 0, MPI_COMM_WORLD);
  if (!problem.empty()) throw cli::UsageError("--trace: " + problem);
}

int measure_command(std::span<char* const> args, int rank, int size) {
  const auto defs = measure_options();
  const cli::ParsedOptions options = cli::parse_options(args, defs);
  if (!options.positional.empty())
    throw cli::UsageError("unexpected argument '" + options.positional.front() + "' (see --help)");
  const std::string engine = read_engine(options);
  const RunSpec spec = cli::read_call(options, size);
  MeasureOptions measure_opts = cli::read_measure_options(options);
  const bool tracing = options.has("trace");
  if (tracing && engine == kEngineMpiNative)
    throw cli::UsageError(
        "--trace: engine mpi-native (Open MPI's own collective) cannot be traced, its messages "
        "are inside MPI; trace --engine mpi");
  if (tracing) check_trace_file(options.text("trace"), rank);
  TraceBuffer trace;
  if (tracing) measure_opts.trace = &trace;

  const MpiMeasurement result = measure_engine(MPI_COMM_WORLD, engine, spec, measure_opts);
  const Measurement row = measured_row(engine, spec, result.summary, result.ci_met, result.data);
  if (tracing) {
    TracedRun run{kEngineMpi, describe(spec), size, gather_trace(MPI_COMM_WORLD, trace.events())};
    if (rank == 0) {
      write_trace(options.text("trace"), {run});
      const std::string when = result.samples_s.empty()
                                   ? std::string("no timed call")
                                   : "the first timed call, " + format_seconds(result.samples_s[0]);
      std::fprintf(stderr, "collsim-mpi: trace of %s: %zu events written to %s\n", when.c_str(), run.events.size(),
                   options.text("trace").c_str());
    }
  }
  if (rank == 0) {
    if (options.has("csv"))
      std::cout << csv_header() << "\n" << csv_row(row) << "\n";
    else
      print_summary(row, result, measure_opts);
    std::cout.flush();
    // The text says it above; beside a CSV row (ci_target_met 0), a line for whoever watches.
    if (const std::string missed = cli::ci_missed(row, measure_opts.stop); !missed.empty() && options.has("csv"))
      std::fprintf(stderr, "collsim-mpi: note: %s\n", missed.c_str());
    if (result.late_runs > 0)
      std::fprintf(stderr,
                   "collsim-mpi: note: in %d of %d runs a rank reached the start date late (by up "
                   "to %s); those times include the delay\n",
                   result.late_runs, row.runs, format_seconds(result.max_late_s).c_str());
  }
  return row.data == "ok" ? kExitOk : kExitFailed;
}

// --- coarray: a segment of coarray PUT/GET statements ------------------------------------------

std::vector<cli::OptionDef> coarray_options() {
  std::vector<cli::OptionDef> defs = cli::coarray_point_options();
  for (auto& d : cli::stop_rule_options()) defs.push_back(d);
  defs.push_back({"csv", "", "print a CSV header and row (collsim coarray's columns) instead of the text"});
  defs.push_back({"help", "", "print this help"});
  return defs;
}

std::string coarray_usage() {
  return "usage: mpirun -np P collsim-mpi coarray [--put|--get] --local SECTION --local-shape DIMS\n"
         "                    --remote SECTION --remote-shape DIMS [--elem BYTES] [--buffer B] [--registered]\n"
         "                    [--nonblocking N | --statements N] [--get-behaviour table1|omni] [--csv] [options]\n"
         "\n"
         "Engine mpi: the coarray runtime of `collsim coarray` (Omni XcalableMP's schemes, Table 1)\n"
         "over real MPI one-sided communication, one image per process (P >= 2; images other than\n"
         "--origin and --target only join the synchronisations). Per call, the origin image runs\n"
         "one segment: N statements, then sync memory. Untimed around each call: windows and\n"
         "arrays filled with known patterns, and a check of every byte against the Fortran\n"
         "assignment. The call's time is the origin's finish, under the timing protocol of\n"
         "`collsim-mpi measure` (common start date, warm-up, repetition until the 95% CI is\n"
         "tight); the text shows the median, the minimum and the CI half-width. The output is\n"
         "that of `collsim coarray`; --csv gives its header and row, with runs, min_s and ci95_s.\n"
         "Under mpirun write a lone ':' section as --local=: (mpirun takes a lone ':' for its MPMD\n"
         "separator); ':,5' and the like need nothing.\n"
         "Exit status 0 when the data was right, 1 when not or the run failed, 2 on bad input.\n"
         "\n"
         "options:\n" +
         cli::format_options(coarray_options()) + "\n" + cli::kCoarraySectionsHelp;
}

int coarray_command(std::span<char* const> args, int rank, int size) {
  const auto defs = coarray_options();
  const cli::ParsedOptions options = cli::parse_options(args, defs);
  if (!options.positional.empty())
    throw cli::UsageError("unexpected argument '" + options.positional.front() + "' (see --help)");
  if (size < 2)
    throw cli::UsageError("coarray needs at least 2 images, one per process (mpirun -np 2 collsim-mpi coarray ...)");
  CoarrayPoint point = cli::read_coarray_point(options);
  point.real_bytes = true;  // MPI moves real memory, so it is checked too
  const MeasureOptions measure_opts = cli::read_measure_options(options);
  const CoarrayProgram program(point);
  const RunSpec spec = coarray_spec(program, size);

  AlgorithmCall call(MPI_COMM_WORLD, spec);
  const MpiMeasurement result = measure(MPI_COMM_WORLD, call, measure_opts);
  Measurement m;
  set_statistics(m, result.summary, result.ci_met, result.data);
  const CoarrayRow row = measured_coarray_row(kEngineMpi, point, m);
  if (rank == 0) {
    const std::string missed = cli::ci_missed(m, measure_opts.stop);
    if (options.has("csv"))
      std::cout << coarray_csv_header() << "\n" << coarray_csv_row(row) << "\n";
    else
      std::cout << cli::coarray_summary(row, "engine mpi, " + std::to_string(size) + " images", true)
                << (missed.empty() ? "" : "CI target not met: " + missed + "\n");
    std::cout.flush();
    if (!missed.empty() && options.has("csv")) std::fprintf(stderr, "collsim-mpi: note: %s\n", missed.c_str());
    if (result.late_runs > 0)
      std::fprintf(stderr,
                   "collsim-mpi: note: in %d of %d runs a rank reached the start date late (by up "
                   "to %s); those times include the delay\n",
                   result.late_runs, m.runs, format_seconds(result.max_late_s).c_str());
  }
  return row.data == "ok" ? kExitOk : kExitFailed;
}

// --- run: one untimed call -------------------------------------------------------------------

std::vector<cli::OptionDef> run_options() {
  std::vector<cli::OptionDef> defs;
  for (auto& d : cli::call_options(false))
    if (d.name != "csv") defs.push_back(d);
  defs.push_back({"engine", "NAME", "mpi (default) or mpi-native"});
  defs.push_back({"help", "", "print this help"});
  return defs;
}

std::string run_usage() {
  return "usage: mpirun -np P collsim-mpi run --op NAME --bytes SIZE [options]\n"
         "\n"
         "One call of the algorithm, untimed, its data checked on every rank. Besides the call's\n"
         "own messages it sends only those of one communicator duplication, one barrier before\n"
         "the call and one reduction after it, the same for both engines: made to watch what an\n"
         "algorithm sends, e.g. with Open MPI's message monitoring, which prints the messages and\n"
         "bytes each rank sent to each other rank when the run ends:\n"
         "  mpirun -np 4 --mca pml_monitoring_enable 1 --mca pml_monitoring_enable_output 1 \\\n"
         "      collsim-mpi run --engine mpi-native --op bcast/pipeline --bytes 64KiB --segment 8KiB\n"
         "Exit status 0 when the data was right, 1 when not, 2 on bad input.\n"
         "\n"
         "options:\n" +
         cli::format_options(run_options());
}

int run_command(std::span<char* const> args, int rank, int size) {
  const auto defs = run_options();
  const cli::ParsedOptions options = cli::parse_options(args, defs);
  if (!options.positional.empty())
    throw cli::UsageError("unexpected argument '" + options.positional.front() + "' (see --help)");
  const std::string engine = read_engine(options);
  const RunSpec spec = cli::read_call(options, size);
  const auto call = make_call(MPI_COMM_WORLD, engine, spec);

  std::string problem;
  MPI_Barrier(MPI_COMM_WORLD);
  try {
    call->prepare();
    call->run(MPI_Wtime());
    problem = call->check();
  } catch (const std::exception& e) {
    problem = e.what();
  }
  const int mine = problem.empty() ? 0 : 1;
  int failed = 0;
  MPI_Allreduce(&mine, &failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (!problem.empty()) std::fprintf(stderr, "collsim-mpi: %s\n", problem.c_str());
  if (rank == 0 && failed == 0) std::cout << engine << " " << describe(spec) << ": data ok\n";
  return failed == 0 ? kExitOk : kExitFailed;
}

// --- fidelity: ours against Open MPI's own ---------------------------------------------------

std::vector<cli::OptionDef> fidelity_options() {
  std::vector<cli::OptionDef> defs = {
      {"sizes", "LIST",
       "sizes, doubling from A to B (8KiB..4MiB, the default) or listed (8KiB,1MiB), each the call's "
       "size as `collsim algorithms` says per operation (gather: bytes per process); reductions: "
       "whole elements (rounded down); barrier: 0 only"},
      {"ops", "LIST",
       "all (default: those that run on P processes), operations (bcast, reduce, ...), or algorithm names, "
       "separated by commas"},
      {"segment", "SIZE", "segment of the bcasts and reduces that take one (default 8KiB)"},
      {"gather-segment", "SIZE", "first segment of gather/linear_sync (default 1KiB)"},
      {"root", "R", "root rank of the rooted operations (default 0)"},
  };
  for (auto& d : cli::reduction_options(FidelityOptions{}.reduction)) defs.push_back(d);
  for (auto& d : cli::stop_rule_options()) defs.push_back(d);
  defs.push_back({"output", "FILE", "also write one CSV row per algorithm and size to FILE (also -o FILE)"});
  defs.push_back({"quiet", "", "no progress lines on stderr"});
  defs.push_back({"help", "", "print this help"});
  return defs;
}

std::string fidelity_usage() {
  char band[96];
  std::snprintf(band, sizeof band, "%.2f..%.2f", kFidelityBandLow, kFidelityBandHigh);
  return "usage: mpirun -np P collsim-mpi fidelity [options]\n"
         "\n"
         "Times each algorithm (engine mpi) against Open MPI's own implementation of it (engine\n"
         "mpi-native) at each size, interleaved: single timed calls of the two alternate\n"
         "(A B B A A B ...) so that noise on the machine hits both alike, until both series meet\n"
         "the stop rule (--min-runs, --max-runs and --ci-target count the calls of each). Segmented\n"
         "bcasts and reduces use --segment, gather/linear_sync --gather-segment; reductions\n"
         "--datatype and --reduce-op; a barrier has size 0 only.\n"
         "Prints per algorithm and size the median times and their ratio ours/native (and the\n"
         "median of the ratios of calls made in a row), marking the rows that stopped at --max-runs\n"
         "with a CI above --ci-target; then per algorithm the median of its ratios, flagged when\n"
         "outside " +
         std::string(band) +
         ". On stderr, the rows done, the time so far and an estimate of the time left.\n"
         "The defaults, every algorithm at 10 sizes (415 rows on 4 processes), take half an hour\n"
         "to hours on a small machine (tools/bench/README.md); a first look, in minutes:\n"
         "--ops bcast --sizes 8KiB,256KiB.\n"
         "Exit status 0 when every call's data was right, 1 when not, 2 on bad input.\n"
         "\n"
         "options:\n" +
         cli::format_options(fidelity_options());
}

std::size_t read_size(const std::string& option, const std::string& text) {
  const auto value = parse_bytes(text);
  if (!value) throw cli::UsageError(option + ": '" + text + "' is not a size in bytes");
  return *value;
}

std::vector<std::size_t> read_sizes(const cli::ParsedOptions& options, const std::string& fallback = "8KiB..4MiB") {
  const std::string text = options.text("sizes", fallback);
  std::vector<std::size_t> sizes;
  if (const auto dots = text.find(".."); dots != std::string::npos) {
    const std::size_t from = read_size("--sizes", text.substr(0, dots));
    const std::size_t to = read_size("--sizes", text.substr(dots + 2));
    if (from == 0 || to < from) throw cli::UsageError("--sizes: '" + text + "' is not a range A..B with 0 < A <= B");
    // Stops before doubling past `to` (or past the largest size_t, for a `to` near it).
    for (std::size_t s = from;; s *= 2) {
      sizes.push_back(s);
      if (s > to / 2) break;
    }
    return sizes;
  }
  std::string item;
  for (std::istringstream in(text); std::getline(in, item, ',');) sizes.push_back(read_size("--sizes", item));
  if (sizes.empty()) throw cli::UsageError("--sizes: no sizes in '" + text + "'");
  return sizes;
}

// "all" and operation names stand for their algorithms that run on `procs` processes; an
// algorithm named on its own that cannot is refused.
std::vector<const AlgorithmInfo*> read_ops(const cli::ParsedOptions& options, int procs) {
  const std::string text = options.text("ops", "all");
  std::vector<const AlgorithmInfo*> out;
  std::string item;
  for (std::istringstream in(text); std::getline(in, item, ',');) {
    bool group = item == "all";
    for (const auto& a : all_algorithms()) group = group || to_string(a.op) == item;
    if (group) {
      for (const auto& a : all_algorithms())
        if ((item == "all" || to_string(a.op) == item) && runs_on(a, procs)) out.push_back(&a);
      continue;
    }
    const AlgorithmInfo* a = find_algorithm(item);
    if (!a)
      throw cli::UsageError("--ops: unknown algorithm '" + item +
                            "' (all, an operation such as bcast, or: " + algorithm_names() + ")");
    if (!runs_on(*a, procs))
      throw cli::UsageError("--ops: " + item + " does not run on " + std::to_string(procs) + " processes");
    out.push_back(a);
  }
  if (out.empty()) throw cli::UsageError("--ops: no algorithms in '" + text + "'");
  return out;
}

std::string fixed(double value, int decimals) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

std::string padded(std::string text, std::size_t width, bool right = false) {
  if (text.size() >= width) return text + " ";
  const std::string pad(width - text.size(), ' ');
  return (right ? pad + text : text + pad) + " ";
}

// The mark of a row whose calls stopped at --max-runs with a CI above --ci-target (the data column
// says why a row with wrong bytes stopped).
const char* const kCiMissedMark = "CI above target";

std::string point_line(const FidelityPoint& p) {
  const RunSpec& s = p.spec;
  return padded(std::string(s.algorithm->name), 28) + padded(format_bytes(s.bytes), 8, true) +
         padded(s.params.segment ? format_bytes(s.params.segment) : "-", 8, true) +
         padded(std::to_string(p.ours.runs), 5, true) + padded(format_seconds(p.ours.median), 12, true) +
         padded(format_seconds(p.native.median), 12, true) + padded(fixed(p.ratio, 3), 7, true) +
         padded(fixed(p.paired_ratio, 3), 7, true) + (p.data == "ok" ? "" : "  data: " + p.data) +
         (p.data == "ok" && !p.ci_met ? std::string("  ") + kCiMissedMark : "");
}

const char* const kFidelityCsvHeader =
    "op,procs,bytes,segment,root,runs,ours_median_s,native_median_s,ours_mean_s,native_mean_s,"
    "ours_ci95_s,native_ci95_s,ci_target_met,ratio,paired_ratio,late_runs,data,datatype,reduce_op";

// "double,sum" for a reducing operation, "," (both empty) for the others.
std::string reduction_columns(const RunSpec& s) {
  if (!operation_info(s.algorithm->op).reduces) return ",";
  return std::string(to_string(s.params.reduction.type)) + "," + std::string(to_string(s.params.reduction.op));
}

std::string fidelity_csv_row(const FidelityPoint& p) {
  const RunSpec& s = p.spec;
  std::string data = p.data;
  for (char& c : data)
    if (c == ',' || c == '"' || c == '\n') c = ' ';
  return std::string(s.algorithm->name) + "," + std::to_string(s.procs) + "," + std::to_string(s.bytes) + "," +
         std::to_string(s.params.segment) + "," + std::to_string(s.params.root) + "," + std::to_string(p.ours.runs) +
         "," + format_real(p.ours.median) + "," + format_real(p.native.median) + "," + format_real(p.ours.mean) + "," +
         format_real(p.native.mean) + "," + format_real(p.ours.ci95) + "," + format_real(p.native.ci95) + "," +
         ci_met_cell(p.ci_met) + "," + format_real(p.ratio) + "," + format_real(p.paired_ratio) + "," +
         std::to_string(p.late_runs) + "," + data + "," + reduction_columns(s);
}

// The --output file (CSV), opened by rank 0 (the only writer); every rank learns whether it could, so
// that all of them refuse together.
std::ofstream open_csv(const cli::ParsedOptions& options, int rank) {
  std::ofstream csv;
  int opened = 1;
  if (options.has("output") && rank == 0) {
    csv.open(options.text("output"));
    opened = csv ? 1 : 0;
  }
  MPI_Bcast(&opened, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!opened) throw cli::UsageError("--output: cannot write '" + options.text("output") + "'");
  return csv;
}

// Progress of a fidelity run on rank 0's stderr: a line after the first row, then after a row
// that ends at least 30 s after the last line (one per row would double the table on a terminal).
class FidelityProgress {
 public:
  FidelityProgress(bool on, std::vector<std::size_t> sizes) : on_(on), left_(std::move(sizes)) {}

  void row_done() {
    const auto now = Clock::now();
    left_.row_done(seconds(row_start_, now));
    row_start_ = now;
    if (!on_ || left_.done() == left_.total() || (left_.done() > 1 && seconds(shown_, now) < 30)) return;
    shown_ = now;
    std::fprintf(stderr, "collsim-mpi fidelity: %zu/%zu rows in %s, about %s left\n", left_.done(), left_.total(),
                 cli::rough_duration(seconds(start_, now)).c_str(), cli::rough_duration(left_.seconds_left()).c_str());
    std::fflush(stderr);
  }

 private:
  using Clock = std::chrono::steady_clock;
  static double seconds(Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration<double>(to - from).count();
  }
  bool on_;
  cli::TimeLeft left_;
  Clock::time_point start_ = Clock::now(), row_start_ = start_, shown_ = start_;
};

int fidelity_command(std::span<char* const> args, int rank, int size) {
  const auto defs = fidelity_options();
  const cli::ParsedOptions options = cli::parse_options(args, defs);
  if (!options.positional.empty())
    throw cli::UsageError("unexpected argument '" + options.positional.front() + "' (see --help)");
  FidelityOptions f;
  f.sizes = read_sizes(options);
  f.algorithms = read_ops(options, size);
  f.segment = options.bytes("segment", 8192);
  f.gather_segment = options.bytes("gather-segment", 1024);
  f.root = static_cast<int>(options.integer("root", 0, 0, INT_MAX));
  if (f.root >= size)
    throw cli::UsageError("--root " + std::to_string(f.root) + " is not a rank of " + std::to_string(size) +
                          " processes");
  f.reduction = cli::read_reduction(options, f.reduction);
  f.measure = cli::read_measure_options(options);

  // Refused before anything is written; then the rows in the order measure_fidelity measures
  // them, by size, for the estimate of the time left.
  std::vector<std::size_t> row_sizes;
  for (const AlgorithmInfo* a : fidelity_algorithms(MPI_COMM_WORLD, f))
    for (std::size_t bytes : fidelity_sizes(*a, f)) row_sizes.push_back(bytes);
  std::ofstream csv = open_csv(options, rank);
  if (csv.is_open()) csv << kFidelityCsvHeader << "\n" << std::flush;
  const std::size_t rows = row_sizes.size();
  FidelityProgress progress(rank == 0 && !options.has("quiet"), std::move(row_sizes));
  if (rank == 0) {
    std::cout << "fidelity on " << size << " processes, root " << f.root << ", reductions "
              << to_string(f.reduction.type) << " " << to_string(f.reduction.op)
              << ": ours (engine mpi) against Open MPI's own (engine mpi-native), interleaved\n"
              << padded("algorithm", 28) << padded("size", 8, true) << padded("segment", 8, true)
              << padded("runs", 5, true) << padded("ours", 12, true) << padded("native", 12, true)
              << padded("ratio", 7, true) << padded("paired", 7, true) << "\n"
              << std::flush;
    if (!options.has("quiet"))
      std::fprintf(stderr, "collsim-mpi fidelity: %zu rows, each %d to %d timed calls of ours and of Open MPI's\n",
                   rows, f.measure.stop.min_runs, f.measure.stop.max_runs);
  }
  bool all_ok = true;
  int missed_rows = 0;
  const auto points = measure_fidelity(MPI_COMM_WORLD, f, [&](const FidelityPoint& p) {
    all_ok = all_ok && p.data == "ok";
    missed_rows += p.data == "ok" && !p.ci_met ? 1 : 0;
    if (rank != 0) return;
    std::cout << point_line(p) << "\n" << std::flush;
    if (csv.is_open()) csv << fidelity_csv_row(p) << "\n" << std::flush;
    progress.row_done();
  });
  if (rank == 0) {
    if (missed_rows > 0)
      std::cout << missed_rows << " of " << points.size() << " rows stopped at --max-runs " << f.measure.stop.max_runs
                << " with the 95% CI of ours or Open MPI's above " << cli::percent(f.measure.stop.ci_target)
                << " of the mean (marked '" << kCiMissedMark << "', ci_target_met 0 in the CSV)\n";
    std::cout << "\nmedian ratio ours/native per algorithm (band " << fixed(kFidelityBandLow, 2) << ".."
              << fixed(kFidelityBandHigh, 2) << ")\n";
    int outside = 0;
    for (const auto& s : summarize_fidelity(points)) {
      const bool out = s.median_ratio < kFidelityBandLow || s.median_ratio > kFidelityBandHigh;
      outside += out ? 1 : 0;
      std::cout << padded(std::string(s.algorithm->name), 28) << padded(fixed(s.median_ratio, 3), 7, true) << " ("
                << fixed(s.min_ratio, 3) << " to " << fixed(s.max_ratio, 3) << " over " << s.points << " sizes; paired "
                << fixed(s.median_paired_ratio, 3) << ")" << (out ? "  OUTSIDE THE BAND" : "") << "\n";
    }
    std::cout << outside << " algorithm(s) outside the band\n" << std::flush;
  }
  return all_ok ? kExitOk : kExitFailed;
}

// --- pingpong: latency and bandwidth between two ranks ---------------------------------------

std::vector<cli::OptionDef> pingpong_options() {
  return {
      {"sizes", "LIST", "message sizes, doubling from A to B (1..4MiB, the default) or listed (1,64KiB,4MiB)"},
      {"peer", "R", "the rank that answers rank 0 (default 1)"},
      {"time", "S", "aim for about S seconds of timed round trips per size (default 0.25)"},
      {"min-runs", "N", "timed round trips per size at least (default 5)"},
      {"max-runs", "N", "timed round trips per size at most (default 1000)"},
      {"warmup", "N",
       "untimed round trips per size first, at least 1: the last sizes the timed ones to --time (default 2)"},
      {"fit-from", "SIZE",
       "fit the bandwidth over the sizes from SIZE up, two of --sizes at least (default: the largest / 16)"},
      {"output", "FILE", "also write one CSV row per size to FILE (also -o FILE)"},
      {"help", "", "print this help"},
  };
}

std::string pingpong_usage() {
  return "usage: mpirun -np 2 collsim-mpi pingpong [options]\n"
         "\n"
         "Rank 0 sends a message to the peer (rank 1), which sends it straight back; rank 0 times\n"
         "each round trip (RTT). Per size: warm-up round trips, then as many timed ones as fit in\n"
         "--time (within --min-runs and --max-runs); the bytes are checked at both ends. Other\n"
         "ranks, if any, wait asleep. Prints per size the min and median RTT, the one-way time\n"
         "(median RTT / 2) and size / one-way time, then the summary a platform file needs:\n"
         "  latency    half the median RTT of the smallest size (one way)\n"
         "  bandwidth  1 / slope of a least-squares line through the one-way times of the sizes\n"
         "             from --fit-from up (per-message constants, such as the rendezvous\n"
         "             handshake above the eager limit, drop out of a slope)\n"
         "For scripts, the two summary lines end with latency_s=SECONDS and bandwidth_Bps=BYTES/S.\n"
         "Exit status 0 when the data was right, 1 when not, 2 on bad input.\n"
         "\n"
         "options:\n" +
         cli::format_options(pingpong_options());
}

std::string rate_text(double bytes_per_s) {
  return fixed(bytes_per_s * 8 / 1e6, 2) + " Mbit/s = " + fixed(bytes_per_s / 1e6, 3) + " MB/s";
}

int pingpong_command(std::span<char* const> args, int rank, int size) {
  const auto defs = pingpong_options();
  const cli::ParsedOptions options = cli::parse_options(args, defs);
  if (!options.positional.empty())
    throw cli::UsageError("unexpected argument '" + options.positional.front() + "' (see --help)");
  PingPongOptions p;
  p.sizes = read_sizes(options, "1..4MiB");
  p.peer = static_cast<int>(options.integer("peer", 1, 1, INT_MAX));
  if (p.peer >= size)
    throw cli::UsageError("--peer " + std::to_string(p.peer) + " is not a rank of " + std::to_string(size) +
                          " processes" + (size < 2 ? " (pingpong needs mpirun -np 2)" : ""));
  p.time_per_size_s = options.real("time", 0.25, 0);
  p.min_runs = static_cast<int>(options.integer("min-runs", 5, 1, 1'000'000));
  p.max_runs = static_cast<int>(options.integer("max-runs", 1000, 1, 1'000'000));
  if (p.max_runs < p.min_runs)
    throw cli::UsageError("--max-runs " + std::to_string(p.max_runs) + " is below --min-runs " +
                          std::to_string(p.min_runs));
  p.warmup = static_cast<int>(options.integer("warmup", 2, 1, 1'000'000));
  if (options.has("fit-from")) {
    p.fit_from = options.bytes("fit-from", 0);
    if (p.fit_from == 0)
      throw cli::UsageError("--fit-from: 0 bytes is no size to fit from (without --fit-from: the largest size / 16)");
    const auto fitted = std::count_if(p.sizes.begin(), p.sizes.end(), [&](std::size_t b) { return b >= p.fit_from; });
    if (fitted < 2)
      throw cli::UsageError("--fit-from " + options.text("fit-from") + ": " + std::to_string(fitted) +
                            " of --sizes from it up, where the bandwidth fit needs 2 (the sizes end at " +
                            format_bytes(*std::max_element(p.sizes.begin(), p.sizes.end())) + ")");
  }

  std::ofstream csv = open_csv(options, rank);

  const PingPongResult r = measure_pingpong(MPI_COMM_WORLD, p);
  if (rank != 0) return r.data == "ok" ? kExitOk : kExitFailed;

  if (csv.is_open()) {
    csv << "bytes,runs,min_rtt_s,median_rtt_s,mean_rtt_s,max_rtt_s,one_way_s,bandwidth_Bps\n";
    for (const auto& pt : r.points)
      csv << pt.bytes << "," << pt.rtt.runs << "," << format_real(pt.rtt.min) << "," << format_real(pt.rtt.median)
          << "," << format_real(pt.rtt.mean) << "," << format_real(pt.rtt.max) << "," << format_real(pt.one_way_s)
          << "," << format_real(pt.bandwidth_Bps) << "\n";
    csv.flush();
  }
  std::cout << "ping-pong between rank 0 on " << r.host << " and rank " << p.peer << " on " << r.peer_host
            << ", round trips timed on rank 0\n"
            << padded("size", 9, true) << padded("runs", 6, true) << padded("min RTT", 12, true)
            << padded("median RTT", 12, true) << padded("one-way", 12, true) << "  size/one-way\n";
  for (const auto& pt : r.points)
    std::cout << padded(format_bytes(pt.bytes), 9, true) << padded(std::to_string(pt.rtt.runs), 6, true)
              << padded(format_seconds(pt.rtt.min), 12, true) << padded(format_seconds(pt.rtt.median), 12, true)
              << padded(format_seconds(pt.one_way_s), 12, true) << "  " << rate_text(pt.bandwidth_Bps) << "\n";
  const PingPongFit& f = r.fit;
  std::cout << "latency    " << format_seconds(f.latency_s) << " one way (half the median RTT of "
            << format_bytes(f.latency_bytes) << ")   latency_s=" << format_real(f.latency_s) << "\n";
  std::cout << "bandwidth  " << (f.bandwidth_Bps > 0 ? rate_text(f.bandwidth_Bps) : std::string("unknown"))
            << " (slope over " << format_bytes(f.fit_from) << ".." << format_bytes(f.fit_to) << ", " << f.fit_points
            << " sizes; intercept " << format_seconds(f.intercept_s)
            << ")   bandwidth_Bps=" << format_real(f.bandwidth_Bps) << "\n";
  if (r.data != "ok") std::cout << "data: " << r.data << "\n";
  std::cout.flush();
  return r.data == "ok" ? kExitOk : kExitFailed;
}

bool asks_for_help(std::span<char* const> args) {
  for (std::string_view a : args)
    if (a == "--help" || a == "-h") return true;
  return false;
}

int run(std::span<char* const> args, int rank, int size) {
  auto say = [rank](const std::string& text) {
    if (rank == 0) std::cout << text << std::flush;
  };
  if (args.empty()) throw cli::UsageError("missing command (see collsim-mpi --help)");
  const std::string_view command = args.front();
  const auto rest = args.subspan(1);
  if (command == "--help" || command == "-h" || command == "help") {
    say(kUsage);
    return kExitOk;
  }
  if (command == "measure") {
    if (asks_for_help(rest)) {
      say(measure_usage());
      return kExitOk;
    }
    return measure_command(rest, rank, size);
  }
  if (command == "run") {
    if (asks_for_help(rest)) {
      say(run_usage());
      return kExitOk;
    }
    return run_command(rest, rank, size);
  }
  if (command == "fidelity") {
    if (asks_for_help(rest)) {
      say(fidelity_usage());
      return kExitOk;
    }
    return fidelity_command(rest, rank, size);
  }
  if (command == "pingpong") {
    if (asks_for_help(rest)) {
      say(pingpong_usage());
      return kExitOk;
    }
    return pingpong_command(rest, rank, size);
  }
  if (command == "coarray") {
    if (asks_for_help(rest)) {
      say(coarray_usage());
      return kExitOk;
    }
    return coarray_command(rest, rank, size);
  }
  if (command == "algorithms") {
    std::string list;
    for (const auto& a : all_algorithms())
      list +=
          std::string(a.name) + "  (Open MPI id " + std::to_string(a.ompi_id) + ")  " + std::string(a.summary) + "\n";
    say(list);
    return kExitOk;
  }
  throw cli::UsageError("unknown command '" + std::string(command) +
                        "' (one of: measure, fidelity, run, pingpong, coarray, algorithms; see --help)");
}

}  // namespace
}  // namespace collsim

int main(int argc, char** argv) {
  // Before MPI_Init: Open MPI reads coll_tuned_use_dynamic_rules there, and only then honours the
  // algorithms that --engine mpi-native forces. Nothing changes for anything not forced.
  collsim::enable_native_forcing();
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::span<char* const> args(argv + 1, static_cast<std::size_t>(argc > 1 ? argc - 1 : 0));

  int status = collsim::kExitOk;
  auto report = [rank](const std::string& text) {
    if (rank == 0) std::fprintf(stderr, "collsim-mpi: %s\n", text.c_str());
  };
  try {
    status = collsim::run(args, rank, size);
  } catch (const collsim::cli::UsageError& e) {
    report(e.what());
    status = collsim::kExitUsage;
  } catch (const collsim::InputError& e) {
    report(e.what());
    status = collsim::kExitUsage;
  } catch (const collsim::EngineError& e) {
    // Raised on every rank with the same text (the engine agrees on failures before throwing).
    report(e.what());
    status = collsim::kExitFailed;
  } catch (const std::exception& e) {
    // Anything else may have hit one rank only while the others wait for it: no clean exit.
    std::fprintf(stderr, "collsim-mpi: rank %d: %s\n", rank, e.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, collsim::kExitFailed);
  }
  std::fflush(stdout);
  collsim::mpi_t::finalise();
  MPI_Finalize();
  return status;
}
