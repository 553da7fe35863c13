#include "models/placement.hpp"

#include <algorithm>
#include <charconv>

namespace collsim::models {

namespace {

std::optional<int> positive(std::string_view s) {
  int v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < 1) return std::nullopt;
  return v;
}

}  // namespace

std::optional<MapBy> parse_map_by(std::string_view text) {
  if (text == "node") return MapBy{MapBy::Policy::node, 1};
  if (text == "socket") return MapBy{MapBy::Policy::socket, 1};
  if (text == "core") return MapBy{MapBy::Policy::core, 1};
  if (text == "numa") return MapBy{MapBy::Policy::numa, 1};
  if (text.starts_with("block:")) {
    if (auto k = positive(text.substr(6))) return MapBy{MapBy::Policy::ppr_node, *k};
    return std::nullopt;
  }
  if (!text.starts_with("ppr:")) return std::nullopt;
  const std::string_view rest = text.substr(4);
  const auto colon = rest.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const auto k = positive(rest.substr(0, colon));
  const std::string_view object = rest.substr(colon + 1);
  if (!k) return std::nullopt;
  if (object == "node") return MapBy{MapBy::Policy::ppr_node, *k};
  if (object == "socket") return MapBy{MapBy::Policy::ppr_socket, *k};
  if (object == "numa") return MapBy{MapBy::Policy::ppr_numa, *k};
  return std::nullopt;
}

std::string to_string(const MapBy& m) {
  switch (m.policy) {
    case MapBy::Policy::ppr_node: return "ppr:" + std::to_string(m.per) + ":node";
    case MapBy::Policy::ppr_socket: return "ppr:" + std::to_string(m.per) + ":socket";
    case MapBy::Policy::node: return "node";
    case MapBy::Policy::socket: return "socket";
    case MapBy::Policy::core: return "core";
    case MapBy::Policy::numa: return "numa";
    case MapBy::Policy::ppr_numa: return "ppr:" + std::to_string(m.per) + ":numa";
  }
  return "?";
}

namespace {
// By NUMA domain: the domain of a node's `within`-th rank (over all its sockets' domains) and the
// rank's place among that domain's ranks.
struct InDomain {
  int domain;
  int index;
};
InDomain in_domain(const Placement& p, int within) {
  const int domains = p.sockets * (p.cores_per_socket / p.cores_per_numa);
  if (p.numa_block > 0) return {within / p.numa_block % domains, within % p.numa_block};
  return {within % domains, within / domains};
}
}  // namespace

int Placement::socket_of(int rank) const {
  if (by_numa) return in_domain(*this, rank % block).domain / (cores_per_socket / cores_per_numa);
  if (sockets <= 1) return 0;
  if (round_robin > 0) return cores_per_socket > 0 ? rank / round_robin / cores_per_socket % sockets : 0;
  const int within = rank % block;
  if (by_socket) return within % sockets;
  if (cores_per_socket > 0) return within / cores_per_socket % sockets;
  return within / (block / sockets);
}

int Placement::core_of(int rank) const {
  if (by_numa) {
    const InDomain d = in_domain(*this, rank % block);
    return d.domain % (cores_per_socket / cores_per_numa) * cores_per_numa + d.index % cores_per_numa;
  }
  if (round_robin > 0) return cores_per_socket > 0 ? rank / round_robin % cores_per_socket : -1;
  const int within = rank % block;
  if (by_socket) {
    const int per = block / std::max(1, sockets);
    return per > 0 ? within / std::max(1, sockets) % per : -1;
  }
  if (cores_per_socket > 0) return within % cores_per_socket;
  if (sockets > 1 && block % sockets == 0) return within % (block / sockets);  // ppr:K:socket
  return -1;
}

int Placement::group_of(int rank) const {
  const int core = core_of(rank);
  return cores_per_group > 0 && core >= 0 ? core / cores_per_group : 0;
}

int Placement::numa_of(int rank) const {
  const int core = core_of(rank);
  return cores_per_numa > 0 && core >= 0 ? core / cores_per_numa : 0;
}

int Placement::nodes_used(int procs) const {
  if (procs <= 0) return 0;
  if (round_robin > 0) return procs < round_robin ? procs : round_robin;
  return (procs + block - 1) / block;
}

long long Placement::capacity(const NodeShape& shape) const {
  const long long nodes = shape.nodes;
  if (round_robin > 0) return nodes * (shape.cores > 0 ? shape.cores : 1);
  return nodes * block;
}

std::optional<Placement> place(const MapBy& m, const NodeShape& shape, std::string& error) {
  const std::string name = "map-by " + to_string(m);
  if (m.per < 1) {
    error = name + ": the count must be at least 1";
    return std::nullopt;
  }
  // The cores of a socket, when the shape says (sockets dividing cores, as platforms are checked).
  const int per_socket = shape.sockets > 0 && shape.cores >= shape.sockets ? shape.cores / shape.sockets : 0;
  const int sockets = per_socket > 0 ? shape.sockets : 1;
  // The levels inside a socket, where the shape knows the socket's cores.
  const int per_group = per_socket > 0 && shape.core_group > 0 ? shape.core_group : 0;
  const int per_numa = per_socket > 0 && shape.numa_domains > 0 ? per_socket / shape.numa_domains : 0;
  const auto with_levels = [&](Placement p) {
    p.cores_per_group = per_group;
    p.cores_per_numa = per_numa;
    return p;
  };
  switch (m.policy) {
    case MapBy::Policy::ppr_node: return with_levels({m.per, 0, sockets, false, per_socket});
    case MapBy::Policy::core:
      if (shape.cores < 1) {
        error = name + " needs the number of cores per node (from a platform)";
        return std::nullopt;
      }
      return with_levels({shape.cores, 0, sockets, false, per_socket});
    case MapBy::Policy::ppr_socket:
      if (shape.sockets < 1) {
        error = name + " needs the number of sockets per node (a platform host property collsim/sockets)";
        return std::nullopt;
      }
      return with_levels({m.per * shape.sockets, 0, shape.sockets, false});
    case MapBy::Policy::node:
      if (shape.nodes < 1) {
        error = name + " needs the number of nodes (from a platform)";
        return std::nullopt;
      }
      return with_levels({1, shape.nodes, sockets, false, per_socket});
    case MapBy::Policy::socket:
      if (shape.cores < 1) {
        error = name + " needs the number of cores per node (from a platform)";
        return std::nullopt;
      }
      return with_levels({shape.cores, 0, shape.sockets > 0 ? shape.sockets : 1, true});
    case MapBy::Policy::numa:
    case MapBy::Policy::ppr_numa: {
      if (per_numa < 1) {
        error = name + " needs NUMA domains (platform host properties collsim/sockets and collsim/numa_domains)";
        return std::nullopt;
      }
      const bool ppr = m.policy == MapBy::Policy::ppr_numa;
      Placement p = with_levels(
          {ppr ? m.per * shape.sockets * shape.numa_domains : shape.cores, 0, shape.sockets, false, per_socket});
      p.by_numa = true;
      p.numa_block = ppr ? m.per : 0;
      return p;
    }
  }
  error = name + ": unknown policy";
  return std::nullopt;
}

}  // namespace collsim::models
