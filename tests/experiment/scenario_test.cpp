// Scenario files load with the meaning scenarios/README.md gives each field, and expand into the
// documented plan order. The README's own example block is loaded too, so the documentation
// cannot drift from the loader: a key the loader does not know fails the load (unknown keys are
// refused), and a value read differently fails the comparisons below.
#include "experiment/scenario/scenario.hpp"
#include "common/files.hpp"

#include "experiment/scenario/coarray_scenario.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace collsim {
namespace {

namespace fs = std::filesystem;

// A fresh folder per test, so the scenarios' relative paths resolve only to what the test made.
using collsim_test::slurp;
using collsim_test::write_file;

fs::path fresh_dir(const std::string& name) { return collsim_test::fresh_dir("scenario-test", name); }

const fs::path kSource = COLLSIM_SOURCE_DIR;

// The text between "```yaml" and the next "```" in scenarios/README.md.
std::string readme_example() {
  const std::string doc = slurp(kSource / "scenarios/README.md");
  const auto open = doc.find("```yaml\n");
  if (open == std::string::npos) return {};
  const auto start = open + 8;
  return doc.substr(start, doc.find("```", start) - start);
}

std::string plan_text(const std::vector<PlanPoint>& plan) {
  std::string out;
  for (const auto& p : plan)
    out += std::string(engine_name(p.engine)) + " " + std::string(p.spec.algorithm->name) +
           " P=" + std::to_string(p.spec.procs) + " m=" + std::to_string(p.spec.bytes) +
           " seg=" + std::to_string(p.spec.params.segment) + " root=" + std::to_string(p.spec.params.root) + "\n";
  return out;
}

void expect_refused(const fs::path& file, const std::string& text, const std::string& message) {
  write_file(file, text);
  try {
    load_scenario(file.string());
    ADD_FAILURE() << "accepted:\n" << text;
  } catch (const ScenarioError& e) {
    EXPECT_EQ(std::string(e.what()), file.string() + ":" + message);
  }
}

// The example of every field, as written in scenarios/README.md, placed where its relative
// platform path (../platforms/grisou.xml) finds the real platform folder.
TEST(Scenario, ReadmeExampleLoadsAsDocumented) {
  const std::string example = readme_example();
  ASSERT_NE(example.find("name: my-study"), std::string::npos) << "no ```yaml block in scenarios/README.md";
  const fs::path dir = fresh_dir("readme");
  fs::create_directory_symlink(kSource / "platforms", dir / "platforms");
  const fs::path file = write_file(dir / "scenarios" / "example.yaml", example);
  const Scenario sc = load_scenario(file.string());

  EXPECT_EQ(sc.file, file.string());
  EXPECT_EQ(sc.name, "my-study");
  EXPECT_EQ(sc.description, "what it is for");
  EXPECT_EQ(sc.sim.platform_file, (dir / "platforms" / "grisou.xml").string());
  EXPECT_EQ(sc.sim.map_by, (models::MapBy{models::MapBy::Policy::ppr_node, 2}));
  EXPECT_EQ(sc.engines, (std::vector<std::string>{"formula", "model", "sim"}));
  EXPECT_EQ(sc.formulas, (std::vector<std::string>{"derived", "textbook"}));
  EXPECT_EQ(sc.params_file, "");
  EXPECT_FALSE(sc.real_bytes);

  EXPECT_EQ(sc.model.kind, ModelConfig::Kind::hockney);
  EXPECT_EQ(sc.model.hockney.alpha, 2.0e-5);
  EXPECT_EQ(sc.model.hockney.beta, 8.0e-10);
  EXPECT_EQ(sc.model.loggp.L, 1.0e-5);
  EXPECT_EQ(sc.model.loggp.o, 1.0e-6);
  EXPECT_EQ(sc.model.loggp.g, 1.0e-6);
  EXPECT_EQ(sc.model.loggp.G, 8.0e-10);
  EXPECT_FALSE(sc.model.one_port);
  EXPECT_EQ(sc.model.copy_bandwidth, 0);

  EXPECT_EQ(sc.sim.protocol, "tcp+shm");
  EXPECT_EQ(sc.sim.protocol_options, (std::vector<std::string>{"tcp/buffer:4MiB"}));
  EXPECT_FALSE(sc.sim.eager_limit.has_value());  // the ideal profile keeps its default
  EXPECT_EQ(sc.sim.cfg, (std::vector<std::string>{"network/model:CM02", "network/crosstraffic:0"}));

  EXPECT_EQ(sc.mpi.launcher, (std::vector<std::string>{"mpirun", "--oversubscribe"}));
  EXPECT_EQ(launcher_command(sc.mpi), sc.mpi.launcher) << "a given launcher is used as it is";
  EXPECT_EQ(sc.mpi.program, "/path/to/collsim-mpi");
  EXPECT_EQ(sc.mpi.min_runs, 10);
  EXPECT_EQ(sc.mpi.max_runs, 200);
  EXPECT_EQ(sc.mpi.ci_target, 0.025);
  EXPECT_EQ(sc.mpi.timeout_s, 300);

  // The top-level procs, bytes, segment and root are every operation's defaults; an operation's
  // own keys override them.
  ASSERT_EQ(sc.operations.size(), 5u);
  const std::vector<int> procs{2, 4, 8, 16};
  const std::vector<std::size_t> bytes{8192, 65536, 1 << 20};
  const auto& bare = sc.operations[0];
  EXPECT_EQ(bare.algorithm->name, "bcast/binomial");
  EXPECT_EQ(bare.procs, procs);
  EXPECT_EQ(bare.bytes, bytes);
  EXPECT_EQ(bare.segments, (std::vector<std::size_t>{0}));
  EXPECT_EQ(bare.roots, (std::vector<int>{0}));
  const auto& segmented = sc.operations[1];
  EXPECT_EQ(segmented.algorithm->name, "bcast/binomial");
  EXPECT_EQ(segmented.segments, (std::vector<std::size_t>{0, 8192}));
  EXPECT_EQ(segmented.procs, (std::vector<int>{2, 4, 8}));
  EXPECT_EQ(segmented.bytes, bytes);
  const auto& gather = sc.operations[2];
  EXPECT_EQ(gather.algorithm->name, "gather/basic_linear");
  EXPECT_EQ(gather.bytes, (std::vector<std::size_t>{1024, 65536}));
  EXPECT_EQ(gather.procs, procs);
  EXPECT_EQ(sc.operations[3].algorithm->name, "bcast/chain");
  EXPECT_EQ(sc.operations[3].fanout, 4);
  EXPECT_EQ(sc.operations[4].algorithm->name, "bcast/knomial");
  EXPECT_EQ(sc.operations[4].radix, 4);
  EXPECT_EQ(sc.out_dir, "results/my-study");

  // formula-derived, model and sim x (4x3 + 3x3x2 + 4x2 + 4x3 + 4x3 = 62) points, and
  // formula-textbook for the three operations with a textbook formula (chain and knomial have
  // none): 12 + 18 + 8.
  EXPECT_EQ(expand_plan(sc).size(), 3 * 62u + 38u);
}

// Every field at a value other than its default, so a field that is not read, or read into the
// wrong place, shows.
TEST(Scenario, EveryFieldIsRead) {
  const fs::path dir = fresh_dir("every");
  fs::create_directories(dir / "plat");
  fs::copy_file(kSource / "platforms/test/star16.xml", dir / "plat" / "star.xml");
  const fs::path file = write_file(dir / "study" / "every.yaml", R"(name: every-field
description: "non-default values: a field read into the wrong place shows"
platform: ../plat/star.xml
ranks_per_node: 3
engines: [mpi-native, sim, model, mpi]
real_bytes: yes
model:
  kind: loggp
  L: 7.0e-6
  o: 2.0e-6
  g: 3.0e-6
  G: 5.0e-10
  copy_bandwidth: 6e9
sim:
  protocol: ideal
  protocol_options: shm/inline_limit:128
  eager_limit: 12kB
  cfg: network/model:CM02
mpi:
  launcher: [srun, --mpi=pmix]
  program: /opt/bin/collsim-mpi
  min_runs: 7
  max_runs: 9
  ci_target: 0.05
  timeout: 42.5
procs: 48
bytes: [1, 2KiB, 3MiB, 1GiB, 5kB, 6MB, 7GB]
segment: [0, 1KiB]
root: [0, 5]
operations:
  - bcast/linear
  - op: bcast/chain
    fanout: 7
    procs: [8, 6]
    bytes: 3MiB
    segment: 64kB
    root: 7
  - op: bcast/knomial
    radix: 5
  - op: gather/binomial
    bytes: 1MB
output:
  dir: out/every-field
)");
  const Scenario sc = load_scenario(file.string());
  EXPECT_EQ(sc.name, "every-field");
  EXPECT_EQ(sc.description, "non-default values: a field read into the wrong place shows");
  // Relative to the scenario's folder (dir/study), not to the current directory.
  EXPECT_EQ(sc.sim.platform_file, (dir / "plat" / "star.xml").string());
  EXPECT_EQ(sc.sim.map_by, (models::MapBy{models::MapBy::Policy::ppr_node, 3}));
  EXPECT_EQ(sc.engines, (std::vector<std::string>{"mpi-native", "sim", "model", "mpi"}));
  EXPECT_TRUE(sc.real_bytes);

  EXPECT_EQ(sc.model.kind, ModelConfig::Kind::loggp);
  EXPECT_EQ(sc.model.loggp.L, 7.0e-6);
  EXPECT_EQ(sc.model.loggp.o, 2.0e-6);
  EXPECT_EQ(sc.model.loggp.g, 3.0e-6);
  EXPECT_EQ(sc.model.loggp.G, 5.0e-10);
  EXPECT_EQ(sc.model.copy_bandwidth, 6e9);
  // alpha, beta and one_port belong to Hockney (refused with loggp, see below).
  write_file(dir / "study" / "oneport.yaml",
             "engines: [model]\nprocs: 2\nbytes: 1\noperations: [bcast/binomial]\n"
             "model: {one_port: true, alpha: 3.0e-5, beta: 4.0e-10}\n");
  const ModelConfig hockney = load_scenario((dir / "study" / "oneport.yaml").string()).model;
  EXPECT_TRUE(hockney.one_port);
  EXPECT_EQ(hockney.hockney.alpha, 3.0e-5);
  EXPECT_EQ(hockney.hockney.beta, 4.0e-10);
  // Two-level Hockney: alpha and beta between nodes, intra's inside one, the scenario's
  // ranks_per_node to place ranks.
  write_file(dir / "study" / "twolevel.yaml",
             "engines: [model]\nranks_per_node: 4\nprocs: 2\nbytes: 1\noperations: [bcast/binomial]\n"
             "model: {kind: two_level, alpha: 2.0e-5, beta: 8.0e-10, intra: {alpha: 1.0e-6, beta: 2.0e-10}}\n");
  const ModelConfig two = load_scenario((dir / "study" / "twolevel.yaml").string()).model;
  EXPECT_EQ(two.kind, ModelConfig::Kind::two_level);
  EXPECT_EQ(two.two_level.inter.alpha, 2.0e-5);
  EXPECT_EQ(two.two_level.inter.beta, 8.0e-10);
  EXPECT_EQ(two.two_level.intra.alpha, 1.0e-6);
  EXPECT_EQ(two.two_level.intra.beta, 2.0e-10);
  EXPECT_EQ(two.two_level.placement, models::block_placement(4));
  // Times, costs per byte and rates take the command line's units (units.hpp): the same doubles.
  write_file(dir / "study" / "units.yaml",
             "engines: [model]\nranks_per_node: 4\nprocs: 2\nbytes: 1\noperations: [bcast/binomial]\n"
             "model: {kind: two_level, alpha: 20us, beta: 1.25GBps, intra: {alpha: 1us, beta: 0.2ns/B},\n"
             "        copy_bandwidth: 6GBps, reduce_gamma: 0.5ns}\n"
             "mpi: {ci_target: 2.5%, timeout: 90s}\n");
  const Scenario units = load_scenario((dir / "study" / "units.yaml").string());
  EXPECT_EQ(units.model.two_level.inter.alpha, 2.0e-5);
  EXPECT_EQ(units.model.two_level.inter.beta, 1 / 1.25e9);
  EXPECT_EQ(units.model.two_level.intra.alpha, 1.0e-6);
  EXPECT_DOUBLE_EQ(units.model.two_level.intra.beta, 2.0e-10);
  EXPECT_EQ(units.model.copy_bandwidth, 6e9);
  EXPECT_DOUBLE_EQ(units.model.reduce_gamma, 5e-10);
  EXPECT_EQ(units.mpi.ci_target, 0.025);
  EXPECT_EQ(units.mpi.timeout_s, 90.0);
  // from_platform: the two levels from the platform's routes (star16: two 10 us links at
  // 1.25 GB/s between hosts; no loopback declared, so SimGrid's default loopback inside one),
  // under the scenario's SimGrid options.
  write_file(dir / "study" / "fromplat.yaml",
             "engines: [model]\nplatform: " + (kSource / "platforms/test/star16.xml").string() +
                 "\nranks_per_node: 2\nprocs: 2\nbytes: 1\noperations: [bcast/binomial]\n"
                 "model: {kind: two_level, from_platform: true}\nsim: {cfg: [network/model:CM02]}\n");
  const ModelConfig derived = load_scenario((dir / "study" / "fromplat.yaml").string()).model;
  EXPECT_EQ(derived.kind, ModelConfig::Kind::two_level);
  EXPECT_DOUBLE_EQ(derived.two_level.inter.alpha, 20e-6);
  EXPECT_DOUBLE_EQ(derived.two_level.inter.beta, 1 / 1.25e9);
  EXPECT_GT(derived.two_level.intra.alpha + derived.two_level.intra.beta, 0);
  EXPECT_EQ(derived.two_level.placement, models::block_placement(2));

  EXPECT_EQ(sc.sim.protocol, "ideal");
  EXPECT_EQ(sc.sim.protocol_options, (std::vector<std::string>{"shm/inline_limit:128"}));
  EXPECT_EQ(sc.sim.eager_limit, 12000u);                                    // kB is decimal
  EXPECT_EQ(sc.sim.cfg, (std::vector<std::string>{"network/model:CM02"}));  // one value, no list

  EXPECT_EQ(sc.mpi.launcher, (std::vector<std::string>{"srun", "--mpi=pmix"}));
  EXPECT_EQ(sc.mpi.program, "/opt/bin/collsim-mpi");
  EXPECT_EQ(sc.mpi.min_runs, 7);
  EXPECT_EQ(sc.mpi.max_runs, 9);
  EXPECT_EQ(sc.mpi.ci_target, 0.05);
  EXPECT_EQ(sc.mpi.timeout_s, 42.5);

  ASSERT_EQ(sc.operations.size(), 4u);
  const auto& linear = sc.operations[0];
  EXPECT_EQ(linear.algorithm->name, "bcast/basic_linear");  // the short name
  EXPECT_EQ(linear.procs, (std::vector<int>{48}));          // one value, no list
  // KiB/MiB/GiB are binary, kB/MB/GB decimal.
  EXPECT_EQ(linear.bytes, (std::vector<std::size_t>{1, 2048, 3145728, 1073741824, 5000, 6000000, 7000000000}));
  // bcast/basic_linear takes no segment: the top-level [0, 1KiB] is ignored.
  EXPECT_EQ(linear.segments, (std::vector<std::size_t>{0}));
  EXPECT_EQ(linear.roots, (std::vector<int>{0, 5}));
  EXPECT_EQ(linear.fanout, 4);
  EXPECT_EQ(linear.radix, 4);
  const auto& chain = sc.operations[1];
  EXPECT_EQ(chain.algorithm->name, "bcast/chain");
  EXPECT_EQ(chain.fanout, 7);
  EXPECT_EQ(chain.procs, (std::vector<int>{8, 6}));
  EXPECT_EQ(chain.bytes, (std::vector<std::size_t>{3 << 20}));
  EXPECT_EQ(chain.segments, (std::vector<std::size_t>{64000}));
  EXPECT_EQ(chain.roots, (std::vector<int>{7}));
  const auto& knomial = sc.operations[2];
  EXPECT_EQ(knomial.radix, 5);
  EXPECT_EQ(knomial.fanout, 4);
  EXPECT_EQ(knomial.segments, (std::vector<std::size_t>{0, 1024}));  // the top-level default
  const auto& gather = sc.operations[3];
  EXPECT_EQ(gather.algorithm->name, "gather/binomial");
  EXPECT_EQ(gather.bytes, (std::vector<std::size_t>{1000000}));
  EXPECT_EQ(gather.procs, (std::vector<int>{48}));
  EXPECT_EQ(sc.out_dir, "out/every-field");

  // Every plan point carries the operation's knobs and the scenario's real_bytes.
  for (const auto& p : expand_plan(sc)) {
    EXPECT_TRUE(p.spec.real_bytes);
    EXPECT_EQ(p.spec.params.fanout, p.spec.algorithm->name == "bcast/chain" ? 7 : 4);
    EXPECT_EQ(p.spec.params.radix, p.spec.algorithm->name == "bcast/knomial" ? 5 : 4);
  }

  // 16 hosts x 3 ranks per node = room for 48 ranks: 49 processes do not fit.
  const fs::path big = write_file(dir / "study" / "big.yaml",
                                  "engines: [sim]\nplatform: ../plat/star.xml\nranks_per_node: 3\nprocs: [48, 49]\n"
                                  "bytes: 1\noperations: [bcast/binomial]\n");
  try {
    load_scenario(big.string());
    ADD_FAILURE() << "49 processes accepted on 48 slots";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("asks for 49 processes"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("has 16 hosts, room for 48 ranks placed --map-by ppr:3:node"),
              std::string::npos)
        << e.what();
  }
}

// What a field left out means, as scenarios/README.md says ("default ...").
TEST(Scenario, DocumentedDefaults) {
  const fs::path dir = fresh_dir("defaults");
  const fs::path file =
      write_file(dir / "bare-study.yaml", "engines: [model]\nprocs: 2\nbytes: 1\noperations: [bcast/binomial]\n");
  const Scenario sc = load_scenario(file.string());
  EXPECT_EQ(sc.name, "bare-study");  // the file name without .yaml
  EXPECT_EQ(sc.description, "");
  EXPECT_EQ(sc.sim.map_by, (models::MapBy{models::MapBy::Policy::ppr_node, 1}));
  EXPECT_FALSE(sc.real_bytes);
  EXPECT_EQ(sc.model.kind, ModelConfig::Kind::hockney);
  EXPECT_EQ(sc.model.hockney.alpha, 1e-5);
  EXPECT_EQ(sc.model.hockney.beta, 8e-10);
  EXPECT_FALSE(sc.model.one_port);
  EXPECT_EQ(sc.model.copy_bandwidth, 0);
  EXPECT_EQ(sc.sim.protocol, "");  // the platform's, else tcp+shm
  EXPECT_TRUE(sc.sim.protocol_options.empty());
  EXPECT_FALSE(sc.sim.eager_limit.has_value());  // the ideal profile keeps its default
  EXPECT_TRUE(sc.sim.cfg.empty());
  // mpirun --oversubscribe, plus --allow-run-as-root when running as root.
  std::vector<std::string> launcher{"mpirun", "--oversubscribe"};
  if (::geteuid() == 0) launcher.push_back("--allow-run-as-root");
  EXPECT_EQ(launcher_command(sc.mpi), launcher);
  EXPECT_EQ(sc.mpi.program, "");  // the collsim-mpi beside the running collsim
  EXPECT_EQ(sc.mpi.min_runs, 10);
  EXPECT_EQ(sc.mpi.max_runs, 200);
  EXPECT_EQ(sc.mpi.ci_target, 0.025);
  EXPECT_EQ(sc.mpi.timeout_s, 300);
  ASSERT_EQ(sc.operations.size(), 1u);
  EXPECT_EQ(sc.operations[0].segments, (std::vector<std::size_t>{0}));
  EXPECT_EQ(sc.operations[0].roots, (std::vector<int>{0}));
  EXPECT_EQ(sc.operations[0].fanout, 4);
  EXPECT_EQ(sc.operations[0].radix, 4);
  EXPECT_EQ(sc.out_dir, "");  // collsim run then writes to results/NAME
}

TEST(Scenario, FieldsThatDoNotApplyAreRefused) {
  const fs::path dir = fresh_dir("refused");
  const std::string head = "engines: [model]\nprocs: 2\nbytes: 1\noperations:\n";
  // An algorithm without segments rejects a non-zero segment of its own; segment 0 (unsegmented)
  // is accepted.
  expect_refused(dir / "seg.yaml", head + "  - op: gather/basic_linear\n    segment: 8KiB\n",
                 "6:14: segment does not apply to gather/basic_linear (it takes no segment)");
  write_file(dir / "seg0.yaml", head + "  - op: gather/basic_linear\n    segment: 0\n");
  EXPECT_EQ(load_scenario((dir / "seg0.yaml").string()).operations.at(0).segments, (std::vector<std::size_t>{0}));
  expect_refused(dir / "fanout.yaml", head + "  - op: bcast/binomial\n    fanout: 2\n",
                 "6:13: fanout does not apply to bcast/binomial (only to bcast/chain, reduce/chain)");
  expect_refused(dir / "radix.yaml", head + "  - op: bcast/chain\n    radix: 2\n",
                 "6:12: radix does not apply to bcast/chain (only to bcast/knomial)");
  expect_refused(dir / "sim.yaml", "engines: [sim]\nprocs: 2\nbytes: 1\noperations: [bcast/binomial]\n",
                 " the sim engine needs a 'platform' (a SimGrid platform file or a generated cluster)");
  expect_refused(dir / "kind.yaml", head + "  - bcast/binomial\nmodel: {kind: logp}\n",
                 "6:15: model.kind: 'logp' is not hockney, two_level or loggp");
  expect_refused(dir / "intra.yaml", head + "  - bcast/binomial\nmodel: {intra: {alpha: 1, beta: 1}}\n",
                 "6:24: model.intra.alpha applies to kind: two_level only");
  expect_refused(dir / "twolevel.yaml", head + "  - bcast/binomial\nmodel: {kind: two_level}\n",
                 "6:15: model.kind two_level needs model.intra.alpha and model.intra.beta (the costs inside a node)");
  expect_refused(dir / "fromplat.yaml", head + "  - bcast/binomial\nmodel: {kind: two_level, from_platform: true}\n",
                 "6:41: model.from_platform needs the scenario's platform");
  // from_platform is two-level Hockney (as --platform on the command line), but not with another kind.
  expect_refused(dir / "fromplatonly.yaml", head + "  - bcast/binomial\nmodel: {from_platform: true}\n",
                 "6:24: model.from_platform needs the scenario's platform");
  expect_refused(dir / "fromplatkind.yaml", head + "  - bcast/binomial\nmodel: {kind: hockney, from_platform: true}\n",
                 "6:39: model.from_platform applies to kind: two_level only");
  expect_refused(
      dir / "fromplatalpha.yaml",
      head + "  - bcast/binomial\nmodel: {kind: two_level, from_platform: true, alpha: 1}\n",
      "6:54: model.alpha cannot be given with model.from_platform, which gives the model the platform's two-level "
      "Hockney");
  expect_refused(dir / "intrabeta.yaml", head + "  - bcast/binomial\nmodel: {kind: two_level, intra: {alpha: 1}}\n",
                 "6:15: model.kind two_level needs model.intra.alpha and model.intra.beta (the costs inside a node)");
  expect_refused(dir / "protocol.yaml", head + "  - bcast/binomial\nsim: {protocol: udp}\n",
                 "6:17: sim.protocol: 'udp' is not a protocol (ideal, tcp, tcp+shm, ucx)");
  expect_refused(
      dir / "protoopt.yaml", head + "  - bcast/binomial\nsim: {protocol_options: [tcp/bufer:1MiB]}\n",
      "6:26: sim.protocol_options: 'tcp/bufer:1MiB': unknown key for the tcp profile (eager_limit, "
      "send_overhead, recv_overhead, get_overhead, sync_overhead, yield_overhead, buffer, connect, interface)");
  // As on the command line (--one-port with --loggp): LogGP's g and G already serialise sends.
  expect_refused(dir / "oneport.yaml", head + "  - bcast/binomial\nmodel: {kind: loggp, one_port: true}\n",
                 "6:32: model.one_port applies to Hockney only (LogGP's g and G already serialise sends)");
  // A reduction of an operation that does not reduce; a bad datatype or operator name.
  expect_refused(dir / "datatype.yaml", head + "  - op: bcast/binomial\n    datatype: int32\n",
                 "6:15: datatype applies to reducing operations (reduce, allreduce, reduce_scatter), not bcast");
  expect_refused(dir / "reduceop.yaml", head + "  - op: gather/binomial\n    reduce_op: max\n",
                 "6:16: reduce_op applies to reducing operations (reduce, allreduce, reduce_scatter), not gather");
  expect_refused(dir / "typename.yaml", head + "  - bcast/binomial\ndatatype: [int32, half]\n",
                 "6:19: datatype: 'half' is not one of byte, int32, int64, float, double");
  expect_refused(
      dir / "opname.yaml", head + "  - bcast/binomial\nreduce_op: maxloc\n",
      "6:12: reduce_op: 'maxloc' is not one of sum, prod, min, max, land, lor, lxor, band, bor, bxor, affine");
  // The keys of another model kind, and the ideal protocol's eager limit with another protocol,
  // would be read and never used.
  expect_refused(dir / "hockneyL.yaml", head + "  - bcast/binomial\nmodel: {kind: hockney, L: 1e-5}\n",
                 "6:27: model.L applies to kind: loggp only, not hockney");
  expect_refused(dir / "defaultG.yaml", head + "  - bcast/binomial\nmodel: {G: 1e-9}\n",
                 "6:12: model.G applies to kind: loggp only, not hockney");
  expect_refused(dir / "twolevelo.yaml",
                 head + "  - bcast/binomial\nmodel: {kind: two_level, intra: {alpha: 1, beta: 1}, o: 1e-6}\n",
                 "6:57: model.o applies to kind: loggp only, not two_level");
  expect_refused(
      dir / "loggpbeta.yaml", head + "  - bcast/binomial\nmodel: {kind: loggp, beta: 1e-9}\n",
      "6:28: model.beta applies to Hockney (kind hockney or two_level), not LogGP (L, o, g, G): give one or the "
      "other");
  expect_refused(dir / "eager.yaml", head + "  - bcast/binomial\nsim: {protocol: tcp, eager_limit: 4KiB}\n",
                 "6:35: sim.eager_limit applies to the ideal protocol only, not tcp (whose limits are the "
                 "protocol options tcp/eager_limit:SIZE, shm/eager_limit:SIZE and ucx/rndv_thresh:SIZE)");
  write_file(dir / "eagerideal.yaml", head + "  - bcast/binomial\nsim: {protocol: ideal, eager_limit: 4KiB}\n");
  EXPECT_EQ(load_scenario((dir / "eagerideal.yaml").string()).sim.eager_limit, 4096u);
}

// timing: collective by default; osu reaches every point's spec; a bad value, or osu where no
// engine runs ranks, is refused at its place.
TEST(Scenario, Timing) {
  const fs::path dir = fresh_dir("timing");
  const std::string ops = "procs: 2\nbytes: 1\noperations: [bcast/binomial]\n";
  write_file(dir / "plain.yaml", "engines: [model]\n" + ops);
  EXPECT_EQ(load_scenario((dir / "plain.yaml").string()).timing.kind, Timing::Kind::collective);
  write_file(dir / "osu.yaml", "engines: [formula, model, sim]\nplatform: " +
                                   (kSource / "platforms/test/star16.xml").string() + "\n" + ops + "timing: osu\n");
  const Scenario sc = load_scenario((dir / "osu.yaml").string());
  EXPECT_EQ(sc.timing.kind, Timing::Kind::osu);
  const auto plan = expand_plan(sc);
  ASSERT_FALSE(plan.empty());
  for (const PlanPoint& p : plan) EXPECT_EQ(p.spec.timing.kind, Timing::Kind::osu) << engine_name(p.engine);
  expect_refused(dir / "bad.yaml", "engines: [model]\n" + ops + "timing: wall\n",
                 "5:9: timing: 'wall' is not collective or osu");
  const fs::path formula = dir / "formula.yaml";
  expect_refused(formula, "engines: [formula]\n" + ops + "timing: osu\n",
                 "5:9: timing: osu applies only to the engines that run ranks (model, sim), and " + formula.string() +
                     " runs none of them");
}

// What is almost certainly a slip is refused with its position rather than run: a key given
// twice, a value listed twice, an operation given twice, a root no process count has, a name
// that would put the results folder elsewhere than results/NAME.
TEST(Scenario, SlipsAreRefused) {
  const fs::path dir = fresh_dir("slips");
  const std::string ops = "operations: [bcast/binomial]\n";
  expect_refused(dir / "key.yaml", "engines: [model]\nprocs: 2\nbytes: 1\nprocs: 4\n" + ops,
                 "4:1: duplicate key 'procs' (first at line 2)");
  expect_refused(dir / "nested.yaml",
                 "engines: [model]\nprocs: 2\nbytes: 1\nmodel: {alpha: 1, beta: 2, alpha: 3}\n" + ops,
                 "4:28: duplicate key 'alpha' (first at line 4)");
  expect_refused(
      dir / "opkey.yaml",
      "engines: [model]\nprocs: 2\nbytes: 1\noperations:\n  - op: bcast/chain\n    fanout: 2\n    fanout: 3\n",
      "7:5: duplicate key 'fanout' (first at line 6)");
  // One key in two mappings is no repeat, nor is a value used twice through an alias.
  write_file(dir / "twomaps.yaml",
             "engines: [model]\nprocs: &p [2, 4]\nbytes: 1\noperations:\n  - {op: bcast/chain, procs: *p}\n"
             "  - {op: bcast/binomial, procs: *p}\n");
  EXPECT_EQ(load_scenario((dir / "twomaps.yaml").string()).operations.size(), 2u);

  expect_refused(dir / "engines.yaml", "engines: [model, model]\nprocs: 2\nbytes: 1\n" + ops,
                 "1:18: engines: 'model' is listed twice (item 1 is the same)");
  expect_refused(dir / "bytes.yaml", "engines: [model]\nprocs: 2\nbytes: [1KiB, 2KiB, 1024]\n" + ops,
                 "3:21: bytes: '1024' is listed twice (item 1 is the same)");
  expect_refused(dir / "procs.yaml",
                 "engines: [model]\nprocs: 2\nbytes: 1\noperations:\n  - {op: bcast/binomial, procs: [4, 8, 4]}\n",
                 "5:40: procs: '4' is listed twice (item 1 is the same)");
  expect_refused(dir / "ops.yaml",
                 "engines: [model]\nprocs: 2\nbytes: 1\noperations:\n  - bcast/binomial\n  - op: bcast/binomial\n",
                 "6:5: this operation repeats operation 1 (bcast/binomial with the same settings): each of its points "
                 "would run twice");
  // Overlapping grids of one algorithm are two operations (their shared points run once each).
  write_file(dir / "overlap.yaml",
             "engines: [model]\nprocs: [2, 4]\nbytes: 1\noperations:\n  - bcast/binomial\n  - {op: bcast/binomial, "
             "procs: 4}\n");
  EXPECT_EQ(expand_plan(load_scenario((dir / "overlap.yaml").string())).size(), 3u);

  // A root that is a rank of no process count of its operation; one that is a rank of some is
  // skipped for the others, and counted.
  expect_refused(dir / "root.yaml", "engines: [model]\nprocs: [2, 4]\nbytes: 1\nroot: [99]\n" + ops,
                 "4:8: root: 99 is not a rank of any process count of bcast/binomial (at most 4 processes, ranks 0 "
                 "to 3)");
  expect_refused(dir / "ownroot.yaml",
                 "engines: [model]\nprocs: 2\nbytes: 1\noperations:\n  - {op: bcast/binomial, root: [1, 2]}\n",
                 "5:36: root: 2 is not a rank of any process count of bcast/binomial (at most 2 processes, ranks 0 "
                 "to 1)");
  write_file(dir / "someroots.yaml", "engines: [model]\nprocs: [2, 4]\nbytes: [1, 2]\nroot: [0, 3]\n" + ops);
  std::size_t skipped = 0;
  EXPECT_EQ(expand_plan(load_scenario((dir / "someroots.yaml").string()), &skipped).size(), 6u);
  EXPECT_EQ(skipped, 2u);  // root 3 of P = 2, at 1 and 2 bytes

  // The name names results/NAME.
  expect_refused(dir / "up.yaml", "name: ../../../evil-out\nengines: [model]\nprocs: 2\nbytes: 1\n" + ops,
                 "1:7: name: '../../../evil-out' is not a plain name (it names the results folder results/NAME: "
                 "not empty, not . or .., no /)");
  expect_refused(dir / "empty.yaml", "name: \"\"\nengines: [model]\nprocs: 2\nbytes: 1\n" + ops,
                 "1:7: name: '' is not a plain name (it names the results folder results/NAME: not empty, not . or "
                 ".., no /)");
  expect_refused(dir / "dot.yaml", "name: .\nengines: [model]\nprocs: 2\nbytes: 1\n" + ops,
                 "1:7: name: '.' is not a plain name (it names the results folder results/NAME: not empty, not . or "
                 ".., no /)");
  expect_refused(dir / "..yaml", "engines: [model]\nprocs: 2\nbytes: 1\n" + ops,
                 " the file's name gives the scenario the name '.', which is not a plain name (it names the results "
                 "folder results/NAME: not empty, not . or .., no /); give it a name: key");
  write_file(dir / "plain.yaml", "name: my-study.v2\nengines: [model]\nprocs: 2\nbytes: 1\n" + ops);
  EXPECT_EQ(load_scenario((dir / "plain.yaml").string()).name, "my-study.v2");

  // A folder given for the file.
  try {
    load_scenario(dir.string());
    ADD_FAILURE() << "a folder loaded";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(std::string(e.what()), dir.string() + ": is a directory, not a scenario file");
  }
}

// Engines outermost, then operations in file order, then procs, bytes, segment and root in the
// order written (not sorted); a root that is not a rank of P is skipped for that P only.
TEST(Scenario, PlanOrderAndRootSkipping) {
  const fs::path dir = fresh_dir("plan");
  const fs::path file = write_file(dir / "plan.yaml", R"(engines: [model, mpi]
procs: [4, 2]
bytes: [2KiB, 1KiB]
segment: [1KiB, 0]
root: [2, 1]
operations:
  - bcast/pipeline
  - op: gather/basic_linear
    bytes: 8
)");
  const auto plan = expand_plan(load_scenario(file.string()));
  std::string expected;
  for (const std::string engine : {"model", "mpi"}) {
    for (const std::string p_root : {"P=4 m=2048 seg=1024 root=2", "P=4 m=2048 seg=1024 root=1",
                                     "P=4 m=2048 seg=0 root=2", "P=4 m=2048 seg=0 root=1", "P=4 m=1024 seg=1024 root=2",
                                     "P=4 m=1024 seg=1024 root=1", "P=4 m=1024 seg=0 root=2", "P=4 m=1024 seg=0 root=1",
                                     // P = 2 has no rank 2
                                     "P=2 m=2048 seg=1024 root=1", "P=2 m=2048 seg=0 root=1",
                                     "P=2 m=1024 seg=1024 root=1", "P=2 m=1024 seg=0 root=1"})
      expected += engine + " bcast/pipeline " + p_root + "\n";
    // No segment for basic_linear: the top-level segments collapse to one unsegmented point.
    for (const std::string p_root : {"P=4 m=8 seg=0 root=2", "P=4 m=8 seg=0 root=1", "P=2 m=8 seg=0 root=1"})
      expected += engine + " gather/basic_linear " + p_root + "\n";
  }
  EXPECT_EQ(plan_text(plan), expected);
  for (const auto& p : plan) EXPECT_FALSE(p.spec.real_bytes);
}

}  // namespace
}  // namespace collsim

