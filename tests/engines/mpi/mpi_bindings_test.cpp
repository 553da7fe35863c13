// collsim's placement (models/placement.hpp) against mpirun's own on this machine: Open MPI's
// --report-bindings says which socket and core each rank is bound to. Only mappings that bind a
// rank to one core show its socket (a rank bound to a whole socket of a one-socket machine is
// reported as not bound), and only without oversubscription; which cases a machine can show
// follows from its shape, read from the report itself (one bracket per socket, a '/' between
// cores). A 2-core, 1-socket VM shows map-by core and ppr:K:node on 1 and 2 ranks and
// ppr:1:socket on 1; a two-socket node shows socket 1 too.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <string>
#include <vector>

#include "common/mpirun.hpp"
#include "models/placement.hpp"

namespace {

struct Bound {
  int rank, socket, core;
};

struct Report {
  std::vector<Bound> bound;
  int sockets = 0, cores_per_socket = 0;  // from the first map, 0 when none was printed
};

// "[host:pid] MCW rank 1 bound to socket 0[core 1[hwt 0]]: [./B]" per rank, in any order.
Report report_bindings(const std::string& map_by, int procs) {
  const collsim_test::Outcome o =
      collsim_test::run_command(std::string(MPIEXEC) + " --allow-run-as-root --report-bindings --map-by " + map_by +
                                " -np " + std::to_string(procs) + " true");
  EXPECT_EQ(o.status, 0) << o.err;
  Report r;
  const std::string text = o.out + o.err;
  static const std::regex line(R"(MCW rank (\d+) bound to socket (\d+)\[core (\d+)\[[^:]*: ((\[[^\]]*\])+))");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), line); it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    r.bound.push_back({std::stoi(m[1]), std::stoi(m[2]), std::stoi(m[3])});
    const std::string map = m[4];
    r.sockets = static_cast<int>(std::count(map.begin(), map.end(), '['));
    const std::string first = map.substr(1, map.find(']') - 1);
    r.cores_per_socket = static_cast<int>(std::count(first.begin(), first.end(), '/')) + 1;
  }
  return r;
}

collsim::models::Placement placement(const std::string& map_by, int sockets, int cores) {
  std::string error;
  const auto p = collsim::models::place(*collsim::models::parse_map_by(map_by), {1, sockets, cores}, error);
  EXPECT_TRUE(p) << error;
  return p.value_or(collsim::models::Placement{});
}

TEST(MpiBindings, PlacementPutsRanksOnMpirunsSockets) {
  const Report shape = report_bindings("core", 1);
  ASSERT_EQ(shape.bound.size(), 1u) << "mpirun --report-bindings --map-by core printed no binding";
  const int sockets = shape.sockets, cores = shape.sockets * shape.cores_per_socket;
  std::vector<std::pair<std::string, int>> cases = {
      {"core", cores}, {"ppr:" + std::to_string(cores) + ":node", cores}, {"ppr:1:socket", sockets}};
  if (sockets > 1) cases.push_back({"socket", cores});
  int checked = 0;
  for (const auto& [map_by, procs] : cases) {
    SCOPED_TRACE(map_by + " on " + std::to_string(procs));
    const Report r = report_bindings(map_by, procs);
    const collsim::models::Placement p = placement(map_by, sockets, cores);
    for (const Bound& b : r.bound) {
      EXPECT_EQ(p.node_of(b.rank), 0);
      EXPECT_EQ(p.socket_of(b.rank), b.socket) << "rank " << b.rank << " (core " << b.core << ")";
      ++checked;
    }
  }
  // map-by core binds every rank to a core: at least those were compared.
  EXPECT_GE(checked, cores);
}

}  // namespace
