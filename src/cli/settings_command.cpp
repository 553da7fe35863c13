// collsim settings: the one settings table (experiment/scenario/engine_settings.hpp) as a reference: each
// setting's option, its scenario key, the engines it applies to and its help.
#include <iostream>

#include "cli/commands.hpp"
#include "experiment/scenario/engine_settings.hpp"
#include "support/text_table.hpp"

namespace collsim::cli {

namespace {

int settings(const ParsedOptions&) {
  std::vector<std::vector<std::string>> rows = {{"option", "scenario key", "applies to", "help"}};
  for (const Setting& s : engine_setting_table()) {
    std::string option = "-";
    if (owns_option(s)) {
      option = "--";
      option.append(s.option);
      if (!s.value_name.empty()) option.append(" ").append(s.value_name);
    }
    std::string where = engines_text(s.engines);
    if (!s.coarray) where += " (not coarray)";
    rows.push_back({option, s.key.empty() ? "-" : std::string(s.key), where, s.help});
  }
  std::cout << format_text_table(rows, {}, true);
  return 0;
}

}  // namespace

Command settings_command() {
  return {"settings",
          "collsim settings",
          "list the engines' settings: options, scenario keys, engines",
          "Lists every setting of the engines (rank placement, the sim's protocols, the model's costs, the\n"
          "mpi launch): its command-line option, its key in a scenario file (scenarios/README.md), the\n"
          "engines it applies to and its help. Both read it with the same checks.",
          {},
          settings};
}

}  // namespace collsim::cli
