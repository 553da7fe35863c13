// The inside of a node (internal to the sim engine): what a copy between two ranks of one node
// costs when the platform says how the node is built. A SimGrid <cluster> gives each node one
// loopback link, on which every intra-node flow gets the whole bandwidth whatever else moves
// (FATPIPE): a root's eight copies cost what one does. Real nodes are not like that: a core does
// one copy at a time, the copies of a socket share its memory bandwidth, and a copy between
// sockets crosses the inter-socket link (../shared/reference/manycore-osu-ucx.md).
//
// A node whose host states `collsim/memory_bandwidth` gets, for the run, a zone of its own with
// one endpoint host per rank placed on it (a rank runs on one core), a link per core (one core's
// copy rate, `memcpy_bw`), a memory link per socket (SHARED: the socket's bandwidth for copies,
// `collsim/memory_bandwidth`) and a link for each ordered pair of sockets
// (`collsim/inter_socket_bandwidth`, `collsim/inter_socket_latency`). A copy is a flow from the
// endpoint of the rank that makes it to its peer's: through the copier's core link (so one copy
// runs at most at a core's rate), its socket's memory link, and, between sockets, the
// inter-socket link and the other socket's memory link. A single copy pulled by the receiver
// therefore runs from the receiver to the sender: on the inter-socket link it takes the direction
// of the copier, not of the data (both directions have the same bandwidth; this matters only
// when both are busy). The node's loopback latency is not in these routes: it is the hand-over
// delay after a copy, which the core does not wait for (transport.cpp).
//
// The zones have no parent and are never routed to from the platform's hosts: SimGrid finds a
// route between two hosts of one zone inside it (NetZoneImpl's common-ancestor search starts
// there). A zone holds a route for each ordered pair of its ranks.
#pragma once

#include <string>
#include <vector>

#include <simgrid/s4u.hpp>

namespace collsim::sim {

// A node's parameters, from its host's properties.
struct NodeShapeFacts {
  int sockets = 1;
  double memory_bandwidth = 0;        // bytes/s per socket; 0 = no node model for this host
  double copy_rate = 0;               // bytes/s of one core's copy (memcpy_bw); 0 = uncapped
  double inter_socket_bandwidth = 0;  // bytes/s per direction; 0 = not limited
  double inter_socket_latency = 0;    // seconds
};

// The facts a host's properties state (sockets 1 and memory bandwidth 0 when absent).
NodeShapeFacts node_facts(const simgrid::s4u::Host& host);

class NodeModel {
 public:
  struct Placed {
    simgrid::s4u::Host* node;
    int socket;
  };
  // Builds the zones of the nodes that hold two ranks or more of `ranks` (rank r at ranks[r])
  // and state a memory bandwidth. Call before the simulation runs (SimGrid refuses new hosts and
  // links once it has started).
  explicit NodeModel(const std::vector<Placed>& ranks);

  // Whether rank r's copies are modelled (its node has a model).
  bool models(int rank) const {
    return static_cast<std::size_t>(rank) < endpoints_.size() && endpoints_[static_cast<std::size_t>(rank)];
  }
  // The endpoint of rank r (which models() must accept).
  simgrid::s4u::Host* endpoint(int rank) const { return endpoints_[static_cast<std::size_t>(rank)]; }

 private:
  std::vector<simgrid::s4u::Host*> endpoints_;  // by rank; null where not modelled
};

}  // namespace collsim::sim
