// Clusters from a few parameters: a ClusterSpec (nodes, sockets and cores, NIC links, loopback,
// memory copies, and a network: one switch, a fat-tree, a torus or a dragonfly), written out as
// a SimGrid platform that states its own parameters. `collsim platform` and a scenario's inline
// platform both read their parameters through set_parameter, whose table (platform_parameters)
// is the one place that names, parses, documents and defaults them.
//
// The network is one SimGrid <cluster> (platform version 4.1); facts of SimGrid 3.32's cluster
// topologies, checked by loading generated files (tests/engines/sim/generated_platform_test.cpp):
//  - Every link of the network has the same bandwidth and latency (`bandwidth`, `latency`) and
//    is split-duplex: each direction is its own link, shared max-min by the flows crossing it.
//    A route crosses a number of links that depends on the topology and on the two nodes; its
//    one-way latency on an idle network is (links crossed) x latency under CM02 (the default
//    model here; LV08 multiplies it by 13.01), its bandwidth `bandwidth`.
//  - crossbar: a <cluster> without backbone (like platforms/grisou.xml): each node has a private
//    link to one ideal switch; every route between two nodes crosses 2 links (sender's up,
//    receiver's down).
//  - fat_tree: topology="FAT_TREE", topo_parameters "h;m_1,...,m_h;w_1,...,w_h;p_1,...,p_h"
//    (h switch levels; m_i: children of a level-i switch; w_i: parents of a level-(i-1) node;
//    p_i: parallel links between a level-i switch and each child). Nodes = m_1 x ... x m_h,
//    numbered so that consecutive nodes share a leaf switch. A route goes up to the lowest common
//    ancestor switch, choosing the parent by destination mod k (D-mod-K), and down: 2 links
//    between nodes of one leaf switch, 2l links when the common ancestor is at level l. No
//    separate NIC link: a node's link to its leaf switch is its NIC.
//  - torus: topology="TORUS", topo_parameters "d_1,d_2,...": nodes = product, each node linked to
//    its next neighbour in each dimension (wrapping around); routes go dimension by dimension,
//    the shorter way round, one link per hop: 1 link between neighbours, sum(floor(d_i / 2)) at
//    most. A node is its own router (no NIC link): it can send on its 2 x (dimensions) links at
//    once.
//  - dragonfly: topology="DRAGONFLY", topo_parameters "g,blue;c,black;r,green;n": g groups, c
//    chassis per group, r routers per chassis, n nodes per router; nodes numbered router by
//    router. Routers of a chassis are all-to-all (green links), routers of the same rank in the
//    chassis of a group all-to-all (black), groups all-to-all (blue, from router g' of chassis 0
//    to group g', so SimGrid needs g <= r). Each of these is one link of (count) x bandwidth
//    (SimGrid merges parallel links); node-router links have bandwidth. Minimal static routes:
//    2 links within a router, 3 within a chassis or between same-rank routers of a group, at most
//    4 in a group and 7 between groups (node, green, black, blue, green, black, node).
//  - Every node has a loopback link (loopback_bandwidth, loopback_latency), the route between
//    two ranks of one node: 1 link.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace collsim {

enum class Topology { crossbar, fat_tree, torus, dragonfly };

