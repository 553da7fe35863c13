// What SimGrid's network model gives one flow alone on the route between two hosts (internal to
// the sim engine): the transport paces its streams with it, and the model engine's two-level
// Hockney parameters are derived from it, so both read the platform the same way.
#pragma once

#include <functional>
#include <span>

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

// What a message between two distinct hosts of `hosts` costs on average, for a model that knows
// no topology (the model engine's inter-node Hockney parameters): latency is the mean of the
// routes' latencies, bandwidth the harmonic mean of their narrowest links (so 1 / bandwidth is the
// mean time per byte). On a crossbar every route is the same; on a fat-tree, torus or dragonfly
// routes grow with distance, and the first two hosts are neighbours, which would understate
// latency. The mean is over every ordered pair of up to 64 hosts, else over the routes from 64
// sources spread evenly over the hosts to every other host (exact on the symmetric topologies:
// crossbar, fat-tree, torus). Fewer than two hosts: a Route of zeros. Each route is looked up
// with `route` (route_between, or a lookup that refuses a missing route: simulation.cpp).
Route mean_route(std::span<simgrid::s4u::Host* const> hosts,
                 const std::function<Route(simgrid::s4u::Host*, simgrid::s4u::Host*)>& route);

}  // namespace collsim::sim
