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
// Levels inside a socket. A host that states `collsim/core_group` (cores sharing a last-level
// cache, e.g. AMD Rome's CCX of 4) or `collsim/numa_domains` (per socket, e.g. Rome's NPS4) has
// a rank's core (placement.hpp) in a core group and a NUMA domain. A copy between two ranks of
// one socket then goes through the level they share: within a core group as before; between two
// core groups of one NUMA domain over a link for that ordered pair of groups
// (`collsim/core_group_latency`, `collsim/core_group_bandwidth`); between two NUMA domains of the
// socket over the same kind of link carrying `collsim/numa_latency` instead. The cache lines of
// another group cross the die's fabric, hence a latency and a narrower rate. With NUMA domains,
// memory is a link per domain (`collsim/numa_memory_bandwidth`, else the socket's memory
// bandwidth split evenly), which a copy crosses on the copier's side and, when the peer's domain
// differs, on the peer's too; copies of one domain share its bandwidth.
//
// Fresh data. A rank that has just received a message holds it in its core's private cache
// (Skylake-SP: 1 MiB of L2 per core, beside a non-inclusive L3), so another core that copies it
// onwards reads lines it must snoop out of that cache: measured on ORFEO's THIN nodes, a 1 MiB
// single copy takes 60 us from a buffer nobody wrote and about 145 us (same socket) or 370 us
// (across sockets) when its owner has just received it (validation/osu-thin.md). Every tree
// broadcast forwards such data at each hop. A platform that states
// `collsim/fresh_copy_bandwidth` (and `collsim/inter_socket_fresh_copy_bandwidth` across
// sockets, else the same) has single copies read, of the bytes their owner has received so far
// (at most `collsim/private_cache` of them, when given), at that rate instead of the route's.
// The flow carries those bytes as many times more as the route alone is faster, so they also
// take their share of the memory and inter-socket links.
//
// Reading one process. A rendezvous single copy under CMA (process_vm_readv: vader's and UCX's
// cma single copy when neither XPMEM nor KNEM is there) pins the pages it reads in the sender's
// address space, a run at a time, under that process's memory-map lock (Linux
// mm/process_vm_access.c, process_vm_rw_single_vec: mmap_read_lock, pin_user_pages_remote), so
// the copies that read one process at once share what it can give, whatever the memory could:
// on ORFEO's THIN nodes the flat tree of 4 ranks at 1 MiB takes every rank 235-239 us, three
// copies that went together at a third of one copy's rate each (validation/osu-thin.md). A
// platform that states `collsim/source_read_bandwidth` has every rank's memory behind a link of
// that bandwidth, which the single copies that read it cross (a host per rank, its pages, with
// a route from every other rank of the node).
//
// The zones have no parent and are never routed to from the platform's hosts: SimGrid finds a
// route between two hosts of one zone inside it (NetZoneImpl's common-ancestor search starts
// there). A zone holds a route for each ordered pair of its ranks.
#pragma once

#include <string>
#include <vector>

#include <simgrid/s4u.hpp>

#include "models/registration.hpp"

namespace collsim::sim {

// A node's parameters, from its host's properties.
struct NodeShapeFacts {
  int sockets = 0;                    // collsim/sockets; 0 when the host does not say
  double memory_bandwidth = 0;        // bytes/s per socket; 0 = no node model for this host
  double copy_rate = 0;               // bytes/s of one core's copy (memcpy_bw); 0 = uncapped
  double inter_socket_bandwidth = 0;  // bytes/s per direction; 0 = not limited
  double inter_socket_latency = 0;    // seconds
  // Fresh data (above): bytes/s of a copy of data its owner has just received, in one socket and
  // between two (0: as any other copy); bytes of a core's private cache (0: no bound).
  double fresh_copy_rate = 0;
  double inter_socket_fresh_copy_rate = 0;
  double private_cache = 0;
  double source_read_rate = 0;  // bytes/s the single copies reading one rank share; 0 = not limited
  // Levels inside a socket (above); 0 where the host does not state them.
  int core_group = 0;                // cores per core group
  int numa_domains = 0;              // NUMA domains per socket
  double core_group_latency = 0;     // seconds, between two core groups of one NUMA domain
  double core_group_rate = 0;        // bytes/s each direction between two core groups; 0 = not limited
  double numa_latency = 0;           // seconds, between two NUMA domains of one socket
  double numa_memory_bandwidth = 0;  // bytes/s of one NUMA domain's memory; 0 = the socket's split
};

// The facts a host's properties state (0 for what it does not state). check_platform_file has
// checked each where it is given.
NodeShapeFacts node_facts(const simgrid::s4u::Host& host);
// What registering memory costs on `host` (collsim/registration_call, collsim/registration_page,
// collsim/page_size; the defaults of models/registration.hpp for those it does not state).
models::RegistrationCost host_registration(const simgrid::s4u::Host& host);

class NodeModel {
 public:
  struct Placed {
    simgrid::s4u::Host* node;
    int socket;
    // Within the socket (placement.hpp's numa_of and group_of; 0 where the platform has no such level).
    int numa = 0;
    int group = 0;
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

  // Fresh data (above), for a single copy that rank `copier` makes of rank `owner`'s bytes (both
  // modelled, on one node): how many bytes of a copy are read from the owner's cache when it has
  // received `received` bytes so far, and how many times longer each of those takes than on the
  // idle route (1 where the platform states no fresh-copy rate).
  double fresh_bytes(int owner, double size, double received) const;
  double fresh_slowdown(int copier, int owner) const;
  // Where a single copy of rank r's bytes reads them (reading one process, above): the host of
  // its pages, or its endpoint where the platform does not limit its readers.
  simgrid::s4u::Host* pages(int rank) const {
    simgrid::s4u::Host* p = pages_[static_cast<std::size_t>(rank)];
    return p ? p : endpoint(rank);
  }

 private:
  std::vector<simgrid::s4u::Host*> endpoints_;  // by rank; null where not modelled
  std::vector<simgrid::s4u::Host*> pages_;      // by rank; null where its readers are not limited
  std::vector<int> socket_;                     // by rank, where modelled
  std::vector<int> unit_;                       // by rank: its core group, else NUMA domain, in its socket
  std::vector<NodeShapeFacts> facts_;           // by rank, where modelled
};

}  // namespace collsim::sim
