// collsim platform from the command line: a file written and then used by the sim and model
// engines, --help listing the parameters, the summary, and bad options refused with one line.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "common/cli_test_util.hpp"

namespace collsim_test {
namespace {

// A platform that states an inter-socket link gives the model engine its socket level: two ranks
// of one node on two sockets (map-by socket) pay the loopback's 5 us plus the link's 1 us, at the
// narrower 2 GB/s of the link; on one socket (map-by core), the loopback alone at 3 GB/s.
TEST(CollsimPlatform, TheModelTakesTheSocketLevelOfAPlatform) {
  const fs::path file = scratch() / "sockets.xml";
  ASSERT_EQ(collsim("platform --nodes 2 --sockets 2 --cores 4 --loopback-latency 5us --loopback-bandwidth 3GBps "
                    "--inter-socket-latency 1us --inter-socket-bandwidth 2GBps -o " +
                    file.string())
                .status,
            0);
  const std::string base =
      "measure --engine model --op bcast/basic_linear --procs 2 --bytes 1000 --csv --platform " + file.string();
  Outcome o = collsim(base + " --map-by socket");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NEAR(std::stod(csv_field(o.out, "time_s")), 6e-6 + 1000 / 2e9, 1e-15);
  o = collsim(base + " --map-by core");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NEAR(std::stod(csv_field(o.out, "time_s")), 5e-6 + 1000 / 3e9, 1e-15);
}

// Levels inside a socket: 8 cores a socket in 2 NUMA domains of 4. map-by ppr:2:socket puts
// ranks 0 and 1 on cores 0 and 1 of socket 0. With core groups of 1 they sit in two groups of
// one NUMA domain: the loopback's 5 us plus 2 us of core_group_latency, at the groups' narrower
// 1 GB/s; with core groups of 2 they share one: the loopback alone at 3 GB/s. (The NUMA level's
// pick is in model_engine_test.cpp; the values are checked at the command line.)
TEST(CollsimPlatform, TheModelTakesTheLevelsInsideASocket) {
  const std::string common =
      "platform --nodes 2 --sockets 2 --cores 8 --loopback-latency 5us --loopback-bandwidth "
      "3GBps --numa-domains 2 --core-group-latency 2us --core-group-bandwidth 1GBps "
      "--numa-latency 4us -o ";
  const fs::path apart = scratch() / "groups-of-1.xml", together = scratch() / "groups-of-2.xml";
  ASSERT_EQ(collsim(common + apart.string() + " --core-group 1").status, 0);
  ASSERT_EQ(collsim(common + together.string() + " --core-group 2").status, 0);
  const std::string base =
      "measure --engine model --op bcast/basic_linear --procs 2 --bytes 1000 --csv --map-by ppr:2:socket --platform ";
  Outcome o = collsim(base + apart.string());
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NEAR(std::stod(csv_field(o.out, "time_s")), 7e-6 + 1000 / 1e9, 1e-15);
  o = collsim(base + together.string());
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NEAR(std::stod(csv_field(o.out, "time_s")), 5e-6 + 1000 / 3e9, 1e-15);
  expect_refused("platform --nodes 2 --sockets 2 --cores 8 --numa-domains 3",
                 "collsim: numa_domains 3 does not divide the 8 cores of a socket");
  expect_refused("platform --nodes 2 --sockets 2 --cores 8 --numa-domains 2 --core-group 3",
                 "collsim: core_group 3 does not divide the 4 cores of a NUMA domain");
  expect_refused("platform --nodes 2 --core-group x",
                 "collsim: --core-group: 'x' is not a whole number from 1 to 4096");
}

TEST(CollsimPlatform, WritesAFileTheEnginesRun) {
  const fs::path file = scratch() / "ft.xml";
  Outcome o = collsim("platform --topology fat_tree --nodes 16 --taper 2:1 --latency 1us -o " + file.string());
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out, "");
  EXPECT_NE(o.err.find("A fat_tree of 16 nodes"), std::string::npos) << o.err;
  const std::string xml = slurp(file);
  EXPECT_NE(xml.find("topology=\"FAT_TREE\" topo_parameters=\"2;4,4;1,2;1,1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<prop id=\"collsim/command\" value=\"collsim platform --topology fat_tree --nodes 16 --taper "
                     "2:1 --latency 1us -o "),
            std::string::npos)
      << xml;
  o = collsim("measure --engine sim --op bcast/binomial --procs 16 --bytes 64KiB --csv --platform " + file.string());
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(csv_field(o.out, "data"), "ok");
  // The model engine's inter-node latency is the mean route (3 of 15 nodes at 2 links of 1 us, 12
  // at 4), its bandwidth the links' 1.25 GB/s.
  o = collsim("measure --engine model --op bcast/basic_linear --procs 2 --bytes 1000 --csv --platform " +
              file.string());
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NEAR(std::stod(csv_field(o.out, "time_s")), 3.6e-6 + 1000 / 1.25e9, 1e-15);
}

TEST(CollsimPlatform, PrintsToStandardOutputAndDescribes) {
  Outcome o = collsim("platform --nodes 4 --bandwidth 100GbE");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out.rfind("<?xml", 0), 0u);
  EXPECT_NE(o.out.find("bw=\"12.5GBps\""), std::string::npos) << o.out;
  o = collsim("platform --topology torus --dims 8,8,8 --describe");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out.find("<?xml"), std::string::npos);
  EXPECT_NE(o.out.find("A torus of 512 nodes (2 sockets x 8 cores: 8192 ranks at one per core)"), std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("crosses 1 to 12 links"), std::string::npos) << o.out;
}

