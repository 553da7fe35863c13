#include "engines/sim/route.hpp"

#include <algorithm>
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

}  // namespace collsim::sim
