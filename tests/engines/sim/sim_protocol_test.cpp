// The tcp and shm protocol profiles of the sim engine (protocol.hpp), one rule at a time, against
// hand calculations on platforms/test/star16.xml under CM02 without cross traffic: a flow of w
// bytes alone on a route takes t(w) = 20 us + w / 1.25 GB/s, whether between two hosts or between
// two ranks of one host (star16 has no loopback: they use the host's own two links).
//
// Bytes on the wire (Open MPI 4.1, ../shared/reference/openmpi-p2p-protocols.md): tcp eager
// 22 + N, RNDV 40, PUT control 64 (back), data 24 + N, FIN 32; shm eager 14 + N, RGET 48, FIN 24
// (back) after the receiver's single copy of N bytes.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "algorithms/params.hpp"
#include "comm/buffer.hpp"
#include "common/sim_test_util.hpp"
#include "common/test_algorithm.hpp"

namespace collsim {
namespace {

using collsim_test::test_algorithm;

using collsim_test::exact;
using collsim_test::run_one;

constexpr double kLat = 20e-6, kBw = 1.25e9;
constexpr std::size_t kMs = 1000000;  // bytes a star16 host copies in 1 ms (memcpy_bw 1 GBps)

double t(double wire_bytes) { return kLat + wire_bytes / kBw; }

void expect_time(double got, double want, const std::string& what) {
  EXPECT_NEAR(got, want, want * 1e-9 + 2e-9) << what;
}

// The knobs of these test algorithms: params.segment is a message size, params.fanout a delay
// in bytes of copying (1000000 = 1 ms) and params.radix a second message size.
RunSpec spec_for(const AlgorithmInfo& a, int procs, std::size_t message, std::size_t delay = 0,
                 std::size_t second = 0) {
  RunSpec s;
  s.algorithm = &a;
  s.procs = procs;
  s.bytes = 0;
  s.real_bytes = false;
  s.params.segment = message;
  s.params.fanout = static_cast<int>(delay);
  s.params.radix = static_cast<int>(second);
  return s;
}

Task<> busy(Comm& comm, std::size_t bytes) {
  if (bytes == 0) co_return;
  Storage a(bytes, false), b(bytes, false);
  co_await comm.copy(a.view(), b.view());
}

// Rank 0 sends one message; rank 1 first copies for the delay, then receives it.
Task<> one_message(Comm& comm, RankBuffers, const AlgorithmParams& p) {
  Storage msg(p.segment, false);
  if (comm.rank() == 0) co_await comm.send(msg.view(), 1, 1);
  if (comm.rank() == 1) {
    co_await busy(comm, static_cast<std::size_t>(p.fanout));
    co_await comm.recv(msg.view(), 0, 1);
  }
}

// Rank 1 posts its receive at once, copies for the delay, then waits for it.
Task<> posted_then_busy(Comm& comm, RankBuffers, const AlgorithmParams& p) {
  Storage msg(p.segment, false);
  if (comm.rank() == 0) co_await comm.send(msg.view(), 1, 1);
  if (comm.rank() == 1) {
    Request r = co_await comm.irecv(msg.view(), 0, 1);
    co_await busy(comm, static_cast<std::size_t>(p.fanout));
    co_await comm.wait(r);
  }
}

// Rank 0 sends two messages back to back (sizes segment and radix) to rank 1, which receives the
// first, copies for the delay, then receives the second.
Task<> two_messages(Comm& comm, RankBuffers, const AlgorithmParams& p) {
  Storage first(p.segment, false), second(static_cast<std::size_t>(p.radix), false);
  if (comm.rank() == 0) {
    co_await comm.send(first.view(), 1, 1);
    co_await comm.send(second.view(), 1, 2);
  }
  if (comm.rank() == 1) {
    co_await comm.recv(first.view(), 0, 1);
    co_await busy(comm, static_cast<std::size_t>(p.fanout));
    co_await comm.recv(second.view(), 0, 2);
  }
}

// Rank 0 isends one message to each of ranks 1 and 2 at once.
Task<> to_two_peers(Comm& comm, RankBuffers, const AlgorithmParams& p) {
  Storage msg(p.segment, false);
  if (comm.rank() == 0) {
    Request r[2];
    r[0] = co_await comm.isend(msg.view(), 1, 1);
    r[1] = co_await comm.isend(msg.view(), 2, 1);
    co_await comm.wait_all(r);
  } else if (comm.rank() <= 2) {
    co_await comm.recv(msg.view(), 0, 1);
  }
}

// Ranks 1 and 2 send one message each to rank 0, which has posted both receives.
Task<> from_two_peers(Comm& comm, RankBuffers, const AlgorithmParams& p) {
  Storage a(p.segment, false), b(p.segment, false);
  if (comm.rank() == 0) {
    Request r[2];
    r[0] = co_await comm.irecv(a.view(), 1, 1);
    r[1] = co_await comm.irecv(b.view(), 2, 1);
    co_await comm.wait_all(r);
  } else if (comm.rank() <= 2) {
    co_await comm.send(a.view(), 0, 1);
  }
}

// Rank 0 sends `radix` messages of `segment` bytes to rank 1, which receives them in order.
Task<> many_messages(Comm& comm, RankBuffers, const AlgorithmParams& p) {
  Storage msg(p.segment, false);
  for (int i = 0; i < p.radix; ++i) {
    if (comm.rank() == 0) co_await comm.send(msg.view(), 1, 1);
    if (comm.rank() == 1) co_await comm.recv(msg.view(), 0, 1);
  }
}

const AlgorithmInfo kOne = test_algorithm("test/one_message", &one_message);
const AlgorithmInfo kPostedThenBusy = test_algorithm("test/posted_then_busy", &posted_then_busy);
const AlgorithmInfo kTwo = test_algorithm("test/two_messages", &two_messages);
const AlgorithmInfo kTwoPeers = test_algorithm("test/to_two_peers", &to_two_peers);
const AlgorithmInfo kFromTwoPeers = test_algorithm("test/from_two_peers", &from_two_peers);
const AlgorithmInfo kMany = test_algorithm("test/many_messages", &many_messages);

SimConfig tcp(std::vector<std::string> options = {}) {
  SimConfig c = exact("test/star16.xml", 1, "tcp");
  c.protocol_options = std::move(options);
  return c;
}

// ---- tcp ---------------------------------------------------------------------------------------

TEST(TcpProtocol, OneEagerMessage) {
  // One fragment of 22 + 1000 bytes. The send completes when the kernel has the bytes, at once;
  // the receive when they have arrived.
  RunResult r = run_one(tcp(), spec_for(kOne, 2, 1000));
  expect_time(r.finish_s[0], 0, "sender");
  expect_time(r.finish_s[1], t(1022), "receiver");
  // Handing a message over costs the sender send_overhead, before its bytes leave.
  r = run_one(tcp({"tcp/send_overhead:3e-6"}), spec_for(kOne, 2, 1000));
  expect_time(r.finish_s[0], 3e-6, "sender with an overhead");
  expect_time(r.finish_s[1], 3e-6 + t(1022), "receiver with an overhead");
  // The largest eager payload, 65536 - 56 bytes, is still one fragment.
  r = run_one(tcp(), spec_for(kOne, 2, 65480));
  expect_time(r.finish_s[0], 0, "sender at the eager limit");
  expect_time(r.finish_s[1], t(65502), "receiver at the eager limit");
}

TEST(TcpProtocol, BackToBackEagerMessagesShareOneStream) {
  // Both sends complete at once. The second fragment's bytes follow the first's on the one
  // connection: one latency for both, 1022 + 3022 bytes at the link's rate. (As two independent
  // flows they would share the link: the first would end at 20 us + 2 * 1022 / bw.)
  RunResult r = run_one(tcp(), spec_for(kTwo, 2, 1000, 0, 3000));
  expect_time(r.finish_s[0], 0, "sender");
  expect_time(r.finish_s[1], kLat + (1022 + 3022) / kBw, "receiver of both");
  // The first one alone arrives at t(1022): the receiver then copies 1 ms, by the end of which
  // the second is in.
  r = run_one(tcp(), spec_for(kTwo, 2, 1000, kMs, 3000));
  expect_time(r.finish_s[1], t(1022) + 1e-3, "receiver after the first and a copy");
}

TEST(TcpProtocol, EagerMessagesToTwoPeersShareTheSendersLink) {
  // Two connections, one link: Linux's TCP small queues interleave the two sockets' packets, so
  // both messages leave at half the rate and arrive together.
  const RunResult r = run_one(tcp(), spec_for(kTwoPeers, 3, 50000));
  expect_time(r.finish_s[0], 0, "sender");
  expect_time(r.finish_s[1], kLat + 2 * 50022 / kBw, "first peer");
  expect_time(r.finish_s[2], kLat + 2 * 50022 / kBw, "second peer");
}

TEST(TcpProtocol, EagerMessagesToTwoPeersLeaveAFifoInterfaceInOrder) {
  // tcp/interface:fifo: two connections, one queue: the first message's bytes leave, then the
  // second's right behind them, not both at half the rate.
  const RunResult r = run_one(tcp({"tcp/interface:fifo"}), spec_for(kTwoPeers, 3, 50000));
  expect_time(r.finish_s[0], 0, "sender");
  expect_time(r.finish_s[1], kLat + 50022 / kBw, "first peer");
  expect_time(r.finish_s[2], kLat + 2 * 50022 / kBw, "second peer");
}

TEST(TcpProtocol, MessagesFromTwoPeersShareTheReceiversLink) {
  // Two NICs, one receiving link: the two flows cross rank 0's link together at half its rate.
  const RunResult r = run_one(tcp(), spec_for(kFromTwoPeers, 3, 50000));
  expect_time(r.finish_s[1], 0, "first sender");
  expect_time(r.finish_s[2], 0, "second sender");
  expect_time(r.finish_s[0], kLat + 2 * 50022 / kBw, "receiver");
}

TEST(TcpProtocol, SocketBufferBoundsHowFarEagerSendsRunAhead) {
  // With a 1000-byte socket buffer the second 822-byte fragment fits only once the first has
  // been written out, 822 bytes at the link's rate after it started.
  const RunResult r = run_one(tcp({"tcp/buffer:1000"}), spec_for(kTwo, 2, 800, 0, 800));
  expect_time(r.finish_s[0], 822 / kBw, "sender of the second");
  expect_time(r.finish_s[1], kLat + 1644 / kBw, "receiver");
}

TEST(TcpProtocol, RendezvousWithTheReceiverEarly) {
  // RNDV (40) arrives and matches the posted receive; PUT control (64) back; the data (24 + N)
  // is taken by the kernel at once (it fits the 4 MiB buffer), which completes the send; the FIN
  // (32) follows right behind the data and completes the receive.
  const std::size_t n = 100000;
  const RunResult r = run_one(tcp(), spec_for(kOne, 2, n));
  const double data_starts = t(40) + t(64);
  expect_time(r.finish_s[0], data_starts, "sender");
  expect_time(r.finish_s[1], data_starts + t(24 + n) + 32 / kBw, "receiver");
  // The smallest rendezvous payload, one byte above the eager one.
  const RunResult s = run_one(tcp(), spec_for(kOne, 2, 65481));
  expect_time(s.finish_s[1], data_starts + t(24 + 65481) + 32 / kBw, "receiver at 65481 bytes");
}

TEST(TcpProtocol, RendezvousWithTheReceiverLate) {
  // The RNDV waits, unexpected, until rank 1 posts its receive after copying 1 ms; then the
  // handshake goes on as above.
  const std::size_t n = 100000;
  const RunResult r = run_one(tcp(), spec_for(kOne, 2, n, kMs));
  expect_time(r.finish_s[0], 1e-3 + t(64), "sender");
  expect_time(r.finish_s[1], 1e-3 + t(64) + t(24 + n) + 32 / kBw, "receiver");
}

TEST(TcpProtocol, RendezvousAnswerWaitsUntilTheReceiverIsBackInMpi) {
  // The receive is posted at once and the RNDV arrives at t(40), but rank 1 is copying until
  // 1 ms and answers only then.
  const std::size_t n = 100000;
  const RunResult r = run_one(tcp(), spec_for(kPostedThenBusy, 2, n, kMs));
  expect_time(r.finish_s[0], 1e-3 + t(64), "sender");
  expect_time(r.finish_s[1], 1e-3 + t(64) + t(24 + n) + 32 / kBw, "receiver");
}

TEST(TcpProtocol, RendezvousLargerThanTheSocketBuffer) {
  // With a 50000-byte buffer the kernel has the whole 100024-byte data fragment once only 50000
  // bytes are left to move: 20 us of latency and 50024 bytes after the data starts.
  const std::size_t n = 100000;
  const RunResult r = run_one(tcp({"tcp/buffer:50000"}), spec_for(kOne, 2, n));
  const double data_starts = t(40) + t(64);
  expect_time(r.finish_s[0], data_starts + kLat + 50024 / kBw, "sender");
  expect_time(r.finish_s[1], data_starts + t(24 + n) + 32 / kBw, "receiver");
}

TEST(TcpProtocol, RendezvousFinFollowsItsDataWhateverTheBuffer) {
  // Through a FIFO interface (tcp/interface:fifo), rank 0 isends N bytes to ranks 1 and 2 at once,
  // with a 100000-byte socket buffer. The RNDVs
  // leave back to back, 40 bytes apart; so do the PUT controls, which then share rank 0's link for
  // their last 24 bytes: rank 1's ends at `first`, rank 2's 40 bytes later, at `second`. Each
  // data fragment takes its place on the interface with its FIN (32) right behind it, so rank 1's
  // receive ends t(24 + N) + 32 / bw after its data starts, and rank 2's data leaves behind
  // rank 1's data and FIN. That holds whether data and FIN fit the buffer together (N = 99944),
  // only the data fits (99945, 99976) or neither (99978, 200000): a FIN that does not fit must not
  // queue behind the next peer's data.
  const double first = t(40) + t(64) + 24 / kBw, second = first + 40 / kBw;
  for (const std::size_t n : {99944u, 99945u, 99976u, 99978u, 200000u}) {
    const std::string at = " at " + std::to_string(n) + " bytes";
    const RunResult r = run_one(tcp({"tcp/buffer:100000", "tcp/interface:fifo"}), spec_for(kTwoPeers, 3, n));
    const double wire = 24.0 + static_cast<double>(n);
    expect_time(r.finish_s[1], first + t(wire) + 32 / kBw, "first peer" + at);
    const double second_data = first + (wire + 32) / kBw;
    expect_time(r.finish_s[2], second_data + t(wire) + 32 / kBw, "second peer" + at);
    // The sender's second send completes when the kernel has all of its data: at once if it fits
    // the buffer, else once only 100000 bytes are left to move.
    const double accepted = wire <= 100000 ? second : second_data + kLat + (wire - 100000) / kBw;
    expect_time(r.finish_s[0], accepted, "sender" + at);
  }
}

TEST(TcpProtocol, EagerLimitIsAParameter) {
  // With an eager limit of 1056 bytes, 1000 is the largest eager payload and 1001 goes
  // rendezvous.
  RunResult r = run_one(tcp({"tcp/eager_limit:1056"}), spec_for(kOne, 2, 1000));
  expect_time(r.finish_s[1], t(1022), "eager");
  r = run_one(tcp({"tcp/eager_limit:1056"}), spec_for(kOne, 2, 1001));
  expect_time(r.finish_s[1], t(40) + t(64) + t(24 + 1001) + 32 / kBw, "rendezvous");
}

TEST(TcpProtocol, StreamsFollowTheNetworkModelsFactors) {
  // Under LV08 SimGrid multiplies latencies by 13.01 and bandwidths by 0.97: the writer paces its
  // fragments and sizes its bandwidth-delay window with those, so messages sent back to back
  // still share one latency: 100 of 8 KiB, 315 KB in flight at a time, stream at full rate.
  SimConfig c = tcp();
  c.cfg = {"network/model:LV08", "network/crosstraffic:0", "network/TCP-gamma:1e15"};
  const double lat = 13.01 * kLat, bw = 0.97 * kBw;
  RunResult r = run_one(c, spec_for(kOne, 2, 1000));
  expect_time(r.finish_s[1], lat + 1022 / bw, "one message");
  r = run_one(c, spec_for(kTwo, 2, 1000, 0, 3000));
  expect_time(r.finish_s[1], lat + (1022 + 3022) / bw, "receiver of both");
  r = run_one(c, spec_for(kMany, 2, 8192, 0, 100));
  expect_time(r.finish_s[1], lat + 100 * 8214 / bw, "receiver of 100");
}

TEST(TcpProtocol, ConnectionSetUpOnFirstUse) {
  // SYN and SYN-ACK (a latency each), then rank 0's 24-byte handshake and rank 1's 24-byte
  // answer: rank 0 may write once the answer is in, 4 latencies and 48 bytes after its send.
  const double up = 4 * kLat + 48 / kBw;
  RunResult r = run_one(tcp({"tcp/connect:first_use"}), spec_for(kOne, 2, 1000));
  expect_time(r.finish_s[0], up, "eager sender: its bytes are taken once the socket is up");
  expect_time(r.finish_s[1], up + t(1022), "receiver");
  // Only the first message waits: the second follows it on the open socket.
  r = run_one(tcp({"tcp/connect:first_use"}), spec_for(kTwo, 2, 1000, 0, 3000));
  expect_time(r.finish_s[1], up + kLat + (1022 + 3022) / kBw, "receiver of two");
  // A rendezvous: the RNDV waits for the socket; rank 1's PUT control goes back on it, open on
  // rank 1's side since its answer left.
  const std::size_t n = 100000;
  r = run_one(tcp({"tcp/connect:first_use"}), spec_for(kOne, 2, n));
  expect_time(r.finish_s[0], up + t(40) + t(64), "rendezvous sender");
  expect_time(r.finish_s[1], up + t(40) + t(64) + t(24 + n) + 32 / kBw, "rendezvous receiver");
  // tcp/connect:established (the default) is the warmed-up socket of the other tests.
  r = run_one(tcp({"tcp/connect:established"}), spec_for(kOne, 2, 1000));
  expect_time(r.finish_s[1], t(1022), "established");
}

// ---- shm ----------------------------------------------------------------------------------------

// Two ranks on one host: under tcp+shm they use the shm profile.
SimConfig shm() { return exact("test/star16.xml", 2, "tcp+shm"); }

TEST(ShmProtocol, SmallEagerSendsCompleteAtOnce) {
  const RunResult r = run_one(shm(), spec_for(kOne, 2, 256));
  expect_time(r.finish_s[0], 0, "sender");
  expect_time(r.finish_s[1], t(14 + 256), "receiver");
}

TEST(ShmProtocol, LargerEagerSendsWaitForTheReceiverToTakeThem) {
  RunResult r = run_one(shm(), spec_for(kOne, 2, 1000));
  expect_time(r.finish_s[0], t(1014), "sender, receiver waiting");
  expect_time(r.finish_s[1], t(1014), "receiver");
  // The receiver is copying when the fragment arrives: it takes it at 1 ms.
  r = run_one(shm(), spec_for(kOne, 2, 1000, kMs));
  expect_time(r.finish_s[0], 1e-3, "sender, receiver busy");
  expect_time(r.finish_s[1], 1e-3, "receiver");
}

TEST(ShmProtocol, RendezvousIsOneCopyByTheReceiver) {
  // RGET (48); the receiver copies the 10000 bytes from the sender in one flow, which completes
  // the receive; the FIN (24) goes back and completes the send.
  const RunResult r = run_one(shm(), spec_for(kOne, 2, 10000));
  expect_time(r.finish_s[1], t(48) + t(10000), "receiver");
  expect_time(r.finish_s[0], t(48) + t(10000) + t(24), "sender");
}

TEST(ShmProtocol, TcpBetweenHostsShmWithinOne) {
  // Ranks 0 and 1 share a host, rank 2 is on the next: rank 0's two eager messages of 1000 bytes
  // go by shm (14 + N, the send waits for the receiver) and by tcp (22 + N, done at once). The
  // two flows leave host 0 on its one link together.
  const RunResult r = run_one(shm(), spec_for(kTwoPeers, 3, 1000));
  expect_time(r.finish_s[1], kLat + (1014 + 1014) / kBw, "shm peer");
  expect_time(r.finish_s[2], kLat + (1014 + 1022) / kBw, "tcp peer");
  expect_time(r.finish_s[0], kLat + (1014 + 1014) / kBw, "sender");
  EXPECT_EQ(r.protocol, "tcp+shm");
}

// ---- settings -------------------------------------------------------------------------------------

// ---- ideal ---------------------------------------------------------------------------------------

TEST(IdealProtocol, OptionsSetItsLimitOverheadAndHeader) {
  SimConfig c = exact("test/star16.xml", 1, "ideal");
  // By default a message is its payload alone, and one below 64 KiB is eager: it moves while the
  // receiver copies for 1 ms, and the send completes on arrival.
  RunResult r = run_one(c, spec_for(kOne, 2, 1000, kMs));
  expect_time(r.finish_s[0], t(1000), "eager sender");
  // A header (SMPI sends 16 bytes with every message) moves with the payload.
  c.protocol_options = {"ideal/header:16"};
  r = run_one(c, spec_for(kOne, 2, 1000, kMs));
  expect_time(r.finish_s[0], t(1016), "eager sender with a header");
  // A send overhead delays the transfer.
  c.protocol_options = {"ideal/send_overhead:3e-6"};
  r = run_one(c, spec_for(kOne, 2, 1000, kMs));
  expect_time(r.finish_s[0], 3e-6 + t(1000), "eager sender with an overhead");
  // With an eager limit of 1000 bytes, 1000 is a rendezvous: the transfer starts once the
  // receiver, back from its copy, has posted.
  c.protocol_options = {"ideal/eager_limit:1000"};
  r = run_one(c, spec_for(kOne, 2, 1000, kMs));
  expect_time(r.finish_s[0], 1e-3 + t(1000), "rendezvous sender");
  for (const std::string option : {"ideal/header:some", "ideal/buffer:1MiB", "tcp/header:16"}) {
    c.protocol_options = {option};
    EXPECT_THROW(run_one(c, spec_for(kOne, 2, 10)), InputError) << option;
  }
}

// SMPI's smpi/os and smpi/or: piecewise linear in the size, the receiver's paid in the call that
// completes its receive.
TEST(ProtocolSettings, OverheadTablesArePiecewiseLinearInTheSize) {
  const std::vector<std::string> options = {"tcp/send_overhead:0:1us:0;1000:2us:1ns", "tcp/recv_overhead:3us"};
  // 1000 bytes: the second section, 2 us + 1000 x 1 ns, before the 22 + 1000 bytes leave.
  RunResult r = run_one(tcp(options), spec_for(kOne, 2, 1000));
  expect_time(r.finish_s[0], 3e-6, "sender of 1000 bytes");
  expect_time(r.finish_s[1], 3e-6 + t(1022) + 3e-6, "receiver of 1000 bytes");
  // 999 bytes: the first section, 1 us.
  r = run_one(tcp(options), spec_for(kOne, 2, 999));
  expect_time(r.finish_s[0], 1e-6, "sender of 999 bytes");
  expect_time(r.finish_s[1], 1e-6 + t(1021) + 3e-6, "receiver of 999 bytes");
  // The ideal profile pays them too.
  SimConfig c = exact("test/star16.xml", 1, "ideal");
  c.protocol_options = {"ideal/send_overhead:0:0:2ns", "ideal/recv_overhead:0:1us:0;1KiB:4us:0"};
  r = run_one(c, spec_for(kOne, 2, 1000, kMs));
  expect_time(r.finish_s[1], 1e-3 + 1e-6, "ideal receiver, busy for 1 ms, then 1 us");
  r = run_one(c, spec_for(kOne, 2, 2000));
  expect_time(r.finish_s[1], 2000 * 2e-9 + t(2000) + 4e-6, "ideal receiver of 2000 bytes");
}

TEST(ProtocolSettings, BadOptionsAreInputErrors) {
  for (const std::string option :
       {"tcp/buffer:lots", "tcp/inline_limit:5", "warp/eager_limit:1", "tcp/eager_limit:10", "shm/send_overhead:-1",
        "tcp/send_overhead:1:1us:0", "tcp/recv_overhead:0:1us:0;0:2us:0", "tcp/recv_overhead:0:x:0",
        "ideal/recv_overhead:0:1us", "tcp-buffer-1MiB", "tcp/connect:maybe", "shm/connect:first_use",
        "tcp/interface:round_robin", "shm/interface:fifo"}) {
    SimConfig c = tcp({option});
    EXPECT_THROW(run_one(c, spec_for(kOne, 2, 10)), InputError) << option;
  }
  SimConfig c = tcp();
  c.protocol = "udp";
  EXPECT_THROW(run_one(c, spec_for(kOne, 2, 10)), InputError);
}

TEST(ProtocolSettings, PlatformPropertiesSetTheSelectionAndParameters) {
  const std::string file = ::testing::TempDir() + "collsim_protocol_platform.xml";
  std::ofstream(file) << "<?xml version='1.0'?>\n"
                         "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                         "<platform version=\"4.1\">\n"
                         "  <cluster id=\"c\" prefix=\"h\" suffix=\"\" radical=\"0-3\" speed=\"1Gf\"\n"
                         "           bw=\"1.25GBps\" lat=\"10us\">\n"
                         "    <prop id=\"collsim/protocol\" value=\"tcp\"/>\n"
                         "    <prop id=\"collsim/tcp/send_overhead\" value=\"5e-6\"/>\n"
                         "  </cluster>\n"
                         "</platform>\n";
  SimConfig c = exact("test/star16.xml", 1, "");
  c.platform_file = file;
  RunResult r = run_one(c, spec_for(kOne, 2, 1000));
  EXPECT_EQ(r.protocol, "tcp");
  expect_time(r.finish_s[0], 5e-6, "sender with the platform's overhead");
  // An option overrides the platform, and a selection the platform's one.
  c.protocol_options = {"tcp/send_overhead:1e-6"};
  r = run_one(c, spec_for(kOne, 2, 1000));
  expect_time(r.finish_s[0], 1e-6, "sender with the option's overhead");
  c.protocol = "ideal";
  r = run_one(c, spec_for(kOne, 2, 1000));
  EXPECT_EQ(r.protocol, "ideal");
  expect_time(r.finish_s[0], t(1000), "ideal sender");
}

}  // namespace
}  // namespace collsim
