// Rank placement: which node (and socket) each rank runs on, as `mpirun --map-by` decides it.
//
// The user's request (MapBy: core, ppr:N:node, ppr:N:socket, node, socket, numa, ppr:N:numa) is resolved against the
// shape of the cluster (nodes, sockets per node, cores per node) into a Placement, the value the
// engines and the two-level models ask "are ranks a and b on one node?". Open MPI's mapping rules
// (orte rmaps: ppr and round-robin by object), for P ranks on N nodes of S sockets and C cores
// (c = C / S per socket); the ranks a node receives take its cores in order, socket 0's first:
//   core          fills a node's cores before the next node  node(r) = r / C, socket = r % C / c
//   ppr:K:node    ranks K by K on nodes 0, 1, ...           node(r) = r / K, socket = r % K / c
//   ppr:K:socket  K per socket, sockets of a node in order   node(r) = r / (K S), socket = r % (K S) / K
//   node          round-robin over the nodes                 node(r) = r % N, socket = r / N / c
//   socket        round-robin over a node's sockets, filling
//                 the node's C cores before the next node    node(r) = r / C, socket = r % C % S
//   numa          the same over a node's S D NUMA domains    node(r) = r / C, domain = r % C % (S D)
//   ppr:K:numa    K per NUMA domain, domains in order        node(r) = r / (K S D), domain = r % (K S D) / K
// (socket taken modulo S where a node receives more ranks than cores; a node's D NUMA domains a
// socket numbered socket by socket, as hwloc does: socket = domain / D). Within its socket (or
// domain) a rank takes the next core: the k-th rank a socket receives runs on its core k (modulo its cores), so
// map-by core fills a core group (AMD's CCX) and a NUMA domain before the next, as hwloc numbers
// them, and map-by socket puts ranks r and r + S on neighbouring cores. The sim engine's node
// model (engines/sim/node_model.hpp) places a rank's copies on its socket, NUMA domain and core
// group; the model engine's two-level Hockney prices a pair by node, and by socket, NUMA domain
// and core group when it has those levels.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace collsim::models {

struct MapBy {
  enum class Policy { ppr_node, ppr_socket, node, socket, core, numa, ppr_numa };
  Policy policy = Policy::ppr_node;
  int per = 1;  // ppr: ranks per node or per socket

  bool operator==(const MapBy&) const = default;
};

// "core", "ppr:K:node" (also "block:K"), "ppr:K:socket", "node", "socket", "numa", "ppr:K:numa";
// nullopt otherwise.
std::optional<MapBy> parse_map_by(std::string_view text);
// The canonical spelling: "ppr:2:node", "node", ...
std::string to_string(const MapBy& m);
// What parse_map_by accepts, for messages and --help.
inline constexpr const char* map_by_forms =
    "core, ppr:K:node (or block:K), ppr:K:socket, node, socket, numa, ppr:K:numa";

// The cluster as the mapping sees it. Unknown values are 0.
struct NodeShape {
  int nodes = 0;
  int sockets = 0;  // per node
  int cores = 0;    // per node
  // Levels inside a socket, where the platform states them (0: none): cores per core group
  // (collsim/core_group) and NUMA domains per socket (collsim/numa_domains).
  int core_group = 0;
  int numa_domains = 0;
};

struct Placement {
  int block = 1;        // ranks r and s share a node when r / block == s / block ...
  int round_robin = 0;  // ... or, when > 0, when r % round_robin == s % round_robin
  int sockets = 1;      // sockets per node, for socket_of
  bool by_socket = false;
  int cores_per_socket = 0;  // > 0: a node's ranks take its cores in order (0: not known)
  // Levels inside a socket (0: none): cores of a core group and of a NUMA domain.
  int cores_per_group = 0;
  int cores_per_numa = 0;
  // By NUMA domain (map-by numa, ppr:K:numa; needs cores_per_socket and cores_per_numa): a node's
  // ranks go round-robin over its domains (numa_block 0) or numa_block to a domain in turn.
  bool by_numa = false;
  int numa_block = 0;

  int node_of(int rank) const { return round_robin > 0 ? rank % round_robin : rank / block; }
  bool same_node(int a, int b) const { return node_of(a) == node_of(b); }
  int socket_of(int rank) const;
  // The core a rank runs on within its socket (-1 where the placement does not know the cores),
  // and its core group and NUMA domain within the socket (0 where the level is absent).
  int core_of(int rank) const;
  int group_of(int rank) const;
  int numa_of(int rank) const;
  // Whether two ranks of one node and socket sit in two core groups / two NUMA domains.
  bool cross_group(int a, int b) const { return cores_per_group > 0 && group_of(a) != group_of(b); }
  bool cross_numa(int a, int b) const { return cores_per_numa > 0 && numa_of(a) != numa_of(b); }
  // Nodes used by ranks 0..procs-1.
  int nodes_used(int procs) const;
  // The most ranks that fit on `nodes` nodes of `cores` cores (round-robin fills every core;
  // block placements put `block` ranks on a node, whatever its cores, as mpirun's ppr does
  // with oversubscription allowed).
  long long capacity(const NodeShape& shape) const;

  bool operator==(const Placement&) const = default;
};

// Block placement of `ranks_per_node` ranks per node (ppr:K:node), needing no cluster shape.
inline Placement block_placement(int ranks_per_node) { return Placement{ranks_per_node, 0, 1, false}; }

// Resolves a request against a shape. Returns the placement, or sets `error` to one sentence
// ("map-by node needs the number of nodes") and returns nullopt when the shape lacks what the
// policy needs or a count is not positive.
std::optional<Placement> place(const MapBy& map_by, const NodeShape& shape, std::string& error);

}  // namespace collsim::models
