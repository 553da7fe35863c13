#include "experiment/scenario/coarray_scenario.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>

#include "experiment/scenario/scenario.hpp"
#include "experiment/scenario/scenario_settings.hpp"
#include "experiment/scenario/yaml_reader.hpp"

namespace collsim {

namespace fs = std::filesystem;

namespace {

// A list of booleans or one boolean (`registered: [false, true]`).
std::vector<bool> booleans(const Reader& in, const YAML::Node& n, const std::string& what) {
  return in.distinct(n, what, in.list(n, what, [&](const YAML::Node& x) { return in.boolean(x, what); }));
}

CoarrayGroup read_group(const Reader& in, const YAML::Node& g, std::size_t number, int scenario_images) {
  in.only_keys(
      g, "a coarray point group",
      {"sweep",        "op",          "mode",       "elem",       "local",        "local_shape", "remote",
       "remote_shape", "buffer",      "statements", "registered", "registration", "heap",        "get_behaviour",
       "packing",      "nonblocking", "sync",       "scheme",     "pattern",      "images"});
  CoarrayGroup group;
  group.label = g["sweep"] ? in.text(g["sweep"], "sweep") : "group " + std::to_string(number);
  if (group.label.find_first_of(",\"\n") != std::string::npos)
    in.fail(g["sweep"], "sweep: '" + group.label + "' may not hold commas, quotes or newlines (a CSV column)");
  for (const char* key : {"local", "local_shape", "remote", "remote_shape"})
    if (!g[key]) in.fail(g, std::string("a coarray point group needs '") + key + "'");
  if (g["op"]) {
    const std::string op = in.text(g["op"], "op");
    if (op != "put" && op != "get") in.fail(g["op"], "op: '" + op + "' is not put or get");
    group.get = op == "get";
  }
  const std::size_t elem = g["elem"] ? static_cast<std::size_t>(in.integer(g["elem"], "elem", 1, 1 << 20)) : 8;
  // Sections are checked here, with the position of the text that is wrong: the algorithms'
  // SectionError knows the section but not where it was written.
  auto section = [&](const char* key, const char* shape_key) {
    coarray::Shape shape;
    try {
      shape = coarray::parse_shape(in.text(g[shape_key], shape_key), elem);
    } catch (const InputError& e) {
      in.fail(g[shape_key], std::string(shape_key) + ": " + e.what());
    }
    try {
      return coarray::parse_section(in.text(g[key], key), shape);
    } catch (const InputError& e) {
      in.fail(g[key], std::string(key) + ": " + e.what());
    }
  };
  group.local = section("local", "local_shape");
  group.remote = section("remote", "remote_shape");
  try {
    coarray::check_conformable(group.local, group.remote);
  } catch (const InputError& e) {
    in.fail(g["remote"], e.what());
  }
  if (g["mode"])
    group.modes = in.distinct(g["mode"], "mode", in.list(g["mode"], "mode", [&](const YAML::Node& x) {
      const std::string m = in.text(x, "mode");
      if (m != "blocking" && m != "nonblocking") in.fail(x, "mode: '" + m + "' is not blocking or nonblocking");
      if (m == "nonblocking" && group.get) in.fail(x, "mode: nonblocking applies to op: put only (GET always blocks)");
      return m == "blocking" ? coarray::PutMode::blocking : coarray::PutMode::nonblocking;
    }));
  if (g["nonblocking"]) {
    // The non-blocking modes the group's `mode: nonblocking` runs in (default safe alone).
    const auto nb = std::find(group.modes.begin(), group.modes.end(), coarray::PutMode::nonblocking);
    if (nb == group.modes.end())
      in.fail(g["nonblocking"], "nonblocking applies to mode: nonblocking only (op: put, a non-blocking PUT)");
    const std::vector<coarray::PutMode> modes =
        in.distinct(g["nonblocking"], "nonblocking", in.list(g["nonblocking"], "nonblocking", [&](const YAML::Node& x) {
          const std::string m = in.text(x, "nonblocking");
          const auto mode = coarray::parse_nonblocking(m);
          if (!mode) in.fail(x, "nonblocking: '" + m + "' is not safe, nowait or double");
          return *mode;
        }));
    const auto at = group.modes.erase(nb);
    group.modes.insert(at, modes.begin(), modes.end());
  }
  if (g["buffer"])
    group.buffers = in.distinct(g["buffer"], "buffer", in.list(g["buffer"], "buffer", [&](const YAML::Node& x) {
      const std::size_t b = in.bytes(x, "buffer");
      if (b == 0) in.fail(x, "buffer must be at least 1 byte");
      return b;
    }));
  if (g["statements"])
    group.statements =
        in.distinct(g["statements"], "statements", in.list(g["statements"], "statements", [&](const YAML::Node& x) {
          return static_cast<std::size_t>(in.integer(x, "statements", 1, 1 << 20));
        }));
  if (g["registered"]) group.registered = booleans(in, g["registered"], "registered");
  const bool any_registered =
      std::find(group.registered.begin(), group.registered.end(), true) != group.registered.end();
  for (const char* key : {"registration", "heap"})
    if (g[key] && !any_registered) in.fail(g[key], std::string(key) + " applies to registered: true only");
  if (g["registration"])
    group.registrations = in.distinct(g["registration"], "registration",
                                      in.list(g["registration"], "registration", [&](const YAML::Node& x) {
                                        const std::string w = in.text(x, "registration");
                                        const auto when = coarray::parse_register_when(w);
                                        if (!when) in.fail(x, "registration: '" + w + "' is not once or per-statement");
                                        return *when;
                                      }));
  if (g["heap"]) {
    group.heap_bytes = in.bytes(g["heap"], "heap");
    if (group.heap_bytes == 0) in.fail(g["heap"], "heap must be at least 1 byte");
  }
  if (g["get_behaviour"]) {
    const std::string b = in.text(g["get_behaviour"], "get_behaviour");
    if (b != "table1" && b != "omni") in.fail(g["get_behaviour"], "get_behaviour: '" + b + "' is not table1 or omni");
    if (!group.get) in.fail(g["get_behaviour"], "get_behaviour applies to op: get only");
    group.get_behaviour = b == "omni" ? coarray::GetBehaviour::omni : coarray::GetBehaviour::table1;
  }
  if (g["packing"])
    group.packings = in.distinct(g["packing"], "packing", in.list(g["packing"], "packing", [&](const YAML::Node& x) {
      const std::string b = in.text(x, "packing");
      if (b != "table1" && b != "omni") in.fail(x, "packing: '" + b + "' is not table1 or omni");
      return b == "omni" ? coarray::Packing::omni : coarray::Packing::table1;
    }));
  if (g["sync"])
    group.syncs = in.distinct(g["sync"], "sync", in.list(g["sync"], "sync", [&](const YAML::Node& x) {
      const std::string k = in.text(x, "sync");
      const auto sync = coarray::parse_sync(k);
      if (!sync) in.fail(x, "sync: '" + k + "' is not memory, all or images");
      return *sync;
    }));
  group.images = {scenario_images};
  if (g["images"])
    group.images = in.distinct(g["images"], "images", in.list(g["images"], "images", [&](const YAML::Node& x) {
      return static_cast<int>(in.integer(x, "images", 2, 1 << 20));
    }));
  if (g["pattern"])
    group.patterns = in.distinct(g["pattern"], "pattern", in.list(g["pattern"], "pattern", [&](const YAML::Node& x) {
      const std::string k = in.text(x, "pattern");
      const auto pattern = coarray::parse_pattern(k);
      if (!pattern) in.fail(x, "pattern: '" + k + "' is not one, all-to-one, ring or halo");
      for (const int images : group.images)
        if (const std::string why = coarray::pattern_problem(*pattern, images); !why.empty())
          in.fail(x, "pattern: " + why + ", and the group runs on " + std::to_string(images));
      return *pattern;
    }));
  if (g["scheme"]) {
    const std::string name = in.text(g["scheme"], "scheme");
    const auto method = coarray::parse_method(name);
    if (!method) in.fail(g["scheme"], "scheme: '" + name + "' is not table1 or datatype");
    group.scheme = *method;
    // A datatype transfer has no buffer and registers nothing (cli/coarray_options.cpp says the same).
    if (group.scheme == coarray::Method::datatype) {
      for (const char* key : {"buffer", "registered", "registration", "heap", "packing", "get_behaviour"})
        if (g[key])
          in.fail(g[key], std::string(key) + " means nothing with scheme: datatype (no buffer, nothing registered)");
      for (const coarray::PutMode m : group.modes)
        if (m == coarray::PutMode::nowait || m == coarray::PutMode::double_buffered)
          in.fail(
              g["nonblocking"] ? g["nonblocking"] : g["mode"],
              std::string("nonblocking ") + coarray::to_string(m) + " means nothing with scheme: datatype (no buffer)");
    }
  }
  // Omni's heap holds a local array registered once (coarray_transfer.hpp, heap_problem).
  if (any_registered && std::find(group.registrations.begin(), group.registrations.end(),
                                  coarray::RegisterWhen::once) != group.registrations.end())
    for (const std::size_t buffer : group.buffers)
      for (const coarray::Packing packing : group.packings) {
        coarray::CoarrayOptions o;
        o.registered = true, o.buffer_bytes = buffer, o.packing = packing, o.heap_bytes = group.heap_bytes;
        if (const std::string why = coarray::heap_problem(o, group.local.shape().bytes()); !why.empty())
          in.fail(g["heap"] ? g["heap"] : g["registered"], "registered: " + why);
      }
  return group;
}

}  // namespace

bool is_coarray_scenario(const std::string& path) {
  // A file that cannot be read or parsed is no coarray scenario: load_scenario says what is wrong.
  try {
    const YAML::Node root = load_yaml_file(path, "scenario file");
    return root.IsMap() && root["coarray"];
  } catch (const ScenarioError&) {
    return false;
  } catch (const YAML::Exception&) {
    return false;
  }
}

CoarrayScenario load_coarray_scenario(const std::string& path) {
  CoarrayScenario sc;
  sc.file = path;
  const YAML::Node root = load_yaml_file(path, "scenario file");
  const Reader in(path);
  if (!root || !root.IsMap() || !root["coarray"]) throw ScenarioError(path + ": no 'coarray:' block");
  in.only_keys(root, "a coarray scenario",
               {"name", "description", "platform", "ranks_per_node", "map_by", "engines", "model", "sim", "mpi",
                "output", "coarray"});
  sc.name = read_scenario_name(in, root, path);
  if (root["description"]) sc.description = in.text(root["description"], "description");
  if (!root["engines"]) throw ScenarioError(path + ": missing required key 'engines'");
  sc.engines = in.distinct(root["engines"], "engines", in.list(root["engines"], "engines", [&](const YAML::Node& x) {
    const std::string e = in.text(x, "engines");
    const auto engine = parse_engine(e, kCoarrayEngines);
    if (!engine) in.fail(x, not_an_engine(e, kCoarrayEngines, "a coarray engine"));
    return *engine;
  }));
  auto uses = [&](Engine e) { return std::count(sc.engines.begin(), sc.engines.end(), e) > 0; };

  if (root["platform"]) {
    const std::string given = in.text(root["platform"], "platform");
    fs::path p(given);
    if (p.is_relative()) p = fs::path(path).parent_path() / p;
    if (!fs::exists(p))
      in.fail(root["platform"], "platform file '" + given + "' not found (looked for " + p.string() + ")");
    sc.sim.platform_file = p.lexically_normal().string();
  } else if (uses(Engine::sim) || uses(Engine::model)) {
    // The model takes the platform's two-level Hockney, as `collsim coarray --engine model
    // --platform` does, so the two simulated engines describe one cluster.
    in.fail(root["engines"], "the model and sim engines need a 'platform' (a SimGrid platform file)");
  }
  // The model is the platform's two-level Hockney, so that the two simulated engines describe one
  // cluster; of its settings only the copy's costs are given here (rate, per-call cost), as the
  // platform file has no accessor for its hosts' memcpy_bw on the model's side (grisou.xml's is
  // 5 GBps).
  const ScenarioSettings settings(in, root, [](const Setting& s) {
    return s.group != SettingGroup::model || s.key == "model.copy_bandwidth" || s.key == "model.copy_overhead";
  });
  EngineSettings engine_settings;
  engine_settings.sim.platform_file = sc.sim.platform_file;
  for (SettingGroup g : {SettingGroup::placement, SettingGroup::model, SettingGroup::sim, SettingGroup::mpi})
    read_settings(settings, g, engine_settings);
  sc.sim = engine_settings.sim;
  sc.model = engine_settings.model;
  sc.mpi = engine_settings.mpi;
  if (root["output"]) {
    in.only_keys(root["output"], "output", {"dir"});
    if (root["output"]["dir"]) sc.out_dir = in.text(root["output"]["dir"], "output.dir");
  }

  const YAML::Node c = root["coarray"];
  in.only_keys(c, "coarray", {"images", "payload", "caf_program", "points"});
  if (c["images"]) sc.images = static_cast<int>(in.integer(c["images"], "coarray.images", 2, 1 << 20));
  if (c["payload"]) {
    const std::string p = in.text(c["payload"], "coarray.payload");
    if (p != "real" && p != "virtual") in.fail(c["payload"], "coarray.payload: '" + p + "' is not real or virtual");
    sc.real_bytes = p == "real";
  }
  if (c["caf_program"]) sc.caf_program = in.text(c["caf_program"], "coarray.caf_program");
  if (!c["points"]) in.fail(c, "coarray needs 'points:', a list of point groups");
  const YAML::Node points = c["points"];
  if (!points.IsSequence() || points.size() == 0) in.fail(points, "coarray.points must be a non-empty list");
  for (const auto& g : points) {
    sc.groups.push_back(read_group(in, g, sc.groups.size() + 1, sc.images));
    // OpenCoarrays on Debian has no datatype put (cli/coarray_options.cpp, not_for_caf).
    if (sc.groups.back().scheme == coarray::Method::datatype && uses(Engine::caf_native))
      in.fail(g["scheme"],
              "scheme: datatype cannot run on caf-native: Debian's OpenCoarrays is built without "
              "-DSTRIDED (drop caf-native from engines, or the key)");
  }

  if (uses(Engine::model)) {
    sc.model.kind = ModelConfig::Kind::two_level;
    place_model(in, root, sc.sim, true, sc.model);
  }
  if (uses(Engine::sim)) {
    const PlatformSize size = platform_size_or_fail(path, sc.sim);
    int most = sc.images;  // the most images of any point, and the group that asks for them
    std::size_t group = sc.groups.size();
    for (std::size_t i = 0; i < sc.groups.size(); ++i)
      for (const int images : sc.groups[i].images)
        if (images > most) most = images, group = i;
    if (static_cast<std::size_t>(most) > size.capacity)
      in.fail(group < sc.groups.size() ? points[group]["images"]
              : c["images"]            ? c["images"]
                                       : c,
              "coarray.images: " + std::to_string(most) + " images do not fit platform " + sc.sim.platform_file + " (" +
                  std::to_string(size.hosts) + " hosts, room for " + std::to_string(size.capacity) +
                  " placed --map-by " + models::to_string(sc.sim.map_by) + ")");
  }
  return sc;
}

std::vector<CoarrayPlanPoint> expand_coarray_plan(const CoarrayScenario& sc) {
  std::vector<CoarrayPlanPoint> plan;
  for (const auto& engine : sc.engines) {
    std::size_t index = 0;
    for (const auto& g : sc.groups)
      for (coarray::PutMode mode : g.modes)
        for (bool registered : g.registered)
          for (coarray::RegisterWhen when :
               registered ? g.registrations : std::vector<coarray::RegisterWhen>{coarray::RegisterWhen::once})
            for (std::size_t buffer : g.buffers)
              for (coarray::Packing packing : g.packings)
                for (coarray::SyncKind sync : g.syncs)
                  for (std::size_t statements : g.statements) {
                    CoarrayPoint p;
                    p.get = g.get;
                    p.local = g.local;
                    p.remote = g.remote;
                    p.mode = mode;
                    p.statements = statements;
                    p.options.buffer_bytes = buffer;
                    p.options.registered = registered;
                    p.options.registration = when;
                    p.options.heap_bytes = g.heap_bytes;
                    p.options.get = g.get_behaviour;
                    p.options.packing = packing;
                    p.options.scheme = g.scheme;
                    p.sync = sync;
                    p.real_bytes = sc.real_bytes;
                    for (const int images : g.images)
                      for (const coarray::Pattern pattern : g.patterns) {
                        p.images = images;
                        p.pattern = pattern;
                        plan.push_back({engine, g.label, index++, p});
                      }
                  }
  }
  return plan;
}

}  // namespace collsim
