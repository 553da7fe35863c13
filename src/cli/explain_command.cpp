// collsim explain: one small run told step by step, and its critical path (experiment/trace/explanation.hpp).
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/engine_options.hpp"
#include "cli/measure_options.hpp"
#include "engines/engine.hpp"
#include "engines/model/model_engine.hpp"
#include "engines/run_memory.hpp"
#include "engines/sim/protocol.hpp"
#include "engines/sim/sim_engine.hpp"
#include "experiment/trace/explanation.hpp"
#include "experiment/trace/trace_files.hpp"
#include "support/units.hpp"

namespace collsim::cli {
namespace {

// A narrative of more ranks than this is no longer read, only scrolled.
constexpr int kMaxRanks = 32;

std::vector<OptionDef> explain_options() {
  std::vector<OptionDef> defs = {
      {"engine", "model|sim", "engine to run on (default model)"},
      {"from-trace", "FILE.csv",
       "explain the runs of a collsim CSV trace instead of running a point (e.g. one written by "
       "collsim-mpi measure --trace FILE.csv, or collsim measure/timeline --trace FILE.csv)"}};
  for (auto& d : call_options(true))
    if (d.name != "csv" && d.name != "op") defs.push_back(d);
  defs.push_back(payload_option());
  for (auto& d : engine_options()) defs.push_back(d);
  return defs;
}

// Why a message took its protocol under the profile that carried it, with that profile's limit:
// a profile with a limit of its own for blocking sends (UCX's) gave this protocol through the
// limit that does.
std::string protocol_reason(const ProtocolProfile& profile, std::uint64_t bytes, TraceProtocol protocol) {
  if (protocol != TraceProtocol::eager && protocol != TraceProtocol::rendezvous) return "";
  const bool eager = protocol == TraceProtocol::eager;
  const bool blocking = profile.is_eager(bytes) != eager && profile.is_eager(bytes, true) == eager;
  const std::string size = format_bytes(bytes), name = profile.name;
  if (profile.eager_reserve == 1 && profile.kind != ProtocolKind::ideal) {  // UCX: a rendezvous threshold
    const std::string limit = format_bytes(profile.eager_payload(blocking) + 1);
    const std::string which =
        blocking ? "'s rendezvous threshold for blocking sends of " : "'s rendezvous threshold of ";
    return size + (eager ? " is below " : " is at or above ") + name + which + limit;
  }
  const std::string limit = format_bytes(profile.eager_limit);
  const std::string header = profile.kind == ProtocolKind::ideal ? "" : " less a 56-byte header";
  return size + (eager ? " is within " : " is above ") + name + "'s eager limit of " + limit + header;
}

// The runs of a trace file, each told as a run of the engines is.
int explain_trace_file(const ParsedOptions& o) {
  for (const char* n : {"procs", "bytes", "segment", "root", "fanout", "radix", "engine", "payload"})
    if (o.has(n))
      throw UsageError("--" + std::string(n) + " does not apply with --from-trace (the trace says what ran)");
  if (!o.positional.empty()) throw UsageError("--from-trace takes no algorithm (the trace says what ran)");
  const std::string path = o.text("from-trace");
  const std::vector<TracedRun> runs = read_trace_csv(path);
  if (runs.empty()) throw InputError(path + ": the trace holds no run");
  for (const TracedRun& run : runs)
    if (run.procs > kMaxRanks)
      throw InputError(path + ": run '" + run.label + "' has " + std::to_string(run.procs) +
                       " ranks; explain tells runs of at most " + std::to_string(kMaxRanks));
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const TracedRun& run = runs[i];
    ExplainContext context;
    if (parse_engine(run.engine) != Engine::model)
      context.no_protocol = "the " + run.engine +
                            " trace does not say which protocol a message took (real MPI keeps it inside; "
                            "messages are shown from the send's post to the receive's completion)";
    if (i > 0) std::cout << "\n";
    std::cout << run.label << " on engine " << run.engine << "\n\n"
              << explain_narrative(run.events, context) << "\n"
              << critical_path_table(critical_path(run.events), run.events);
  }
  return 0;
}

std::string about() {
  return "Runs the call traced (up to " + std::to_string(kMaxRanks) +
         " ranks) and tells it step by step: who sends which segment to whom, who waits\n"
         "for what, which protocol a message took and why; then the critical path, the chain of\n"
         "events that decided the finish time, with its shares: latency, transfer, waiting, copying.\n"
         "A send is done (its request complete, its buffer free) once its data is handed over: under\n"
         "the sim engine's tcp when the socket buffer has taken it, often before the data has left;\n"
         "explain says so where a rank waited for such a send.";
}

int explain(const ParsedOptions& o) {
  if (o.has("from-trace")) return explain_trace_file(o);
  if (o.positional.size() != 1)
    throw UsageError("explain takes one algorithm (collsim explain bcast/binomial --procs 8 --bytes 64KiB)");
  const std::string engine = o.text("engine", "model");
  const auto traced = parse_engine(engine, {Engine::model, Engine::sim});
  if (!traced)
    throw UsageError("--engine: " + not_an_engine(engine, {Engine::model, Engine::sim}, "an engine that traces"));
  RunSpec spec = read_call(o, 0, o.positional[0]);
  if (spec.procs > kMaxRanks)
    throw UsageError("--procs " + std::to_string(spec.procs) + ": explain tells runs of at most " +
                     std::to_string(kMaxRanks) + " ranks (a timeline or a trace file shows larger ones)");
  spec.real_bytes = read_payload(o);
  // A narrative of at most kMaxRanks ranks, but segments may be many: the events are held within
  // the default trace limit.
  TraceBuffer trace(trace_event_limit(".csv", kDefaultTraceLimit));
  spec.trace = &trace;
  check_run_memory(*traced, spec);
  RunResult result;
  ExplainContext context;
  if (*traced == Engine::model) {
    check_model_options(o, Engine::model);
    const ModelConfig model = read_model(o);
    result = run_model(model, spec);
    if (model.kind == ModelConfig::Kind::loggp)
      context.send_done = "LogGP completes a send after the sender's overhead o, before its data arrives";
  } else {
    check_engine_options(o, Engine::sim);
    const SimConfig sim = read_sim(o);
    run_sim(sim, std::span<const RunSpec>(&spec, 1), [&](std::size_t, const RunResult& r) { result = r; });
    // The selection it ran under, resolved as the engine did (platform properties aside, which
    // the engine has checked already).
    std::string name = result.protocol.empty() ? sim.protocol : result.protocol;
    Protocols protocols;
    try {
      protocols = resolve_protocols(name, sim.protocol_options, sim.eager_limit,
                                    [](const std::string&) { return std::string(); });
    } catch (const InputError&) {
      protocols = resolve_protocols("", sim.protocol_options, sim.eager_limit,
                                    [](const std::string&) { return std::string(); });
    }
    // A message inside a node took the intra profile: the placement says which pairs share one.
    const models::Placement placement = platform_hockney(sim).placement;
    context.protocol_reason = [protocols, placement](int sender, int receiver, std::uint64_t bytes, TraceProtocol p) {
      return protocol_reason(placement.same_node(sender, receiver) ? protocols.intra : protocols.inter, bytes, p);
    };
    context.send_done = send_completion(protocols);
  }
  check_trace_kept(trace, "explain", ".csv", kDefaultTraceLimit);

  const std::vector<TraceEvent> events = trace.take();
  if (events.empty()) {
    std::cerr << "collsim: the " << engine << " engine recorded no trace of " << describe(spec) << "\n";
    return 1;
  }
  std::cout << describe(spec) << " on engine " << engine << ": " << format_seconds(result.time_s) << "\n\n"
            << explain_narrative(events, context) << "\n"
            << critical_path_table(critical_path(events), events);
  return result.data_error.empty() ? 0 : 1;
}

}  // namespace

Command explain_command() {
  return {"explain",
          "collsim explain OP --procs P --bytes M [--segment S] [--engine model|sim] [options]\n"
          "       collsim explain --from-trace FILE.csv",
          "a small run step by step, and its critical path",
          about(),
          explain_options(),
          explain,
          true};
}

}  // namespace collsim::cli
