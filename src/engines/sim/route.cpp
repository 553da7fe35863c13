#include "engines/sim/route.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <xbt/config.hpp>

namespace collsim::sim {

namespace {
// SimGrid 3.32 declares these options as doubles; reading them as any other type is undefined
// behaviour.
double model_factor(const char* key) {
  const double v = simgrid::config::get_value<double>(key);
  return v > 0 ? v : 1.0;
}
}  // namespace

Route route_between(simgrid::s4u::Host* from, simgrid::s4u::Host* to) {
  std::vector<simgrid::s4u::Link*> links;
  double latency = 0;
  from->route_to(to, links, &latency);
  const double bandwidth_factor = model_factor("network/bandwidth-factor");
  Route r;
  r.latency = latency * model_factor("network/latency-factor");
  if (links.empty()) return r;
  double narrowest = std::numeric_limits<double>::infinity();
  for (const simgrid::s4u::Link* l : links) narrowest = std::min(narrowest, l->get_bandwidth());
  r.bandwidth = narrowest * bandwidth_factor;
  r.first = links.front()->get_bandwidth() * bandwidth_factor;
  return r;
}

Route mean_route(std::span<simgrid::s4u::Host* const> hosts,
                 const std::function<Route(simgrid::s4u::Host*, simgrid::s4u::Host*)>& route) {
  const std::size_t n = hosts.size();
  if (n < 2) return {};
  constexpr std::size_t kSources = 64;
  const std::size_t sources = std::min(n, kSources);
  // Sums of differences from the first route, so that equal routes give back exactly their own
  // values (a crossbar's mean is its route, to the last bit).
  Route first;
  double latency = 0, seconds_per_byte = 0;
  std::size_t count = 0;
  for (std::size_t s = 0; s < sources; ++s) {
    simgrid::s4u::Host* from = hosts[s * n / sources];
    for (simgrid::s4u::Host* to : hosts) {
      if (to == from) continue;
      const Route r = route(from, to);
      if (count++ == 0) first = r;
      latency += r.latency - first.latency;
      seconds_per_byte += 1 / r.bandwidth - 1 / first.bandwidth;
    }
  }
  Route mean;
  mean.latency = first.latency + latency / static_cast<double>(count);
  const double spb = seconds_per_byte / static_cast<double>(count);
  mean.bandwidth = spb == 0 ? first.bandwidth : 1 / (1 / first.bandwidth + spb);
  mean.first = first.first;
  return mean;
}

}  // namespace collsim::sim