TEST(CollsimPlatform, HelpListsEveryParameter) {
  const Outcome o = collsim("platform --help");
  ASSERT_EQ(o.status, 0);
  for (const char* option : {"--topology",
                             "--nodes",
                             "--sockets",
                             "--cores",
                             "--bandwidth",
                             "--latency",
                             "--loopback-bandwidth",
                             "--loopback-latency",
                             "--memcpy",
                             "--protocol",
                             "--taper",
                             "--down",
                             "--levels",
                             "--fat-tree",
                             "--dims",
                             "--groups",
                             "--chassis",
                             "--routers",
                             "--nodes-per-router",
                             "--dragonfly",
                             "--output",
                             "--describe"})
    EXPECT_NE(o.out.find(std::string("  ") + option + " "), std::string::npos) << option;
  EXPECT_NE(collsim("--help").out.find("collsim platform"), std::string::npos);
}

// A platform of shared memory as tools/calibrate_shm writes it: no latency inside the node, one
// copy rate (10 GB/s) and the shm profile's send_overhead (100 ns) for every put and flush, stated
// by --protocol-option. In the sim engine a blocking DMA put of 1.6 MB is o + 1.6e6 / 1e10 =
// 160.1 us, then its flush, o: 160.2 us; ten blocking puts of 8 B: 10 x (2 o + 8 / 1e10) =
// 2.008 us; the same 1.6 MB buffered (case 4: 4 units of 400000 B, each copied, put and
// flushed): 4 x (40 us + 100 ns + 40 us + 100 ns) = 320.8 us.
TEST(CollsimPlatform, StatesProtocolOptionsTheSimEngineCharges) {
  const fs::path file = scratch() / "shm.xml";
  Outcome o = collsim(
      "platform --nodes 1 --sockets 1 --cores 2 --protocol tcp+shm --loopback-latency 0 "
      "--loopback-bandwidth 10GBps --memcpy 10GBps --memory-bandwidth 10GBps "
      "--protocol-option shm/send_overhead:100ns -o " +
      file.string());
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(slurp(file).find("<prop id=\"collsim/shm/send_overhead\" value=\"100ns\"/>"), std::string::npos);
  const std::string sim = "coarray --engine sim --ranks-per-node 2 --csv --platform " + file.string();
  const std::string whole = " --local : --local-shape 200000 --remote : --remote-shape 200000";
  EXPECT_NEAR(csv_time(sim + " --registered" + whole), 160.2e-6, 1e-12);
  EXPECT_NEAR(csv_time(sim + " --registered --local 1:10 --local-shape 10 --remote 1:20:2 --remote-shape 20"), 2.008e-6,
              1e-12);
  EXPECT_NEAR(csv_time(sim + whole), 320.8e-6, 1e-12);
}

