// Trace files: the events of traced runs (comm/trace.hpp) as files, and back.
//
// A trace file holds one or more runs (the same point under several engines, or several points),
// each with its engine, a label and its process count. The format follows the file's extension:
//  - .csv: collsim's own, one row per event at full precision, read back by read_trace_csv and
//    by the Python tools (tools/timeline). Columns: run, engine, label, procs, kind, op, time,
//    rank, peer, tag, bytes, message, request, protocol, latency.
//  - .json: the Chrome trace event format (Perfetto, chrome://tracing): a process per run, a
//    thread per rank; operations as complete events ("X", waits in category "wait"), each message
//    as a flow arrow ("s" -> "f", bound to zero-length "send" and "arrive" slices) and an async
//    "transfer" slice; request_done as instant events. Times in microseconds.
//  - .paje: Paje (ViTE, pajeng): a container per run holding one per rank; operations as pushed
//    and popped states (waits named "... (waiting)"), messages as links valued by their protocol,
//    request_done as events. Times in seconds.
// Traces grow with the events (about 4 per message and 2 per operation): trace_bytes_per_event
// says how many bytes each costs per format, and write_trace refuses a trace estimated above a
// limit rather than fill a disk.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "comm/trace.hpp"

namespace collsim {

struct TracedRun {
  std::string engine;  // "model", "sim", "mpi", ...
  std::string label;   // what ran: "bcast/binomial on 8 processes (root 0, 4096 bytes)"
  int procs = 0;
  std::vector<TraceEvent> events;
};

inline constexpr std::uint64_t kDefaultTraceLimit = 256ull << 20;

// Writes `runs` to `path` in the format its extension names. Throws InputError on an unknown
// extension, a trace estimated above `limit` bytes (one line: the estimate and how to shrink it)
// or a file that cannot be written.
void write_trace(const std::string& path, const std::vector<TracedRun>& runs, std::uint64_t limit = kDefaultTraceLimit);
// ".csv", ".json" or ".paje" from `path`; throws InputError naming the formats otherwise (so a
// caller can refuse a bad name before running anything).
std::string trace_extension(const std::string& path);
// The bytes an event takes in the format of `extension` (about; the CSV adds the run's engine and
// label per event), and the estimate of a whole trace from it.
std::uint64_t trace_bytes_per_event(const std::string& extension);
std::uint64_t estimated_trace_bytes(const std::string& extension, const std::vector<TracedRun>& runs);
// The events a run may record for a trace in the format of `extension` (".csv", ...) within
// `limit` bytes: the bound of the TraceBuffer that records it, so that the events held in memory
// never pass what the file may take.
std::size_t trace_event_limit(const std::string& extension, std::uint64_t limit);
// InputError, the line write_trace gives for a trace over `limit` ("WHAT: the trace would take
// ..."), when `buffer` overflowed: the run recorded more than trace_event_limit() events.
void check_trace_kept(const TraceBuffer& buffer, const std::string& what, const std::string& extension,
                      std::uint64_t limit);

std::string trace_json(const std::vector<TracedRun>& runs);
std::string trace_paje(const std::vector<TracedRun>& runs);

// The CSV format, to a string (tests, pipes) and from a file. read_trace_csv throws InputError
// "PATH:LINE: problem" on a malformed file, and on events that break the trace contract as far
// as their critical path needs it (critical_path.hpp; LINE: the event where the walk found it).
std::string trace_csv(const std::vector<TracedRun>& runs);
std::vector<TracedRun> read_trace_csv(const std::string& path);

// "isend" -> OpKind::isend and the like, for readers; nullopt-free: throw InputError on a bad name.
OpKind op_kind_named(const std::string& name);
TraceKind trace_kind_named(const std::string& name);
TraceProtocol trace_protocol_named(const std::string& name);

}  // namespace collsim
