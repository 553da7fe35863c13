// The sim engine against hand calculations, MPI protocol semantics and its error reports.
// (Every registered algorithm, and virtual against real bytes, are in sim_algorithms_test.cpp.)
//
// The algorithms here are written in the test with nothing but the messaging layer, so the
// expected times follow from the platform alone: on platforms/test/star16.xml under CM02 a
// transfer of m bytes alone on its route takes 20 us + m / 1.25 GB/s.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "algorithms/params.hpp"
#include "comm/buffer.hpp"
#include "common/sim_test_util.hpp"
#include "common/test_algorithm.hpp"
#include "engines/sim/platform_file.hpp"

namespace collsim {
namespace {

using collsim_test::test_algorithm;

using collsim_test::exact;
using collsim_test::platform;
using collsim_test::run_all;
using collsim_test::run_one;

constexpr double kLat = 20e-6;  // one route of star16: two links of 10 us
constexpr double kBw = 1.25e9;  // bytes/s
constexpr double kCopy = 1e9;   // star16's memcpy_bw
constexpr std::size_t kEager = 65536;

// An empty eager message is simulated as one byte (see sim_comm.cpp).
double transfer(std::size_t bytes) { return kLat + static_cast<double>(bytes == 0 ? 1 : bytes) / kBw; }

void expect_close(double got, double want, const char* what) {
  EXPECT_NEAR(got, want, std::abs(want) * 1e-9 + 1e-15) << what;
}

RunSpec spec_for(const AlgorithmInfo& a, int procs, std::size_t bytes, bool real = true, int root = 0) {
  RunSpec s;
  s.algorithm = &a;
  s.procs = procs;
  s.bytes = bytes;
  s.real_bytes = real;
  s.params.root = root;
  return s;
}

// ---- test algorithms --------------------------------------------------------------------

// Textbook binomial broadcast with blocking operations: a rank receives from its parent, then
// sends to its children one after the other, nearest subtree last (recursive doubling order).
Task<> textbook_bcast(Comm& comm, RankBuffers b, const AlgorithmParams& p) {
  const int n = comm.size();
  const int me = (comm.rank() - p.root + n) % n;
  int mask = 1;
  if (me != 0) {
    int high = 1;
    while (high * 2 <= me) high *= 2;
    co_await comm.recv(b.data, (me - high + p.root) % n, 7);
    mask = high * 2;
  }
  for (; mask < n; mask *= 2)
    if (me + mask < n) co_await comm.send(b.data, (me + mask + p.root) % n, 7);
}

// Rank i receives hop i-1's message and then sends hop i's, each of a different size.
const std::vector<std::size_t> kChain{1000, 65535, 65536, 0, 1, 1048576, 4096};
Task<> chain(Comm& comm, RankBuffers, const AlgorithmParams&) {
  const auto r = static_cast<std::size_t>(comm.rank());
  if (r > 0) {
    Storage in(kChain[r - 1], false);
    co_await comm.recv(in.view(), comm.rank() - 1, 3);
  }
  if (r < kChain.size() && comm.rank() + 1 < comm.size()) {
    Storage out(kChain[r], false);
    co_await comm.send(out.view(), comm.rank() + 1, 3);
  }
}

// Rank 0 sends AlgorithmParams::segment bytes to rank 1 at once; rank 1 first spends 1 ms
// copying, then receives.
constexpr std::size_t kDelayBytes = 1000000;  // 1 ms at 1 GB/s
Task<> late_receiver(Comm& comm, RankBuffers, const AlgorithmParams& p) {
  Storage msg(p.segment, false);
  if (comm.rank() == 0) {
    co_await comm.send(msg.view(), 1, 4);
  } else if (comm.rank() == 1) {
    Storage a(kDelayBytes, false), b(kDelayBytes, false);
    co_await comm.copy(a.view(), b.view());
    co_await comm.recv(msg.view(), 0, 4);
  }
}

// Ranks 0 and 1 both send segment bytes to each other with blocking sends, then receive.
Task<> head_to_head_sends(Comm& comm, RankBuffers, const AlgorithmParams& p) {
  if (comm.rank() > 1) co_return;
  Storage out(p.segment, false), in(p.segment, false);
  const int peer = 1 - comm.rank();
  co_await comm.send(out.view(), peer, 3);
  co_await comm.recv(in.view(), peer, 3);
}

// Ranks 0 and 1 both receive from each other first.
Task<> head_to_head_recvs(Comm& comm, RankBuffers b, const AlgorithmParams&) {
  if (comm.rank() > 1) co_return;
  co_await comm.recv(b.data, 1 - comm.rank(), 5);
  co_await comm.send(b.data, 1 - comm.rank(), 5);
}

// Every rank but 0 waits for a message rank 0 never sends.
Task<> forgotten_ranks(Comm& comm, RankBuffers b, const AlgorithmParams&) {
  if (comm.rank() != 0) co_await comm.recv(b.data, 0, 1001);
}

// Rank 0 sends 100 bytes; rank 1 receives segment bytes (first or last, by root).
Task<> size_mismatch(Comm& comm, RankBuffers, const AlgorithmParams& p) {
  Storage small(100, false), big(p.segment, false);
  if (comm.rank() == 0) {
    if (p.root == 1) {
      Storage a(kDelayBytes, false), c(kDelayBytes, false);
      co_await comm.copy(a.view(), c.view());  // the receive is posted first
    }
    co_await comm.send(small.view(), 1, 6);
  } else if (comm.rank() == 1) {
    co_await comm.recv(big.view(), 0, 6);
  }
}

// The root sends its buffer in three pieces with one tag (eager, rendezvous, eager); rank 1
// posts all three receives, then waits for them in reverse order. MPI order puts each piece in
// place; the bcast data check catches any swap. With params.fanout == 1 rank 1 posts late.
Task<> fifo_pieces(Comm& comm, RankBuffers b, const AlgorithmParams& p) {
  const std::size_t cut1 = 100, cut2 = 100 + 70000;
  Buffer pieces[3] = {b.data.slice(0, cut1), b.data.slice(cut1, cut2 - cut1), b.data.slice(cut2, b.data.size() - cut2)};
  if (comm.rank() == p.root) {
    for (auto& piece : pieces) co_await comm.send(piece, 1, 8);
  } else if (comm.rank() == 1) {
    if (p.fanout == 1) {
      Storage x(kDelayBytes, false), y(kDelayBytes, false);
      co_await comm.copy(x.view(), y.view());
    }
    std::vector<Request> r(3);
    for (int i = 0; i < 3; ++i) r[static_cast<std::size_t>(i)] = co_await comm.irecv(pieces[i], p.root, 8);
    for (int i = 2; i >= 0; --i) co_await comm.wait(r[static_cast<std::size_t>(i)]);
  }
}

// Rank 1 waits for any of two receives; rank 2's sender is delayed, so rank 0's must come first.
Task<> first_come(Comm& comm, RankBuffers, const AlgorithmParams&) {
  Storage m0(5000, false), m2(5000, false);
  if (comm.rank() == 0) {
    co_await comm.send(m0.view(), 1, 2);
  } else if (comm.rank() == 2) {
    Storage x(kDelayBytes, false), y(kDelayBytes, false);
    co_await comm.copy(x.view(), y.view());
    co_await comm.send(m2.view(), 1, 2);
  } else if (comm.rank() == 1) {
    std::vector<Request> r(2);
    r[0] = co_await comm.irecv(m2.view(), 2, 2);
    r[1] = co_await comm.irecv(m0.view(), 0, 2);
    const std::size_t first = co_await comm.wait_any(r);
    if (first != 1) throw std::runtime_error("wait_any returned the later message first");
    if (std::abs(comm.now() - transfer(5000)) > 1e-12) throw std::runtime_error("wait_any returned late");
    const std::size_t second = co_await comm.wait_any(r);
    if (second != 0) throw std::runtime_error("wait_any returned a completed request twice");
  }
}

// Every rank sends to rank 0 and never waits.
Task<> never_waits(Comm& comm, RankBuffers b, const AlgorithmParams&) {
  if (comm.rank() == 1) {
    Request r = co_await comm.isend(b.data, 0, 1);
    (void)r;
  }
  co_return;
}

// A barrier after rank 0 spends 1 ms copying: everyone leaves at 1 ms.
Task<> copy_then_barrier(Comm& comm, RankBuffers, const AlgorithmParams&) {
  if (comm.rank() == 0) {
    Storage x(kDelayBytes, false), y(kDelayBytes, false);
    co_await comm.copy(x.view(), y.view());
  }
  co_await comm.barrier();
}

// ---- (a) hand calculations ------------------------------------------------------------

TEST(HandCalculation, BlockingBinomialBcastOn16Hosts) {
  const auto alg = test_algorithm("test/textbook_bcast", &textbook_bcast);
  const std::size_t m = 1048592;
  const RunResult r = run_one(exact("test/star16.xml"), spec_for(alg, 16, m));
  const double want = 4 * (20e-6 + 1048592 / 1.25e9);  // 3435.4944 us
  EXPECT_NEAR(r.time_s, want, want * 1e-9);
  EXPECT_TRUE(r.data_error.empty()) << r.data_error;
  std::printf("binomial bcast of %zu bytes on 16 hosts: %.6f us (hand calculation %.6f us)\n", m, r.time_s * 1e6,
              want * 1e6);
  // Each rank finishes when its last send ends: rank 0 after 4 steps, leaves when received.
  expect_close(r.finish_s[0], 4 * transfer(m), "root");
  expect_close(r.finish_s[8], 4 * transfer(m), "rank 8 (a leaf of the last step)");
  expect_close(r.finish_s[1], 4 * transfer(m), "rank 1 sends at steps 2, 3, 4");
  expect_close(r.finish_s[15], 4 * transfer(m), "rank 15");
  expect_close(r.finish_s[7], 4 * transfer(m), "rank 7");
}

TEST(HandCalculation, BlockingChainIsTheSumOfItsHops) {
  const auto alg = test_algorithm("test/chain", &chain);
  const int P = static_cast<int>(kChain.size()) + 1;
  const RunResult r = run_one(exact("test/star16.xml"), spec_for(alg, P, 0, false));
  // Rank i returns when its send of hop i ends; the last rank when it has received.
  double t = 0;
  for (std::size_t i = 0; i < kChain.size(); ++i) {
    t += transfer(kChain[i]);
    expect_close(r.finish_s[i], t, "rank returning after its hop");
  }
  expect_close(r.finish_s.back(), t, "last rank");
  expect_close(r.time_s, t, "chain");
}

TEST(HandCalculation, LibraryBinomialBcastSharesEachSendersLink) {
  // bcast/binomial (unsegmented, rendezvous at 1 MiB) has every rank isend to all its children
  // at once. On star16 each host has its own split-duplex link, so a sender's k concurrent flows
  // share its up link (each ends lat + k*m/bw after they start) and nothing else is shared: a
  // receiver has one parent. Open MPI's binomial tree on vranks: v's children are v + 2^j for
  // every 2^j above v's highest set bit (v + 2^j < 16). So rank 0 feeds 1, 2, 4, 8 (4 flows),
  // rank 1 feeds 3, 5, 9, rank 3 feeds 7, 11, rank 7 feeds 15: rank 15 holds the data after
  // 4 latencies and 4 + 3 + 2 + 1 = 10 transfers, 8.468736 ms.
  const AlgorithmInfo* a = find_algorithm("bcast/binomial");
  ASSERT_NE(a, nullptr);
  const std::size_t m = 1048592;
  const double share = static_cast<double>(m) / kBw;  // one flow's bytes at the full rate
  const RunResult r = run_one(exact("test/star16.xml"), spec_for(*a, 16, m));
  EXPECT_TRUE(r.data_error.empty()) << r.data_error;
  EXPECT_NEAR(r.time_s, 8.468736e-3, 1e-9 * 8.468736e-3);
  auto children = [](int v) {
    int high = 1;
    while (high <= v) high *= 2;  // the first power of two above v's highest set bit
    int k = 0;
    for (int c = high; v + c < 16; c *= 2) ++k;
    return k;
  };
  // A rank holds the data when its parent's flows end; it returns when its own flows end.
  std::vector<double> received(16, 0.0);
  for (int v = 1; v < 16; ++v) {
    int high = 1;
    while (high * 2 <= v) high *= 2;
    const int parent = v - high;
    received[static_cast<std::size_t>(v)] =
        received[static_cast<std::size_t>(parent)] + kLat + children(parent) * share;
  }
  for (int v = 0; v < 16; ++v) {
    const double finish = received[static_cast<std::size_t>(v)] + (children(v) > 0 ? kLat + children(v) * share : 0.0);
    expect_close(r.finish_s[static_cast<std::size_t>(v)], finish, ("rank " + std::to_string(v)).c_str());
  }
}

TEST(HandCalculation, CopyCostsBytesOverMemcpyRate) {
  const auto alg = test_algorithm("test/copy_then_barrier", &copy_then_barrier);
  const RunResult r = run_one(exact("test/star16.xml"), spec_for(alg, 4, 0, false));
  for (double f : r.finish_s) expect_close(f, kDelayBytes / kCopy, "barrier release");
}

TEST(HandCalculation, GrisouLoopbackAndNetwork) {
  const auto alg = test_algorithm("test/late_receiver", &late_receiver);
  RunSpec s = spec_for(alg, 2, 0, false);
  s.params.segment = 1000000;
  // Rank 1 copies 1 MB at 5 GB/s (0.2 ms) before receiving a rendezvous message.
  const double copy = 1e6 / 5e9;
  const RunResult same_node = run_one(exact("grisou.xml", 2), s);
  expect_close(same_node.time_s, copy + 5e-6 + 1e6 / 3e9, "loopback: 5 us, 3 GBps");
  const RunResult two_nodes = run_one(exact("grisou.xml", 1), s);
  expect_close(two_nodes.time_s, copy + 20e-6 + 1e6 / 1.25e9, "network: 2 x 10 us, 1.25 GBps");
}

TEST(HandCalculation, Grisou51HostsAndStar16) {
  EXPECT_EQ(platform_host_count(platform("grisou.xml")), 51u);
  EXPECT_EQ(platform_host_count(platform("test/star16.xml")), 16u);
}

// ---- (c) eager and rendezvous ---------------------------------------------------------

TEST(Protocols, EagerTransferStartsBeforeTheReceiveIsPosted) {
  const auto alg = test_algorithm("test/late_receiver", &late_receiver);
  RunSpec s = spec_for(alg, 2, 0, false);
  s.params.segment = kEager - 1;
  const RunResult r = run_one(exact("test/star16.xml"), s);
  expect_close(r.finish_s[0], transfer(kEager - 1), "eager send ends with its transfer");
  expect_close(r.finish_s[1], kDelayBytes / kCopy, "eager receive ends when posted (data is there)");
}

TEST(Protocols, RendezvousTransferWaitsForTheReceive) {
  const auto alg = test_algorithm("test/late_receiver", &late_receiver);
  RunSpec s = spec_for(alg, 2, 0, false);
  s.params.segment = kEager;
  const RunResult r = run_one(exact("test/star16.xml"), s);
  const double want = kDelayBytes / kCopy + transfer(kEager);
  expect_close(r.finish_s[0], want, "rendezvous send");
  expect_close(r.finish_s[1], want, "rendezvous receive");
}

TEST(Protocols, EagerLimitIsConfigurable) {
  const auto alg = test_algorithm("test/late_receiver", &late_receiver);
  RunSpec s = spec_for(alg, 2, 0, false);
  s.params.segment = 1000;
  SimConfig c = exact("test/star16.xml");
  c.eager_limit = 1000;  // 1000 bytes is now rendezvous
  expect_close(run_one(c, s).finish_s[0], kDelayBytes / kCopy + transfer(1000), "rendezvous at the limit");
  c.eager_limit = 1001;
  expect_close(run_one(c, s).finish_s[0], transfer(1000), "eager below the limit");
}

TEST(Protocols, HeadToHeadBlockingSendsCompleteOnlyWhenEager) {
  const auto alg = test_algorithm("test/head_to_head_sends", &head_to_head_sends);
  RunSpec s = spec_for(alg, 2, 0, false);
  s.params.segment = kEager - 1;
  const RunResult r = run_one(exact("test/star16.xml"), s);
  expect_close(r.time_s, transfer(kEager - 1), "both eager sends go at once");
  s.params.segment = kEager;
  try {
    run_one(exact("test/star16.xml"), s);
    FAIL() << "rendezvous sends head to head must deadlock";
  } catch (const EngineError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("deadlock"), std::string::npos) << msg;
    EXPECT_NE(msg.find("rank 0 waiting in send to 1 tag 3"), std::string::npos) << msg;
    EXPECT_NE(msg.find("rank 1 waiting in send to 0 tag 3"), std::string::npos) << msg;
  }
}

TEST(Protocols, MessagesOfOneChannelArriveInOrderAcrossProtocols) {
  const auto alg = test_algorithm("test/fifo_pieces", &fifo_pieces);
  for (int late : {0, 1}) {
    RunSpec s = spec_for(alg, 2, 100 + 70000 + 50, true, 0);
    s.params.fanout = late;
    const RunResult r = run_one(exact("test/star16.xml"), s);
    EXPECT_TRUE(r.data_error.empty()) << "late=" << late << ": " << r.data_error;
  }
}

TEST(Protocols, WaitAnyReturnsTheFirstCompleted) {
  const auto alg = test_algorithm("test/first_come", &first_come);
  const RunResult r = run_one(exact("test/star16.xml"), spec_for(alg, 3, 0, false));
  expect_close(r.finish_s[1], kDelayBytes / kCopy + transfer(5000), "rank 1 after the late message");
}

TEST(Protocols, RanksBeyondTheHostCountShareHosts) {
  // 33 ranks on 16 hosts with 3 ranks per node; a textbook bcast still checks its data.
  const auto alg = test_algorithm("test/textbook_bcast", &textbook_bcast);
  const RunResult r = run_one(exact("test/star16.xml", 3), spec_for(alg, 33, 4097, true, 5));
  EXPECT_TRUE(r.data_error.empty()) << r.data_error;
  EXPECT_EQ(r.finish_s.size(), 33u);
}

TEST(Protocols, ResultsStreamInOrderFromOneSimulation) {
  const auto alg = test_algorithm("test/textbook_bcast", &textbook_bcast);
  std::vector<RunSpec> specs;
  for (std::size_t m : {std::size_t{1000}, std::size_t{100000}, std::size_t{1048592}})
    specs.push_back(spec_for(alg, 16, m));
  std::vector<std::size_t> order;
  std::vector<double> times;
  run_sim(exact("test/star16.xml"), specs, [&](std::size_t i, const RunResult& r) {
    order.push_back(i);
    times.push_back(r.time_s);
  });
  ASSERT_EQ(order, (std::vector<std::size_t>{0, 1, 2}));
  // Each measurement is timed from its own start, unaffected by the ones before it.
  expect_close(times[0], 4 * transfer(1000), "first");
  expect_close(times[1], 4 * transfer(100000), "second");
  expect_close(times[2], 4 * transfer(1048592), "third");
}

// Every rank copies 1 MB: its time tells the memcpy rate, so the host, it ran on.
Task<> copy_only(Comm& comm, RankBuffers, const AlgorithmParams&) {
  Storage x(kDelayBytes, false), y(kDelayBytes, false);
  co_await comm.copy(x.view(), y.view());
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

TEST(Protocols, RanksMapOntoHostsInNaturalOrderOfNames) {
  const auto alg = test_algorithm("test/copy_only", &copy_only);
  SimConfig c;
  c.platform_file = write_temp("collsim_three_hosts.xml",
                               "<?xml version='1.0'?>\n"
                               "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                               "<platform version=\"4.1\">\n"
                               "  <zone id=\"z\" routing=\"Floyd\">\n"
                               "    <host id=\"h10\" speed=\"1Gf\"><prop id=\"memcpy_bw\" value=\"4GBps\"/></host>\n"
                               "    <host id=\"h2\" speed=\"1Gf\"><prop id=\"memcpy_bw\" value=\"2GBps\"/></host>\n"
                               "    <host id=\"h1\" speed=\"1Gf\"><prop id=\"memcpy_bw\" value=\"1GBps\"/></host>\n"
                               "    <link id=\"l\" bandwidth=\"1GBps\" latency=\"1us\"/>\n"
                               "    <route src=\"h1\" dst=\"h2\"><link_ctn id=\"l\"/></route>\n"
                               "    <route src=\"h2\" dst=\"h10\"><link_ctn id=\"l\"/></route>\n"
                               "  </zone>\n"
                               "</platform>\n");
  const RunResult one = run_one(c, spec_for(alg, 3, 0, false));
  expect_close(one.finish_s[0], 1e-3, "rank 0 on h1");
  expect_close(one.finish_s[1], 0.5e-3, "rank 1 on h2");
  expect_close(one.finish_s[2], 0.25e-3, "rank 2 on h10");
  c.map_by = {models::MapBy::Policy::ppr_node, 2};
  const RunResult two = run_one(c, spec_for(alg, 6, 0, false));
  const double want[] = {1e-3, 1e-3, 0.5e-3, 0.5e-3, 0.25e-3, 0.25e-3};
  for (std::size_t r = 0; r < 6; ++r) expect_close(two.finish_s[r], want[r], "two ranks per node");
}

// A copy of n bytes is its host's per-call cost and its bytes at memcpy_bw: on a host of 1 GB/s
// and collsim/copy_overhead 2 us, 1000 bytes take 2 + 1 = 3 us and 1 MB 2 + 1000 = 1002 us (two
// sizes: the slope and the constant). Without the property the same copies take 1 and 1000 us.
Task<> copy_of_segment(Comm& comm, RankBuffers, const AlgorithmParams& p) {
  Storage x(p.segment, false), y(p.segment, false);
  co_await comm.copy(x.view(), y.view());
}

TEST(Protocols, ACopyCostsItsCallAndItsBytes) {
  const auto alg = test_algorithm("test/copy_of_segment", &copy_of_segment);
  auto host = [](const std::string& props) {
    return "<?xml version='1.0'?>\n"
           "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
           "<platform version=\"4.1\">\n"
           "  <zone id=\"z\" routing=\"Full\">\n"
           "    <host id=\"h\" speed=\"1Gf\"><prop id=\"memcpy_bw\" value=\"1GBps\"/>" +
           props +
           "</host>\n"
           "  </zone>\n"
           "</platform>\n";
  };
  SimConfig with, without;
  with.platform_file =
      write_temp("collsim_copy_overhead.xml", host("<prop id=\"collsim/copy_overhead\" value=\"2us\"/>"));
  without.platform_file = write_temp("collsim_no_copy_overhead.xml", host(""));
  for (const std::size_t n : {std::size_t{1000}, std::size_t{1000000}}) {
    RunSpec spec = spec_for(alg, 1, 0, false);
    spec.params.segment = n;
    const double bytes = static_cast<double>(n) / 1e9;
    expect_close(run_one(with, spec).time_s, 2e-6 + bytes, n == 1000 ? "1000 B: 3 us" : "1 MB: 1002 us");
    expect_close(run_one(without, spec).time_s, bytes, n == 1000 ? "1000 B: 1 us" : "1 MB: 1000 us");
  }
}

// ---- (d) deadlocks and misuse -----------------------------------------------------------

TEST(Errors, DeadlockNamesTheRanksAndWhatTheyWaitFor) {
  const auto alg = test_algorithm("test/head_to_head_recvs", &head_to_head_recvs);
  try {
    run_one(exact("test/star16.xml"), spec_for(alg, 2, 10));
    FAIL() << "expected a deadlock";
  } catch (const EngineError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("deadlock in test/head_to_head_recvs on 2 processes"), std::string::npos) << msg;
    EXPECT_NE(msg.find("rank 0 waiting in recv from 1 tag 5"), std::string::npos) << msg;
    EXPECT_NE(msg.find("rank 1 waiting in recv from 0 tag 5"), std::string::npos) << msg;
  }
}

TEST(Errors, DeadlockGroupsRanksAndKeepsEarlierResults) {
  const auto good = test_algorithm("test/textbook_bcast", &textbook_bcast);
  const auto bad = test_algorithm("test/forgotten_ranks", &forgotten_ranks);
  std::vector<RunSpec> specs{spec_for(good, 6, 100), spec_for(bad, 6, 100), spec_for(good, 6, 100)};
  std::vector<std::size_t> got;
  try {
    run_sim(exact("test/star16.xml"), specs, [&](std::size_t i, const RunResult&) { got.push_back(i); });
    FAIL() << "expected a deadlock";
  } catch (const EngineError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("on 6 processes"), std::string::npos) << msg;
    EXPECT_NE(msg.find("ranks 1-5 waiting in recv from 0 tag 1001"), std::string::npos) << msg;
  }
  EXPECT_EQ(got, std::vector<std::size_t>{0});
}