// The node's cache (--shared-cache, --uncached-copy-bandwidth; engines/sim/copy_cache.hpp) on the
// platform above: the blocking DMA put of 1.6 MB takes o + 160 us + o = 160.2 us at 10 GB/s.
// It touches 25000 lines of its source and 25000 of the window (3.2 MB). The timed run follows an
// untimed one, so a cache of 4 MiB (65536 lines) holds them all: 160.2 us. One of 2 MiB (32768
// lines) holds neither, as the run cycles over more than it holds: every line is missed and
// moves at 5 GB/s instead of 10, 2 x 160 us: 320.2 us.
TEST(CollsimPlatform, ASharedCacheCostsWhatItMisses) {
  auto platform = [](const std::string& name, const std::string& cache) {
    const fs::path file = scratch() / name;
    const Outcome o = collsim(
        "platform --nodes 1 --sockets 1 --cores 2 --protocol tcp+shm --loopback-latency 0 "
        "--loopback-bandwidth 10GBps --memcpy 10GBps --memory-bandwidth 10GBps "
        "--protocol-option shm/send_overhead:100ns " +
        cache + " -o " + file.string());
    EXPECT_EQ(o.status, 0) << o.err;
    return file;
  };
  const fs::path big = platform("cache-4m.xml", "--shared-cache 4MiB --uncached-copy-bandwidth 5GBps");
  const fs::path small = platform("cache-2m.xml", "--shared-cache 2MiB --uncached-copy-bandwidth 5GBps");
  EXPECT_NE(slurp(big).find("<prop id=\"collsim/shared_cache\" value=\"4194304\"/>"), std::string::npos);
  EXPECT_NE(slurp(big).find("<prop id=\"collsim/uncached_copy_bandwidth\" value=\"5GBps\"/>"), std::string::npos);
  const std::string put = " --registered --local : --local-shape 200000 --remote : --remote-shape 200000";
  auto sim = [](const fs::path& file) {
    return "coarray --engine sim --ranks-per-node 2 --csv --platform " + file.string();
  };
  EXPECT_NEAR(csv_time(sim(big) + put), 160.2e-6, 1e-12);
  EXPECT_NEAR(csv_time(sim(small) + put), 320.2e-6, 1e-12);
  // One without the other is refused, in one line, exit 2.
  for (const std::string half : {"--shared-cache 4MiB", "--uncached-copy-bandwidth 5GBps"}) {
    const Outcome o = collsim("platform --nodes 1 " + half + " -o " + (scratch() / "half.xml").string());
    EXPECT_EQ(o.status, 2) << half;
    EXPECT_NE(o.err.find(half.find("shared") != std::string::npos ? "shared_cache needs uncached_copy_bandwidth"
                                                                  : "uncached_copy_bandwidth needs shared_cache"),
              std::string::npos)
        << o.err;
  }
  // A platform file written by hand with one of the two: the sim engine refuses it, exit 2.
  std::string xml = slurp(big);
  const std::string rate = "<prop id=\"collsim/uncached_copy_bandwidth\" value=\"5GBps\"/>";
  ASSERT_NE(xml.find(rate), std::string::npos);
  xml.erase(xml.find(rate), rate.size());
  const fs::path half = scratch() / "cache-half.xml";
  std::ofstream(half) << xml;
  const Outcome refused = collsim(sim(half) + put);
  EXPECT_EQ(refused.status, 2) << refused.err;
  EXPECT_NE(refused.err.find("states collsim/shared_cache without collsim/uncached_copy_bandwidth: the node's cache "
                             "needs both"),
            std::string::npos)
      << refused.err;
}

