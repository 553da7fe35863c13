#include "engines/engine.hpp"

namespace collsim {

std::optional<Engine> parse_engine(std::string_view name) {
  for (const EngineInfo& e : kEngines)
    if (e.name == name) return e.engine;
  return std::nullopt;
}

std::optional<Engine> parse_engine(std::string_view name, std::span<const Engine> allowed) {
  for (Engine e : allowed)
    if (engine_name(e) == name) return e;
  return std::nullopt;
}

std::optional<Engine> parse_engine(std::string_view name, std::initializer_list<Engine> allowed) {
  return parse_engine(name, std::span<const Engine>(allowed.begin(), allowed.size()));
}

bool chooses(std::string_view choice, Engine e) { return engine_info(e).choice == choice; }

std::string engine_choices(std::span<const Engine> allowed) {
  std::string out;
  std::string_view last;
  for (Engine e : allowed) {
    const std::string_view choice = engine_info(e).choice;
    if (choice == last) continue;   // the formula engines, chosen together
    if (!out.empty()) out += ", ";  // not ", " + a string: GCC 12 warns (-Wrestrict, falsely)
    out += choice;
    last = choice;
  }
  return out;
}

bool is_engine_choice(std::string_view choice, std::span<const Engine> allowed) {
  for (Engine e : allowed)
    if (chooses(choice, e)) return true;
  return false;
}

std::string not_an_engine(std::string_view name, std::span<const Engine> allowed, std::string_view what) {
  // Built piecewise: GCC 12 warns (-Wrestrict, falsely) about "'" + a temporary string.
  std::string out = "'";
  out += name;
  out += "' is not ";
  out += what;
  out += ": ";
  return out + engine_choices(allowed);
}

std::string not_an_engine(std::string_view name, std::initializer_list<Engine> allowed, std::string_view what) {
  return not_an_engine(name, std::span<const Engine>(allowed.begin(), allowed.size()), what);
}

}  // namespace collsim
