// The one settings table (experiment/scenario/engine_settings.hpp): the command line and a scenario file
// give the same settings the same values and refuse the same values with the same words.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "cli/engine_options.hpp"
#include "common/files.hpp"
#include "experiment/scenario/engine_settings.hpp"
#include "experiment/scenario/plan_keys.hpp"
#include "experiment/scenario/scenario.hpp"
#include "experiment/scenario/scenario_error.hpp"

namespace collsim {
namespace {

namespace fs = std::filesystem;

const std::string kGrisou = COLLSIM_SOURCE_DIR "/platforms/grisou.xml";

cli::ParsedOptions command_line(std::vector<std::string> words) {
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  static const std::vector<cli::OptionDef> defs = [] {
    auto d = cli::engine_options();
    for (auto& m : cli::mpi_run_options()) d.push_back(m);
    return d;
  }();
  return cli::parse_options(argv, defs);
}

// A scenario of one model (or sim) point with `settings` added, loaded.
Scenario scenario(const std::string& engine, const std::string& settings) {
  const fs::path file = fs::temp_directory_path() / ("collsim-settings-test-" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(file) << "engines: [" << engine
                      << "]\nprocs: 2\nbytes: 8\noperations: [bcast/binomial]\nplatform: " << kGrisou << "\n"
                      << settings;
  Scenario sc = load_scenario(file.string());
  fs::remove(file);
  return sc;
}

void expect_same_hockney(const models::Hockney& a, const models::Hockney& b) {
  EXPECT_EQ(a.alpha, b.alpha);
  EXPECT_EQ(a.beta, b.beta);
}

TEST(EngineSettings, HockneyReadsAlikeFromBothSources) {
  const ModelConfig cli = cli::read_model(command_line(
      {"--alpha", "2us", "--beta", "0.5ns", "--one-port", "--copy-bandwidth", "4GBps", "--reduce-gamma", "0.2ns"}));
  const ModelConfig file =
      scenario("model",
               "model: {alpha: 2us, beta: 0.5ns, one_port: true, copy_bandwidth: 4GBps, reduce_gamma: 0.2ns}\n")
          .model;
  for (const ModelConfig* m : {&cli, &file}) {
    EXPECT_EQ(m->kind, ModelConfig::Kind::hockney);
    EXPECT_DOUBLE_EQ(m->hockney.alpha, 2e-6);
    EXPECT_DOUBLE_EQ(m->hockney.beta, 0.5e-9);
    EXPECT_TRUE(m->one_port);
    EXPECT_DOUBLE_EQ(m->copy_bandwidth, 4e9);
    EXPECT_DOUBLE_EQ(m->reduce_gamma, 0.2e-9);
  }
  expect_same_hockney(cli.hockney, file.hockney);
}

TEST(EngineSettings, LogGPReadsAlikeFromBothSources) {
  const ModelConfig cli = cli::read_model(command_line({"--loggp", "5us,1us,2us,0.1ns"}));
  const ModelConfig file = scenario("model", "model: {kind: loggp, L: 5us, o: 1us, g: 2us, G: 0.1ns}\n").model;
  for (const ModelConfig* m : {&cli, &file}) {
    EXPECT_EQ(m->kind, ModelConfig::Kind::loggp);
    EXPECT_DOUBLE_EQ(m->loggp.L, 5e-6);
    EXPECT_DOUBLE_EQ(m->loggp.o, 1e-6);
    EXPECT_DOUBLE_EQ(m->loggp.g, 2e-6);
    EXPECT_DOUBLE_EQ(m->loggp.G, 0.1e-9);
  }
}

TEST(EngineSettings, TwoLevelReadsAlikeFromBothSources) {
  const ModelConfig cli = cli::read_model(
      command_line({"--intra", "1us,0.1ns", "--alpha", "3us", "--beta", "1ns", "--ranks-per-node", "4"}));
  const ModelConfig file =
      scenario("model",
               "ranks_per_node: 4\nmodel: {kind: two_level, intra: {alpha: 1us, beta: 0.1ns}, alpha: 3us, "
               "beta: 1ns}\n")
          .model;
  for (const ModelConfig* m : {&cli, &file}) {
    EXPECT_EQ(m->kind, ModelConfig::Kind::two_level);
    EXPECT_DOUBLE_EQ(m->two_level.intra.alpha, 1e-6);
    EXPECT_DOUBLE_EQ(m->two_level.intra.beta, 0.1e-9);
    EXPECT_DOUBLE_EQ(m->two_level.inter.alpha, 3e-6);
    EXPECT_DOUBLE_EQ(m->two_level.inter.beta, 1e-9);
    EXPECT_TRUE(m->two_level.same_node(0, 3));
    EXPECT_FALSE(m->two_level.same_node(3, 4));
  }
}

// The node model's settings of the model engine: the socket level with the node's shape, the port
// rule inside a node and the overhead tables, alike from both sources. map-by core on 2 sockets
// of 2 cores: ranks 0, 1 on socket 0 of node 0, 2, 3 on socket 1, 4 on node 1.
TEST(EngineSettings, NodeModelOfTheModelReadsAlikeFromBothSources) {
  const ModelConfig cli = cli::read_model(command_line(
      {"--intra", "1us,0.1ns", "--cross-socket", "2us,0.2ns", "--sockets", "2", "--cores", "2", "--map-by", "core",
       "--intra-sends", "concurrent", "--send-overhead", "0:1us:0;4KiB:2us:0.5ns", "--recv-overhead", "3us"}));
  const ModelConfig file =
      scenario("model",
               "map_by: core\nmodel: {kind: two_level, intra: {alpha: 1us, beta: 0.1ns}, cross_socket: {alpha: 2us, "
               "beta: 0.2ns}, sockets: 2, cores: 2, intra_sends: concurrent, send_overhead: '0:1us:0;4KiB:2us:0.5ns', "
               "recv_overhead: 3us}\n")
          .model;
  for (const ModelConfig* m : {&cli, &file}) {
    ASSERT_TRUE(m->two_level.cross_socket);
    EXPECT_DOUBLE_EQ(m->two_level.between(0, 1).alpha, 1e-6);
    EXPECT_DOUBLE_EQ(m->two_level.between(1, 2).alpha, 2e-6);
    EXPECT_DOUBLE_EQ(m->two_level.between(1, 2).beta, 0.2e-9);
    EXPECT_DOUBLE_EQ(m->two_level.between(3, 4).alpha, 10e-6);  // the default between nodes
    EXPECT_TRUE(m->concurrent_intra_sends);
    ASSERT_EQ(m->send_overhead.sections.size(), 2u);
    EXPECT_DOUBLE_EQ(m->send_overhead.at(8192), 2e-6 + 0.5e-9 * 8192);
    EXPECT_DOUBLE_EQ(m->recv_overhead.at(1), 3e-6);
  }
  // Sends inside a node go one at a time unless told.
  EXPECT_FALSE(cli::read_model(command_line({"--intra", "1us,0.1ns"})).concurrent_intra_sends);
  EXPECT_FALSE(
      scenario("model", "model: {kind: two_level, intra: {alpha: 1us, beta: 0.1ns}}\n").model.concurrent_intra_sends);
}

// The rule inside a node changes a two-level run, so its key: the default's is new, the explicit
// earlier rule's (and one port's, which holds every port anyway) is the earlier key, so results
// from before resume; a Hockney model's key is what it was.
TEST(EngineSettings, PlanKeysOfEarlierModelRunsStillMatch) {
  ModelConfig hockney;
  EXPECT_EQ(model_settings_text(hockney),
            "kind=hockney;hockney=1e-05/8e-10;intra=1e-05/8e-10;inter=1e-05/8e-10;placement=1/0/1/0;loggp=1e-05/"
            "1e-06/1e-06/8e-10;one_port=0;copy=0");
  ModelConfig two = hockney;
  two.kind = ModelConfig::Kind::two_level;
  // One rank per node sends nothing inside a node: serial or not, its key is the earlier one.
  EXPECT_EQ(model_settings_text(two).find("intra_sends"), std::string::npos);
  two.two_level.placement = models::block_placement(2);
  two.concurrent_intra_sends = true;
  const std::string earlier = model_settings_text(two);
  EXPECT_EQ(earlier.find("intra_sends"), std::string::npos);
  two.concurrent_intra_sends = false;
  EXPECT_EQ(model_settings_text(two), earlier + ";intra_sends=serial");
  two.one_port = true;
  EXPECT_EQ(model_settings_text(two).find("intra_sends"), std::string::npos);
  two.one_port = false;
  std::string problem;
  two.send_overhead = *models::parse_overhead("2us", problem);
  EXPECT_NE(model_settings_text(two).find(";send_overhead=0:2e-06:0"), std::string::npos);
}

TEST(EngineSettings, SimReadsAlikeFromBothSources) {
  const SimConfig cli =
      cli::read_sim(command_line({"--platform", kGrisou, "--map-by", "ppr:2:node", "--protocol", "tcp",
                                  "--protocol-option", "tcp/buffer:1MiB", "--cfg", "network/crosstraffic:0"}));
  const SimConfig file = scenario("sim",
                                  "map_by: ppr:2:node\nsim: {protocol: tcp, protocol_options: [tcp/buffer:1MiB], cfg: "
                                  "[network/crosstraffic:0]}\n")
                             .sim;
  for (const SimConfig* s : {&cli, &file}) {
    EXPECT_EQ(s->platform_file, kGrisou);
    EXPECT_EQ(models::to_string(s->map_by), "ppr:2:node");
    EXPECT_EQ(s->protocol, "tcp");
    EXPECT_EQ(s->protocol_options, std::vector<std::string>{"tcp/buffer:1MiB"});
    EXPECT_EQ(s->cfg, std::vector<std::string>{"network/crosstraffic:0"});
  }
}

// The problem after the place: "--alpha: X" and "FILE:6:16: model.alpha: X" end alike.
std::string cli_problem(std::vector<std::string> words, bool sim) {
  try {
    const auto o = command_line(std::move(words));
    if (sim)
      cli::read_sim(o);
    else
      cli::read_model(o);
  } catch (const cli::UsageError& e) {
    return e.what();
  }
  return "accepted";
}
std::string file_problem(const std::string& engine, const std::string& settings) {
  try {
    scenario(engine, settings);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(EngineSettings, BothSourcesRefuseAValueWithTheSameWords) {
  struct Case {
    std::vector<std::string> words;
    std::string yaml, problem;
  };
  const bool sim = true;
  const std::vector<std::pair<Case, bool>> cases = {
      {{{"--alpha", "10parsecs"}, "model: {alpha: 10parsecs}", "'10parsecs' is not a time"}, !sim},
      {{{"--beta", "-1ns"}, "model: {beta: -1ns}", "-1ns must be at least 0"}, !sim},
      {{{"--copy-bandwidth", "fast"}, "model: {copy_bandwidth: fast}", "'fast' is not a rate in bytes per second"},
       !sim},
      {{{"--protocol", "udp"}, "sim: {protocol: udp}", "'udp' is not a protocol (ideal, tcp, tcp+shm, ucx)"}, sim},
      {{{"--intra", "1us,1ns", "--intra-sends", "sometimes"},
        "model: {kind: two_level, intra: {alpha: 1us, beta: 1ns}, intra_sends: sometimes}",
        "'sometimes' is not serial or concurrent"},
       !sim},
      {{{"--send-overhead", "0:1us"}, "model: {send_overhead: '0:1us'}", "'0:1us' is not SIZE:BASE:PER_BYTE"}, !sim},
      {{{"--loggp", "5us,1us,2us,0.1ns", "--recv-overhead", "1us"},
        "model: {kind: loggp, L: 5us, o: 1us, g: 2us, G: 0.1ns, recv_overhead: 1us}",
        "applies to Hockney only (LogGP has its o)"},
       !sim},
      {{{"--alpha", "1us", "--sockets", "2", "--cores", "4"},
        "model: {alpha: 1us, sockets: 2, cores: 4}",
        "applies to kind: two_level only"},
       !sim},
      {{{"--map-by", "ppr:two:node"}, "map_by: ppr:two:node", "'ppr:two:node' is not one of"}, sim},
      {{{"--cfg", "nocolon"}, "sim: {cfg: [nocolon]}", "'nocolon' is not KEY:VALUE"}, sim},
      {{{"--eager-limit", "lots"}, "sim: {eager_limit: lots}", "'lots' is not a size in bytes"}, sim},
      {{{"--protocol", "tcp", "--eager-limit", "4KiB"},
        "sim: {protocol: tcp, eager_limit: 4KiB}",
        "applies to the ideal protocol only, not tcp"},
       sim},
  };
  for (const auto& [c, on_sim] : cases) {
    const std::string from_cli = cli_problem(c.words, on_sim);
    const std::string from_file = file_problem(on_sim ? "sim" : "model", c.yaml + "\n");
    EXPECT_NE(from_cli.find(c.problem), std::string::npos) << from_cli;
    EXPECT_NE(from_file.find(c.problem), std::string::npos) << from_file;
    // Everything after the setting's name is the same text.
    EXPECT_EQ(from_cli.substr(from_cli.find(c.problem)), from_file.substr(from_file.find(c.problem)));
  }
}

TEST(EngineSettings, TheTableIsConsistent) {
  std::set<std::string_view> options, keys, json;
  for (const Setting& s : engine_setting_table()) {
    EXPECT_FALSE(s.option.empty() && s.key.empty()) << "a setting nobody can give";
    EXPECT_NE(s.engines, 0u) << s.option << s.key;
    if (!s.key.empty()) {
      EXPECT_TRUE(keys.insert(s.key).second) << "key twice: " << s.key;
    }
    if (!s.json.empty()) {
      EXPECT_TRUE(json.insert(s.json).second) << "run.json member twice: " << s.json;
    }
    if (!s.json.empty()) {
      EXPECT_NE(s.show, nullptr) << s.json;
    }
    EXPECT_FALSE(s.help.empty()) << s.option << s.key;
    // An option belongs to its first setting; another may stand for it too (--platform).
    if (owns_option(s)) {
      EXPECT_TRUE(options.insert(s.option).second) << s.option;
    }
    for (std::string_view part : s.parts) {
      const Setting& p = engine_setting(part);
      EXPECT_TRUE(p.type == SettingType::time || p.type == SettingType::time_per_byte) << part;
      EXPECT_NE(p.store, nullptr) << part;
    }
    if (s.type == SettingType::parts) {
      EXPECT_FALSE(s.example.empty()) << s.option;
    }
  }
  for (const Setting& s : engine_setting_table()) {
    if (!s.option.empty()) {
      EXPECT_TRUE(options.count(s.option)) << s.option;
    }
  }
  EXPECT_THROW(engine_setting("model.nope"), std::logic_error);
}

// Every setting with a member is recorded; the copy's and win_sync's per-call costs and a get's
// overhead only when set (so run.json files from before them read the same), so they are set here,
// and then not.
TEST(EngineSettings, RunJsonRecordsEverySettingWithAMember) {
  EngineSettings s;
  s.model.hockney = {3e-6, 2e-9};
  s.model.copy_overhead = 5e-8, s.model.sync_overhead = 1e-6;
  s.model.get_overhead = models::Overhead{{{0, 1.2e-7, 0}}};
  s.sim.protocol = "ideal";
  s.mpi.min_runs = 7;
  s.mpi.launches = 3;
  const std::vector<std::string> lines = settings_json(s);
  // model, sim, mpi, then the top-level members (the timing).
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0].substr(0, 30), "  \"model\": {\"kind\": \"hockney\",");
  EXPECT_NE(lines[0].find("\"alpha\": 3e-06, \"beta\": 2e-09"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("\"protocol\": \"ideal\""), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find("\"eager_limit\": 65536"), std::string::npos) << lines[1];
  EXPECT_NE(lines[2].find("\"min_runs\": 7"), std::string::npos) << lines[2];
  EXPECT_EQ(lines[3], "  \"timing\": \"collective\"");
  for (const Setting& t : engine_setting_table()) {
    if (t.json.empty()) continue;
    const std::string quoted = std::string("\"").append(t.json.substr(t.json.find('.') + 1)).append("\": ");
    std::size_t found = 0;
    for (const auto& line : lines)
      for (auto at = line.find(quoted); at != std::string::npos; at = line.find(quoted, at + 1)) ++found;
    EXPECT_GE(found, 1u) << quoted;
  }
  EXPECT_NE(lines[0].find("\"copy_overhead\": 5e-08"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("\"sync_overhead\": 1e-06"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("\"get_overhead\": \"0:1.2e-07:0\""), std::string::npos) << lines[0];
  s.model.copy_overhead = s.model.sync_overhead = 0;
  s.model.get_overhead.reset();
  const std::string unset = settings_json(s)[0];
  EXPECT_EQ(unset.find("get_overhead"), std::string::npos) << unset;
  EXPECT_EQ(unset.find("copy_overhead"), std::string::npos) << unset;
  EXPECT_EQ(unset.find("sync_overhead"), std::string::npos) << unset;
  EXPECT_NE(lines[2].find("\"launches\": 3"), std::string::npos) << lines[2];
  s.mpi.launches = 1;
  EXPECT_EQ(settings_json(s)[2].find("launches"), std::string::npos) << "one launch, the default, is not recorded";
}

TEST(EngineSettings, AnOptionOfAnotherEngineIsRefusedByName) {
  auto refusal = [](std::vector<std::string> words, Engine engine) {
    try {
      cli::check_engine_options(command_line(std::move(words)), engine);
    } catch (const cli::UsageError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refusal({"--alpha", "1us"}, Engine::sim), "--alpha does not apply to --engine sim");
  EXPECT_EQ(refusal({"--protocol", "tcp"}, Engine::model), "--protocol does not apply to --engine model");
  EXPECT_EQ(refusal({"--platform", kGrisou}, Engine::mpi_native), "--platform does not apply to --engine mpi-native");
  EXPECT_EQ(refusal({"--min-runs", "3"}, Engine::sim), "--min-runs does not apply to --engine sim");
  EXPECT_EQ(refusal({"--copy-bandwidth", "1GBps"}, Engine::formula_textbook),
            "--copy-bandwidth does not apply to --engine formula");
  EXPECT_EQ(refusal({"--reduce-gamma", "1ns"}, Engine::formula_derived), "accepted");
  EXPECT_EQ(refusal({"--min-runs", "3"}, Engine::mpi), "accepted");
  EXPECT_EQ(refusal({"--cfg", "a:b", "--ranks-per-node", "2"}, Engine::sim), "accepted");
}

}  // namespace
}  // namespace collsim
