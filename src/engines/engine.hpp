// The engines, named once: the enum every comparison goes through, and one table giving each its
// name in files, rows and options ("mpi-native"), its column stem in compare's files
// ("mpi_native"), the name that chooses it in a scenario's `engines:` or an --engine option
// ("formula" for both formula engines), what it is, and one line saying so (the legend under
// collsim run's table).
#pragma once

#include <array>
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace collsim {

// The collective engines first, in the order of compare's columns; then the coarray one.
enum class Engine { formula_textbook, formula_derived, model, sim, mpi, mpi_native, caf_native };

enum class EngineKind {
  formula,    // a closed form evaluated per point: no ranks, no bytes, no events
  simulated,  // runs every message in this process (model, sim): records traces
  measured,   // runs real processes under mpirun (mpi, mpi-native, caf-native): timed alone
};

struct EngineInfo {
  Engine engine;
  std::string_view name;    // in result rows, files and options: "mpi-native"
  std::string_view column;  // compare's column stem: "mpi_native"
  std::string_view choice;  // what names it in `engines:` and --engine: "formula" for both formulas
  EngineKind kind;
  std::string_view description;  // one line, for the legend under a results table
};

inline constexpr std::array<EngineInfo, 7> kEngines = {{
    {Engine::formula_textbook, "formula-textbook", "textbook", "formula", EngineKind::formula,
     "the textbook Hockney formula, one (alpha, beta) for all algorithms"},
    {Engine::formula_derived, "formula-derived", "derived", "formula", EngineKind::formula,
     "the formula derived from the implementation (src/registry/<operation>.cpp), alpha and beta estimated per "
     "algorithm"},
    {Engine::model, "model", "model", "model", EngineKind::simulated,
     "the analytic engine running every message under the point-to-point model"},
    {Engine::sim, "sim", "sim", "sim", EngineKind::simulated,
     "SimGrid's flow-level simulation of the platform with Open MPI's protocols"},
    {Engine::mpi, "mpi", "mpi", "mpi", EngineKind::measured, "our algorithm measured over real MPI"},
    {Engine::mpi_native, "mpi-native", "mpi_native", "mpi-native", EngineKind::measured,
     "Open MPI's own collective, measured"},
    {Engine::caf_native, "caf-native", "caf_native", "caf-native", EngineKind::measured,
     "OpenCoarrays' own coarray statement, measured"},
}};

// The engines of collective scenarios and result rows (compare's columns, in order).
inline constexpr std::array<Engine, 6> kCollectiveEngines = {
    Engine::formula_textbook, Engine::formula_derived, Engine::model, Engine::sim, Engine::mpi, Engine::mpi_native};

constexpr const EngineInfo& engine_info(Engine e) { return kEngines[static_cast<std::size_t>(e)]; }
constexpr std::string_view engine_name(Engine e) { return engine_info(e).name; }
constexpr std::string_view engine_column(Engine e) { return engine_info(e).column; }
// Runs real processes (mpi, mpi-native, caf-native): a sweep runs its points alone.
constexpr bool is_measured(Engine e) { return engine_info(e).kind == EngineKind::measured; }
// Runs every message in this process and can record its events (model, sim).
constexpr bool records_traces(Engine e) { return engine_info(e).kind == EngineKind::simulated; }
constexpr bool is_formula(Engine e) { return engine_info(e).kind == EngineKind::formula; }

// The engine of a name as rows and options write it ("mpi-native"); nullopt for any other.
std::optional<Engine> parse_engine(std::string_view name);
// parse_engine among `allowed` only.
std::optional<Engine> parse_engine(std::string_view name, std::span<const Engine> allowed);
std::optional<Engine> parse_engine(std::string_view name, std::initializer_list<Engine> allowed);
// Whether `choice` names `e` in an `engines:` list or an --engine option: its name, or
// "formula" for a formula engine.
bool chooses(std::string_view choice, Engine e);
// The names that choose `allowed`, each once, in order: "formula, model, sim, mpi, mpi-native".
std::string engine_choices(std::span<const Engine> allowed);
// Whether `choice` chooses one of `allowed`.
bool is_engine_choice(std::string_view choice, std::span<const Engine> allowed);
// The message for a name that chooses none of `allowed`: "'x' is not an engine: formula, model, sim"
// (`what`, e.g. "an engine to compare with", instead of "an engine").
std::string not_an_engine(std::string_view name, std::span<const Engine> allowed, std::string_view what = "an engine");
std::string not_an_engine(std::string_view name, std::initializer_list<Engine> allowed,
                          std::string_view what = "an engine");

}  // namespace collsim
