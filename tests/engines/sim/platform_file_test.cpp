// The check of platform files before SimGrid reads them (engines/sim/platform_file.hpp): each
// bad file is refused with its exact one-line message at FILE:LINE:COLUMN, and every platform
// of the repository, generated ones and SimGrid's tolerances (-- in comments, a unit-less 0)
// pass.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "engines/sim/generated_platform.hpp"
#include "engines/sim/platform_file.hpp"

namespace collsim {
namespace {

namespace fs = std::filesystem;

// The lines every test platform starts with; what follows is line 4.
const std::string kHead =
    "<?xml version='1.0'?>\n"
    "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
    "<platform version=\"4.1\">\n";

// A platform whose line 4 is one cluster with `attributes` after its id, and `inside` in it.
std::string cluster(const std::string& attributes, const std::string& inside = "") {
  return kHead + "  <cluster id=\"c\" prefix=\"n-\" suffix=\"\" radical=\"0-3\" " + attributes +
         (inside.empty() ? "/>\n" : ">\n    " + inside + "\n  </cluster>\n") + "</platform>\n";
}
const std::string kCluster = "speed=\"1Gf\" bw=\"1GBps\" lat=\"5us\"";

// A platform whose line 4 opens a Full zone holding `body`.
std::string zone(const std::string& body, const std::string& routing = "Full") {
  return kHead + "  <zone id=\"z\" routing=\"" + routing + "\">\n" + body + "  </zone>\n</platform>\n";
}

// The refusal of `xml` (named p.xml), "" when it passes.
std::string refusal(const std::string& xml) {
  try {
    check_platform_text("p.xml", xml);
    return "";
  } catch (const PlatformError& e) {
    return e.what();
  }
}

TEST(PlatformFile, ValuesSimGridCannotSimulate) {
  EXPECT_EQ(refusal(cluster("speed=\"1Gf\" bw=\"0GBps\" lat=\"5us\"")),
            "p.xml:4:3: <cluster> bw '0GBps' must be more than 0");
  EXPECT_EQ(refusal(cluster("speed=\"0f\" bw=\"1GBps\" lat=\"5us\"")),
            "p.xml:4:3: <cluster> speed '0f' must be more than 0");
  EXPECT_EQ(refusal(cluster("speed=\"1Gf\" bw=\"1GBps\" lat=\"-5us\"")),
            "p.xml:4:3: <cluster> lat '-5us' must not be negative");
  EXPECT_EQ(refusal(cluster(kCluster + " loopback_bw=\"0Bps\" loopback_lat=\"1us\"")),
            "p.xml:4:3: <cluster> loopback_bw '0Bps' must be more than 0");
  EXPECT_EQ(refusal(cluster("speed=\"1Gf,0f\" bw=\"1GBps\" lat=\"5us\"")),
            "p.xml:4:3: <cluster> speed '1Gf,0f' must be more than 0");
  EXPECT_EQ(refusal(cluster("speed=\"1Gf\" bw=\"1e999GBps\" lat=\"5us\"")),
            "p.xml:4:3: <cluster> bw '1e999GBps' is out of range");
  EXPECT_EQ(refusal(cluster("speed=\"1Gf\" bw=\"nanGBps\" lat=\"5us\"")),
            "p.xml:4:3: <cluster> bw 'nanGBps' is not finite");
  EXPECT_EQ(refusal(cluster("speed=\"1Gf\" bw=\"1Gbits\" lat=\"5us\"")),
            "p.xml:4:3: <cluster> bw '1Gbits' is not a bandwidth (e.g. 1.25GBps, 10Gbps)");
  // SimGrid takes a unit-less value with a warning, in its base unit.
  EXPECT_EQ(refusal(cluster("speed=\"1Gf\" bw=\"1GBps\" lat=\"0.1\"")),
            "p.xml:4:3: <cluster> lat '0.1' has no unit (add s for seconds)");
  EXPECT_EQ(refusal(cluster("speed=\"1Gf\" bw=\"1GBps\" lat=\"inf\"")),
            "p.xml:4:3: <cluster> lat 'inf' is not a finite number");
  EXPECT_EQ(refusal(cluster(kCluster + " core=\"0\"")),
            "p.xml:4:3: <cluster> core '0' is not a whole number from 1 to 2147483647");
  EXPECT_EQ(
      refusal(zone("    <host id=\"a\" speed=\"1Gf\"/>\n    <link id=\"l\" bandwidth=\"1GBps\" latency=\"-1ms\"/>\n")),
      "p.xml:6:5: <link> latency '-1ms' must not be negative");
  EXPECT_EQ(refusal(zone("    <host id=\"a\" speed=\"1Gf\" pstate=\"1\"/>\n")),
            "p.xml:5:5: <host> pstate '1' is not the index of one of the host's 1 speeds (0 to 0)");
  EXPECT_EQ(refusal(cluster("speed=\"1Gf\" bw=\"1GBps\" lat=\"1e-20s\"")),
            "p.xml:4:3: <cluster> lat '1e-20s' is below 1ns, the resolution of SimGrid's clock: give 0 or 1ns or more");
  EXPECT_EQ(
      refusal(zone("    <peer id=\"p\" speed=\"1Gf\" bw_in=\"1GBps\" bw_out=\"1GBps\" lat=\"1us\"/>\n", "Vivaldi")),
      "p.xml:5:5: <peer> lat '1us': SimGrid takes a peer's latency from its coordinates (the third)");
  // A unit-less 0 is SimGrid's own spelling of nothing.
  EXPECT_EQ(refusal(cluster("speed=\"1Gf\" bw=\"1GBps\" lat=\"0\"")), "");
}

TEST(PlatformFile, VersionsSimGridDoesNotRead) {
  const auto with_version = [](const std::string& attribute) {
    return "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<platform" +
           attribute + ">\n  <cluster id=\"c\" prefix=\"n-\" suffix=\"\" radical=\"0-3\" " + kCluster +
           "/>\n</platform>\n";
  };
  EXPECT_EQ(refusal(with_version(" version=\"3\"")),
            "p.xml:3:1: <platform> version '3' is too old: SimGrid 3.32 reads version 4.1 (simgrid_update_xml p.xml "
            "updates the file)");
  EXPECT_EQ(refusal(with_version(" version=\"4.2\"")),
            "p.xml:3:1: <platform> version '4.2' is newer than version 4.1, the latest SimGrid 3.32 reads");
  EXPECT_EQ(refusal(with_version("")),
            "p.xml:3:1: <platform> has no version: SimGrid reads it as 0.0, too old (the version is 4.1)");
  EXPECT_EQ(refusal(with_version(" version=\"4\"")), "");
}

TEST(PlatformFile, MalformedXmlHasLineAndColumn) {
  EXPECT_EQ(refusal(zone("    <host id=\"a\" speed=\"1Gf\">\n")),
            "p.xml:6:5: malformed XML: mismatched tag (the <host> of line 5 is still open)");
  EXPECT_EQ(refusal(kHead + "  <cluster id=\"c\" prefix=\"h\" suffix=\"\" radical=\"0-3\"\n</platform>\n"),
            "p.xml:5:1: malformed XML: not well-formed (invalid token)");
  EXPECT_EQ(refusal("this is not a platform\n"), "p.xml:1:1: malformed XML: syntax error");
  EXPECT_EQ(refusal(""), "p.xml:1:1: malformed XML: no element found");
  EXPECT_EQ(refusal("<?xml version='1.0'?>\n<platform version=\"4.1\"/>\n"),
            "p.xml:2:1: SimGrid needs the DOCTYPE <!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\"> "
            "before <platform>");
  EXPECT_EQ(refusal("<!DOCTYPE platform SYSTEM \"simgrid.dtd\">\n<platform version=\"4.1\"/>\n"),
            "p.xml:1:1: SimGrid reads only the DOCTYPE <!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">");
  EXPECT_EQ(refusal(zone("    <host id=\"a\" speed=\"1Gf\"/>\n    hello\n")),
            "p.xml:6:5: text inside <zone>, which holds only elements");
}

TEST(PlatformFile, ElementsAndAttributesOfSimGridsFormat) {
  EXPECT_EQ(refusal(zone("    <hots id=\"a\" speed=\"1Gf\"/>\n")),
            "p.xml:5:5: <hots> is not an element of SimGrid platforms");
  EXPECT_EQ(refusal(zone("    <host id=\"a\" speed=\"1Gf\" colour=\"red\"/>\n")),
            "p.xml:5:5: <host> has no attribute colour (it takes id, speed, core, speed_file, availability_file, "
            "state_file, coordinates, pstate)");
  EXPECT_EQ(refusal(zone("    <host id=\"a\"/>\n")), "p.xml:5:5: <host> needs the attribute speed");
  EXPECT_EQ(refusal(cluster(kCluster, "<host id=\"x\" speed=\"1Gf\"/>")),
            "p.xml:5:5: <host> cannot be inside <cluster> (which holds prop)");
  EXPECT_EQ(refusal(cluster(kCluster + " sharing_policy=\"FOO\"")),
            "p.xml:4:3: <cluster> sharing_policy 'FOO' is not one of SHARED, SPLITDUPLEX, FULLDUPLEX, FATPIPE");
  EXPECT_EQ(refusal(zone("    <host id=\"a\" speed=\"1Gf\"/>\n", "Foo")),
            "p.xml:4:3: <zone> routing 'Foo' is not a routing of SimGrid (Full, Floyd, Dijkstra, DijkstraCache, None, "
            "Vivaldi, Cluster, Wifi)");
  EXPECT_EQ(refusal(zone("    <host id=\"a\" speed=\"1Gf\"/>\n", "dijkstracache")), "");
  EXPECT_EQ(refusal(kHead + "  <include file=\"x.xml\"/>\n</platform>\n"),
            "p.xml:4:3: <include> was removed from SimGrid's platforms in SimGrid 3.18");
  EXPECT_EQ(refusal(kHead + "  <zone id=\"z\" routing=\"Full\">\n    <host id=\"a\" speed=\"1Gf\"/>\n  </zone>\n"
                            "  <actor host=\"a\" function=\"f\"/>\n</platform>\n"),
            "p.xml:7:3: <actor> deploys a program: collsim places its own ranks, so a platform for it deploys none");
}

TEST(PlatformFile, HostsAndNames) {
  EXPECT_EQ(refusal(kHead + "  <cluster id=\"c\" prefix=\"n-\" suffix=\"\" radical=\"3-0x\" " + kCluster +
                    "/>\n</platform>\n"),
            "p.xml:4:3: <cluster> radical '3-0x' is not a list of numbers and ranges, none twice (e.g. 0-15 or "
            "1,3,5-8; at most 4194304 hosts)");
  EXPECT_EQ(refusal(kHead + "</platform>\n"), "p.xml:3:1: the platform has no hosts");
  EXPECT_EQ(refusal(kHead + "  <cluster id=\"a\" prefix=\"a-\" suffix=\"\" radical=\"0-3000000\" " + kCluster +
                    "/>\n  <cluster id=\"b\" prefix=\"b-\" suffix=\"\" radical=\"0-3000000\" " + kCluster +
                    "/>\n</platform>\n"),
            "p.xml:5:3: the platform has more than 4194304 hosts");
  EXPECT_EQ(refusal(zone("    <host id=\"a\" speed=\"1Gf\"/>\n    <host id=\"a\" speed=\"1Gf\"/>\n")),
            "p.xml:6:5: the name 'a' is already taken (line 5)");
  EXPECT_EQ(refusal(zone("    <host id=\"a\" speed=\"1Gf\"/>\n    <route src=\"a\" dst=\"q\"/>\n")),
            "p.xml:6:5: <route> dst 'q' names no host, router or zone defined before it");
  // SimGrid reads a file in order.
  EXPECT_EQ(refusal(zone("    <host id=\"a\" speed=\"1Gf\"/>\n    <route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/>"
                         "</route>\n    <host id=\"b\" speed=\"1Gf\"/>\n    <link id=\"l\" bandwidth=\"1GBps\" "
                         "latency=\"1us\"/>\n")),
            "p.xml:6:5: <route> dst 'b' names no host, router or zone defined before it");
  EXPECT_EQ(refusal(zone("    <host id=\"a\" speed=\"1Gf\"/>\n    <route src=\"a\" dst=\"a\"><link_ctn id=\"l\"/>"
                         "</route>\n")),
            "p.xml:6:28: <link_ctn> id 'l' names no link defined before it");
  EXPECT_EQ(refusal(zone("    <host id=\"a\" speed=\"1Gf\"/>\n    <host id=\"b\" speed=\"1Gf\"/>\n"
                         "    <link id=\"l\" bandwidth=\"1GBps\" latency=\"1us\"/>\n"
                         "    <route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></route>\n"
                         "    <route src=\"b\" dst=\"a\"><link_ctn id=\"l\"/></route>\n")),
            "p.xml:9:5: the route between b and a is given twice (line 8; a route goes both ways unless "
            "symmetrical=\"NO\")");
  EXPECT_EQ(refusal(zone("    <host id=\"a\" speed=\"1Gf\"/>\n    <host id=\"b\" speed=\"1Gf\"/>\n"
                         "    <link id=\"l\" bandwidth=\"1GBps\" latency=\"1us\"/>\n"
                         "    <route src=\"a\" dst=\"b\" symmetrical=\"NO\"><link_ctn id=\"l_UP\"/></route>\n"
                         "    <route src=\"b\" dst=\"a\" symmetrical=\"NO\"><link_ctn id=\"l\"/></route>\n")),
            "");
  EXPECT_EQ(refusal(cluster(kCluster + " topology=\"TORUS\" topo_parameters=\"2,x\"")),
            "p.xml:4:3: <cluster> topo_parameters of its TORUS topology: dims: '2,x' is not a list of whole numbers "
            "from 1 to 4194304 (e.g. 8,8,16)");
  EXPECT_EQ(refusal(cluster(kCluster + " topology=\"TORUS\" topo_parameters=\"2,3\"")),
            "p.xml:4:3: <cluster> radical '0-3' gives 4 hosts, but its TORUS topology has 6");
  EXPECT_EQ(refusal(cluster(kCluster + " topology=\"DRAGONFLY\" topo_parameters=\"2,1;1,1;1,1;2\"")),
            "p.xml:4:3: <cluster> topo_parameters of its DRAGONFLY topology: groups 2 exceeds routers 1: SimGrid's "
            "dragonfly links group g through router g of a chassis, so groups <= routers");
}

TEST(PlatformFile, CollsimHostProperties) {
  EXPECT_EQ(refusal(cluster(kCluster, "<prop id=\"memcpy_bw\" value=\"-1GBps\"/>")),
            "p.xml:5:5: <prop id=\"memcpy_bw\"> value '-1GBps' is not a bandwidth (e.g. 6GBps; a bare number is "
            "bytes/s)");
  EXPECT_EQ(refusal(cluster(kCluster, "<prop id=\"collsim/memory_bandwidth\" value=\"fast\"/>")),
            "p.xml:5:5: <prop id=\"collsim/memory_bandwidth\"> value 'fast' is not a bandwidth (e.g. 6GBps; a bare "
            "number is bytes/s)");
  EXPECT_EQ(refusal(cluster(kCluster, "<prop id=\"collsim/inter_socket_bandwidth\" value=\"0GBps\"/>")),
            "p.xml:5:5: <prop id=\"collsim/inter_socket_bandwidth\"> value '0GBps' is not a bandwidth (e.g. 6GBps; a "
            "bare number is bytes/s)");
  EXPECT_EQ(refusal(cluster(kCluster, "<prop id=\"collsim/inter_socket_latency\" value=\"-2us\"/>")),
            "p.xml:5:5: <prop id=\"collsim/inter_socket_latency\"> value '-2us' is not a time (e.g. 100ns; a bare "
            "number is seconds)");
  // Fresh data: a bandwidth, or 0 for none; the private cache a size.
  EXPECT_EQ(refusal(cluster(kCluster, "<prop id=\"collsim/fresh_copy_bandwidth\" value=\"-1GBps\"/>")),
            "p.xml:5:5: <prop id=\"collsim/fresh_copy_bandwidth\"> value '-1GBps' is not a bandwidth (e.g. 6GBps; 0: "
            "not modelled)");
  EXPECT_EQ(refusal(cluster(kCluster, "<prop id=\"collsim/inter_socket_fresh_copy_bandwidth\" value=\"x\"/>")),
            "p.xml:5:5: <prop id=\"collsim/inter_socket_fresh_copy_bandwidth\"> value 'x' is not a bandwidth (e.g. "
            "6GBps; 0: not modelled)");
  EXPECT_EQ(refusal(cluster(kCluster, "<prop id=\"collsim/private_cache\" value=\"1MB/s\"/>")),
            "p.xml:5:5: <prop id=\"collsim/private_cache\"> value '1MB/s' is not a size (e.g. 1MiB; 0: no bound)");
  EXPECT_EQ(refusal(cluster(kCluster, "<prop id=\"collsim/fresh_copy_bandwidth\" value=\"0\"/>")), "");
  // What the readers of one rank's memory share: a bandwidth, or 0 for no limit.
  EXPECT_EQ(
      refusal(cluster(kCluster, "<prop id=\"collsim/source_read_bandwidth\" value=\"fast\"/>")),
      "p.xml:5:5: <prop id=\"collsim/source_read_bandwidth\"> value 'fast' is not a bandwidth (e.g. 6GBps; 0: not "
      "modelled)");
  EXPECT_EQ(refusal(cluster(kCluster, "<prop id=\"collsim/source_read_bandwidth\" value=\"0\"/>")), "");
  EXPECT_EQ(refusal(cluster(kCluster + " core=\"16\"", "<prop id=\"collsim/sockets\" value=\"3\"/>")),
            "p.xml:5:5: <prop id=\"collsim/sockets\"> value '3' does not divide the 16 cores of the <cluster>");
  EXPECT_EQ(refusal(cluster(kCluster, "<prop id=\"collsim/sockets\" value=\"0\"/>")),
            "p.xml:5:5: <prop id=\"collsim/sockets\"> value '0' does not divide the 1 core of the <cluster>");
  // Levels inside a socket: after collsim/sockets, dividing a socket's (or NUMA domain's) cores.
  EXPECT_EQ(refusal(cluster(kCluster + " core=\"16\"", "<prop id=\"collsim/core_group\" value=\"4\"/>")),
            "p.xml:5:5: <prop id=\"collsim/core_group\"> needs collsim/sockets stated before it in the <cluster>");
  EXPECT_EQ(refusal(cluster(kCluster + " core=\"16\"",
                            "<prop id=\"collsim/sockets\" value=\"2\"/>"
                            "<prop id=\"collsim/numa_domains\" value=\"3\"/>")),
            "p.xml:5:43: <prop id=\"collsim/numa_domains\"> value '3' does not divide the 8 cores of a socket");
  EXPECT_EQ(refusal(cluster(kCluster + " core=\"16\"",
                            "<prop id=\"collsim/sockets\" value=\"2\"/>"
                            "<prop id=\"collsim/numa_domains\" value=\"4\"/>"
                            "<prop id=\"collsim/core_group\" value=\"4\"/>")),
            "p.xml:5:86: <prop id=\"collsim/core_group\"> value '4' does not divide the 2 cores of a NUMA domain");
  EXPECT_EQ(refusal(cluster(kCluster, "<prop id=\"collsim/numa_latency\" value=\"soon\"/>")),
            "p.xml:5:5: <prop id=\"collsim/numa_latency\"> value 'soon' is not a time (e.g. 100ns; a bare number is "
            "seconds)");
  EXPECT_EQ(refusal(cluster(kCluster, "<prop id=\"collsim/core_group_bandwidth\" value=\"wide\"/>")),
            "p.xml:5:5: <prop id=\"collsim/core_group_bandwidth\"> value 'wide' is not a bandwidth (e.g. 6GBps; 0: "
            "not modelled)");
  EXPECT_EQ(refusal(cluster(kCluster + " core=\"16\"",
                            "<prop id=\"collsim/sockets\" value=\"2\"/>"
                            "<prop id=\"collsim/numa_domains\" value=\"2\"/>"
                            "<prop id=\"collsim/core_group\" value=\"2\"/>")),
            "");
  EXPECT_EQ(refusal(cluster(kCluster, "<prop id=\"collsim/protocol\" value=\"udp\"/>")),
            "p.xml:5:5: <prop id=\"collsim/protocol\"> value 'udp' is not a protocol (ideal, tcp, tcp+shm, ucx)");
  EXPECT_EQ(refusal(cluster(kCluster, "<prop id=\"collsim/tcp/buffer\" value=\"big\"/>")),
            "p.xml:5:5: <prop id=\"collsim/tcp/buffer\">: 'tcp/buffer:big': 'big' is not a size");
  EXPECT_EQ(refusal(kHead + "  <zone id=\"z\" routing=\"Full\">\n    <prop id=\"memcpy_bw\" value=\"1GBps\"/>\n"
                            "    <host id=\"a\" speed=\"1Gf\"/>\n  </zone>\n</platform>\n"),
            "p.xml:5:5: <prop id=\"memcpy_bw\"> in a <zone> reaches no host: give it in the <cluster> or in each "
            "<host>");
  EXPECT_EQ(refusal(cluster(kCluster + " core=\"16\"",
                            "<prop id=\"collsim/sockets\" value=\"2\"/><prop id=\"collsim/command\" value=\"x\"/>")),
            "");
}

// Registration costs (models/registration.hpp): two times and a page size, refused in one line
// when bad; the first of each that the file states is what the model engine takes.
TEST(PlatformFile, RegistrationProperties) {
  EXPECT_EQ(refusal(cluster(kCluster, "<prop id=\"collsim/registration_call\" value=\"-1us\"/>")),
            "p.xml:5:5: <prop id=\"collsim/registration_call\"> value '-1us' is not a time (e.g. 100ns; a bare "
            "number is seconds)");
  EXPECT_EQ(refusal(cluster(kCluster, "<prop id=\"collsim/registration_page\" value=\"slow\"/>")),
            "p.xml:5:5: <prop id=\"collsim/registration_page\"> value 'slow' is not a time (e.g. 100ns; a bare "
            "number is seconds)");
  EXPECT_EQ(refusal(cluster(kCluster, "<prop id=\"collsim/page_size\" value=\"0\"/>")),
            "p.xml:5:5: <prop id=\"collsim/page_size\"> value '0' is not a page size (e.g. 4KiB or 2MiB)");
  const CheckedPlatform p =
      check_platform_text("p.xml", cluster(kCluster,
                                           "<prop id=\"collsim/registration_call\" value=\"5us\"/>"
                                           "<prop id=\"collsim/page_size\" value=\"2MiB\"/>"));
  EXPECT_EQ(p.registration.call, 5e-6);
  EXPECT_EQ(p.registration.per_page, models::kRegistrationPageS);  // not stated: the default
  EXPECT_EQ(p.registration.page_size, 2u << 20);
}

// A copy's per-call cost (models::copy_time): a time of 0 or more, refused in one line otherwise.
TEST(PlatformFile, CopyOverheadProperty) {
  EXPECT_EQ(refusal(cluster(kCluster, "<prop id=\"collsim/copy_overhead\" value=\"-1ns\"/>")),
            "p.xml:5:5: <prop id=\"collsim/copy_overhead\"> value '-1ns' is not a time (e.g. 100ns; a bare "
            "number is seconds)");
  EXPECT_EQ(refusal(cluster(kCluster, "<prop id=\"collsim/copy_overhead\" value=\"quick\"/>")),
            "p.xml:5:5: <prop id=\"collsim/copy_overhead\"> value 'quick' is not a time (e.g. 100ns; a bare "
            "number is seconds)");
  EXPECT_EQ(refusal(cluster(kCluster, "<prop id=\"collsim/copy_overhead\" value=\"90ns\"/>")), "");
  EXPECT_EQ(refusal(cluster(kCluster, "<prop id=\"collsim/shm/sync_overhead\" value=\"-2us\"/>")),
            "p.xml:5:5: <prop id=\"collsim/shm/sync_overhead\">: 'shm/sync_overhead:-2us': '-2us' is not a time of 0 "
            "or more (e.g. 1.5us)");
}

TEST(PlatformFile, ConfigOptionsAreCollectedWithTheirPlaces) {
  const CheckedPlatform p = check_platform_text(
      "p.xml", kHead +
                   "  <config>\n    <prop id=\"network/model\" value=\"CM02\"/>\n  </config>\n  <cluster id=\"c\" "
                   "prefix=\"n-\" suffix=\"\" radical=\"0-3\" " +
                   kCluster + "/>\n</platform>\n");
  ASSERT_EQ(p.options.size(), 1u);
  EXPECT_EQ(p.options[0].key, "network/model");
  EXPECT_EQ(p.options[0].value, "CM02");
  EXPECT_EQ(p.options[0].place, "p.xml:5:5");
}

TEST(PlatformFile, EveryPlatformOfTheRepositoryAndEveryGeneratedOnePasses) {
  // Their comments hold "--", which XML forbids and SimGrid takes.
  for (const char* file : {"platforms/grisou.xml", "platforms/fat-tree-1024.xml", "platforms/dragonfly-4096.xml",
                           "platforms/test/star16.xml", "validation/testbed/results/1gbit/platform.xml"})
    EXPECT_NO_THROW(check_platform_file(std::string(COLLSIM_SOURCE_DIR) + "/" + file)) << file;
  const std::vector<std::vector<std::pair<const char*, const char*>>> generated = {
      {{"nodes", "8"}},
      {{"topology", "fat_tree"}, {"down", "4,4"}, {"taper", "2"}},
      {{"topology", "torus"}, {"dims", "4,4"}},
      {{"topology", "dragonfly"}, {"dragonfly", "2,1;2,1;2,1;2"}},
  };
  for (const auto& parameters : generated) {
    ClusterSpec s;
    for (const auto& [name, value] : parameters) set_parameter(s, name, value);
    const std::string xml = platform_xml(s);  // which checks it too
    EXPECT_EQ(refusal(xml), "") << xml;
  }
}

TEST(PlatformFile, PlacesOfHostsPropertiesAndLines) {
  const fs::path file = fs::temp_directory_path() / ("collsim-placeof-" + std::to_string(::getpid()) + ".xml");
  std::ofstream(file) << kHead
                      << "  <zone id=\"z\" routing=\"Full\">\n"
                         "    <host id=\"a\" speed=\"1Gf\"><prop id=\"collsim/protocol\" value=\"tcp\"/></host>\n"
                         "    <cluster id=\"c\" prefix=\"n-\" suffix=\".x\" radical=\"0-3,7\" "
                      << kCluster << "/>\n  </zone>\n</platform>\n";
  const std::string f = file.string();
  EXPECT_EQ(place_of_host(f, "a"), f + ":5:5");
  EXPECT_EQ(place_of_host(f, "n-7.x"), f + ":6:5");
  EXPECT_EQ(place_of_host(f, "n-5.x"), f);
  EXPECT_EQ(place_of_host(f, "n-07.x"), f);
  EXPECT_EQ(place_of_property(f, "collsim/protocol"), f + ":5:30");
  EXPECT_EQ(place_of_line(f, 6), f + ":6:5");
  EXPECT_EQ(place_of_line(f, 7), f + ":7:1");
  fs::remove(file);
}

}  // namespace
}  // namespace collsim