// A copy's per-call cost (--copy-overhead, host property collsim/copy_overhead) and win_sync's
// (shm/sync_overhead) on the platform above with c0 = 50 ns and F = 2 us. In the sim engine one
// blocking DMA put of 8 B: o + 8 / 1e10 + o (its flush), then sync memory: flush_all of nothing
// under tcp (free) and win_sync's F: 0.2008 + 2 = 2.2008 us. remote(1:10)[2] = local(1:20:2)
// (case 2: 10 pieces of 8 B packed, one put of 80 B): 10 x (50 + 0.8) ns = 508 ns of copies,
// the put 100 + 8 ns, its flush 100 ns, F 2000 ns: 2.716 us. The model engine under the same
// costs (--send-overhead 100ns for every put and flush, the end's flush_all too: + 100 ns):
// 2.816 us, and its closed form the same.
TEST(CollsimPlatform, CopyAndSyncOverheadsTheEnginesCharge) {
  const fs::path file = scratch() / "shm-c0.xml";
  Outcome o = collsim(
      "platform --nodes 1 --sockets 1 --cores 2 --protocol tcp+shm --loopback-latency 0 "
      "--loopback-bandwidth 10GBps --memcpy 10GBps --memory-bandwidth 10GBps --copy-overhead 50ns "
      "--protocol-option shm/send_overhead:100ns --protocol-option shm/sync_overhead:2us -o " +
      file.string());
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(slurp(file).find("<prop id=\"collsim/copy_overhead\" value=\"50ns\"/>"), std::string::npos);
  EXPECT_NE(slurp(file).find("<prop id=\"collsim/shm/sync_overhead\" value=\"2us\"/>"), std::string::npos);
  const std::string sim = "coarray --engine sim --ranks-per-node 2 --csv --platform " + file.string();
  const std::string pieces = " --local 1:20:2 --local-shape 20 --remote : --remote-shape 10";
  EXPECT_NEAR(csv_time(sim + " --registered --local 1:1 --local-shape 1 --remote 1:1 --remote-shape 1"), 2.2008e-6,
              1e-12);
  o = collsim(sim + pieces);
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(csv_field(o.out, "copies"), "10");
  EXPECT_NEAR(std::stod(csv_field(o.out, "time_s")), 2.716e-6, 1e-12);
  const std::string model =
      "coarray --engine model --alpha 0 --beta 10GBps --copy-bandwidth 10GBps --send-overhead 100ns "
      "--copy-overhead 50ns --sync-overhead 2us" +
      pieces;
  EXPECT_NEAR(csv_time(model + " --csv"), 2.816e-6, 1e-12);
  o = collsim(model);
  EXPECT_NE(o.out.find("cost model 2.816 us"), std::string::npos) << o.out;
}