TEST(Errors, SizeMismatchNamesRanksAndSizes) {
  const auto alg = test_algorithm("test/size_mismatch", &size_mismatch);
  for (int receive_first : {0, 1}) {
    for (std::size_t big : {std::size_t{200}, std::size_t{100000}}) {
      RunSpec s = spec_for(alg, 2, 0, false);
      s.params.root = receive_first;
      s.params.segment = big;
      try {
        run_one(exact("test/star16.xml"), s);
        FAIL() << "expected a size mismatch";
      } catch (const EngineError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("test/size_mismatch on 2 processes"), std::string::npos) << msg;
        EXPECT_NE(msg.find("rank 0"), std::string::npos) << msg;
        EXPECT_NE(msg.find("rank 1"), std::string::npos) << msg;
        EXPECT_NE(msg.find(" 100 bytes"), std::string::npos) << msg;
        EXPECT_NE(msg.find(std::to_string(big) + " bytes"), std::string::npos) << msg;
      }
    }
  }
}

TEST(Errors, RequestsNeverWaitedAreAnError) {
  const auto alg = test_algorithm("test/never_waits", &never_waits);
  // Under tcp the ranks return while the message's fragment is still moving: the transport's
  // events due later must find nothing to do, and the error is the same.
  for (const char* protocol : {"ideal", "tcp"}) {
    try {
      run_one(exact("test/star16.xml", 1, protocol), spec_for(alg, 2, 60000));
      FAIL() << protocol << ": expected an error";
    } catch (const EngineError& e) {
      EXPECT_NE(std::string(e.what()).find("rank 1 returned with 1 requests never completed (send to 0 (tag 1))"),
                std::string::npos)
          << protocol << ": " << e.what();
    }
  }
}

