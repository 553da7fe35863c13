// Generated platforms without SimGrid: parameters, their one-line errors, what check() derives,
// and the file stating its parameters. (Loading by SimGrid and simulated times:
// tests/engines/sim/generated_platform_test.cpp.)
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <string>

#include "engines/sim/generated_platform.hpp"
#include "support/input_error.hpp"

namespace collsim {
namespace {

ClusterSpec spec_of(std::initializer_list<std::pair<const char*, const char*>> parameters) {
  ClusterSpec s;
  for (const auto& [name, value] : parameters) set_parameter(s, name, value);
  return s;
}

// The one-line message of the InputError that `f` throws.
template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string set_error(const char* name, const char* value) {
  return error_of([&] {
    ClusterSpec s;
    set_parameter(s, name, value);
  });
}

std::string check_error(std::initializer_list<std::pair<const char*, const char*>> parameters) {
  return error_of([&] {
    ClusterSpec s = spec_of(parameters);
    check(s);
  });
}

TEST(GeneratedPlatform, ParsesUnits) {
  ClusterSpec s = spec_of({{"bandwidth", "10Gbps"},
                           {"latency", "2us"},
                           {"loopback_bandwidth", "25GbE"},
                           {"loopback-latency", "1.5e-6"},
                           {"memcpy", "6GBps"},
                           {"speed", "2.5Gf"}});
  EXPECT_DOUBLE_EQ(s.bandwidth, 1.25e9);
  EXPECT_DOUBLE_EQ(s.latency, 2e-6);
  EXPECT_DOUBLE_EQ(s.loopback_bandwidth, 25e9 / 8);
  EXPECT_DOUBLE_EQ(s.loopback_latency, 1.5e-6);
  EXPECT_DOUBLE_EQ(s.memcpy, 6e9);
  EXPECT_DOUBLE_EQ(s.speed, 2.5e9);
  s = spec_of({{"topology", "fat-tree"}, {"down", "8,8,16"}, {"taper", "4:1"}});
  EXPECT_EQ(s.topology, Topology::fat_tree);
  EXPECT_EQ(s.down, (std::vector<long long>{8, 8, 16}));
  EXPECT_DOUBLE_EQ(s.taper, 4);
  s = spec_of({{"taper", "3:2"}, {"dims", "8x8x4"}, {"crosstraffic", "yes"}});
  EXPECT_DOUBLE_EQ(s.taper, 1.5);
  EXPECT_EQ(s.dims, (std::vector<long long>{8, 8, 4}));
  EXPECT_TRUE(s.crosstraffic);
}

TEST(GeneratedPlatform, BadValuesNameTheParameter) {
  EXPECT_EQ(set_error("bandwidth", "fast"),
            "bandwidth: 'fast' is not a bandwidth (e.g. 1.25GBps, 10Gbps, 25GbE; a bare number is bytes/s)");
  EXPECT_EQ(set_error("latency", "-1us"),
            "latency: '-1us' is not a time (e.g. 10us, 1.5ms, 2e-6; a bare number is seconds)");
  EXPECT_EQ(set_error("latency", "10 parsecs"),
            "latency: '10 parsecs' is not a time (e.g. 10us, 1.5ms, 2e-6; a bare number is seconds)");
  EXPECT_EQ(set_error("nodes", "0"), "nodes: '0' is not a whole number from 1 to 4194304");
  EXPECT_EQ(set_error("nodes-per-router", "two"), "nodes-per-router: 'two' is not a whole number from 1 to 4194304");
  EXPECT_EQ(set_error("dims", "4,,4"), "dims: '4,,4' is not a list of whole numbers from 1 to 4194304 (e.g. 8,8,16)");
  EXPECT_EQ(set_error("taper", "1:0"), "taper: '1:0' is not an oversubscription ratio (e.g. 1:1, 4:1 or 4)");
  EXPECT_EQ(set_error("topology", "mesh"),
            "topology: 'mesh' is not a topology (crossbar, fat_tree, torus or dragonfly)");
  EXPECT_EQ(set_error("protocol", "udp"), "protocol: 'udp' is not a protocol (ideal, tcp, tcp+shm, ucx)");
  EXPECT_EQ(set_error("network_model", "ns3"),
            "network_model: 'ns3' is not a SimGrid network model (CM02, LV08, SMPI or IB)");
  EXPECT_EQ(set_error("fat_tree", "2;4,4;1,4"),
            "fat_tree: '2;4,4;1,4' is not a fat-tree description h;m_1,..,m_h;w_1,..,w_h;p_1,..,p_h (e.g. "
            "2;16,16;1,16;1,1)");
  EXPECT_EQ(set_error("dragonfly", "4,1;2,1;4,1"),
            "dragonfly: '4,1;2,1;4,1' is not a dragonfly description g,blue;c,black;r,green;n (e.g. 4,1;2,1;4,1;2)");
  const std::string unknown = set_error("colour", "blue");
  EXPECT_EQ(unknown.rfind("colour: not a platform parameter (topology, nodes, ", 0), 0u) << unknown;
  for (const std::string& e : {set_error("speed", "fast"), unknown}) EXPECT_EQ(e.find('\n'), std::string::npos) << e;
}

TEST(GeneratedPlatform, CheckDerivesWhatIsLeftOpen) {
  ClusterSpec s = spec_of({{"topology", "fat_tree"}, {"nodes", "1024"}});
  check(s);
  EXPECT_EQ(s.levels, 2);
  EXPECT_EQ(s.down, (std::vector<long long>{32, 32}));
  EXPECT_EQ(topo_parameters(s), "2;32,32;1,32;1,1");
  s = spec_of({{"topology", "fat_tree"}, {"nodes", "1024"}, {"taper", "4:1"}});
  check(s);
  EXPECT_EQ(topo_parameters(s), "2;32,32;1,8;1,1");  // 8 up links per leaf switch of 32 nodes
  s = spec_of({{"topology", "fat_tree"}, {"down", "4"}, {"levels", "3"}, {"taper", "2"}});
  check(s);
  EXPECT_EQ(s.nodes, 64);
  EXPECT_EQ(topo_parameters(s), "3;4,4,4;1,2,4;1,1,1");  // non-blocking above the leaf switches
  s = spec_of({{"topology", "fat_tree"}, {"fat_tree", "2;4,4;1,2;1,1"}});
  check(s);
  EXPECT_EQ(s.nodes, 16);
  EXPECT_EQ(topo_parameters(s), "2;4,4;1,2;1,1");
  s = spec_of({{"topology", "torus"}, {"dims", "8,8,4"}});
  check(s);
  EXPECT_EQ(s.nodes, 256);
  EXPECT_EQ(topo_parameters(s), "8,8,4");
  s = spec_of({{"topology", "dragonfly"}, {"nodes", "512"}, {"groups", "4"}, {"chassis", "4"}, {"routers", "8"}});
  check(s);
  EXPECT_EQ(s.nodes_per_router, 4);
  EXPECT_EQ(topo_parameters(s), "4,1;4,1;8,1;4");
  s = spec_of({{"topology", "dragonfly"}, {"dragonfly", "3,2;2,3;4,5;2"}});
  check(s);
  EXPECT_EQ(s.nodes, 48);
  EXPECT_EQ(topo_parameters(s), "3,2;2,3;4,5;2");
}

TEST(GeneratedPlatform, CheckNamesTheConflict) {
  EXPECT_EQ(check_error({}), "a crossbar needs nodes");
  EXPECT_EQ(check_error({{"nodes", "16"}, {"taper", "4"}}), "taper applies to topology fat_tree, not crossbar");
  EXPECT_EQ(check_error({{"topology", "torus"}, {"nodes", "16"}}),
            "a torus needs dims (the size of each dimension, e.g. 8,8,8)");
  EXPECT_EQ(check_error({{"topology", "torus"}, {"nodes", "100"}, {"dims", "4,4"}}),
            "nodes 100 does not match dims '4,4' (16 nodes)");
  EXPECT_EQ(check_error({{"topology", "fat_tree"}, {"nodes", "1000"}}),
            "nodes 1000 is not k^2 for a whole k: give down (children per switch at each level, e.g. 32,32)");
  EXPECT_EQ(check_error({{"topology", "fat_tree"}, {"down", "16,16"}, {"taper", "3"}}),
            "taper 3:1 does not divide the 16 down ports of a leaf switch into a whole number of up links");
  EXPECT_EQ(check_error({{"topology", "fat_tree"}, {"down", "16,16"}, {"levels", "3"}}),
            "levels 3 does not match down '16,16' (2 levels)");
  EXPECT_EQ(check_error({{"topology", "fat_tree"}, {"fat_tree", "2;4,4;1,2;1,1"}, {"taper", "2"}}),
            "fat_tree gives the whole fat-tree: levels, down and taper cannot be given too");
  EXPECT_EQ(check_error({{"topology", "dragonfly"}, {"groups", "4"}, {"routers", "4"}}),
            "a dragonfly needs groups, chassis, routers and nodes_per_router (or nodes and three of them)");
  EXPECT_EQ(
      check_error({{"topology", "dragonfly"}, {"nodes", "100"}, {"groups", "4"}, {"chassis", "2"}, {"routers", "4"}}),
      "nodes 100 is not a multiple of the other dragonfly dimensions (32): nodes_per_router cannot be derived");
  EXPECT_EQ(check_error({{"topology", "dragonfly"}, {"dragonfly", "3,1;2,1;2,1;2"}}),
            "groups 3 exceeds routers 2: SimGrid's dragonfly links group g through router g of a chassis, so groups "
            "<= routers");
}

TEST(GeneratedPlatform, NetworkFacts) {
  ClusterSpec s = spec_of({{"nodes", "51"}});
  check(s);
  NetworkFacts f = network_facts(s);
  EXPECT_EQ(f.nearest_links, 2);
  EXPECT_EQ(f.farthest_links, 2);
  EXPECT_DOUBLE_EQ(f.bisection, 25 * 1.25e9);
  s = spec_of({{"topology", "fat_tree"}, {"nodes", "1024"}, {"taper", "4"}});
  check(s);
  f = network_facts(s);
  EXPECT_EQ(f.nearest_links, 2);
  EXPECT_EQ(f.farthest_links, 4);
  EXPECT_DOUBLE_EQ(f.bisection, 128 * 1.25e9);  // 256 up links out of the leaf switches, half each way
  s = spec_of({{"topology", "torus"}, {"dims", "8,8,4"}});
  check(s);
  f = network_facts(s);
  EXPECT_EQ(f.nearest_links, 1);
  EXPECT_EQ(f.farthest_links, 4 + 4 + 2);
  EXPECT_DOUBLE_EQ(f.bisection, 2 * 32 * 1.25e9);
  s = spec_of({{"topology", "dragonfly"}, {"dragonfly", "4,2;2,1;4,1;2"}});
  check(s);
  f = network_facts(s);
  EXPECT_EQ(f.nearest_links, 2);
  EXPECT_EQ(f.farthest_links, 7);
  EXPECT_DOUBLE_EQ(f.bisection, 2 * 2 * 2 * 1.25e9);
}

// Every parameter the file states, read back through set_parameter, gives the same file: the file
// says what it is.
std::map<std::string, std::string> stated(const std::string& xml) {
  std::map<std::string, std::string> out;
  const std::regex prop("<prop id=\"collsim/([a-z_]+)\" value=\"([^\"]*)\"/>");
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), prop); it != std::sregex_iterator(); ++it)
    out[(*it)[1]] = (*it)[2];
  return out;
}