// A get's own overhead (shm/get_overhead; the model's --get-overhead), on the platform above with o
// = 100 ns, F = 2 us and a get's overhead of 300 ns up to 4 KiB and 500 ns from there. In the sim
// engine one DMA GET of 8 B: 300 + 0.8 ns, then sync memory: flush_all of nothing under tcp (free)
// and F: 2.3008 us; of 8000 B: 500 + 800 + 2000 ns = 3.3 us. A put still pays o: 2.2008 us. Without
// get_overhead a get pays o: 2.1008 us. One datatype GET of 10 pieces of 8 B (local(1:20:2) =
// remote(:)) pays it per piece: 10 x 300 + 8 ns of bytes, then F: 5.008 us. The model engine (its
// end's flush_all pays o(0) too): 300 + 0.8 + 100 + 2000 ns = 2.4008 us, and its closed form the
// same.
TEST(CollsimPlatform, AGetPaysItsOwnOverhead) {
  const fs::path file = scratch() / "shm-get.xml";
  const std::string shm =
      "platform --nodes 1 --sockets 1 --cores 2 --protocol tcp+shm --loopback-latency 0 "
      "--loopback-bandwidth 10GBps --memcpy 10GBps --memory-bandwidth 10GBps "
      "--protocol-option shm/send_overhead:100ns --protocol-option shm/sync_overhead:2us";
  Outcome o = collsim(shm + " --protocol-option shm/get_overhead:'0:300ns:0;4KiB:500ns:0' -o " + file.string());
  ASSERT_EQ(o.status, 0) << o.err;
  const std::string sim = "coarray --engine sim --ranks-per-node 2 --csv --registered --platform " + file.string();
  const std::string one = " --local 1:1 --local-shape 1 --remote 1:1 --remote-shape 1";
  EXPECT_NEAR(csv_time(sim + " --get" + one), 2.3008e-6, 1e-12);
  EXPECT_NEAR(csv_time(sim + " --get --local : --local-shape 1000 --remote : --remote-shape 1000"), 3.3e-6, 1e-12);
  EXPECT_NEAR(csv_time(sim + one), 2.2008e-6, 1e-12);
  const std::string datatype = " --scheme datatype --get --local 1:20:2 --local-shape 20 --remote : --remote-shape 10";
  EXPECT_NEAR(csv_time("coarray --engine sim --ranks-per-node 2 --csv --platform " + file.string() + datatype),
              5.008e-6, 1e-12);
  const fs::path plain = scratch() / "shm-get-plain.xml";
  o = collsim(shm + " -o " + plain.string());
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NEAR(
      csv_time("coarray --engine sim --ranks-per-node 2 --csv --registered --get --platform " + plain.string() + one),
      2.1008e-6, 1e-12);
  const std::string model =
      "coarray --engine model --alpha 0 --beta 10GBps --send-overhead 100ns --sync-overhead 2us "
      "--get-overhead 300ns --registered --get" +
      one;
  EXPECT_NEAR(csv_time(model + " --csv"), 2.4008e-6, 1e-12);
  o = collsim(model);
  EXPECT_NE(o.out.find("cost model 2.401 us  (2.4008e-06 s"), std::string::npos) << o.out;
  expect_refused(
      "platform --nodes 1 --protocol-option shm/get_overhead:soon",
      "collsim: protocol option 'shm/get_overhead:soon': 'soon' is not a time (e.g. 2us) or SIZE:BASE:PER_BYTE;...");
}

// An oversubscribed node (shm/yield_overhead; protocol.hpp): on the platform above (o = 100 ns, F =
// 2 us, 2 cores) with y = 1 us, one blocking DMA put of 8 B and sync memory on 2 images takes
// 2.2008 us as before. On 4 images the node holds 4 ranks on 2 cores: the put's flush and the
// end's flush_all each add y, 4.2008 us; a GET (o + 8 B, no flush, then flush_all and F) only the
// flush_all's. The idle images' cores are not modelled.
TEST(CollsimPlatform, AnOversubscribedNodeYieldsOnEveryFlush) {
  const fs::path file = scratch() / "shm-yield.xml";
  const Outcome o = collsim(
      "platform --nodes 1 --sockets 1 --cores 2 --protocol tcp+shm --loopback-latency 0 "
      "--loopback-bandwidth 10GBps --memcpy 10GBps --memory-bandwidth 10GBps "
      "--protocol-option shm/send_overhead:100ns --protocol-option shm/sync_overhead:2us "
      "--protocol-option shm/yield_overhead:1us -o " +
      file.string());
  ASSERT_EQ(o.status, 0) << o.err;
  const std::string put =
      " --csv --registered --local 1:1 --local-shape 1 --remote 1:1 --remote-shape 1 --platform " + file.string();
  EXPECT_NEAR(csv_time("coarray --engine sim --ranks-per-node 4 --images 2" + put), 2.2008e-6, 1e-12);
  EXPECT_NEAR(csv_time("coarray --engine sim --ranks-per-node 4 --images 4" + put), 4.2008e-6, 1e-12);
  EXPECT_NEAR(csv_time("coarray --engine sim --ranks-per-node 4 --images 2 --get" + put), 2.1008e-6, 1e-12);
  EXPECT_NEAR(csv_time("coarray --engine sim --ranks-per-node 4 --images 4 --get" + put), 3.1008e-6, 1e-12);
  expect_refused("platform --nodes 1 --protocol-option shm/yield_overhead:soon",
                 "collsim: protocol option 'shm/yield_overhead:soon': 'soon' is not a time of 0 or more (e.g. 1.5us)");
}