TEST(Errors, AlgorithmExceptionsBecomeEngineErrors) {
  const auto alg = test_algorithm("test/first_come", &first_come);
  // With only two ranks rank 1's receive from rank 2 is a bad rank.
  try {
    run_one(exact("test/star16.xml"), spec_for(alg, 2, 0, false));
    FAIL() << "expected an error";
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find("rank 1: irecv from rank 2, which does not exist (2 ranks)"),
              std::string::npos)
        << e.what();
  }
}

TEST(Errors, StackOverflowFailsLoudlyAndNamesTheStackSize) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "sanitized builds run actors as threads, which contexts/stack-size does not size";
#else
  // sim.cfg's stack size wins over the engine's; 4 KiB is too small for any rank (about 6 KiB
  // are needed), and with guard pages (a few actors) the overflow is caught, not corrupting memory.
  SimConfig c = exact("test/star16.xml");
  c.cfg.push_back("contexts/stack-size:4");
  c.cfg.push_back("contexts/guard-size:1");
  const auto alg = test_algorithm("test/textbook_bcast", &textbook_bcast);
  try {
    run_one(c, spec_for(alg, 4, 1000));
    FAIL() << "expected the overflow to end the simulation";
  } catch (const EngineError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("killed by signal 11"), std::string::npos) << what;
    EXPECT_NE(what.find("try a larger contexts/stack-size in sim.cfg (current size is 4 KiB)"), std::string::npos)
        << what;
  }
