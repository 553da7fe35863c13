// The ucx protocol selection of the sim engine (protocol.hpp: ucx between nodes, ucx_sm inside
// one), against hand calculations on platforms/test/star16.xml under CM02 without cross traffic:
// a flow of w bytes alone on a route takes t(w) = 20 us + w / 1.25 GB/s, between two hosts or
// between two ranks of one host (star16 has no loopback); a host copies 1 GB/s (memcpy_bw).
//
// The defaults (UCX 1.14, Open MPI 4.1's pml ucx; protocol.hpp cites each): between nodes eager
// short up to 2038 bytes (done at once), bcopy up to 2152 for MPI_Isend (the sender copies N
// bytes first), zero-copy below 29119 (done when the acknowledgement is back, one latency after
// the arrival), rendezvous from 29119 (RTS 58 bytes; the receiver's RDMA read: a request one
// latency to the sender, the N bytes back; ATS 9 bytes back); MPI_Send stays eager bcopy up to
// 262143. Inside a node every eager send is the sender's copy of 8 + N bytes, done once copied,
// below 8256 bytes (MPI_Isend) or 262144 (MPI_Send); the rendezvous is RTS 50, the receiver's
// single copy of N bytes, ATS 9. Eager messages carry 8 bytes of header.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "algorithms/params.hpp"
#include "comm/buffer.hpp"
#include "common/rank_programs.hpp"
#include "common/sim_test_util.hpp"
#include "common/test_algorithm.hpp"

