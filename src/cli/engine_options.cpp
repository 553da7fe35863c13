#include "cli/engine_options.hpp"

#include <algorithm>
#include <sstream>

namespace collsim::cli {

namespace {

// The command line as a source of settings: each setting is its --option.
class OptionSettings final : public SettingSource {
 public:
  explicit OptionSettings(const ParsedOptions& o) : o_(o) {}

  bool has(const Setting& s) const override { return !s.option.empty() && o_.has(std::string(s.option)); }
  std::vector<std::string> texts(const Setting& s) const override {
    const std::string option(s.option);
    switch (s.type) {
      case SettingType::flag: return {"true"};  // given (--platform also stands for model.from_platform)
      case SettingType::list: return s.words ? command_words(o_, option) : o_.all(option);
      case SettingType::parts: return split_commas(o_.text(option));
      default: return {o_.text(option)};
    }
  }
  std::string name(const Setting& s) const override { return "--" + std::string(s.option); }
  [[noreturn]] void fail(const Setting&, const std::string& what, std::size_t) const override {
    throw UsageError(what);
  }
  using SettingSource::has;

 private:
  const ParsedOptions& o_;
};

std::vector<OptionDef> options_of(SettingGroup first, SettingGroup last, Runs runs) {
  std::vector<OptionDef> defs;
  for (const Setting& s : engine_setting_table()) {
    if (!owns_option(s) || s.group < first || s.group > last) continue;
    if (runs == Runs::coarrays && !s.coarray) continue;
    defs.push_back({std::string(s.option), std::string(s.value_name), s.help, s.type == SettingType::list && !s.words});
  }
  return defs;
}

EngineSettings read_group(const ParsedOptions& o, SettingGroup group, EngineSettings into = {}) {
  read_settings(OptionSettings(o), group, into);
  return into;
}

}  // namespace

std::vector<std::string> command_words(const ParsedOptions& o, const std::string& name) {
  std::vector<std::string> words;
  std::istringstream line(o.text(name));
  for (std::string w; line >> w;) words.push_back(w);
  if (words.empty()) throw UsageError("--" + name + ": no command in '" + o.text(name) + "'");
  return words;
}

std::string default_platform() { return COLLSIM_SOURCE_DIR "/platforms/grisou.xml"; }

std::vector<OptionDef> engine_options(Runs runs) {
  return options_of(SettingGroup::placement, SettingGroup::model, runs);
}

std::vector<OptionDef> mpi_run_options(Runs runs) { return options_of(SettingGroup::mpi, SettingGroup::mpi, runs); }

std::vector<OptionDef> timing_options() {
  return options_of(SettingGroup::timing, SettingGroup::timing, Runs::collectives);
}

void reject_foreign(const ParsedOptions& o, const std::string& engine, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (o.has(n)) throw UsageError("--" + std::string(n) + " does not apply to --engine " + engine);
}

void check_engine_options(const ParsedOptions& o, Engine engine) {
  const std::string name(engine_info(engine).choice);
  for (const Setting& s : engine_setting_table())
    if (owns_option(s) && !(s.engines & engine_set(engine))) reject_foreign(o, name, {std::string(s.option).c_str()});
}

void check_model_options(const ParsedOptions& o, Engine engine) {
  check_engine_options(o, engine);
  const std::string name(engine_info(engine).choice);
  for (const char* n : {"ranks-per-node", "map-by"})
    if (o.has(n) && !o.has("intra") && !o.has("platform"))
      throw UsageError("--" + std::string(n) + " applies to --engine " + name +
                       " only with --intra or --platform (two-level Hockney)");
  if (o.has("cfg") && !o.has("platform"))
    throw UsageError("--cfg applies to --engine " + name + " only with --platform (its network model's factors)");
}

ModelConfig read_model(const ParsedOptions& o) {
  EngineSettings s = read_group(o, SettingGroup::model);
  if (s.model_from_platform) {
    s.model.two_level = platform_hockney(read_sim(o));
    s.model.registration = platform_registration(read_sim(o));
  } else if (s.model.kind == ModelConfig::Kind::two_level) {
    std::string error;
    const auto placement = models::place(read_map_by(o), s.model_shape(), error);
    if (!placement) throw UsageError("--map-by: " + error + "; give --platform, or --sockets and --cores");
    if (s.model.two_level.cross_socket && placement->sockets <= 1)
      throw UsageError("--cross-socket needs nodes of two sockets or more: give --sockets and --cores");
    s.model.two_level.placement = *placement;
  }
  return s.model;
}

models::MapBy read_map_by(const ParsedOptions& o) { return read_group(o, SettingGroup::placement).sim.map_by; }

SimConfig read_sim(const ParsedOptions& o) {
  EngineSettings s = read_group(o, SettingGroup::placement);
  s.sim.platform_file = o.text("platform", default_platform());
  return read_group(o, SettingGroup::sim, s).sim;
}

MpiLaunch read_mpi_runs(const ParsedOptions& o) { return read_group(o, SettingGroup::mpi).mpi; }

Timing read_timing(const ParsedOptions& o) { return read_group(o, SettingGroup::timing).timing; }

}  // namespace collsim::cli