#endif
}

// ---- (e) bad input ------------------------------------------------------------------------

void expect_input_error(const SimConfig& c, const RunSpec& s, const std::string& fragment) {
  try {
    run_one(c, s);
    FAIL() << "expected InputError containing '" << fragment << "'";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(Errors, MissingPlatformFile) {
  const auto alg = test_algorithm("test/textbook_bcast", &textbook_bcast);
  SimConfig c;
  c.platform_file = "/nonexistent/cluster.xml";
  expect_input_error(c, spec_for(alg, 2, 10), "/nonexistent/cluster.xml: ");
  EXPECT_THROW(platform_host_count("/nonexistent/cluster.xml"), InputError);
}

// The exact error of a run, and its type.
template <class Error>
void expect_error(const SimConfig& c, const RunSpec& s, const std::string& message) {
  try {
    run_one(c, s);
    FAIL() << "expected: " << message;
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), message);
  }
}

std::string three_hosts(const std::string& name, const std::string& routing, const std::string& config = "") {
  return write_temp(name,
                    "<?xml version='1.0'?>\n"
                    "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                    "<platform version=\"4.1\">\n" +
                        config + "  <zone id=\"z\" routing=\"" + routing +
                        "\">\n"
                        "    <host id=\"a\" speed=\"1Gf\"/>\n"
                        "    <host id=\"b\" speed=\"1Gf\"/>\n"
                        "    <host id=\"c\" speed=\"1Gf\"/>\n"
                        "    <link id=\"l\" bandwidth=\"1GBps\" latency=\"5us\"/>\n"
                        "    <route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></route>\n"
                        "  </zone>\n"
                        "</platform>\n");
}

