#include "experiment/scenario/cluster_sweep.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "engines/sim/generated_platform.hpp"
#include "experiment/scenario/engine_settings.hpp"
#include "experiment/scenario/plan_keys.hpp"
#include "experiment/scenario/scenario.hpp"
#include "experiment/scenario/yaml_reader.hpp"
#include "support/input_error.hpp"

namespace fs = std::filesystem;

namespace collsim {

std::string platform_cache_dir() {
  if (const char* dir = std::getenv("COLLSIM_PLATFORM_CACHE"); dir && *dir) return dir;
  return (fs::temp_directory_path() / "collsim-platforms").string();
}

std::string cached_platform_file(const std::string& xml) {
  const fs::path dir = platform_cache_dir();
  const fs::path file = dir / (hash_hex(xml) + ".xml");
  if (fs::exists(file)) return file.string();
  std::error_code ec;
  fs::create_directories(dir, ec);
  // Written under a name of this process and renamed, so concurrent writers of one platform
  // (parallel workers, shards on one machine) never see half a file.
  const fs::path tmp = dir / (file.filename().string() + "." + std::to_string(::getpid()) + ".tmp");
  {
    std::ofstream out(tmp, std::ios::binary);
    out << xml;
    if (!out) throw InputError(tmp.string() + ": cannot write a generated platform");
  }
  fs::rename(tmp, file, ec);
  if (ec) throw InputError(file.string() + ": cannot write a generated platform: " + ec.message());
  return file.string();
}

namespace {

// One cluster before its placement: the platform file and what was written to make it.
struct Cluster {
  std::vector<std::pair<std::string, std::string>> given;  // (parameter, value as written)
  std::string file;
  std::string xml;
};

// A generated cluster's mapping: every combination of its listed values, first key outermost.
void generated(const Reader& in, const YAML::Node& map, std::vector<Cluster>& out) {
  if (!map.IsMap() || map.size() == 0) in.fail(map, "a generated platform is a mapping of parameter: value");
  struct Param {
    std::string name;
    std::vector<std::string> values;
    std::vector<YAML::Node> nodes;
  };
  std::vector<Param> params;
  for (const auto& kv : map) {
    Param p{kv.first.as<std::string>(), {}, {}};
    if (kv.second.IsSequence()) {
      if (kv.second.size() == 0) in.fail(kv.second, "platform." + p.name + ": an empty list");
      for (const auto& v : kv.second) p.nodes.push_back(v);
    } else {
      p.nodes.push_back(kv.second);
    }
    for (const auto& v : p.nodes) p.values.push_back(in.text(v, "platform." + p.name));
    params.push_back(std::move(p));
  }
  std::vector<std::size_t> at(params.size(), 0);
  for (;;) {
    ClusterSpec spec;
    Cluster c;
    for (std::size_t i = 0; i < params.size(); ++i) {
      const Param& p = params[i];
      try {
        set_parameter(spec, p.name, p.values[at[i]]);
      } catch (const InputError& e) {
        in.fail(p.nodes[at[i]], std::string("platform: ") + e.what());
      }
      c.given.emplace_back(p.name, p.values[at[i]]);
    }
    try {
      c.xml = platform_xml(spec);
      c.file = cached_platform_file(c.xml);
    } catch (const InputError& e) {
      std::string combo;
      for (const auto& [k, v] : c.given) combo += (combo.empty() ? "" : ", ") + k + " " + v;
      in.fail(map, std::string("platform (") + combo + "): " + e.what());
    }
    out.push_back(std::move(c));
    std::size_t i = params.size();
    while (i > 0 && ++at[i - 1] == params[i - 1].values.size()) at[--i] = 0;
    if (i == 0) break;
  }
}

void file_platform(const Reader& in, const YAML::Node& n, const std::string& scenario_path, std::vector<Cluster>& out) {
  const std::string given = in.text(n, "platform");
  fs::path p(given);
  if (p.is_relative()) p = fs::path(scenario_path).parent_path() / p;
  if (!fs::exists(p)) in.fail(n, "platform file '" + given + "' not found (looked for " + p.string() + ")");
  out.push_back({{{"platform", given}}, p.lexically_normal().string(), ""});
}

std::vector<models::MapBy> placements(const Reader& in, const YAML::Node& root) {
  if (root["ranks_per_node"] && root["map_by"])
    in.fail(root["map_by"], "give ranks_per_node or map_by, not both (ranks_per_node: N is map_by: ppr:N:node)");
  // Each item is the setting of the table (engine_settings.hpp); a list sweeps them.
  std::vector<models::MapBy> out;
  if (root["ranks_per_node"]) {
    const YAML::Node n = root["ranks_per_node"];
    const Setting& rpn = engine_setting("ranks_per_node");
    for (long long k : in.distinct(n, "ranks_per_node", in.list(n, "ranks_per_node", [&](const YAML::Node& x) {
           return in.integer(x, "ranks_per_node", rpn.min, rpn.max);
         })))
      out.push_back({models::MapBy::Policy::ppr_node, static_cast<int>(k)});
  } else if (root["map_by"]) {
    const YAML::Node n = root["map_by"];
    const std::vector<YAML::Node> items =
        n.IsSequence() ? std::vector<YAML::Node>(n.begin(), n.end()) : std::vector<YAML::Node>{n};
    if (items.empty()) in.fail(n, "map_by: an empty list");
    for (const auto& x : items) {
      const std::string text = in.text(x, "map_by");
      if (const std::string problem = engine_setting("map_by").check(text); !problem.empty())
        in.fail(x, "map_by: " + problem);
      out.push_back(*models::parse_map_by(text));
    }
  } else {
    out.push_back({});
  }
  return out;
}

}  // namespace

std::vector<ClusterVariant> read_clusters(const Reader& in, const YAML::Node& root, const std::string& scenario_path,
                                          const SimConfig& base, const ModelConfig& model) {
  std::vector<Cluster> clusters;
  const YAML::Node p = root["platform"];
  if (!p) {
    clusters.push_back({});
  } else if (p.IsScalar()) {
    file_platform(in, p, scenario_path, clusters);
  } else if (p.IsMap()) {
    generated(in, p, clusters);
  } else if (p.IsSequence() && p.size() > 0) {
    for (const auto& item : p)
      if (item.IsScalar())
        file_platform(in, item, scenario_path, clusters);
      else
        generated(in, item, clusters);
  } else {
    in.fail(p, "platform is a file, a generated cluster (parameter: value) or a list of them");
  }
  const std::vector<models::MapBy> maps = placements(in, root);

  // The axes: parameters whose value is not the same in every cluster (or that some cluster does
  // not give), in order of appearance.
  std::vector<std::string> axes;
  std::map<std::string, std::string> first_value;
  std::map<std::string, std::size_t> present;
  std::set<std::string> differ;
  for (const Cluster& c : clusters)
    for (const auto& [name, value] : c.given) {
      ++present[name];
      const auto [it, fresh] = first_value.emplace(name, value);
      if (fresh)
        axes.push_back(name);
      else if (it->second != value)
        differ.insert(name);
    }
  std::erase_if(axes, [&](const std::string& a) { return !differ.count(a) && present[a] == clusters.size(); });

  std::vector<ClusterVariant> out;
  for (const Cluster& c : clusters)
    for (const models::MapBy& m : maps) {
      ClusterVariant v;
      for (const auto& a : axes) {
        const auto it = std::find_if(c.given.begin(), c.given.end(), [&](const auto& g) { return g.first == a; });
        v.axes.emplace_back(a, it == c.given.end() ? "" : it->second);
      }
      if (maps.size() > 1) v.axes.emplace_back("map_by", models::to_string(m));
      v.sim = base;
      v.sim.platform_file = c.file;
      v.sim.map_by = m;
      v.model = model;
      v.generated_xml = c.xml;
      out.push_back(std::move(v));
    }
  return out;
}

}  // namespace collsim