// tools/calibrate_shm measures with the mpi engine (10 s, not run here); a launcher it cannot
// start is one line, exit status 2, and no platform.
TEST(CollsimPlatform, CalibrateShmRefusesALauncherItCannotStart) {
  const fs::path file = scratch() / "shm-none.xml";
  const Outcome o = run_command(src("tools/calibrate_shm") + " --launcher /nonexistent/mpirun -o " + file.string());
  EXPECT_EQ(o.status, 2) << o.err;
  EXPECT_EQ(o.err, "calibrate_shm: '/nonexistent/mpirun': No such file or directory\n");
  EXPECT_FALSE(fs::exists(file));
}

TEST(CollsimPlatform, BadOptionsOneLine) {
  expect_refused("platform --nodes 0", "collsim: --nodes: '0' is not a whole number from 1 to 4194304");
  expect_refused("platform --nodes 4 --latency soon",
                 "collsim: --latency: 'soon' is not a time (e.g. 10us, 1.5ms, 2e-6; a bare number is seconds)");
  // SimGrid's clock has 1 ns steps; an infinite bandwidth was taken.
  expect_refused("platform --nodes 4 --latency 0.5ns",
                 "collsim: --latency: '0.5ns' is below 1ns, the resolution of SimGrid's clock: give 0 or 1ns or more");
  expect_refused(
      "platform --nodes 4 --bandwidth inf",
      "collsim: --bandwidth: 'inf' is not a bandwidth (e.g. 1.25GBps, 10Gbps, 25GbE; a bare number is bytes/s)");
  expect_refused("platform --nodes 16 --taper 4", "collsim: taper applies to topology fat_tree, not crossbar");
  expect_refused("platform --topology fat_tree --nodes 1000",
                 "collsim: nodes 1000 is not k^2 for a whole k: give down (children per switch at each level, e.g. "
                 "32,32)");
  expect_refused("platform --nodes 4 -o", "collsim: option -o needs a value (FILE)");
  expect_refused("platform --nodes 1 --protocol-option shm/bogus:1",
                 "collsim: protocol option 'shm/bogus:1': unknown key for the shm profile (eager_limit, send_overhead, "
                 "recv_overhead, get_overhead, sync_overhead, yield_overhead, inline_limit)");
  expect_refused("platform --nodes 1 --copy-overhead -5ns",
                 "collsim: --copy-overhead: '-5ns' is not a time (e.g. 10us, 1.5ms, 2e-6; a bare number is seconds)");
  expect_refused("platform --nodes 1 --protocol-option shm/sync_overhead:soon",
                 "collsim: protocol option 'shm/sync_overhead:soon': 'soon' is not a time of 0 or more (e.g. 1.5us)");
  expect_refused("platform --colour blue", "collsim: unknown option --colour (see --help)");
  expect_bad_input("platform --nodes 4 -o /nonexistent/dir/x.xml", "/nonexistent/dir/x.xml: cannot open for writing");
}

}  // namespace
}  // namespace collsim_test