TEST(Errors, MalformedPlatformFile) {
  const auto alg = test_algorithm("test/textbook_bcast", &textbook_bcast);
  SimConfig c;
  c.platform_file = write_temp("collsim_malformed.xml",
                               "<?xml version='1.0'?>\n"
                               "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                               "<platform version=\"4.1\">\n"
                               "  <cluster id=\"c\" prefix=\"h\" suffix=\"\" radical=\"0-3\"\n"
                               "</platform>\n");
  expect_error<PlatformError>(c, spec_for(alg, 2, 10),
                              c.platform_file + ":5:1: malformed XML: not well-formed (invalid token)");
  c.platform_file = write_temp("collsim_not_xml.xml", "this is not a platform\n");
  expect_error<PlatformError>(c, spec_for(alg, 2, 10), c.platform_file + ":1:1: malformed XML: syntax error");
  c.platform_file = write_temp("collsim_bad_memcpy.xml",
                               "<?xml version='1.0'?>\n"
                               "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                               "<platform version=\"4.1\">\n"
                               "  <cluster id=\"c\" prefix=\"h\" suffix=\"\" radical=\"0-3\" speed=\"1Gf\"\n"
                               "           bw=\"1GBps\" lat=\"1us\">\n"
                               "    <prop id=\"memcpy_bw\" value=\"fast\"/>\n"
                               "  </cluster>\n"
                               "</platform>\n");
  expect_error<PlatformError>(
      c, spec_for(alg, 2, 10),
      c.platform_file +
          ":6:5: <prop id=\"memcpy_bw\"> value 'fast' is not a bandwidth (e.g. 6GBps; a bare number is bytes/s)");
}

