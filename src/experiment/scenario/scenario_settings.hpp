// The engines' settings of a scenario file (engine_settings.hpp): its ranks_per_node and map_by,
// and its model:, sim: and mpi: sections, each key checked against the one settings table and
// each problem reported at its line.
#pragma once

#include <yaml-cpp/yaml.h>

#include <functional>

#include "experiment/scenario/engine_settings.hpp"
#include "experiment/scenario/yaml_reader.hpp"

namespace collsim {

class ScenarioSettings final : public SettingSource {
 public:
  // The settings of `root` that `offered` keeps (all with a scenario key by default); refuses any
  // other key of the model:, sim: and mpi: sections.
  ScenarioSettings(
      const Reader& in, const YAML::Node& root,
      std::function<bool(const Setting&)> offered = [](const Setting&) { return true; });

  bool has(const Setting& s) const override;
  std::vector<std::string> texts(const Setting& s) const override;
  std::string name(const Setting& s) const override { return std::string(s.key); }
  [[noreturn]] void fail(const Setting& s, const std::string& what, std::size_t item = 0) const override;
  using SettingSource::has;
  using SettingSource::name;

 private:
  YAML::Node node(const Setting& s) const;

  const Reader& in_;
  YAML::Node root_;
  std::function<bool(const Setting&)> offered_;
};

}  // namespace collsim