TEST(GeneratedPlatform, TheFileStatesEveryParameter) {
  const std::vector<ClusterSpec> specs = {
      spec_of({{"nodes", "51"}, {"bandwidth", "25GbE"}, {"latency", "2.5us"}, {"sockets", "1"}, {"cores", "18"}}),
      spec_of({{"topology", "fat_tree"}, {"nodes", "1024"}, {"taper", "4:1"}, {"protocol", "ideal"}}),
      spec_of({{"topology", "fat_tree"}, {"fat_tree", "2;4,4;1,2;1,2"}}),
      spec_of({{"topology", "torus"}, {"dims", "4,4,2"}, {"network_model", "LV08"}, {"crosstraffic", "1"}}),
      spec_of({{"topology", "dragonfly"},
               {"groups", "2"},
               {"chassis", "2"},
               {"routers", "2"},
               {"nodes", "16"},
               {"blue_links", "3"}}),
  };
  for (const ClusterSpec& spec : specs) {
    const std::string xml = platform_xml(spec);
    const auto props = stated(xml);
    ClusterSpec again;
    for (const auto& [name, value] : props)
      if (name != "topo_parameters") set_parameter(again, name, value);
    EXPECT_EQ(platform_xml(again), xml);
    EXPECT_EQ(xml.find("--", xml.find("<!--") + 4), xml.find("-->")) << "a comment must not hold --";
    EXPECT_NE(xml.find("<prop id=\"memcpy_bw\""), std::string::npos);
    for (const char* key : {"topology", "nodes", "bandwidth", "latency", "sockets", "cores", "protocol"})
      EXPECT_EQ(props.count(key), 1u) << key << " in\n" << xml;
  }
  const std::string xml = platform_xml(specs[1], "collsim platform --topology fat_tree --nodes 1024 --taper 4:1");
  EXPECT_NE(xml.find("topology=\"FAT_TREE\" topo_parameters=\"2;32,32;1,8;1,1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("radical=\"0-1023\""), std::string::npos);
  EXPECT_NE(xml.find("core=\"16\""), std::string::npos);
  EXPECT_NE(xml.find("bw=\"1.25GBps\" lat=\"10us\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<prop id=\"collsim/command\" value=\"collsim platform --topology fat_tree --nodes 1024 --taper "
                     "4:1\"/>"),
            std::string::npos);
  EXPECT_NE(xml.find("<prop id=\"collsim/taper\" value=\"4:1\"/>"), std::string::npos);
}

TEST(GeneratedPlatform, TheTableDocumentsEveryParameter) {
  for (const auto& p : platform_parameters()) {
    EXPECT_FALSE(p.help.empty()) << p.name;
    EXPECT_FALSE(p.value.empty()) << p.name;
    // A default given as text is a value the parameter accepts.
    ClusterSpec s;
    const bool a_value = !p.fallback.empty() && p.fallback.find_first_of(" ,") == std::string_view::npos;
    if (a_value) {
      EXPECT_NO_THROW(set_parameter(s, p.name, p.fallback)) << p.name;
    }
  }
}

}  // namespace
}  // namespace collsim
