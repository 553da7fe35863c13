// What SimGrid's network model gives one flow alone on the route between two hosts (internal to
// the sim engine): the transport paces its streams with it, and the model engine's two-level
// Hockney parameters are derived from it, so both read the platform the same way.
#pragma once

#include <simgrid/s4u.hpp>

namespace collsim::sim {

struct Route {
  double latency = 0;    // s: the route's link latencies summed
  double bandwidth = 0;  // bytes/s: its narrowest link
  double first = 0;      // bytes/s: its first link, the sending host's own
};

// The route from `from` to `to` with the network model's constant factors applied
// (network/latency-factor and network/bandwidth-factor: 13.01 and 0.97 under LV08, 1 under CM02).
// A route without links (an unusual platform) has bandwidth and first 0.
Route route_between(simgrid::s4u::Host* from, simgrid::s4u::Host* to);

}  // namespace collsim::sim