// SimGrid has no route between hosts a zone does not join: a Full zone gives one without links, a
// Floyd zone throws, a Dijkstra zone crashes (the attempt recorded before the lookup reports it).
// Each is found before anything runs, for the hosts the ranks are placed on.
TEST(Errors, HostsWithoutARouteBetweenThem) {
  const auto alg = test_algorithm("test/textbook_bcast", &textbook_bcast);
  for (const char* routing : {"Full", "Floyd", "Dijkstra"}) {
    SCOPED_TRACE(routing);
    SimConfig c;
    c.platform_file = three_hosts(std::string("collsim_no_route_") + routing + ".xml", routing);
    EXPECT_EQ(run_one(c, spec_for(alg, 2, 10)).data_error, "");  // a and b are joined
    expect_error<PlatformError>(c, spec_for(alg, 3, 10), c.platform_file + ":5:5: no route from host a to host c");
    try {
      platform_hockney(c);
      ADD_FAILURE() << "expected the model's derivation to refuse it";
    } catch (const PlatformError& e) {
      EXPECT_EQ(std::string(e.what()), c.platform_file + ":5:5: no route from host a to host c");
    }
  }
}

// The platform's <config> options are set before SimGrid reads the file, so a bad one is refused
// at its place, SimGrid's aborting on a bad model name included; a bad option of sim.cfg names it.
TEST(Errors, BadConfigOptions) {
  const auto alg = test_algorithm("test/textbook_bcast", &textbook_bcast);
  const auto with = [](const std::string& name, const std::string& key, const std::string& value) {
    return three_hosts(name, "Full",
                       "  <config>\n    <prop id=\"" + key + "\" value=\"" + value + "\"/>\n  </config>\n");
  };
  SimConfig c;
  c.platform_file = with("collsim_cfg_model.xml", "network/model", "NOPE");
  expect_error<PlatformError>(c, spec_for(alg, 2, 10),
                              c.platform_file +
                                  ":5:5: <config> option network/model 'NOPE': Model 'NOPE' is invalid! Valid models "
                                  "are: LV08, Constant, SMPI, IB, CM02, ns-3.");
  c.platform_file = with("collsim_cfg_bool.xml", "network/crosstraffic", "maybe");
  expect_error<PlatformError>(c, spec_for(alg, 2, 10),
                              c.platform_file + ":5:5: <config> option network/crosstraffic 'maybe': not a boolean");
  c.platform_file = with("collsim_cfg_key.xml", "network/nope", "1");
  expect_error<PlatformError>(c, spec_for(alg, 2, 10),
                              c.platform_file + ":5:5: <config> option 'network/nope' is not a SimGrid option");
  c = exact("test/star16.xml");
  c.cfg.push_back("network/model:NOPE");
  expect_error<InputError>(c, spec_for(alg, 2, 10),
                           "bad SimGrid option 'network/model:NOPE': Model 'NOPE' is invalid! Valid models are: LV08, "
                           "Constant, SMPI, IB, CM02, ns-3.");
}

