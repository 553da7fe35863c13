// The engines' settings (rank placement, the model's costs, the sim's protocols, the MPI launch),
// each stated once in one table: its command-line option, its scenario key, its run.json member,
// its type, the engines it applies to and its help. The command line (cli/engine_options) and the
// scenario files read them through a SettingSource, so one function checks them and one text
// names each problem; --help, "does not apply to --engine" and run.json are printed from the table.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "engines/engine.hpp"
#include "engines/model/model_engine.hpp"
#include "engines/sim/sim_engine.hpp"
#include "experiment/sweep/mpi_launcher.hpp"

namespace collsim {

// What the settings of one run come to.
struct EngineSettings {
  ModelConfig model;
  SimConfig sim;
  MpiLaunch mpi;
  bool model_from_platform = false;  // the model takes the platform's two-level Hockney
  // The node as the model's placement sees it without a platform (model.sockets, model.cores:
  // cores per socket, as collsim platform's); 0 = not given.
  int model_sockets = 0, model_cores = 0;
  models::NodeShape model_shape() const { return {0, model_sockets, model_sockets * model_cores}; }
  Timing timing;  // how the engines that run ranks time a call
};

// A set of engines (engines/engine.hpp), one bit each: those a setting means something to.
using EngineSet = unsigned;
constexpr EngineSet engine_set(Engine e) { return 1u << static_cast<unsigned>(e); }
inline constexpr EngineSet kOnModel = engine_set(Engine::model);
inline constexpr EngineSet kOnFormula = engine_set(Engine::formula_textbook) | engine_set(Engine::formula_derived);
inline constexpr EngineSet kOnSim = engine_set(Engine::sim);
inline constexpr EngineSet kOnMpi =
    engine_set(Engine::mpi) | engine_set(Engine::mpi_native) | engine_set(Engine::caf_native);

enum class SettingType {
  time,           // "10us", at least 0
  time_per_byte,  // "0.8ns" or a rate "1.25GBps", at least 0
  rate_or_zero,   // "5GBps", or 0 for "none"
  size,           // "64KiB"
  count,          // a whole number in [min, max]
  text,           // checked by `check`
  flag,           // true or false (on the command line: given or not)
  list,           // several texts (a repeated option, a YAML list), each checked by `check`
  parts,          // command line only: "A,B,..." standing for the settings named in `parts`
};

enum class SettingGroup { placement, sim, model, mpi, timing };  // in the order of the table

using SettingValue = std::variant<double, long long, bool, std::string, std::vector<std::string>>;

struct Setting {
  SettingGroup group = SettingGroup::model;
  // --OPTION; empty: scenario files only. Two settings may share one (--platform is the sim's
  // platform and, for the model, model.from_platform): the first one lists it in --help.
  std::string_view option = {};
  std::string_view key = {};   // scenario key, "model.alpha"; empty: command line only
  std::string_view json = {};  // run.json member, "model.intra_alpha"; empty: not recorded
  SettingType type = SettingType::text;
  std::string_view value_name = {};          // for --help: "TIME"
  unsigned engines = 0;                      // EngineSet bits
  bool coarray = false;                      // coarray runs take it too
  std::string help = {};                     // for --help, with the default; empty: not an option of its own
  std::vector<std::string_view> parts = {};  // SettingType::parts: keys of the settings it stands for
  std::string_view example = {};             // SettingType::parts: a value, for its error
  long long min = 0, max = 0;                // SettingType::count
  // SettingType::list given as one --OPTION value, a command line split at blanks (the MPI
  // launcher: TESTBED_MPIRUN is one string); a scenario still gives a YAML list of words.
  bool words = false;
  // A problem with one text ("'x' is not a protocol (...)"), or "" when it is fine.
  std::string (*check)(const std::string&) = nullptr;
  // Puts the value in the settings; null for settings their reader reads itself (the platform).
  void (*store)(EngineSettings&, const SettingValue&) = nullptr;
  // The JSON value run.json records.
  std::string (*show)(const EngineSettings&) = nullptr;
};

// Every setting, in the order --help lists them and run.json records them.
std::span<const Setting> engine_setting_table();
// The setting of scenario key or option `name` ("model.alpha", "alpha"); std::logic_error when
// there is none (a typo in collsim's own code).
const Setting& engine_setting(std::string_view name);
// "formula, model, sim": the names that choose the engines of `engines`, for `collsim settings`.
std::string engines_text(EngineSet engines);
// Whether `s` is the first setting of the table with its option (the one --help lists).
bool owns_option(const Setting& s);

// Where settings come from: the command line or a scenario file. Each source names a setting as
// its user wrote it ("--alpha", "model.alpha") and says where a problem is (the file's line).
class SettingSource {
 public:
  virtual ~SettingSource() = default;
  virtual bool has(const Setting& s) const = 0;
  // The value as written: one text; for a list, each item; for parts, each field.
  virtual std::vector<std::string> texts(const Setting& s) const = 0;
  virtual std::string name(const Setting& s) const = 0;
  // Throws the source's error (UsageError, ScenarioError) "PLACE: what", at item `item` of a list.
  [[noreturn]] virtual void fail(const Setting& s, const std::string& what, std::size_t item = 0) const = 0;

  bool has(std::string_view key) const { return has(engine_setting(key)); }
  std::string name(std::string_view key) const { return name(engine_setting(key)); }
};

// Reads the given settings of `group` into `into`, each checked, then checks them together
// (LogGP's costs with Hockney's, a platform's model with its own costs, max_runs under
// min_runs...). The platform file itself is read by the caller (a scenario may generate it).
void read_settings(const SettingSource& source, SettingGroup group, EngineSettings& into);

// The model, sim and mpi members of run.json, one line each ("  \"model\": {...}"), then the
// settings recorded at its top level ("  \"timing\": \"osu\"").
std::vector<std::string> settings_json(const EngineSettings& settings);

}  // namespace collsim
