#include "experiment/scenario/engine_settings.hpp"

#include <stdexcept>

#include "engines/sim/protocol.hpp"
#include "models/placement.hpp"
#include "support/units.hpp"

namespace collsim {

namespace {

using T = SettingType;
using G = SettingGroup;

double real_of(const SettingValue& v) { return std::get<double>(v); }
const std::string& text_of(const SettingValue& v) { return std::get<std::string>(v); }

std::string json_list(const std::vector<std::string>& items) {
  std::string j = "[";
  for (std::size_t i = 0; i < items.size(); ++i) j += (i ? ", " : "") + json_string(items[i]);
  return j + "]";
}
std::string json_bool(bool b) { return b ? "true" : "false"; }

std::string kind_problem(const std::string& k) {
  return k == "hockney" || k == "two_level" || k == "loggp" ? "" : "'" + k + "' is not hockney, two_level or loggp";
}
std::string map_by_problem(const std::string& m) {
  return models::parse_map_by(m) ? "" : "'" + m + "' is not one of " + models::map_by_forms;
}
std::string protocol_problem(const std::string& p) {
  return is_protocol_name(p) ? "" : "'" + p + "' is not a protocol (" + protocol_names() + ")";
}
std::string cfg_problem(const std::string& c) {
  return c.find(':') != std::string::npos ? "" : "'" + c + "' is not KEY:VALUE";
}
std::string fraction_problem(const std::string& f) {
  const auto x = parse_fraction(f);
  return x && *x > 0 ? "" : "'" + f + "' is not a positive fraction (e.g. 0.025 or 2.5%)";
}
std::string statistic_problem(const std::string& v) {
  return v == "median" || v == "min" ? "" : "'" + v + "' is not median or min";
}
std::string intra_sends_problem(const std::string& v) {
  return v == "serial" || v == "concurrent" ? "" : "'" + v + "' is not serial or concurrent";
}
std::string overhead_problem(const std::string& v) {
  std::string problem;
  return models::parse_overhead(v, problem) ? "" : problem;
}
models::Overhead overhead_of(const SettingValue& v) {
  std::string problem;
  return *models::parse_overhead(std::get<std::string>(v), problem);  // checked by overhead_problem
}
// The cross-socket Hockney, made when a part of it is first given.
models::Hockney& cross_socket(EngineSettings& s) {
  if (!s.model.two_level.cross_socket) s.model.two_level.cross_socket = models::Hockney{};
  return *s.model.two_level.cross_socket;
}
std::string timing_problem(const std::string& t) {
  return parse_timing(t) ? "" : "'" + t + "' is not collective or osu";
}
std::string timeout_problem(const std::string& t) {
  return parse_seconds(t).value_or(0) >= 1 ? "" : "'" + t + "' is under a second";
}

ModelConfig::Kind kind_named(const std::string& k) {
  return k == "loggp"       ? ModelConfig::Kind::loggp
         : k == "two_level" ? ModelConfig::Kind::two_level
                            : ModelConfig::Kind::hockney;
}

// Two-level: alpha and beta are between nodes, as in the scenario file.
const models::Hockney& inter(const EngineSettings& s) {
  return s.model.kind == ModelConfig::Kind::two_level ? s.model.two_level.inter : s.model.hockney;
}

constexpr unsigned kModels = kOnModel | kOnFormula;
constexpr unsigned kPlaced = kOnSim | kOnModel | kOnFormula;

std::vector<Setting> make_table() {
  std::vector<Setting> t = {
      // Placement: where the ranks are, for the sim and for a two-level model.
      {.group = G::placement,
       .option = "platform",
       .key = "platform",
       .json = "sim.platform",
       .type = T::text,
       .value_name = "FILE",
       .engines = kPlaced,
       .coarray = true,
       .help = "sim: SimGrid platform file (default platforms/grisou.xml); model: two-level Hockney derived from it",
       .show = [](const EngineSettings& s) { return json_string(s.sim.platform_file); }},
      {.group = G::placement,
       .option = "ranks-per-node",
       .key = "ranks_per_node",
       .type = T::count,
       .value_name = "N",
       .engines = kPlaced,
       .coarray = true,
       .help = "sim, and model with --intra or --platform: ranks per host, --map-by ppr:N:node (default 1)",
       .min = 1,
       .max = 1 << 20,
       .store =
           [](EngineSettings& s, const SettingValue& v) {
             s.sim.map_by = {models::MapBy::Policy::ppr_node, static_cast<int>(std::get<long long>(v))};
           }},
      {.group = G::placement,
       .option = "map-by",
       .key = "map_by",
       .json = "sim.map_by",
       .type = T::text,
       .value_name = "POLICY",
       .engines = kPlaced,
       .coarray = true,
       .help = "sim, and model with --intra or --platform: rank placement like mpirun's: core (fill a node's "
               "cores, socket 0's first), ppr:K:node, ppr:K:socket, node (round-robin over nodes), socket, numa "
               "(round-robin over a node's sockets or NUMA domains), ppr:K:numa (default ppr:1:node)",
       .check = map_by_problem,
       .store = [](EngineSettings& s, const SettingValue& v) { s.sim.map_by = *models::parse_map_by(text_of(v)); },
       .show = [](const EngineSettings& s) { return json_string(models::to_string(s.sim.map_by)); }},

      // The sim's point-to-point protocols and SimGrid.
      {.group = G::sim,
       .option = "protocol",
       .key = "sim.protocol",
       .json = "sim.protocol",
       .type = T::text,
       .value_name = "NAME",
       .engines = kOnSim,
       .coarray = true,
       .help = "sim: point-to-point protocols: ideal, tcp, tcp+shm, ucx (default: the platform's, else tcp+shm)",
       .check = protocol_problem,
       .store = [](EngineSettings& s, const SettingValue& v) { s.sim.protocol = text_of(v); },
       .show = [](const EngineSettings& s) { return json_string(s.sim.protocol); }},
      {.group = G::sim,
       .option = "protocol-option",
       .key = "sim.protocol_options",
       .json = "sim.protocol_options",
       .type = T::list,
       .value_name = "PROFILE/KEY:VALUE",
       .engines = kOnSim,
       .coarray = true,
       .help = "sim: a protocol parameter, e.g. tcp/buffer:1MiB, ucx/rndv_thresh:64KiB (repeatable)",
       .check = check_protocol_option,
       .store = [](EngineSettings& s,
                   const SettingValue& v) { s.sim.protocol_options = std::get<std::vector<std::string>>(v); },
       .show = [](const EngineSettings& s) { return json_list(s.sim.protocol_options); }},
      {.group = G::sim,
       .option = "eager-limit",
       .key = "sim.eager_limit",
       .json = "sim.eager_limit",
       .type = T::size,
       .value_name = "SIZE",
       .engines = kOnSim,
       .coarray = true,
       .help = "sim, --protocol ideal only: messages below go eager, others rendezvous (default 64KiB); tcp's, "
               "shm's and ucx's are --protocol-option tcp/eager_limit:SIZE, shm/eager_limit:SIZE, "
               "ucx/rndv_thresh:SIZE",
       .store = [](EngineSettings& s,
                   const SettingValue& v) { s.sim.eager_limit = static_cast<std::size_t>(std::get<long long>(v)); },
       .show = [](const EngineSettings& s) { return std::to_string(s.sim.eager_limit.value_or(kIdealEagerLimit)); }},
      {.group = G::sim,
       .option = "cfg",
       .key = "sim.cfg",
       .json = "sim.cfg",
       .type = T::list,
       .value_name = "KEY:VALUE",
       .engines = kPlaced,
       .coarray = true,
       .help = "sim: a SimGrid configuration option (repeatable)",
       .check = cfg_problem,
       .store = [](EngineSettings& s, const SettingValue& v) { s.sim.cfg = std::get<std::vector<std::string>>(v); },
       .show = [](const EngineSettings& s) { return json_list(s.sim.cfg); }},

      // The model engine's costs (and the formula engine's, which prices with them).
      {.group = G::model,
       .key = "model.kind",
       .json = "model.kind",
       .type = T::text,
       .engines = kModels,
       .coarray = true,
       .help = "hockney (default), two_level (intra inside a node, alpha and beta between nodes) or loggp",
       .check = kind_problem,
       .store = [](EngineSettings& s, const SettingValue& v) { s.model.kind = kind_named(text_of(v)); },
       .show = [](const EngineSettings& s) { return json_string(to_string(s.model.kind)); }},
      {.group = G::model,
       .option = "alpha",
       .key = "model.alpha",
       .json = "model.alpha",
       .type = T::time,
       .value_name = "TIME",
       .engines = kModels,
       .coarray = true,
       .help = "model: Hockney latency, e.g. 10us (default 10us)",
       .store = [](EngineSettings& s, const SettingValue& v) { s.model.hockney.alpha = real_of(v); },
       .show = [](const EngineSettings& s) { return format_real(inter(s).alpha); }},
      {.group = G::model,
       .option = "beta",
       .key = "model.beta",
       .json = "model.beta",
       .type = T::time_per_byte,
       .value_name = "TIME_PER_BYTE",
       .engines = kModels,
       .coarray = true,
       .help = "model: Hockney time per byte, e.g. 0.8ns, or a rate, 1.25GBps (default 0.8ns)",
       .store = [](EngineSettings& s, const SettingValue& v) { s.model.hockney.beta = real_of(v); },
       .show = [](const EngineSettings& s) { return format_real(inter(s).beta); }},
      {.group = G::model,
       .option = "intra",
       .type = T::parts,
       .value_name = "ALPHA,BETA",
       .engines = kModels,
       .coarray = true,
       .help = "model: two-level Hockney: these between ranks of one node, --alpha/--beta between nodes (e.g. "
               "5us,0.3ns)",
       .parts = {"model.intra.alpha", "model.intra.beta"},
       .example = "5us,0.3ns",
       .store = [](EngineSettings& s, const SettingValue&) { s.model.kind = ModelConfig::Kind::two_level; }},
      {.group = G::model,
       .key = "model.intra.alpha",
       .json = "model.intra_alpha",
       .type = T::time,
       .engines = kModels,
       .coarray = true,
       .help = "two_level: latency between ranks of one node",
       .store = [](EngineSettings& s, const SettingValue& v) { s.model.two_level.intra.alpha = real_of(v); },
       .show = [](const EngineSettings& s) { return format_real(s.model.two_level.intra.alpha); }},
      {.group = G::model,
       .key = "model.intra.beta",
       .json = "model.intra_beta",
       .type = T::time_per_byte,
       .engines = kModels,
       .coarray = true,
       .help = "two_level: time per byte between ranks of one node",
       .store = [](EngineSettings& s, const SettingValue& v) { s.model.two_level.intra.beta = real_of(v); },
       .show = [](const EngineSettings& s) { return format_real(s.model.two_level.intra.beta); }},
      {.group = G::model,
       .option = "cross-socket",
       .type = T::parts,
       .value_name = "ALPHA,BETA",
       .engines = kModels,
       .coarray = true,
       .help = "model: two-level Hockney with a socket level: these between ranks on two sockets of one node, "
               "--intra then within a socket (e.g. 1us,0.1ns; the sockets come from the placement: --sockets "
               "and --cores, or the platform's)",
       .parts = {"model.cross_socket.alpha", "model.cross_socket.beta"},
       .example = "1us,0.1ns",
       .store = [](EngineSettings& s, const SettingValue&) { cross_socket(s); }},
      {.group = G::model,
       .key = "model.cross_socket.alpha",
       .json = "model.cross_socket_alpha",
       .type = T::time,
       .engines = kModels,
       .coarray = true,
       .help = "two_level: latency between ranks on two sockets of one node",
       .store = [](EngineSettings& s, const SettingValue& v) { cross_socket(s).alpha = real_of(v); },
       .show =
           [](const EngineSettings& s) {
             return s.model.two_level.cross_socket ? format_real(s.model.two_level.cross_socket->alpha) : "null";
           }},
      {.group = G::model,
       .key = "model.cross_socket.beta",
       .json = "model.cross_socket_beta",
       .type = T::time_per_byte,
       .engines = kModels,
       .coarray = true,
       .help = "two_level: time per byte between ranks on two sockets of one node",
       .store = [](EngineSettings& s, const SettingValue& v) { cross_socket(s).beta = real_of(v); },
       .show =
           [](const EngineSettings& s) {
             return s.model.two_level.cross_socket ? format_real(s.model.two_level.cross_socket->beta) : "null";
           }},
      {.group = G::model,
       .option = "sockets",
       .key = "model.sockets",
       .json = "model.sockets",
       .type = T::count,
       .value_name = "S",
       .engines = kModels,
       .coarray = true,
       .help = "model, two-level without --platform: sockets per node, for placing ranks on sockets (with --cores)",
       .min = 1,
       .max = 1024,
       .store = [](EngineSettings& s,
                   const SettingValue& v) { s.model_sockets = static_cast<int>(std::get<long long>(v)); },
       .show = [](const EngineSettings& s) { return std::to_string(s.model_sockets); }},
      {.group = G::model,
       .option = "cores",
       .key = "model.cores",
       .json = "model.cores",
       .type = T::count,
       .value_name = "C",
       .engines = kModels,
       .coarray = true,
       .help = "model, two-level without --platform: cores per socket (a node has sockets x cores), as collsim "
               "platform's --cores",
       .min = 1,
       .max = 1 << 20,
       .store = [](EngineSettings& s,
                   const SettingValue& v) { s.model_cores = static_cast<int>(std::get<long long>(v)); },
       .show = [](const EngineSettings& s) { return std::to_string(s.model_cores); }},
      {.group = G::model,
       .option = "intra-sends",
       .key = "model.intra_sends",
       .json = "model.intra_sends",
       .type = T::text,
       .value_name = "HOW",
       .engines = kModels,
       .coarray = true,
       .help = "model, two-level: a rank's sends to ranks of its own node go one at a time, each holding its send "
               "port (serial, default) or overlap for free (concurrent, the rule before 2026-12); between nodes "
               "as --one-port says",
       .check = intra_sends_problem,
       .store = [](EngineSettings& s,
                   const SettingValue& v) { s.model.concurrent_intra_sends = text_of(v) == "concurrent"; },
       .show =
           [](const EngineSettings& s) {
             return json_string(s.model.concurrent_intra_sends ? "concurrent" : "serial");
           }},
      {.group = G::model,
       .option = "send-overhead",
       .key = "model.send_overhead",
       .json = "model.send_overhead",
       .type = T::text,
       .value_name = "TABLE",
       .engines = kOnModel,
       .coarray = true,
       .help = "model, Hockney kinds: the sender's core time per message, SIZE:BASE:PER_BYTE;... or one time (e.g. "
               "0:1us:0;64KiB:3us:0.1ns; default none), as the sim's send_overhead",
       .check = overhead_problem,
       .store = [](EngineSettings& s, const SettingValue& v) { s.model.send_overhead = overhead_of(v); },
       .show = [](const EngineSettings& s) { return json_string(models::to_string(s.model.send_overhead)); }},
      {.group = G::model,
       .option = "get-overhead",
       .key = "model.get_overhead",
       .json = "model.get_overhead",
       .type = T::text,
       .value_name = "TABLE",
       .engines = kOnModel,
       .coarray = true,
       .help =
           "model, Hockney kinds: a get's core time at the origin, as --send-overhead (default: --send-overhead's), "
           "as the sim's PROFILE/get_overhead",
       .check = overhead_problem,
       .store = [](EngineSettings& s, const SettingValue& v) { s.model.get_overhead = overhead_of(v); },
       .show =
           [](const EngineSettings& s) {
             return s.model.get_overhead ? json_string(models::to_string(*s.model.get_overhead)) : std::string();
           }},
      {.group = G::model,
       .option = "recv-overhead",
       .key = "model.recv_overhead",
       .json = "model.recv_overhead",
       .type = T::text,
       .value_name = "TABLE",
       .engines = kOnModel,
       .coarray = true,
       .help = "model, Hockney kinds: the receiver's core time per message once its data is there, as --send-overhead",
       .check = overhead_problem,
       .store = [](EngineSettings& s, const SettingValue& v) { s.model.recv_overhead = overhead_of(v); },
       .show = [](const EngineSettings& s) { return json_string(models::to_string(s.model.recv_overhead)); }},
      // On the command line, --platform gives the model engine the platform's model.
      {.group = G::model,
       .option = "platform",
       .key = "model.from_platform",
       .type = T::flag,
       .engines = kModels,
       .coarray = true,
       .help = "true: the platform's two-level Hockney (on the command line, --platform with the model)",
       .store = [](EngineSettings& s, const SettingValue& v) { s.model_from_platform = std::get<bool>(v); }},
      {.group = G::model,
       .option = "loggp",
       .type = T::parts,
       .value_name = "L,o,g,G",
       .engines = kModels,
       .coarray = true,
       .help = "model: use LogGP with these parameters instead of Hockney (G per byte), e.g. 5us,1us,2us,0.1ns",
       .parts = {"model.L", "model.o", "model.g", "model.G"},
       .example = "5us,1us,2us,0.1ns",
       .store = [](EngineSettings& s, const SettingValue&) { s.model.kind = ModelConfig::Kind::loggp; }},
      {.group = G::model,
       .key = "model.L",
       .json = "model.L",
       .type = T::time,
       .engines = kModels,
       .coarray = true,
       .help = "loggp: latency",
       .store = [](EngineSettings& s, const SettingValue& v) { s.model.loggp.L = real_of(v); },
       .show = [](const EngineSettings& s) { return format_real(s.model.loggp.L); }},
      {.group = G::model,
       .key = "model.o",
       .json = "model.o",
       .type = T::time,
       .engines = kModels,
       .coarray = true,
       .help = "loggp: overhead of a send or a receive",
       .store = [](EngineSettings& s, const SettingValue& v) { s.model.loggp.o = real_of(v); },
       .show = [](const EngineSettings& s) { return format_real(s.model.loggp.o); }},
      {.group = G::model,
       .key = "model.g",
       .json = "model.g",
       .type = T::time,
       .engines = kModels,
       .coarray = true,
       .help = "loggp: gap between two messages",
       .store = [](EngineSettings& s, const SettingValue& v) { s.model.loggp.g = real_of(v); },
       .show = [](const EngineSettings& s) { return format_real(s.model.loggp.g); }},
      {.group = G::model,
       .key = "model.G",
       .json = "model.G",
       .type = T::time_per_byte,
       .engines = kModels,
       .coarray = true,
       .help = "loggp: gap per byte",
       .store = [](EngineSettings& s, const SettingValue& v) { s.model.loggp.G = real_of(v); },
       .show = [](const EngineSettings& s) { return format_real(s.model.loggp.G); }},
      {.group = G::model,
       .option = "one-port",
       .key = "model.one_port",
       .json = "model.one_port",
       .type = T::flag,
       .engines = kModels,
       .coarray = true,
       .help = "model: each rank sends one message and receives one at a time",
       .store = [](EngineSettings& s, const SettingValue& v) { s.model.one_port = std::get<bool>(v); },
       .show = [](const EngineSettings& s) { return json_bool(s.model.one_port); }},
      {.group = G::model,
       .option = "copy-bandwidth",
       .key = "model.copy_bandwidth",
       .json = "model.copy_bandwidth",
       .type = T::rate_or_zero,
       .value_name = "RATE",
       .engines = kOnModel,  // the formulas charge no local copies
       .coarray = true,
       .help = "model: local copy rate, e.g. 5GBps (default 0 = copies are free)",
       .store = [](EngineSettings& s, const SettingValue& v) { s.model.copy_bandwidth = real_of(v); },
       .show = [](const EngineSettings& s) { return format_real(s.model.copy_bandwidth); }},
      // The two below are recorded only when set (show ""), so that earlier run.json files still
      // read the same.
      {.group = G::model,
       .option = "copy-overhead",
       .key = "model.copy_overhead",
       .json = "model.copy_overhead",
       .type = T::time,
       .value_name = "TIME",
       .engines = kOnModel,
       .coarray = true,
       .help = "model: a local copy's per-call cost besides its bytes, c0 (a copy of n bytes: c0 + n / copy "
               "rate), e.g. 100ns (default 0); the sim's is the platform's collsim/copy_overhead",
       .store = [](EngineSettings& s, const SettingValue& v) { s.model.copy_overhead = real_of(v); },
       .show =
           [](const EngineSettings& s) {
             return s.model.copy_overhead > 0 ? format_real(s.model.copy_overhead) : std::string();
           }},
      {.group = G::model,
       .option = "sync-overhead",
       .key = "model.sync_overhead",
       .json = "model.sync_overhead",
       .type = T::time,
       .value_name = "TIME",
       .engines = kOnModel,
       .coarray = true,
       .help = "model: the rank's core time per win_sync, F (a coarray's sync memory runs one), e.g. 2us "
               "(default 0), as the sim's PROFILE/sync_overhead",
       .store = [](EngineSettings& s, const SettingValue& v) { s.model.sync_overhead = real_of(v); },
       .show =
           [](const EngineSettings& s) {
             return s.model.sync_overhead > 0 ? format_real(s.model.sync_overhead) : std::string();
           }},
      // A coarray program reduces nothing.
      {.group = G::model,
       .option = "reduce-gamma",
       .key = "model.reduce_gamma",
       .json = "model.reduce_gamma",
       .type = T::time_per_byte,
       .value_name = "TIME_PER_BYTE",
       .engines = kModels,
       .coarray = false,
       .help = "model, formula: local reduction cost per byte, e.g. 0.1ns (default 0 = reductions are free)",
       .store = [](EngineSettings& s, const SettingValue& v) { s.model.reduce_gamma = real_of(v); },
       .show = [](const EngineSettings& s) { return format_real(s.model.reduce_gamma); }},

      // How the mpi engines launch and stop (scenarios; collsim calibrate takes the run counts).
      {.group = G::mpi,
       .option = "launcher",
       .key = "mpi.launcher",
       .json = "mpi.launcher",
       .type = T::list,
       .value_name = "COMMAND",
       .engines = kOnMpi,
       .coarray = true,
       .help = "the launcher and its options, before -np P (default mpirun --oversubscribe, and --allow-run-as-root as "
               "root); on the command line one value split at blanks, e.g. --launcher \"$TESTBED_MPIRUN\"",
       .words = true,
       .store = [](EngineSettings& s,
                   const SettingValue& v) { s.mpi.launcher = std::get<std::vector<std::string>>(v); },
       .show = [](const EngineSettings& s) { return json_list(launcher_command(s.mpi)); }},
      {.group = G::mpi,
       .key = "mpi.program",
       .json = "mpi.program",
       .type = T::text,
       .engines = kOnMpi,
       .coarray = true,
       .help = "the collsim-mpi to launch (default: the one beside collsim)",
       .store = [](EngineSettings& s, const SettingValue& v) { s.mpi.program = text_of(v); },
       .show = [](const EngineSettings& s) { return json_string(mpi_program(s.mpi)); }},
      {.group = G::mpi,
       .option = "min-runs",
       .key = "mpi.min_runs",
       .json = "mpi.min_runs",
       .type = T::count,
       .value_name = "N",
       .engines = kOnMpi,
       .coarray = true,
       .help = "mpi engines: timed runs per experiment at least (default " + std::to_string(kDefaultMinRuns) + ")",
       .min = 1,
       .max = 1000000,
       .store = [](EngineSettings& s,
                   const SettingValue& v) { s.mpi.min_runs = static_cast<int>(std::get<long long>(v)); },
       .show = [](const EngineSettings& s) { return std::to_string(s.mpi.min_runs); }},
      {.group = G::mpi,
       .option = "max-runs",
       .key = "mpi.max_runs",
       .json = "mpi.max_runs",
       .type = T::count,
       .value_name = "N",
       .engines = kOnMpi,
       .coarray = true,
       .help = "mpi engines: at most (default " + std::to_string(kDefaultMaxRuns) +
               "); a note counts the experiments that stop here with the 95% CI above " +
               format_real(100 * kDefaultCiTarget) + "% of the mean",
       .min = 1,
       .max = 1000000,
       .store = [](EngineSettings& s,
                   const SettingValue& v) { s.mpi.max_runs = static_cast<int>(std::get<long long>(v)); },
       .show = [](const EngineSettings& s) { return std::to_string(s.mpi.max_runs); }},
      {.group = G::mpi,
       .option = "ci-target",
       .key = "mpi.ci_target",
       .json = "mpi.ci_target",
       .type = T::text,
       .value_name = "F",
       .engines = kOnMpi,
       .coarray = true,
       .help = "stop once the 95% CI half-width is under this share of the mean (default 2.5%)",
       .check = fraction_problem,
       .store = [](EngineSettings& s, const SettingValue& v) { s.mpi.ci_target = *parse_fraction(text_of(v)); },
       .show = [](const EngineSettings& s) { return format_real(s.mpi.ci_target); }},
      {.group = G::mpi,
       .option = "statistic",
       .key = "mpi.statistic",
       .json = "mpi.statistic",
       .type = T::text,
       .value_name = "median|min",
       .engines = kOnMpi,
       .coarray = true,
       .help = "mpi engines: the time of a point, the median of its runs (default) or the fastest run (on a loaded "
               "machine, where other processes only delay runs)",
       .check = statistic_problem,
       .store = [](EngineSettings& s, const SettingValue& v) { s.mpi.time_is_min = text_of(v) == "min"; },
       .show = [](const EngineSettings& s) { return json_string(s.mpi.time_is_min ? "min" : "median"); }},
      {.group = G::mpi,
       .option = "launches",
       .key = "mpi.launches",
       .json = "mpi.launches",
       .type = T::count,
       .value_name = "N",
       .engines = kOnMpi,
       .coarray = true,
       .help = "mpi engines: mpirun launches per point, its row the fastest launch's under --statistic min, else the "
               "median launch's (default 1): on a shared machine a whole launch can run slow",
       .min = 1,
       .max = 1000,
       .store = [](EngineSettings& s,
                   const SettingValue& v) { s.mpi.launches = static_cast<int>(std::get<long long>(v)); },
       // Recorded only when more than one, so that the run.json of earlier runs stays as it was.
       .show = [](const EngineSettings& s) { return s.mpi.launches > 1 ? std::to_string(s.mpi.launches) : ""; }},
      {.group = G::mpi,
       .key = "mpi.timeout",
       .json = "mpi.timeout_s",
       .type = T::time,
       .engines = kOnMpi,
       .coarray = true,
       .help = "per point, at least 1s (default 300s)",
       .check = timeout_problem,
       .store = [](EngineSettings& s, const SettingValue& v) { s.mpi.timeout_s = real_of(v); },
       .show = [](const EngineSettings& s) { return format_real(s.mpi.timeout_s); }},

      // How the ranks time a call (engines/run.hpp, Timing). The formulas predict one time from a
      // common start and have no ranks to time on their own.
      {.group = G::timing,
       .option = "timing",
       .key = "timing",
       .json = "timing",
       .type = T::text,
       .value_name = "HOW",
       .engines = kOnModel | kOnSim,
       .help = "model, sim: collective (default: every rank starts at one date, the time is the last finish) or "
               "osu (also osu_bcast's: each rank times its own calls from its own entry, a barrier between them; "
               "columns osu_avg_s, osu_min_s, osu_max_s)",
       .check = timing_problem,
       .store = [](EngineSettings& s, const SettingValue& v) { s.timing.kind = *parse_timing(text_of(v)); },
       .show = [](const EngineSettings& s) { return json_string(to_string(s.timing.kind)); }},
  };
  return t;
}

// The value of `s` as its source wrote it, checked.
SettingValue parse(const SettingSource& src, const Setting& s) {
  const std::vector<std::string> texts = src.texts(s);
  auto checked = [&](const std::string& text, std::size_t item) {
    if (s.check)
      if (const std::string problem = s.check(text); !problem.empty()) src.fail(s, src.name(s) + ": " + problem, item);
  };
  auto quantity = [&](Quantity kind) {
    const QuantityRead q = read_quantity(kind, texts.front());
    if (!q.problem.empty()) src.fail(s, src.name(s) + ": " + q.problem);
    checked(texts.front(), 0);
    return SettingValue(q.value);
  };
  switch (s.type) {
    case T::time: return quantity(Quantity::seconds);
    case T::time_per_byte: return quantity(Quantity::seconds_per_byte);
    case T::rate_or_zero: return quantity(Quantity::rate_or_zero);
    case T::size: {
      const SizeRead b = read_size(texts.front());
      if (!b.problem.empty()) src.fail(s, src.name(s) + ": " + b.problem);
      return static_cast<long long>(b.value);
    }
    case T::count: {
      const IntegerRead n = read_integer(texts.front(), s.min, s.max);
      if (!n.problem.empty()) src.fail(s, src.name(s) + ": " + n.problem);
      return n.value;
    }
    case T::flag: {
      const std::string& v = texts.front();
      if (v != "true" && v != "yes" && v != "false" && v != "no")
        src.fail(s, src.name(s) + ": '" + v + "' is not true or false");
      return v == "true" || v == "yes";
    }
    case T::text: checked(texts.front(), 0); return texts.front();
    case T::list:
      for (std::size_t i = 0; i < texts.size(); ++i) checked(texts[i], i);
      return texts;
    case T::parts: return texts;
  }
  throw std::logic_error("engine_settings: a setting type without a reader");
}

// `what` applies to `kind` only: the first given of `keys` is refused while the model is not.
void only_for(const SettingSource& src, std::initializer_list<std::string_view> keys, bool applies,
              const std::string& what) {
  for (std::string_view k : keys)
    if (src.has(k) && !applies) src.fail(engine_setting(k), src.name(k) + " applies to " + what);
}

// The model's settings, together: each kind's costs with that kind only, a platform's model with
// no costs of its own, two-level with its costs inside a node.
void check_model(const SettingSource& src, const EngineSettings& s) {
  const bool loggp = s.model.kind == ModelConfig::Kind::loggp;
  const bool two_level = s.model.kind == ModelConfig::Kind::two_level;
  only_for(src, {"model.alpha", "model.beta", "intra", "model.intra.alpha", "model.intra.beta"}, !loggp,
           "Hockney (kind hockney or two_level), not LogGP (L, o, g, G): give one or the other");
  only_for(src, {"model.one_port"}, !loggp, "Hockney only (LogGP's g and G already serialise sends)");
  only_for(src, {"model.L", "model.o", "model.g", "model.G"}, loggp,
           "kind: loggp only, not " + std::string(to_string(s.model.kind)));
  only_for(src, {"model.intra.alpha", "model.intra.beta"}, two_level, "kind: two_level only");
  only_for(src,
           {"cross-socket", "model.cross_socket.alpha", "model.cross_socket.beta", "model.sockets", "model.cores",
            "model.intra_sends"},
           two_level, "kind: two_level only (give --intra or a platform)");
  only_for(src, {"model.send_overhead", "model.recv_overhead", "model.get_overhead"}, !loggp,
           "Hockney only (LogGP has its o)");
  only_for(src, {"model.intra_sends"}, !s.model.one_port,
           "sends inside a node without one_port (with it, every transfer holds both ports)");
  if (src.has("model.cross_socket.alpha") != src.has("model.cross_socket.beta"))
    src.fail(
        engine_setting(src.has("model.cross_socket.alpha") ? "model.cross_socket.alpha" : "model.cross_socket.beta"),
        src.name("model.cross_socket.alpha") + " and " + src.name("model.cross_socket.beta") + " go together");
  if (src.has("model.sockets") != src.has("model.cores"))
    src.fail(engine_setting(src.has("model.sockets") ? "model.sockets" : "model.cores"),
             src.name("model.sockets") + " and " + src.name("model.cores") + " go together (the node's shape)");
  if (s.model_from_platform) {
    const std::string from = src.name("model.from_platform");
    for (std::string_view k :
         {"model.alpha", "model.beta", "intra", "model.intra.alpha", "model.intra.beta", "loggp", "cross-socket",
          "model.cross_socket.alpha", "model.cross_socket.beta", "model.sockets", "model.cores"})
      if (src.has(k))
        src.fail(engine_setting(k), src.name(k) + " cannot be given with " + from +
                                        ", which gives the model the platform's two-level Hockney");
    if (src.has("model.kind") && !two_level)
      src.fail(engine_setting("model.from_platform"), from + " applies to kind: two_level only");
  } else if (two_level && !src.has("intra") && !(src.has("model.intra.alpha") && src.has("model.intra.beta"))) {
    src.fail(engine_setting("model.kind"), src.name("model.kind") + " two_level needs " +
                                               src.name("model.intra.alpha") + " and " + src.name("model.intra.beta") +
                                               " (the costs inside a node)");
  }
}

}  // namespace

std::span<const Setting> engine_setting_table() {
  static const std::vector<Setting> table = make_table();
  return table;
}

const Setting& engine_setting(std::string_view name) {
  for (const Setting& s : engine_setting_table())
    if (s.key == name || (s.key.empty() && s.option == name)) return s;
  for (const Setting& s : engine_setting_table())
    if (s.option == name) return s;
  throw std::logic_error("engine_settings: no setting " + std::string(name));
}

bool owns_option(const Setting& s) {
  if (s.option.empty()) return false;
  for (const Setting& t : engine_setting_table())
    if (t.option == s.option) return &t == &s;
  return false;
}

std::string engines_text(EngineSet engines) {
  std::string out;
  for (const EngineInfo& e : kEngines) {
    const std::string choice(e.choice);
    if ((engines & engine_set(e.engine)) && out.find(choice) == std::string::npos)
      out += (out.empty() ? "" : ", ") + choice;
  }
  return out;
}

void read_settings(const SettingSource& src, SettingGroup group, EngineSettings& into) {
  for (const Setting& s : engine_setting_table()) {
    if (s.group != group || !s.store || !src.has(s)) continue;
    const SettingValue v = parse(src, s);
    s.store(into, v);
    if (s.type != T::parts) continue;
    const auto& fields = std::get<std::vector<std::string>>(v);
    std::string whole;  // as written: the fields are its comma-separated items
    for (std::size_t i = 0; i < fields.size(); ++i) whole += (i ? "," : "") + fields[i];
    if (fields.size() != s.parts.size())
      src.fail(s, src.name(s) + ": '" + whole + "' is not " + (s.parts.size() == 2 ? "two" : "four") + " costs " +
                      std::string(s.value_name) + " (e.g. " + std::string(s.example) + ")");
    for (std::size_t i = 0; i < s.parts.size(); ++i) {
      const Setting& part = engine_setting(s.parts[i]);
      const QuantityRead q =
          read_quantity(part.type == T::time ? Quantity::seconds : Quantity::seconds_per_byte, fields[i]);
      if (!q.problem.empty()) {
        // "'x' is not a time" or "x must be at least 0", told with the whole value.
        const std::string head = q.problem.starts_with("'") ? "'" + fields[i] + "'" : fields[i];
        src.fail(s, src.name(s) + ": " + head + " in '" + whole + "'" + q.problem.substr(head.size()));
      }
      part.store(into, q.value);
    }
  }
  if (group == G::placement && src.has("ranks_per_node") && src.has("map_by"))
    src.fail(engine_setting("map_by"), "give " + src.name("ranks_per_node") + " or " + src.name("map_by") +
                                           ", not both (" + src.name("ranks_per_node") + " N is " + src.name("map_by") +
                                           " ppr:N:node)");
  if (group == G::model) {
    // The platform's model is two-level; a kind given with it is checked first.
    if (into.model_from_platform && !src.has("model.kind")) into.model.kind = ModelConfig::Kind::two_level;
    check_model(src, into);
    if (into.model.kind == ModelConfig::Kind::two_level) into.model.two_level.inter = into.model.hockney;
  }
  if (group == G::sim && src.has("sim.eager_limit"))
    if (const std::string problem = eager_limit_problem(into.sim.protocol); !problem.empty())
      src.fail(engine_setting("sim.eager_limit"), src.name("sim.eager_limit") + " " + problem);
  if (group == G::mpi && into.mpi.max_runs < into.mpi.min_runs)
    src.fail(engine_setting(src.has("mpi.max_runs") ? "mpi.max_runs" : "mpi.min_runs"),
             src.name("mpi.max_runs") + " is below " + src.name("mpi.min_runs"));
}

std::vector<std::string> settings_json(const EngineSettings& settings) {
  std::vector<std::string> out;
  for (std::string_view object : {"model", "sim", "mpi"}) {
    std::string line = "  \"" + std::string(object) + "\": {";
    bool first = true;
    for (const Setting& s : engine_setting_table()) {
      if (s.json.substr(0, object.size() + 1) != std::string(object) + ".") continue;
      const std::string value = s.show(settings);
      if (value.empty()) continue;  // recorded only when set
      line += (first ? "" : ", ") + json_string(std::string(s.json.substr(object.size() + 1))) + ": " + value;
      first = false;
    }
    out.push_back(line + "}");
  }
  for (const Setting& s : engine_setting_table())
    if (!s.json.empty() && s.json.find('.') == std::string_view::npos)
      out.push_back("  " + json_string(std::string(s.json)) + ": " + s.show(settings));
  return out;
}

}  // namespace collsim
