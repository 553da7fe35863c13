// collsim coarray: one segment of coarray PUT or GET statements on any coarray engine, with the
// Table 1 case the runtime picks, what it moves, and the time. The model engine also prints the
// closed-form cost of models/coarray_cost.hpp next to its own time; mpi and caf-native launch
// collsim-mpi coarray or collsim-caf under mpirun, as a coarray scenario does, and print the
// measured median.
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cli/coarray_options.hpp"
#include "cli/commands.hpp"
#include "cli/engine_options.hpp"
#include "cli/measure_options.hpp"
#include "engines/engine.hpp"
#include "engines/run_memory.hpp"
#include "engines/sim/sim_engine.hpp"
#include "experiment/results/coarray_point.hpp"
#include "experiment/scenario/coarray_scenario.hpp"
#include "experiment/sweep/coarray_runner.hpp"
#include "models/coarray_cost.hpp"
#include "support/units.hpp"

namespace collsim::cli {
namespace {

// Where the per-operation costs come from (README.md, "What one operation costs").
const char* const kCostsHelp =
    "\n"
    "Every put, get and flush first costs the origin a software overhead: the model engine's\n"
    "--send-overhead (of the operation's bytes, a flush 0; LogGP: o), the sim engine's protocol\n"
    "profile send_overhead (--protocol-option PROFILE/send_overhead:..., or the platform's); 0 by\n"
    "default. A get pays the model's --get-overhead, the sim's PROFILE/get_overhead, where given.\n"
    "The origin's port injects one put at a time, busy bytes x beta (LogGP: g + (m-1)G;\n"
    "sim: the puts share the origin's link), so k puts take at least k times one's wire time.\n"
    "A local copy into or out of the buffer costs c0 + bytes / rate: the model's --copy-overhead and\n"
    "--copy-bandwidth, the sim's platform (collsim/copy_overhead, memcpy_bw). Each win_sync (sync memory\n"
    "is flush_all and win_sync; sync all and sync images run two) costs F: the model's --sync-overhead,\n"
    "the sim's PROFILE/sync_overhead of the profile inside the node. All 0 by default.\n";

std::vector<OptionDef> coarray_options() {
  std::vector<OptionDef> defs = {
      {"engine", "sim|model|mpi|caf-native",
       "engine to run on (required): mpi is collsim-mpi coarray and caf-native collsim-caf (OpenCoarrays), each "
       "launched with --images processes"}};
  for (auto& d : coarray_point_options()) defs.push_back(d);
  const std::vector<OptionDef> more = {
      {"images", "N", "number of images (processes; default 2): with --pattern one the others are idle"},
      payload_option(),
      {"csv", "", "print a CSV header and row instead of the text"},
  };
  defs.insert(defs.end(), more.begin(), more.end());
  for (auto& d : engine_options(Runs::coarrays)) defs.push_back(d);
  for (auto& d : mpi_run_options(Runs::coarrays)) defs.push_back(d);
  return defs;
}

// The summary's line on registering the local data (DMA), under `cost` (the engine's).
std::string registration_line(const CoarrayPoint& point, const models::RegistrationCost& cost) {
  if (!point.scheme().dma()) return "";
  const bool per_statement = point.options.registration == coarray::RegisterWhen::per_statement;
  const std::size_t bytes = per_statement ? point.registered_bytes_per_statement() : point.local.shape().bytes();
  const double t = cost.time(bytes);
  return "registration " + format_seconds(t) + " = " + format_seconds(cost.call) + " + " +
         std::to_string(cost.pages(bytes)) + " pages of " + std::to_string(cost.page_size) + " B x " +
         format_seconds(cost.per_page) +
         (per_statement ? ", per statement, in the time\n" : ", once before the segment, not in the time\n");
}

// The point measured by collsim-mpi or collsim-caf, launched as a coarray scenario launches it.
CoarrayRow measure(const ParsedOptions& o, Engine engine, const CoarrayPoint& point, int images) {
  if (engine == Engine::caf_native)
    for (const std::string& name : kOmniRuntimeOptions)
      if (o.has(name)) throw UsageError(not_for_caf(name));
  reject_foreign(o, std::string(engine_name(engine)), {"payload"});  // measured data is always real
  CoarrayScenario sc;
  sc.images = images;
  sc.mpi = read_mpi_runs(o);
  if (const std::string why = coarray_engine_unavailable(sc, engine); !why.empty())
    throw EngineError(std::string(engine_name(engine)) + ": " + why);
  return run_coarray_mpi_point(sc, engine, point);
}

int coarray(const ParsedOptions& o) {
  if (!o.has("engine")) throw UsageError("missing --engine (sim, model, mpi or caf-native)");
  const std::string name = o.text("engine");
  const auto engine = parse_engine(name, kCoarrayEngines);
  if (!engine) throw UsageError("--engine: " + not_an_engine(name, kCoarrayEngines, "a coarray engine"));
  CoarrayPoint point = read_coarray_point(o);
  point.real_bytes = read_payload(o);
  const int images = static_cast<int>(o.integer("images", 2, 2, 1 << 20));
  point.images = images;
  const CoarrayProgram program(point);
  const RunSpec spec = coarray_spec(program, images);  // checks the images for every engine

  CoarrayRow row;
  std::string extra;  // lines of the summary after the time
  if (is_measured(*engine)) {
    check_engine_options(o, *engine);
    row = measure(o, *engine, point, images);
    if (*engine == Engine::caf_native)
      extra = "(case to transfers: what Omni's runtime would do; OpenCoarrays ran the statement its own way)\n";
    else if (point.scheme().dma())
      extra =
          "registration what the MPI library does for MPI_Rput/MPI_Rget from the local array; nothing is "
          "added\n";
  } else {
    check_run_memory(*engine, spec);
    RunResult result;
    if (*engine == Engine::model) {
      check_model_options(o, *engine);
      const ModelConfig model = read_model(o);
      result = run_model(model, spec);
      // The cost model covers the Hockney kinds, overheads and the origin's port; not one_port's
      // two ports, nor LogGP. A sync other than memory adds messages: its term takes no receive
      // overhead, and sync all's barrier one (alpha, beta) between every two images. A pattern
      // other than one: sync memory and one (alpha, beta) between every two images only.
      const bool sync_covered =
          point.sync == coarray::SyncKind::memory ||
          (model.recv_overhead.empty() &&
           (point.sync == coarray::SyncKind::images || images == 2 || model.kind == ModelConfig::Kind::hockney));
      const bool pattern_covered = point.pattern == coarray::Pattern::one || (point.sync == coarray::SyncKind::memory &&
                                                                              model.kind == ModelConfig::Kind::hockney);
      if (!model.one_port && model.kind != ModelConfig::Kind::loggp && sync_covered && pattern_covered) {
        const models::CoarrayCosts costs{model.hockney_between(point.origin, point.target),
                                         model.copy_bandwidth,
                                         model.send_overhead,
                                         model.registration,
                                         point.registered_bytes_per_statement(),
                                         model.copy_overhead,
                                         model.sync_overhead,
                                         model.get_overhead};
        const std::optional<double> t =
            models::coarray_pattern_time(point.pattern, images, point.plan(), costs, point.mode, point.get);
        if (t) {
          const double total = *t + models::coarray_sync_time(point.sync, images, point.origin, costs);
          extra = "cost model " + format_seconds(total) + "  (" + format_real(total) + " s, models/coarray_cost.hpp)\n";
        } else {
          extra =
              "cost model none: all-to-one of GETs, non-blocking or datatype PUTs, units of two sizes or "
              "registration per statement (models/coarray_cost.hpp)\n";
        }
      }
      extra += registration_line(point, model.registration);
    } else {
      check_engine_options(o, Engine::sim);
      const SimConfig sim = read_sim(o);
      run_sim(sim, std::span<const RunSpec>(&spec, 1), [&](std::size_t, const RunResult& r) { result = r; });
      extra += registration_line(point, platform_registration(sim));
    }
    row.engine = name;
    row.point = point;
    row.time_s = row.min_s = result.time_s;
    row.data = !point.real_bytes ? "unchecked" : result.data_error.empty() ? "ok" : result.data_error;
  }
  if (o.has("csv")) {
    std::cout << coarray_csv_header() << "\n" << coarray_csv_row(row) << "\n";
  } else {
    std::cout << coarray_summary(row, "engine " + name + ", " + std::to_string(images) + " images",
                                 is_measured(*engine), extra, is_measured(*engine) && read_mpi_runs(o).time_is_min);
  }
  return row.data == "ok" || row.data == "unchecked" ? 0 : 1;
}

}  // namespace

Command coarray_command() {
  return {"coarray",
          "collsim coarray --engine sim|model|mpi|caf-native [--put|--get] --local SECTION --local-shape DIMS\n"
          "                       --remote SECTION --remote-shape DIMS [--elem BYTES] [--buffer B]\n"
          "                       [--registered [--registration once|per-statement] [--heap SIZE]]\n"
          "                       [--nonblocking safe|nowait|double] [--statements N]\n"
          "                       [--sync memory|all|images] [--images N --pattern one|all-to-one|ring|halo]\n"
          "                       [--csv] [options]",
          "coarray PUT/GET: Table 1's case, transfers and time",
          std::string(kCoarraySectionsHelp) + kCostsHelp,
          coarray_options(),
          coarray};
}

}  // namespace collsim::cli
