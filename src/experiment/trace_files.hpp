// Trace files: the events of traced runs (comm/trace.hpp) as files, and back.
//
// A trace file holds one or more runs (the same point under several engines, or several points),
// each with its engine, a label and its process count. The format follows the file's extension:
//  - .csv: collsim's own, one row per event at full precision, read back by read_trace_csv and
//    by the Python tools (tools/timeline). Columns: run, engine, label, procs, kind, op, time,
//    rank, peer, tag, bytes, message, request, protocol, latency.
//  - .json: the Chrome trace event format (Perfetto, chrome://tracing);
//  - .paje: Paje (ViTE).
#pragma once

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

// Writes `runs` to `path` in the format its extension names. Throws InputError on an unknown
// extension or a file that cannot be written.
void write_trace(const std::string& path, const std::vector<TracedRun>& runs);

// The CSV format, to a string (tests, pipes) and from a file. read_trace_csv throws InputError
// "PATH:LINE: problem" on a malformed file.
std::string trace_csv(const std::vector<TracedRun>& runs);
std::vector<TracedRun> read_trace_csv(const std::string& path);

// "isend" -> OpKind::isend and the like, for readers; nullopt-free: throw InputError on a bad name.
OpKind op_kind_named(const std::string& name);
TraceKind trace_kind_named(const std::string& name);
TraceProtocol trace_protocol_named(const std::string& name);

}  // namespace collsim
