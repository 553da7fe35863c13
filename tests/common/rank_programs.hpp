// Rank programs that several tests run through test_algorithm (test_algorithm.hpp): small
// communication patterns whose times a test works out by hand.
#pragma once

#include <vector>

#include "algorithms/operation.hpp"
#include "algorithms/params.hpp"
#include "comm/buffer.hpp"
#include "comm/comm.hpp"

namespace collsim_test {

// Rank 0 isends one message of params.segment bytes to every other rank at once.
inline collsim::Task<> root_to_all(collsim::Comm& comm, collsim::RankBuffers, const collsim::AlgorithmParams& p) {
  collsim::Storage msg(p.segment, false);
  if (comm.rank() == 0) {
    std::vector<collsim::Request> r;
    for (int peer = 1; peer < comm.size(); ++peer) r.push_back(co_await comm.isend(msg.view(), peer, 1));
    co_await comm.wait_all(r);
  } else {
    co_await comm.recv(msg.view(), 0, 1);
  }
}

}  // namespace collsim_test
