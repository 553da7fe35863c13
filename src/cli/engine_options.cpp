#include "cli/engine_options.hpp"

#include <algorithm>
#include <string_view>

#include "engines/sim/protocol.hpp"
#include "experiment/scenario.hpp"
#include "support/units.hpp"

namespace collsim::cli {

std::string default_platform() { return COLLSIM_SOURCE_DIR "/platforms/grisou.xml"; }

std::vector<OptionDef> engine_options(std::initializer_list<const char*> except) {
  std::vector<OptionDef> defs = {
      {"platform", "FILE",
       "sim: SimGrid platform file (default platforms/grisou.xml); model: two-level Hockney derived from it"},
      {"ranks-per-node", "N",
       "sim, and model with --intra or --platform: ranks per host, --map-by ppr:N:node (default 1)"},
      {"map-by", "POLICY",
       "sim, and model with --intra or --platform: rank placement like mpirun's: ppr:K:node, "
       "ppr:K:socket, node (round-robin over nodes), socket (default ppr:1:node)"},
      {"protocol", "NAME",
       "sim: point-to-point protocols: ideal, tcp, tcp+shm (default: the platform's, else tcp+shm)"},
      {"protocol-option", "PROFILE/KEY:VALUE", "sim: a protocol parameter, e.g. tcp/buffer:1MiB (repeatable)", true},
      {"eager-limit", "SIZE",
       "sim, --protocol ideal only: messages below go eager, others rendezvous (default 64KiB); tcp's and "
       "shm's are --protocol-option tcp/eager_limit:SIZE, shm/eager_limit:SIZE"},
      {"cfg", "KEY:VALUE", "sim: a SimGrid configuration option (repeatable)", true},
      {"alpha", "TIME", "model: Hockney latency, e.g. 10us (default 10us)"},
      {"beta", "TIME_PER_BYTE", "model: Hockney time per byte, e.g. 0.8ns, or a rate, 1.25GBps (default 0.8ns)"},
      {"intra", "ALPHA,BETA",
       "model: two-level Hockney: these between ranks of one node, --alpha/--beta between nodes (e.g. 5us,0.3ns)"},
      {"loggp", "L,o,g,G",
       "model: use LogGP with these parameters instead of Hockney (G per byte), e.g. 5us,1us,2us,0.1ns"},
      {"one-port", "", "model: each rank sends one message and receives one at a time"},
      {"copy-bandwidth", "RATE", "model: local copy rate, e.g. 5GBps (default 0 = copies are free)"},
      {"reduce-gamma", "TIME_PER_BYTE",
       "model, formula: local reduction cost per byte, e.g. 0.1ns (default 0 = reductions are free)"},
  };
  std::erase_if(defs, [&](const OptionDef& d) {
    return std::any_of(except.begin(), except.end(), [&](const char* n) { return d.name == n; });
  });
  return defs;
}

void check_model_options(const ParsedOptions& o, const std::string& engine) {
  reject_foreign(o, engine, {"eager-limit", "protocol", "protocol-option"});
  for (const char* n : {"ranks-per-node", "map-by"})
    if (o.has(n) && !o.has("intra") && !o.has("platform"))
      throw UsageError("--" + std::string(n) + " applies to --engine " + engine +
                       " only with --intra or --platform (two-level Hockney)");
  if (o.has("cfg") && !o.has("platform"))
    throw UsageError("--cfg applies to --engine " + engine + " only with --platform (its network model's factors)");
}

void check_sim_options(const ParsedOptions& o, const std::string& engine) {
  reject_foreign(o, engine, {"alpha", "beta", "intra", "loggp", "one-port", "copy-bandwidth", "reduce-gamma"});
}

namespace {

// The items of option `name`, "A,B,...", each a time ('t') or a time per byte ('b') as `kinds`
// says, none negative; or a UsageError saying what it wants.
std::vector<double> read_costs(const ParsedOptions& o, const std::string& name, std::string_view kinds,
                               const std::string& what) {
  const std::string text = o.text(name);
  const std::vector<std::string> items = split_commas(text);
  if (items.size() != kinds.size()) throw UsageError("--" + name + ": '" + text + "' is not " + what);
  std::vector<double> v;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const auto x = kinds[i] == 't' ? parse_seconds(items[i]) : parse_seconds_per_byte(items[i]);
    if (!x)
      throw UsageError("--" + name + ": '" + items[i] + "' in '" + text + "' is not " +
                       (kinds[i] == 't' ? kSecondsHint : kSecondsPerByteHint));
    if (*x < 0) throw UsageError("--" + name + ": " + items[i] + " in '" + text + "' must be at least 0");
    v.push_back(*x);
  }
  return v;
}

}  // namespace

