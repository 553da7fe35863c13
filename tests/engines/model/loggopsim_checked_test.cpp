// The model engine's LogGP against the numbers LogGOPSim gives (shared/reference/models.md,
// "LogGP as LogGOPSim defines it", paragraph "Checked": spcl/LogGOPSim run on the same patterns):
// L = 10000 ns, o = 1500 ns, g = 1000 ns, G = 6 ns/byte, messages of s = 1001 bytes, so
// (s-1)G = 6000 ns. Only its O = 0, eager cases: the model engine has no O and no rendezvous.
//
// Each number is also derived by hand in a comment, from the rules in model_engine.hpp: a send
// ready at t starts at t0 >= t when the sender's CPU and NIC-send are free, holds the CPU to
// t0 + o and the NIC-send to t0 + g + (s-1)G (so one rank's sends start
// I_s = max(o, g + (s-1)G) = 7000 apart), and its first byte arrives at t0 + o + L. An arrival is
// handled from p when the receiver's CPU and NIC-receive are free, holding the CPU to
// p + o + (s-1)G (the data is usable then) and the NIC-receive to p + g + (s-1)G (so one rank
// handles arrivals I_r = max(o, g) + (s-1)G = 7500 apart). One message between idle ranks:
// T1 = 2o + L + (s-1)G = 19000.
//
// LogGOPSim reports a host's finish as its last CPU-free time; ours is when the rank's coroutine
// returns. A receiver returns when its last receive completes, its last data usable: the same. A
// sender returns when it has waited for its sends; eager sends complete when they start, but the
// coroutine only continues after each isend when the CPU is free again (t0 + o), so it returns
// at the last send's t0 + o: LogGOPSim's sender finish too.
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "comm/buffer.hpp"
#include "engines/model/model_engine.hpp"
#include "registry/registry.hpp"

namespace collsim {
namespace {

constexpr double kNs = 1e-9;
constexpr std::size_t kBytes = 1001;

// The pattern the test algorithm runs: messages (source, destination), each of kBytes, and how
// many bytes the receivers copy right after posting their receives (0: none).
struct Pattern {
  std::vector<std::pair<int, int>> messages;
  std::size_t receiver_copy = 0;
};
Pattern pattern;

// Every rank posts, in message order, an isend for each message it sends and an irecv for each it
// receives (all the same tag: matched in the order sent), copies pattern.receiver_copy bytes if it
// receives anything, then waits for all its requests.
Task<> messages(Comm& comm, RankBuffers, const AlgorithmParams&) {
  Storage data(kBytes, false), a(pattern.receiver_copy, false), b(pattern.receiver_copy, false);
  std::vector<Request> requests;
  bool receives = false;
  for (const auto& [from, to] : pattern.messages) {
    if (from == comm.rank()) requests.push_back(co_await comm.isend(data.view(), to, 1));
    if (to == comm.rank()) {
      requests.push_back(co_await comm.irecv(data.view(), from, 1));
      receives = true;
    }
  }
  if (receives) co_await comm.copy(a.view(), b.view());
  co_await comm.wait_all(requests);
}

const AlgorithmInfo kMessages{"test/messages", Operation::bcast, 0, false, "", &messages};

ModelConfig loggopsim(double g_ns = 1000) {
  ModelConfig c;
  c.kind = ModelConfig::Kind::loggp;
  c.loggp = {10000 * kNs, 1500 * kNs, g_ns * kNs, 6 * kNs};
  c.copy_bandwidth = 1e9;  // 1 byte per ns
  return c;
}

// Runs `p` on `procs` ranks and checks each rank's finish, in ns.
void expect_finish_ns(const ModelConfig& c, Pattern p, int procs, const std::vector<double>& want_ns) {
  pattern = std::move(p);
  RunSpec s;
  s.algorithm = &kMessages;
  s.procs = procs;
  s.real_bytes = false;
  const RunResult r = run_model(c, s);
  ASSERT_EQ(r.finish_s.size(), want_ns.size());
  for (std::size_t i = 0; i < want_ns.size(); ++i)
    EXPECT_NEAR(r.finish_s[i], want_ns[i] * kNs, 1e-12 * want_ns[i] * kNs) << "rank " << i;
}

TEST(LogGOPSimChecked, OneMessage) {
  // Sender: t0 = 0, returns at o = 1500. Receiver: arrival o + L = 11500, usable at T1 = 19000.
  expect_finish_ns(loggopsim(), {{{0, 1}}}, 2, {1500, 19000});
}

TEST(LogGOPSimChecked, FourMessagesFromOneSenderToOneReceiver) {
  // Sends start I_s = 7000 apart: t0 = 0, 7000, 14000, 21000; the sender returns at
  // 21000 + o = 22500. Arrivals at t0 + 11500 = 11500, 18500, 25500, 32500; the receiver handles
  // them I_r = 7500 apart, later than they arrive: from 11500, 19000, 26500, 34000, the last
  // usable at 34000 + o + (s-1)G = 41500 = 3 max(I_s, I_r) + T1.
  expect_finish_ns(loggopsim(), {{{0, 1}, {0, 1}, {0, 1}, {0, 1}}}, 2, {22500, 41500});
}

TEST(LogGOPSimChecked, FourMessagesFromOneSenderToFourReceivers) {
  // Sends start at t0 = 7000k (k = 0..3), the sender returns at 22500; receiver k + 1, idle, has
  // its data at t0 + T1 = 19000, 26000, 33000, 40000.
  expect_finish_ns(loggopsim(), {{{0, 1}, {0, 2}, {0, 3}, {0, 4}}}, 5, {22500, 19000, 26000, 33000, 40000});
}

TEST(LogGOPSimChecked, FourSendersToOneReceiver) {
  // The four sends start at 0 (each sender returns at o = 1500) and all arrive at 11500; the
  // receiver handles them I_r = 7500 apart, from 11500 to 34000, the last usable at
  // 34000 + 7500 = 41500 = 3 I_r + T1.
  expect_finish_ns(loggopsim(), {{{1, 0}, {2, 0}, {3, 0}, {4, 0}}}, 5, {41500, 1500, 1500, 1500, 1500});
}

TEST(LogGOPSimChecked, FourMessagesToOneReceiverWithALargeGap) {
  // g = 20000: I_s = max(o, g + (s-1)G) = 26000, so t0 = 0, 26000, 52000, 78000 and the sender
  // returns at 79500. Arrivals at t0 + 11500; each comes when the receiver's NIC-receive frees from
  // the previous one (p + g + (s-1)G = p + 26000), so each is handled on arrival: the last at
  // 89500, usable at 89500 + 7500 = 97000.
  expect_finish_ns(loggopsim(20000), {{{0, 1}, {0, 1}, {0, 1}, {0, 1}}}, 2, {79500, 97000});
}

TEST(LogGOPSimChecked, EagerMessageToAComputingReceiver) {
  // The receiver posts its receive, then copies 1e6 bytes at 1 byte/ns: its CPU is busy until
  // 1e6. The message arrives at 11500 and is handled when the CPU frees: usable at
  // 1e6 + o + (s-1)G = 1007500.
  expect_finish_ns(loggopsim(), {{{0, 1}}, 1000000}, 2, {1500, 1007500});
}

}  // namespace
}  // namespace collsim
