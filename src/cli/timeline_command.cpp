// collsim timeline: one point traced on the model and sim engines (or a trace file from
// elsewhere, e.g. collsim-mpi), drawn by tools/timeline as a space-time diagram.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/engine_options.hpp"
#include "cli/measure_options.hpp"
#include "cli/options.hpp"
#include "cli/plotting.hpp"
#include "comm/trace.hpp"
#include "engines/engine.hpp"
#include "engines/model/model_engine.hpp"
#include "engines/run_memory.hpp"
#include "engines/sim/sim_engine.hpp"
#include "experiment/scenario/named_files.hpp"
#include "experiment/trace/trace_files.hpp"
#include "support/units.hpp"

namespace collsim::cli {
namespace {

namespace fs = std::filesystem;

std::vector<OptionDef> timeline_options() {
  std::vector<OptionDef> defs = {
      {"engine", "model[,sim]", "engines to run the point on, one panel each (default model)"},
      {"from-trace", "FILE.csv",
       "draw this collsim CSV trace instead of running a point (repeatable: runs of all files)", true},
      {"png", "FILE", "write the picture as PNG"},
      {"svg", "FILE", "write the picture as SVG"},
      {"title", "TEXT", "a title over the panels"},
  };
  for (auto& d : call_options(true))
    if (d.name != "then-gather" && d.name != "timed-on-root" && d.name != "csv") defs.push_back(d);
  defs.push_back({"trace", "FILE",
                  "also write the runs' events to FILE, as collsim measure --trace does: .csv (collsim's trace, "
                  "for --from-trace and explain), .json (Perfetto) or .paje (ViTE)"});
  defs.push_back({"trace-limit", "SIZE",
                  "refuse a run whose trace would pass SIZE (default " + format_bytes(kDefaultTraceLimit) +
                      "; the events drawn are held in memory)"});
  defs.push_back(payload_option());
  for (auto& d : engine_options()) defs.push_back(d);
  return defs;
}

const char* const kAbout =
    "A space-time diagram of one collective call: ranks down, time across, each rank's operations as\n"
    "bars from post to completion (waits shaded, copies apart), each message as an arrow from the start\n"
    "of its transfer at the sender to its arrival at the receiver, coloured by segment number (the\n"
    "message's ordinal among those from the same sender to the same receiver with the same tag). A send\n"
    "done before its data left (the sim engine's tcp completes a send once the socket buffer has taken\n"
    "its data) is an open circle on the sender's row, dotted to its arrow. Each engine named gets a\n"
    "panel, one above the other on the same time scale. Drawn by tools/timeline (python3 with\n"
    "matplotlib), for up to 64 ranks. A trace file that breaks the trace contract is refused.";

std::vector<Engine> engines_named(const ParsedOptions& o) {
  std::vector<Engine> engines;
  for (const std::string& e : split_commas(o.text("engine", "model"))) {
    const auto engine = parse_engine(e, {Engine::model, Engine::sim});
    if (!engine)
      throw UsageError("--engine: " + not_an_engine(e, {Engine::model, Engine::sim}, "an engine that traces") +
                       " (real MPI: collsim-mpi measure --trace FILE.csv, then --from-trace FILE.csv)");
    if (std::find(engines.begin(), engines.end(), *engine) != engines.end())
      throw UsageError("--engine: " + e + " is named twice");
    engines.push_back(*engine);
  }
  return engines;
}

// The point run on each engine, traced.
std::vector<TracedRun> traced_point(const ParsedOptions& o) {
  const std::vector<Engine> engines = engines_named(o);
  const bool model = std::find(engines.begin(), engines.end(), Engine::model) != engines.end();
  const bool sim = std::find(engines.begin(), engines.end(), Engine::sim) != engines.end();
  if (!sim) check_model_options(o, Engine::model);
  if (!model) check_engine_options(o, Engine::sim);
  RunSpec spec = read_call(o);
  spec.real_bytes = read_payload(o);

  for (const Engine engine : engines) {
    RunSpec traced = spec;
    TraceBuffer none;
    traced.trace = &none;
    check_run_memory(engine, traced);
  }
  // The events are held within the trace limit, as the --trace file (or the CSV drawn) would.
  const std::string file = o.has("trace") ? o.text("trace") : "timeline";
  const std::string format = o.has("trace") ? trace_extension(o.text("trace")) : ".csv";
  const std::uint64_t limit = o.bytes("trace-limit", kDefaultTraceLimit);
  std::vector<TracedRun> runs;
  for (const Engine engine : engines) {
    const std::string name(engine_name(engine));
    TraceBuffer buffer(trace_event_limit(format, limit));
    RunSpec traced = spec;
    traced.trace = &buffer;
    RunResult result;
    if (engine == Engine::model)
      result = run_model(read_model(o), traced);
    else
      run_sim(read_sim(o), std::span<const RunSpec>(&traced, 1), [&](std::size_t, const RunResult& r) { result = r; });
    check_trace_kept(buffer, file, format, limit);
    if (buffer.events().empty())
      throw EngineError("engine " + name + " recorded no trace events (its trace is not in this build)");
    runs.push_back({name, describe(spec), spec.procs, buffer.take()});
  }
  return runs;
}

int timeline(const ParsedOptions& o) {
  if (o.has("png") == o.has("svg")) throw UsageError("give one picture: --png FILE or --svg FILE");
  const std::string out = o.has("png") ? o.text("png") : o.text("svg");
  const std::string ext = o.has("png") ? ".png" : ".svg";
  if (!out.ends_with(ext)) throw UsageError("--" + ext.substr(1) + " " + out + ": the file name must end in " + ext);
  if (o.has("from-trace")) {
    for (const auto& d : timeline_options())
      if (o.has(d.name) && d.name != "from-trace" && d.name != "png" && d.name != "svg" && d.name != "title")
        throw UsageError("--" + d.name + " does not apply to --from-trace (the trace says what ran)");
  } else if (!o.has("op")) {
    throw UsageError("missing --op NAME (or --from-trace FILE.csv to draw a trace file)");
  }
  check_output_file(out, "picture");
  if (o.has("trace")) {
    trace_extension(o.text("trace"));
    check_output_file(o.text("trace"), "trace");
  }
  // Checked before any work, so a missing plotting stack costs nothing.
  const std::optional<std::string> python = plotting_python();
  if (!python) {
    std::cerr << "collsim: timeline needs python3 with matplotlib (Debian: apt-get install python3-matplotlib)\n";
    return 2;
  }

  std::vector<TracedRun> runs;
  if (o.has("from-trace")) {
    for (const std::string& path : o.all("from-trace"))
      for (TracedRun& r : read_trace_csv(path)) runs.push_back(std::move(r));
  } else {
    runs = traced_point(o);
  }

  // tools/timeline reads collsim's CSV trace; --trace keeps the runs in the format it names.
  const bool keep = o.has("trace");
  if (keep) write_trace(o.text("trace"), runs);
  const bool own_csv = keep && o.text("trace").ends_with(".csv");
  const std::string csv =
      own_csv ? o.text("trace")
              : (fs::temp_directory_path() / ("collsim-timeline-" + std::to_string(::getpid()) + ".csv")).string();
  if (!own_csv) write_trace(csv, runs);
  std::vector<std::string> tool_args = {csv, out};
  if (o.has("title")) tool_args.insert(tool_args.end(), {"--title", o.text("title")});
  // tools/timeline refuses bad input (too many ranks, say) with its own line and status 2.
  const int status = run_plotting_tool(*python, "timeline", tool_args);
  if (!own_csv) fs::remove(csv);
  if (status != 0) return status;
  std::cout << "wrote " << out << " (" << runs.size() << (runs.size() == 1 ? " run" : " runs") << ")"
            << (keep ? ", trace " + o.text("trace") : "") << "\n";
  return 0;
}

}  // namespace

Command timeline_command() {
  return {"timeline",
          "collsim timeline --op NAME --procs P --bytes M [--segment S ...] [--engine model[,sim]]\n"
          "                        (--png FILE | --svg FILE) [--trace FILE] [model and sim options]\n"
          "       collsim timeline --from-trace FILE.csv [--from-trace MORE.csv ...] (--png FILE | --svg FILE)",
          "space-time diagram of one call, or of a trace file",
          kAbout,
          timeline_options(),
          timeline};
}

}  // namespace collsim::cli