namespace collsim {
namespace {

using collsim_test::exact;
using collsim_test::root_to_all;
using collsim_test::run_one;
using collsim_test::test_algorithm;

constexpr double kLat = 20e-6, kBw = 1.25e9, kCopy = 1e9;

double t(double wire_bytes) { return kLat + wire_bytes / kBw; }

void expect_time(double got, double want, const std::string& what) {
  EXPECT_NEAR(got, want, want * 1e-9 + 2e-9) << what;
}

// params.segment: the message size.
RunSpec spec_for(const AlgorithmInfo& a, int procs, std::size_t message) {
  RunSpec s;
  s.algorithm = &a;
  s.procs = procs;
  s.real_bytes = false;
  s.params.segment = message;
  return s;
}

// Rank 0 sends one message to rank 1 with MPI_Send (blocking), rank 1 has posted its receive.
Task<> blocking_send(Comm& comm, RankBuffers, const AlgorithmParams& p) {
  Storage msg(p.segment, false);
  if (comm.rank() == 0) co_await comm.send(msg.view(), 1, 1);
  if (comm.rank() == 1) co_await comm.recv(msg.view(), 0, 1);
}

// The same with MPI_Isend and a wait.
Task<> nonblocking_send(Comm& comm, RankBuffers, const AlgorithmParams& p) {
  Storage msg(p.segment, false);
  if (comm.rank() == 0) {
    Request r = co_await comm.isend(msg.view(), 1, 1);
    co_await comm.wait(r);
  }
  if (comm.rank() == 1) co_await comm.recv(msg.view(), 0, 1);
}

const AlgorithmInfo kSend = test_algorithm("test/blocking_send", &blocking_send);
const AlgorithmInfo kIsend = test_algorithm("test/nonblocking_send", &nonblocking_send);
const AlgorithmInfo kRootToAll = test_algorithm("test/root_to_all", &root_to_all);

// Ranks 0 and 1 on two hosts, or (ranks_per_host 2) on one.
SimConfig ucx(int ranks_per_host, std::vector<std::string> options = {}) {
  SimConfig c = exact("test/star16.xml", ranks_per_host, "ucx");
  c.protocol_options = std::move(options);
  return c;
}

struct Expected {
  double sender, receiver;
};

void expect_run(const SimConfig& c, const AlgorithmInfo& a, std::size_t n, Expected want, const std::string& what) {
  const RunResult r = run_one(c, spec_for(a, 2, n));
  EXPECT_EQ(r.protocol, "ucx");
  expect_time(r.finish_s[0], want.sender, what + ", sender");
  expect_time(r.finish_s[1], want.receiver, what + ", receiver");
}

// Between nodes: RTS, the read's request, the data back, the ATS.
Expected rendezvous_between(double n) {
  const double read = t(58) + kLat + t(n);
  return {read + t(9), read};
}

TEST(UcxProtocol, EagerShortBetweenNodes) {
  // 8 + N bytes straight from the work request; the send is done at once.
  expect_run(ucx(1), kSend, 1000, {0, t(1008)}, "1000 bytes");
  expect_run(ucx(1), kIsend, 2038, {0, t(2046)}, "2038 bytes, the largest short");
}

TEST(UcxProtocol, EagerBcopyBetweenNodes) {
  // One byte over the short limit the sender copies the payload at 1 GB/s before it leaves.
  expect_run(ucx(1), kIsend, 2039, {2039 / kCopy, 2039 / kCopy + t(2047)}, "2039 bytes");
  expect_run(ucx(1), kIsend, 2152, {2152 / kCopy, 2152 / kCopy + t(2160)}, "2152 bytes, the largest bcopy");
  // MPI_Send never zero-copies: bcopy up to its own rendezvous threshold.
  expect_run(ucx(1), kSend, 100000, {100000 / kCopy, 100000 / kCopy + t(100008)}, "100000 bytes by MPI_Send");
  expect_run(ucx(1), kSend, 262143, {262143 / kCopy, 262143 / kCopy + t(262151)}, "262143 bytes by MPI_Send");
}

TEST(UcxProtocol, EagerZcopyBetweenNodes) {
  // No copy; the send is done when the RC acknowledgement is back, a latency after the arrival.
  expect_run(ucx(1), kIsend, 2153, {t(2161) + kLat, t(2161)}, "2153 bytes, the smallest zcopy");
  expect_run(ucx(1), kIsend, 29118, {t(29126) + kLat, t(29126)}, "29118 bytes, the largest zcopy");
}

TEST(UcxProtocol, RendezvousBetweenNodesIsAnRdmaRead) {
  expect_run(ucx(1), kIsend, 29119, rendezvous_between(29119), "29119 bytes by MPI_Isend");
  expect_run(ucx(1), kSend, 262144, rendezvous_between(262144), "262144 bytes by MPI_Send");
}

TEST(UcxProtocol, EagerInsideANode) {
  // The sender's copy of 8 + N into the receiver's FIFO; short (up to 92 bytes) and bcopy alike.
  expect_run(ucx(2), kIsend, 92, {0, t(100)}, "92 bytes");
  expect_run(ucx(2), kIsend, 93, {0, t(101)}, "93 bytes");
  expect_run(ucx(2), kIsend, 8255, {0, t(8263)}, "8255 bytes by MPI_Isend");
  expect_run(ucx(2), kSend, 262143, {0, t(262151)}, "262143 bytes by MPI_Send");
}

TEST(UcxProtocol, RendezvousInsideANodeIsOneCopyByTheReceiver) {
  // RTS (50), the receiver's single copy (CMA, no request to cross), ATS (9) back.
  const auto rendezvous = [](double n) { return Expected{t(50) + t(n) + t(9), t(50) + t(n)}; };
  expect_run(ucx(2), kIsend, 8256, rendezvous(8256), "8256 bytes by MPI_Isend");
  expect_run(ucx(2), kSend, 262144, rendezvous(262144), "262144 bytes by MPI_Send");
}

TEST(UcxProtocol, ThresholdsAreParameters) {
  // ucx/rndv_thresh:10000: 10000 bytes by MPI_Isend is a rendezvous, 9999 still zero-copy.
  expect_run(ucx(1, {"ucx/rndv_thresh:10000"}), kIsend, 10000, rendezvous_between(10000), "rndv_thresh 10000");
  expect_run(ucx(1, {"ucx/rndv_thresh:10000"}), kIsend, 9999, {t(10007) + kLat, t(10007)}, "9999 below it");
  // Without device memory the short limit is 226; zcopy_thresh:inf keeps bcopy to the rendezvous.
  expect_run(ucx(1, {"ucx/max_short:226", "ucx/zcopy_thresh:1GiB"}), kIsend, 227, {227 / kCopy, 227 / kCopy + t(235)},
             "227 bytes over a short limit of 226");
  expect_run(ucx(1, {"ucx/zcopy_thresh:1GiB"}), kIsend, 20000, {20000 / kCopy, 20000 / kCopy + t(20008)},
             "20000 bytes, bcopy");
  // MPI_Send's threshold, and inside a node.
  expect_run(ucx(1, {"ucx/rndv_send_nbr_thresh:5000"}), kSend, 5000, rendezvous_between(5000), "MPI_Send at 5000");
  expect_run(ucx(2, {"ucx_sm/rndv_thresh:1000"}), kIsend, 999, {0, t(1007)}, "ucx_sm below 1000");
  expect_run(ucx(2, {"ucx_sm/rndv_thresh:1000"}), kIsend, 1000, {t(50) + t(1000) + t(9), t(50) + t(1000)},
             "ucx_sm at 1000");
}

TEST(UcxProtocol, BadOptionsAreInputErrors) {
  for (const std::string option :
       {"ucx/eager_limit:64KiB", "ucx/rndv_thresh:lots", "ucx/rndv_thresh:0", "ucx/zcopy_thresh:-1",
        "ucx/max_short:some", "ucx/inline_limit:5", "ucx/buffer:1MiB", "ucx_sm/zcopy_thresh:1KiB",
        "ucx_sm/max_short:10", "ucx_sm/eager_limit:4KiB", "ucx_sm/rndv_send_nbr_thresh:0", "ucx-sm/rndv_thresh:1"}) {
    EXPECT_THROW(run_one(ucx(1, {option}), spec_for(kSend, 2, 10)), InputError) << option;
  }
}

TEST(UcxProtocol, CopiesInsideAModelledNodeTakeTheSendersCore) {
  // platforms/test/node2x4.xml (sim_node_model_test.cpp): a core copies at 1 GB/s, one copy at a
  // time, the peer sees a copy 1 us after it ends. The root's three eager copies of 8 + 4000
  // bytes run one after another; each send is done when its copy ends.
  SimConfig c = exact("test/node2x4.xml", 1, "ucx");
  c.map_by = *models::parse_map_by("ppr:4:node");
  const RunResult r = run_one(c, spec_for(kRootToAll, 4, 4000));
  const double copy = 4008 / kCopy;
  for (int k = 1; k <= 3; ++k) expect_time(r.finish_s[k], k * copy + 1e-6, "receiver " + std::to_string(k));
  expect_time(r.finish_s[0], 3 * copy, "root");
}

}  // namespace
}  // namespace collsim
