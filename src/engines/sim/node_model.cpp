#include "engines/sim/node_model.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <tuple>
#include <unordered_map>

#include <simgrid/kernel/routing/NetZoneImpl.hpp>

#include "support/units.hpp"

namespace collsim::sim {

namespace s4u = simgrid::s4u;

namespace {
// check_platform_file has checked every one of these properties where it is given.
double rate_property(const s4u::Host& h, const char* key) {
  const char* v = h.get_property(key);
  return v ? parse_rate(v).value_or(0) : 0;
}
double seconds_property(const s4u::Host& h, const char* key) {
  const char* v = h.get_property(key);
  return v ? parse_seconds(v).value_or(0) : 0;
}

// A link no copy is ever limited by, to carry a latency alone.
constexpr double kUnlimited = 1e15;

s4u::Link* make_link(s4u::NetZone* zone, const std::string& name, double bandwidth, double latency) {
  s4u::Link* l = zone->create_link(name, bandwidth);
  l->set_latency(latency);
  return l->seal();
}
}  // namespace

NodeShapeFacts node_facts(const s4u::Host& host) {
  NodeShapeFacts f;
  if (const char* v = host.get_property("collsim/sockets")) f.sockets = std::atoi(v);
  f.memory_bandwidth = rate_property(host, "collsim/memory_bandwidth");
  f.copy_rate = rate_property(host, "memcpy_bw");
  f.inter_socket_bandwidth = rate_property(host, "collsim/inter_socket_bandwidth");
  f.inter_socket_latency = seconds_property(host, "collsim/inter_socket_latency");
  f.fresh_copy_rate = rate_property(host, "collsim/fresh_copy_bandwidth");
  f.inter_socket_fresh_copy_rate = rate_property(host, "collsim/inter_socket_fresh_copy_bandwidth");
  if (const char* v = host.get_property("collsim/private_cache"))
    f.private_cache = static_cast<double>(parse_bytes(v).value_or(0));
  f.source_read_rate = rate_property(host, "collsim/source_read_bandwidth");
  if (const char* v = host.get_property("collsim/core_group")) f.core_group = std::atoi(v);
  if (const char* v = host.get_property("collsim/numa_domains")) f.numa_domains = std::atoi(v);
  f.core_group_latency = seconds_property(host, "collsim/core_group_latency");
  f.core_group_rate = rate_property(host, "collsim/core_group_bandwidth");
  f.numa_latency = seconds_property(host, "collsim/numa_latency");
  f.numa_memory_bandwidth = rate_property(host, "collsim/numa_memory_bandwidth");
  return f;
}

models::RegistrationCost host_registration(const s4u::Host& host) {
  models::RegistrationCost r;
  if (const char* v = host.get_property("collsim/registration_call")) r.call = parse_seconds(v).value_or(r.call);
  if (const char* v = host.get_property("collsim/registration_page"))
    r.per_page = parse_seconds(v).value_or(r.per_page);
  if (const char* v = host.get_property("collsim/page_size")) r.page_size = parse_bytes(v).value_or(r.page_size);
  return r;
}

double NodeModel::fresh_bytes(int owner, double size, double received) const {
  const NodeShapeFacts& f = facts_[static_cast<std::size_t>(owner)];
  const double held = f.private_cache > 0 ? std::min(received, f.private_cache) : received;
  return std::min(size, held);
}

double NodeModel::fresh_slowdown(int copier, int owner) const {
  const NodeShapeFacts& f = facts_[static_cast<std::size_t>(owner)];
  const bool across = socket_[static_cast<std::size_t>(copier)] != socket_[static_cast<std::size_t>(owner)];
  const bool other_unit = !across && unit_[static_cast<std::size_t>(copier)] != unit_[static_cast<std::size_t>(owner)];
  const double fresh =
      across && f.inter_socket_fresh_copy_rate > 0 ? f.inter_socket_fresh_copy_rate : f.fresh_copy_rate;
  if (!(fresh > 0)) return 1;
  // The rate of the idle route: the narrowest of its links (node_model.cpp's routes).
  double idle = f.memory_bandwidth;
  if (f.copy_rate > 0) idle = std::min(idle, f.copy_rate);
  if (across && f.inter_socket_bandwidth > 0) idle = std::min(idle, f.inter_socket_bandwidth);
  if (other_unit && f.core_group > 0 && f.core_group_rate > 0) idle = std::min(idle, f.core_group_rate);
  return std::max(1.0, idle / fresh);
}

NodeModel::NodeModel(const std::vector<Placed>& ranks)
    : endpoints_(ranks.size(), nullptr),
      pages_(ranks.size(), nullptr),
      socket_(ranks.size(), 0),
      unit_(ranks.size(), 0),
      facts_(ranks.size()) {
  std::unordered_map<s4u::Host*, std::vector<int>> on_node;  // ranks by node, in rank order
  std::vector<s4u::Host*> order;                             // nodes in order of their first rank
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    auto& list = on_node[ranks[r].node];
    if (list.empty()) order.push_back(ranks[r].node);
    list.push_back(static_cast<int>(r));
  }
  const s4u::NetZone* root = s4u::Engine::get_instance()->get_netzone_root();
  for (s4u::Host* host : order) {
    const std::vector<int>& here = on_node[host];
    const NodeShapeFacts f = node_facts(*host);
    if (here.size() < 2 || !(f.memory_bandwidth > 0)) continue;
    const std::string name = "collsim-node:" + host->get_name();
    s4u::NetZone* zone = s4u::create_full_zone(name);
    // A zone without a parent takes no models from one: it gets the platform's.
    auto* impl = zone->get_impl();
    const auto* models = root->get_impl();
    impl->set_network_model(models->get_network_model());
    impl->set_cpu_pm_model(models->get_cpu_pm_model());
    impl->set_cpu_vm_model(models->get_cpu_vm_model());
    impl->set_disk_model(models->get_disk_model());
    impl->set_host_model(models->get_host_model());

    const auto sockets = static_cast<std::size_t>(std::max(1, f.sockets));
    // The levels inside a socket (above), as the placement put the rank: its NUMA domain, and its
    // unit, the core group where the host has them, else the NUMA domain.
    const auto domains = static_cast<std::size_t>(f.numa_domains > 0 ? f.numa_domains : 1);
    const auto domain_of = [&](int r) {
      return static_cast<std::size_t>(std::max(0, ranks[static_cast<std::size_t>(r)].numa)) % domains;
    };
    const auto unit_of = [&](int r) {
      if (f.core_group > 0) return ranks[static_cast<std::size_t>(r)].group;
      return f.numa_domains > 0 ? static_cast<int>(domain_of(r)) : 0;
    };
    const double domain_bw = f.numa_domains > 0
                                 ? (f.numa_memory_bandwidth > 0 ? f.numa_memory_bandwidth
                                                                : f.memory_bandwidth / static_cast<double>(domains))
                                 : f.memory_bandwidth;
    std::vector<s4u::Link*> memory(sockets * domains);
    for (std::size_t m = 0; m < memory.size(); ++m)
      memory[m] = make_link(zone,
                            name + ":memory-" + std::to_string(m / domains) +
                                (f.numa_domains > 0 ? "-numa-" + std::to_string(m % domains) : std::string()),
                            domain_bw, 0);
    std::vector<s4u::Link*> across(sockets * sockets, nullptr);
    const double across_bw = f.inter_socket_bandwidth > 0 ? f.inter_socket_bandwidth : kUnlimited;
    const double unit_bw = f.core_group > 0 && f.core_group_rate > 0 ? f.core_group_rate : kUnlimited;
    std::map<std::tuple<std::size_t, int, int>, s4u::Link*> between_units;  // (socket, from, to)
    const auto socket_of = [&](int r) {
      return static_cast<std::size_t>(ranks[static_cast<std::size_t>(r)].socket) % sockets;
    };
    std::vector<s4u::Link*> core(here.size(), nullptr), source(here.size(), nullptr);
    for (std::size_t i = 0; i < here.size(); ++i) {
      const auto r = static_cast<std::size_t>(here[i]);
      const std::string rank = name + ":rank-" + std::to_string(here[i]);
      endpoints_[r] = zone->create_host(rank, 1.0)->seal();
      socket_[r] = static_cast<int>(socket_of(here[i]));
      unit_[r] = unit_of(here[i]);
      facts_[r] = f;
      if (f.copy_rate > 0) core[i] = make_link(zone, rank + ":core", f.copy_rate, 0);
      if (f.source_read_rate > 0) {
        pages_[r] = zone->create_host(rank + ":pages", 1.0)->seal();
        source[i] = make_link(zone, rank + ":read", f.source_read_rate, 0);
      }
    }
    for (std::size_t i = 0; i < here.size(); ++i)
      for (std::size_t j = 0; j < here.size(); ++j) {
        if (i == j) continue;
        const std::size_t a = socket_of(here[i]), b = socket_of(here[j]);
        const std::size_t ma = a * domains + domain_of(here[i]), mb = b * domains + domain_of(here[j]);
        const int ua = unit_of(here[i]), ub = unit_of(here[j]);
        std::vector<s4u::LinkInRoute> links;
        if (core[i]) links.emplace_back(core[i]);
        links.emplace_back(memory[ma]);
        if (a != b) {
          s4u::Link*& link = across[a * sockets + b];
          if (!link)
            link = make_link(zone, name + ":socket-" + std::to_string(a) + "-to-" + std::to_string(b), across_bw,
                             f.inter_socket_latency);
          links.emplace_back(link);
          links.emplace_back(memory[mb]);
        } else if (ua != ub) {
          s4u::Link*& link = between_units[{a, ua, ub}];
          if (!link)
            link = make_link(zone,
                             name + ":socket-" + std::to_string(a) + (f.core_group > 0 ? ":group-" : ":numa-") +
                                 std::to_string(ua) + "-to-" + std::to_string(ub),
                             unit_bw, ma != mb ? f.numa_latency : f.core_group_latency);
          links.emplace_back(link);
          if (ma != mb) links.emplace_back(memory[mb]);
        }
        zone->add_route(endpoints_[static_cast<std::size_t>(here[i])]->get_netpoint(),
                        endpoints_[static_cast<std::size_t>(here[j])]->get_netpoint(), nullptr, nullptr, links, false);
        if (source[j]) {
          // Rank i's single copies of rank j's bytes: the same way, then through j's pages.
          links.emplace_back(source[j]);
          zone->add_route(endpoints_[static_cast<std::size_t>(here[i])]->get_netpoint(),
                          pages_[static_cast<std::size_t>(here[j])]->get_netpoint(), nullptr, nullptr, links, false);
        }
      }
    zone->seal();
  }
}

}  // namespace collsim::sim