// Defaults are Grisou's (platforms/grisou.xml; a generated 51-node crossbar simulates exactly as
// that file does), so a what-if changes only what it studies.
struct ClusterSpec {
  Topology topology = Topology::crossbar;
  // Nodes; 0 = derived from the topology's dimensions (check() fills it in).
  long long nodes = 0;
  int sockets = 2;
  int cores = 8;              // per socket
  double speed = 38.4e9;      // flop/s per core
  double bandwidth = 1.25e9;  // bytes/s per link and direction
  double latency = 10e-6;     // s per link
  double loopback_bandwidth = 3e9;
  double loopback_latency = 5e-6;
  double memcpy = 5e9;       // bytes/s of a local copy by one core
  double copy_overhead = 0;  // s per local copy besides its bytes (host property collsim/copy_overhead)
  // The node model of shm copies (node_model.hpp), Haswell-EP's figures (platforms/README.md):
  // bytes copied per second by a socket's cores together, and between two sockets.
  double memory_bandwidth = 22e9;
  double inter_socket_bandwidth = 16e9;  // each direction
  double inter_socket_latency = 200e-9;
  // Levels inside a socket (node_model.hpp); 0 = none, and then they are not stated.
  int core_group = 0;    // cores per core group
  int numa_domains = 0;  // per socket
  double core_group_latency = 0;
  double core_group_bandwidth = 0;  // 0 = not limited
  double numa_latency = 0;
  double numa_memory_bandwidth = 0;  // 0 = memory_bandwidth / numa_domains
  // Fresh data (node_model.hpp): copies of what a rank has just received; 0 = not modelled.
  double fresh_copy_bandwidth = 0;
  double inter_socket_fresh_copy_bandwidth = 0;
  double private_cache = 0;          // bytes; 0 = no bound
  double source_read_bandwidth = 0;  // bytes/s the single copies reading one rank share; 0 = not limited
  // The node's cache as its copies see it (copy_cache.hpp): its bytes, and the rate of a copy of
  // lines not in it; 0 = none (both or neither).
  double shared_cache = 0;
  double uncached_copy_bandwidth = 0;
  std::string protocol = "tcp";
  // Protocol parameters stated by the platform, "PROFILE/KEY:VALUE" as --protocol-option takes
  // them (protocol.hpp), written as collsim/PROFILE/KEY host properties: e.g. the overhead tables
  // `collsim calibrate --from-osu` fits.
  std::vector<std::string> protocol_options;
  std::string network_model = "CM02";
  bool crosstraffic = false;

  // fat_tree: `levels` switch levels with `down` children per switch (one value: every level),
  // `taper` = down / up bandwidth of a leaf switch (levels above are non-blocking); or SimGrid's
  // raw topo_parameters in `fat_tree` instead of those three. 0 / empty = not given.
  int levels = 0;
  std::vector<long long> down;
  double taper = 0;
  std::string fat_tree;
  // torus
  std::vector<long long> dims;
  // dragonfly (0 = not given), link counts per pair of routers or groups; or the raw string.
  long long groups = 0, chassis = 0, routers = 0, nodes_per_router = 0;
  long long blue_links = 1, black_links = 1, green_links = 1;
  std::string dragonfly;
};

// One parameter: its name (a scenario key; the command-line option is the name with '-' for
// '_'), the form of its value, what it means and its default.
struct PlatformParameter {
  std::string_view name;
  std::string_view value;  // "BANDWIDTH", "N", "LIST"...
  std::string_view help;
  std::string_view fallback;  // the default, as text ("" = none / derived)
};
const std::vector<PlatformParameter>& platform_parameters();

// Sets parameter `name` ('-' and '_' alike) from its text. Units: bandwidths as SimGrid writes
// them ("1.25GBps", "10Gbps", "25GbE" = 25 Gbit/s line rate; a bare number is bytes/s), times
// "10us", "1.5ms", "2e-6" (bare: seconds), speeds "38.4Gf" (bare: flop/s), lists "8,8,16".
// Throws InputError "NAME: '<value>' is not ... (e.g. ...)".
void set_parameter(ClusterSpec& spec, std::string_view name, std::string_view value);

// Checks that the parameters fit together and derives what they leave open: the node count from
// the topology's dimensions, a fat-tree's down ports from the node count (nodes = k^levels), one
// missing dragonfly dimension. Throws InputError naming the parameters in conflict.
void check(ClusterSpec& spec);

// SimGrid's topo_parameters for the spec ("" for a crossbar). After check().
std::string topo_parameters(const ClusterSpec& spec);

// What the network offers, from the topology's closed forms (after check()).
struct NetworkFacts {
  long long nearest_links = 0;   // links of the shortest route between two distinct nodes
  long long farthest_links = 0;  // of the longest
  double bisection = 0;          // bytes/s each way across the worst halving cut; 0 = not computed
};
NetworkFacts network_facts(const ClusterSpec& spec);

// The SimGrid platform XML, with a comment block and <prop id="collsim/..."> entries stating every
// parameter. `command` (optional) is quoted in the comment as the way to regenerate the file.
// Calls check() on a copy, and check_platform_text (platform_file.hpp) on the result.
std::string platform_xml(const ClusterSpec& spec, const std::string& command = "");

// A paragraph for people: nodes, ranks, latency and bandwidth between two nodes, bisection.
std::string describe_platform(const ClusterSpec& spec);

std::string topology_name(Topology t);

}  // namespace collsim