// What only SimGrid's parser sees (the order of a zone's elements) keeps its words, placed at the
// element and without the parser's state; hosts that disagree on a protocol property are placed
// at the second one.
TEST(Errors, SimGridsOwnRefusalsArePlaced) {
  const auto alg = test_algorithm("test/textbook_bcast", &textbook_bcast);
  SimConfig c;
  c.platform_file = write_temp("collsim_order.xml",
                               "<?xml version='1.0'?>\n"
                               "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                               "<platform version=\"4.1\">\n"
                               "  <zone id=\"z\" routing=\"Full\">\n"
                               "    <host id=\"a\" speed=\"1Gf\"/>\n"
                               "    <link id=\"l\" bandwidth=\"1GBps\" latency=\"5us\"/>\n"
                               "    <route src=\"a\" dst=\"a\"><link_ctn id=\"l\"/></route>\n"
                               "    <host id=\"b\" speed=\"1Gf\"/>\n"
                               "  </zone>\n"
                               "</platform>\n");
  expect_error<PlatformError>(c, spec_for(alg, 1, 10),
                              c.platform_file + ":8:5: Starting tag <host> is not allowed here.");
  c.platform_file =
      write_temp("collsim_disagree.xml",
                 "<?xml version='1.0'?>\n"
                 "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                 "<platform version=\"4.1\">\n"
                 "  <zone id=\"z\" routing=\"Full\">\n"
                 "    <host id=\"a\" speed=\"1Gf\"><prop id=\"collsim/protocol\" value=\"tcp\"/></host>\n"
                 "    <host id=\"b\" speed=\"1Gf\"><prop id=\"collsim/protocol\" value=\"ideal\"/></host>\n"
                 "  </zone>\n"
                 "</platform>\n");
  expect_error<PlatformError>(c, spec_for(alg, 1, 10),
                              c.platform_file + ":6:5: hosts a and b disagree on collsim/protocol ('tcp' and 'ideal')");
}

TEST(Errors, MoreRanksThanSlots) {
  const auto alg = test_algorithm("test/textbook_bcast", &textbook_bcast);
  expect_input_error(
      exact("test/star16.xml"), spec_for(alg, 17, 10),
      "platform " + platform("test/star16.xml") +
          " has 16 hosts, room for 16 ranks placed --map-by ppr:1:node, but 17 processes were asked for");
  expect_input_error(exact("test/star16.xml", 2), spec_for(alg, 33, 10),
                     "room for 32 ranks placed --map-by ppr:2:node, but 33 processes");
  SimConfig c = exact("test/star16.xml", 0);
  expect_input_error(c, spec_for(alg, 2, 10), "map-by ppr:0:node: the count must be at least 1");
}

TEST(Errors, BadSimGridOption) {
  const auto alg = test_algorithm("test/textbook_bcast", &textbook_bcast);
  SimConfig c = exact("test/star16.xml");
  c.cfg.push_back("network/no-such-option:3");
  EXPECT_THROW(run_one(c, spec_for(alg, 2, 10)), InputError);
}

}  // namespace
}  // namespace collsim
