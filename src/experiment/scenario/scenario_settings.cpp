#include "experiment/scenario/scenario_settings.hpp"

#include <algorithm>

#include "support/csv.hpp"

namespace collsim {

namespace {

// The node at `path` under `root`; an undefined node when a step is missing or not a mapping. (A
// YAML::Node is a reference: assigning one would overwrite the tree, so each step resets it.)
YAML::Node at_path(const YAML::Node& root, const std::vector<std::string>& path) {
  YAML::Node n;
  n.reset(root);
  for (const std::string& part : path) {
    if (!n.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
    const YAML::Node& here = n;
    const YAML::Node next = here[part];
    if (!next) return YAML::Node(YAML::NodeType::Undefined);
    n.reset(next);
  }
  return n;
}

}  // namespace

ScenarioSettings::ScenarioSettings(const Reader& in, const YAML::Node& root,
                                   std::function<bool(const Setting&)> offered)
    : in_(in), root_(root), offered_(std::move(offered)) {
  // Each section (model, model.intra, sim, mpi) takes the keys of the settings offered under it.
  std::vector<std::pair<std::string, std::vector<std::string>>> sections;
  for (const Setting& s : engine_setting_table()) {
    if (s.key.empty() || !offered_(s)) continue;
    const std::vector<std::string> path = split_at(s.key, '.');
    std::string section;
    for (std::size_t i = 0; i + 1 < path.size(); ++i) {
      section += (i ? "." : "") + path[i];
      auto it = std::find_if(sections.begin(), sections.end(), [&](const auto& x) { return x.first == section; });
      if (it == sections.end()) it = sections.insert(sections.end(), {section, {}});
      if (std::find(it->second.begin(), it->second.end(), path[i + 1]) == it->second.end())
        it->second.push_back(path[i + 1]);
    }
  }
  for (const auto& [section, keys] : sections) {
    const YAML::Node n = at_path(root_, split_at(section, '.'));
    if (n.IsDefined()) in_.only_keys(n, section, keys);
  }
}

YAML::Node ScenarioSettings::node(const Setting& s) const {
  if (s.key.empty() || !offered_(s)) return YAML::Node(YAML::NodeType::Undefined);
  return at_path(root_, split_at(s.key, '.'));
}

bool ScenarioSettings::has(const Setting& s) const { return node(s).IsDefined(); }

std::vector<std::string> ScenarioSettings::texts(const Setting& s) const {
  const YAML::Node n = node(s);
  if (s.type == SettingType::list)
    return in_.list(n, name(s), [&](const YAML::Node& x) { return in_.text(x, name(s)); });
  return {in_.text(n, name(s))};
}

void ScenarioSettings::fail(const Setting& s, const std::string& what, std::size_t item) const {
  const YAML::Node n = node(s);
  in_.fail(n.IsSequence() && item < n.size() ? n[item] : n, what);
}

}  // namespace collsim