namespace collsim {
namespace {

TEST(Scenario, FormulaSettings) {
  const fs::path dir = fresh_dir("formula");
  const std::string ops = "procs: [2, 4]\nbytes: 1KiB\noperations: [bcast/binomial, bcast/chain]\n";
  write_file(dir / "ok.yaml", "engines: [formula, model]\nformula: {kinds: [textbook, derived]}\n" + ops);
  const Scenario sc = load_scenario((dir / "ok.yaml").string());
  EXPECT_EQ(sc.formulas, (std::vector<std::string>{"textbook", "derived"}));
  // formula-textbook (binomial only: chain has no textbook formula), formula-derived, model.
  std::vector<std::string> engines;
  for (const PlanPoint& p : expand_plan(sc))
    engines.push_back(std::string(engine_name(p.engine)) + " " + std::string(p.spec.algorithm->name));
  EXPECT_EQ(engines,
            (std::vector<std::string>{
                "formula-textbook bcast/binomial", "formula-textbook bcast/binomial", "formula-derived bcast/binomial",
                "formula-derived bcast/binomial", "formula-derived bcast/chain", "formula-derived bcast/chain",
                "model bcast/binomial", "model bcast/binomial", "model bcast/chain", "model bcast/chain"}));

  expect_refused(dir / "kinds.yaml", "engines: [formula]\nformula: {kinds: [exact]}\n" + ops,
                 "2:19: formula.kinds: 'exact' is not derived or textbook");
  expect_refused(dir / "noengine.yaml", "engines: [model]\nformula: {kinds: [derived]}\n" + ops,
                 "2:10: formula settings, but 'formula' is not among the engines");
  expect_refused(dir / "params.yaml", "engines: [formula]\nformula: {params: none.yaml}\n" + ops,
                 "2:19: parameters file 'none.yaml' not found (looked for " + (dir / "none.yaml").string() + ")");
  write_file(dir / "notparams.yaml", "engine: sim\n");
  expect_refused(
      dir / "badparams.yaml", "engines: [formula]\nformula: {params: notparams.yaml}\n" + ops,
      "2:19: " + (dir / "notparams.yaml").string() +
          ": not a collsim parameters file (it has no 'collsim: parameters'; collsim calibrate writes them)");
}

// Every scenario shipped in scenarios/ loads (its platform and parameters files exist) and expands.
TEST(Scenario, EveryShippedScenarioLoads) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator(kSource / "scenarios")) {
    if (entry.path().extension() != ".yaml") continue;
    ++count;
    if (is_coarray_scenario(entry.path().string())) {  // `coarray:` studies: coarray_scenario_test
      EXPECT_FALSE(expand_coarray_plan(load_coarray_scenario(entry.path().string())).empty()) << entry.path();
      continue;
    }
    const Scenario sc = load_scenario(entry.path().string());
    EXPECT_FALSE(expand_plan(sc).empty()) << entry.path();
  }
  EXPECT_GE(count, 4);
}

}  // namespace
}  // namespace collsim