ModelConfig read_model(const ParsedOptions& o) {
  ModelConfig m;
  m.hockney.alpha = o.seconds("alpha", m.hockney.alpha);
  m.hockney.beta = o.seconds_per_byte("beta", m.hockney.beta);
  if (o.has("loggp")) {
    if (o.has("alpha") || o.has("beta") || o.has("intra"))
      throw UsageError("--loggp replaces Hockney's --alpha/--beta/--intra: give one or the other");
    const auto v = read_costs(o, "loggp", "tttb", "four costs L,o,g,G (e.g. 5us,1us,2us,0.1ns)");
    m.kind = ModelConfig::Kind::loggp;
    m.loggp = {v[0], v[1], v[2], v[3]};
    if (o.has("one-port"))
      throw UsageError("--one-port applies to Hockney only (LogGP's g and G already serialise sends)");
  }
  if (o.has("intra")) {
    const auto v = read_costs(o, "intra", "tb", "two costs ALPHA,BETA (e.g. 5us,0.3ns)");
    m.kind = ModelConfig::Kind::two_level;
    m.two_level.intra = {v[0], v[1]};
    m.two_level.inter = m.hockney;
  }
  m.one_port = o.has("one-port");
  m.copy_bandwidth = o.rate("copy-bandwidth", 0, true);
  m.reduce_gamma = o.seconds_per_byte("reduce-gamma", 0);
  if (o.has("platform")) {
    // The two-level Hockney model of the platform, as the simulation would see it.
    for (const char* n : {"alpha", "beta", "intra", "loggp"})
      if (o.has(n))
        throw UsageError("--platform gives the model its parameters: --" + std::string(n) + " cannot be given too");
    m.kind = ModelConfig::Kind::two_level;
    m.two_level = platform_hockney(read_sim(o));
  } else if (m.kind == ModelConfig::Kind::two_level) {
    std::string error;
    const auto placement = models::place(read_map_by(o), {}, error);
    if (!placement) throw UsageError("--map-by: " + error + "; give --platform");
    m.two_level.placement = *placement;
  }
  return m;
}

models::MapBy read_map_by(const ParsedOptions& o) {
  if (o.has("map-by") && o.has("ranks-per-node"))
    throw UsageError("give --ranks-per-node or --map-by, not both (--ranks-per-node N is --map-by ppr:N:node)");
  if (o.has("ranks-per-node"))
    return {models::MapBy::Policy::ppr_node, static_cast<int>(o.integer("ranks-per-node", 1, 1, 1 << 20))};
  if (!o.has("map-by")) return {};
  const auto m = models::parse_map_by(o.text("map-by"));
  if (!m) throw UsageError("--map-by: '" + o.text("map-by") + "' is not one of " + models::map_by_forms);
  return *m;
}

SimConfig read_sim(const ParsedOptions& o) {
  SimConfig s;
  s.platform_file = o.text("platform", default_platform());
  s.map_by = read_map_by(o);
  if (o.has("eager-limit")) s.eager_limit = o.bytes("eager-limit", kIdealEagerLimit);
  for (const auto& c : o.all("cfg")) {
    if (c.find(':') == std::string::npos) throw UsageError("--cfg: '" + c + "' is not KEY:VALUE");
    s.cfg.push_back(c);
  }
  s.protocol = o.text("protocol");
  if (o.has("protocol") && !is_protocol_name(s.protocol))
    throw UsageError("--protocol: '" + s.protocol + "' is not a protocol (" + protocol_names() + ")");
  if (o.has("eager-limit"))
    if (const std::string problem = eager_limit_problem(s.protocol); !problem.empty())
      throw UsageError("--eager-limit " + problem);
  for (const auto& p : o.all("protocol-option")) {
    const std::string problem = check_protocol_option(p);
    if (!problem.empty()) throw UsageError("--protocol-option: " + problem);
    s.protocol_options.push_back(p);
  }
  return s;
}

void reject_foreign(const ParsedOptions& o, const std::string& engine, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (o.has(n)) throw UsageError("--" + std::string(n) + " does not apply to --engine " + engine);
}

}  // namespace collsim::cli
