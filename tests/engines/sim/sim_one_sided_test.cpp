// The sim engine's one-sided operations (windows, put, get, flush) against hand calculations and
// byte-for-byte checks.
//
// On platforms/test/star16.xml under the exact configuration (common/sim_test_util.hpp) an idle route
// costs L + m / bw with L = 20 us and bw = 1.25 GB/s, and an empty flow costs L. The sim engine
// models one-sided operations as RDMA: a put is a flow of m bytes to the target, complete on
// arrival; a flush adds an empty acknowledgement back; a get is an empty request and m bytes back.
// So a blocking put (put, wait, flush) takes (L + m/bw) + L and a get 2L + m/bw.
//
// The simulation runs in a child process, so the test algorithms check what they observe (times,
// bytes) themselves and throw on a difference: the run then fails with an EngineError carrying
// the message. Windows are left allocated where a rank's finish time should show the operation
// alone (win_free is a barrier).
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <stdexcept>
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

constexpr double kLat = 20e-6;
constexpr double kBw = 1.25e9;

double bytes_time(std::size_t m) { return static_cast<double>(m) / kBw; }

void expect_close(double got, double want, const std::string& what) {
  EXPECT_NEAR(got, want, std::abs(want) * 1e-9 + 1e-15) << what;
}

// Throws (failing the run) when the rank's clock is not at `want`.
void check_time(const Comm& comm, double want, const std::string& what) {
  if (std::abs(comm.now() - want) > 1e-12 + want * 1e-9)
    throw std::runtime_error("rank " + std::to_string(comm.rank()) + ": " + what + " at " +
                             std::to_string(comm.now() * 1e6) + " us, expected " + std::to_string(want * 1e6) + " us");
}

std::byte pattern(std::size_t i, int salt) {
  return static_cast<std::byte>((i * 7 + static_cast<std::size_t>(salt)) & 0xff);
}

void fill(Buffer b, int salt) {
  for (std::size_t i = 0; i < b.size(); ++i) b.data()[i] = pattern(i, salt);
}

void check_bytes(const Comm& comm, Buffer b, int salt, const std::string& what) {
  for (std::size_t i = 0; i < b.size(); ++i)
    if (b.data()[i] != pattern(i, salt))
      throw std::runtime_error("rank " + std::to_string(comm.rank()) + ": " + what + ": byte " + std::to_string(i) +
                               " differs");
}

RunSpec spec_for(const AlgorithmInfo& a, int procs, std::size_t m, int variant = 0) {
  RunSpec s;
  s.algorithm = &a;
  s.procs = procs;
  s.bytes = 0;
  s.real_bytes = false;
  s.params.segment = m;
  s.params.fanout = variant;
  return s;
}

// ---- test algorithms (m = params.segment; params.fanout picks a variant) --------------------

// Rank 0 puts m bytes into rank 1's window, waits and flushes; then both meet in a barrier and
// rank 1 checks its window. Variant 1: the window is virtual; variant 2: the source is.
Task<> blocking_put(Comm& comm, RankBuffers, const AlgorithmParams& p) {
  const std::size_t m = p.segment;
  const Window w = co_await comm.win_allocate(m, p.fanout != 1);
  const double done = 2 * kLat + bytes_time(m);
  if (comm.rank() == 0) {
    Storage src(m, p.fanout != 2);
    if (!src.is_virtual()) fill(src.view(), 3);
    Request r = co_await comm.put(w, 1, 0, src.view());
    co_await comm.wait(r);
    check_time(comm, kLat + bytes_time(m), "put completed");
    if (!src.is_virtual()) fill(src.view(), 99);  // reused once complete: the flush must not see it
    co_await comm.flush(w, 1);
    check_time(comm, done, "flush returned");
  }
  co_await comm.barrier();
  if (comm.rank() == 1 && p.fanout == 0) check_bytes(comm, comm.local(w), 3, "window after put + flush");
  if (comm.rank() == 1 && p.fanout == 2)
    for (std::byte b : std::vector<std::byte>(comm.local(w).data(), comm.local(w).data() + m))
      if (b != std::byte{0}) throw std::runtime_error("a virtual put wrote bytes");
}

// Rank 1 fills its window; after a barrier rank 0 gets m bytes of it at offset 5.
Task<> blocking_get(Comm& comm, RankBuffers, const AlgorithmParams& p) {
  const std::size_t m = p.segment;
  const Window w = co_await comm.win_allocate(m + 5);
  if (comm.rank() == 1) fill(comm.local(w).slice(5, m), 4);
  co_await comm.barrier();
  if (comm.rank() != 0) co_return;
  Storage dst(m, true);
  Request r = co_await comm.get(w, 1, 5, dst.view());
  co_await comm.wait(r);
  check_time(comm, 2 * kLat + bytes_time(m), "get completed");
  check_bytes(comm, dst.view(), 4, "get");
  // A window is zero-filled: the first five bytes of rank 1's are still zero.
  Storage head(5, true);
  fill(head.view(), 1);
  Request h = co_await comm.get(w, 1, 0, head.view());
  co_await comm.wait(h);
  for (std::byte b : head.bytes())
    if (b != std::byte{0}) throw std::runtime_error("window memory is not zero-filled");
}

// Flushes and win_sync with nothing put cost nothing; a put to rank 2 does not make a flush of
// rank 1 wait.
Task<> idle_flushes(Comm& comm, RankBuffers, const AlgorithmParams&) {
  const Window w = co_await comm.win_allocate(64);
  if (comm.rank() != 0) co_return;
  co_await comm.flush(w, 1);
  co_await comm.flush_all(w);
  co_await comm.win_sync(w);
  check_time(comm, 0, "flushes of nothing");
  Storage src(64, true);
  Request r = co_await comm.put(w, 2, 0, src.view());
  co_await comm.flush(w, 1);
  check_time(comm, 0, "flush of a target without puts");
  co_await comm.wait(r);
  co_await comm.flush(w, 2);
  co_await comm.flush(w, 2);  // nothing left to flush
  check_time(comm, 2 * kLat + bytes_time(64), "flush of the put");
}

// Rank 0 puts m bytes to ranks 1, 2 and 3 at once: the three flows share its link (bw/3 each) and
// end together at L + 3m/bw; flush_all then waits for the three acknowledgements at once (L).
// Variant 1 flushes without waiting for the requests first.
Task<> concurrent_puts(Comm& comm, RankBuffers, const AlgorithmParams& p) {
  const std::size_t m = p.segment;
  const Window w = co_await comm.win_allocate(m);
  if (comm.rank() == 0) {
    std::vector<Storage> src;
    std::vector<Request> r;
    for (int t = 1; t <= 3; ++t) {
      src.emplace_back(m, true);
      fill(src.back().view(), 10 + t);
      r.push_back(co_await comm.put(w, t, 0, src.back().view()));
    }
    if (p.fanout == 0) {
      co_await comm.wait_all(r);
      check_time(comm, kLat + 3 * bytes_time(m), "puts completed");
      co_await comm.flush_all(w);
    } else {
      co_await comm.flush_all(w);
      co_await comm.wait_all(r);
    }
    check_time(comm, 2 * kLat + 3 * bytes_time(m), "flush_all returned");
  }
  co_await comm.barrier();
  if (comm.rank() > 0) check_bytes(comm, comm.local(w), 10 + comm.rank(), "window after concurrent puts");
  co_await comm.win_free(w);
}

// Rank 0 puts a and b bytes (a < b) to rank 1 and 2 of them to rank 2 at once, then flush_all
// without waiting: each target's acknowledgement leaves when its own puts have arrived.
// The origin's link is shared by three flows until the smallest ends...; all ends at
// L + (2a + b)/bw, and the last acknowledgement L later.
Task<> flush_all_targets(Comm& comm, RankBuffers, const AlgorithmParams& p) {
  const std::size_t a = p.segment, b = 3 * p.segment;
  const Window w = co_await comm.win_allocate(b);
  if (comm.rank() == 0) {
    Storage sa(a, true), sb(b, true), sc(a, true);
    fill(sa.view(), 21);
    fill(sb.view(), 22);
    fill(sc.view(), 23);
    std::vector<Request> r;
    r.push_back(co_await comm.put(w, 1, 0, sa.view()));
    r.push_back(co_await comm.put(w, 2, 0, sb.view()));
    r.push_back(co_await comm.put(w, 1, a, sc.view()));
    co_await comm.flush_all(w);
    check_time(comm, 2 * kLat + bytes_time(2 * a + b), "flush_all returned");
    co_await comm.wait_all(r);
    check_time(comm, 2 * kLat + bytes_time(2 * a + b), "requests already complete");
  }
  co_await comm.barrier();
  if (comm.rank() == 1) {
    check_bytes(comm, comm.local(w).slice(0, a), 21, "rank 1, first put");
    check_bytes(comm, comm.local(w).slice(a, a), 23, "rank 1, second put");
  }
  if (comm.rank() == 2) check_bytes(comm, comm.local(w), 22, "rank 2");
}

// wait_any over a get of 10m bytes from rank 1, a put of m bytes to rank 2 and (variant 1) a
// receive from rank 3, whose sender first spends 1 ms copying: the put ends first (L + m/bw,
// rank 0's up link), then the get (2L + 10m/bw, its down link), then the receive.
Task<> mixed_wait_any(Comm& comm, RankBuffers, const AlgorithmParams& p) {
  const std::size_t m = p.segment;
  const Window w = co_await comm.win_allocate(10 * m);
  if (comm.rank() == 1) fill(comm.local(w), 31);
  co_await comm.barrier();
  if (comm.rank() == 0) {
    Storage dst(10 * m, true), src(m, true), in(100, true);
    std::vector<Request> r;
    r.push_back(co_await comm.get(w, 1, 0, dst.view()));
    r.push_back(co_await comm.put(w, 2, 0, src.view()));
    if (p.fanout == 1) r.push_back(co_await comm.irecv(in.view(), 3, 9));
    std::size_t i = co_await comm.wait_any(r);
    if (i != 1) throw std::runtime_error("wait_any: the put should end first, got " + std::to_string(i));
    check_time(comm, kLat + bytes_time(m), "put");
    i = co_await comm.wait_any(r);
    if (i != 0) throw std::runtime_error("wait_any: the get should end second, got " + std::to_string(i));
    check_time(comm, 2 * kLat + bytes_time(10 * m), "get");
    check_bytes(comm, dst.view(), 31, "get");
    if (p.fanout == 1) {
      i = co_await comm.wait_any(r);
      if (i != 2) throw std::runtime_error("wait_any: the receive should end last, got " + std::to_string(i));
    }
    co_await comm.flush_all(w);
  } else if (comm.rank() == 3 && p.fanout == 1) {
    Storage x(1000000, false), y(1000000, false), out(100, true);
    co_await comm.copy(x.view(), y.view());  // 1 ms at star16's 1 GB/s
    co_await comm.send(out.view(), 0, 9);
  }
}

// Rank 0 puts 0 bytes to rank 1 and 1 byte to itself, spends 1 ms copying, then waits and
// flushes: both flows started when posted (the empty one too), so only the acknowledgement is
// left after the copy.
Task<> late_wait(Comm& comm, RankBuffers, const AlgorithmParams&) {
  const Window w = co_await comm.win_allocate(1);
  if (comm.rank() != 0) co_return;
  Storage empty(0, true), one(1, true), x(1000000, false), y(1000000, false);
  fill(one.view(), 51);
  std::vector<Request> r;
  r.push_back(co_await comm.put(w, 1, 0, empty.view()));
  r.push_back(co_await comm.put(w, 0, 0, one.view()));
  co_await comm.copy(x.view(), y.view());
  co_await comm.wait_all(r);
  check_time(comm, 1e-3, "puts complete during the copy");
  co_await comm.flush_all(w);
  check_time(comm, 1e-3 + kLat, "flush_all");
  check_bytes(comm, comm.local(w), 51, "put to itself");
}

// An all-to-all through windows: every rank puts its block (m bytes) into every rank's window at
// offset rank * m, waiting for the puts with wait_any, then sync all; then every rank gets the
// block of rank r + 1 from rank r + 2 and checks it, and every rank checks its whole window.
Task<> all_to_all_puts(Comm& comm, RankBuffers, const AlgorithmParams& p) {
  const std::size_t m = p.segment;
  const int n = comm.size(), me = comm.rank();
  const Window w = co_await comm.win_allocate(m * static_cast<std::size_t>(n));
  Storage block(m, true);
  fill(block.view(), me);
  std::vector<Request> r;
  for (int k = 1; k <= n; ++k)
    r.push_back(co_await comm.put(w, (me + k) % n, static_cast<std::size_t>(me) * m, block.view()));
  for (int k = 0; k < n; ++k) (void)co_await comm.wait_any(r);
  co_await comm.sync_all(w);
  for (int q = 0; q < n; ++q)
    check_bytes(comm, comm.local(w).slice(static_cast<std::size_t>(q) * m, m), q, "block of rank " + std::to_string(q));
  Storage got(m, true);
  const int owner = (me + 1) % n;
  Request g = co_await comm.get(w, (me + 2) % n, static_cast<std::size_t>(owner) * m, got.view());
  co_await comm.wait(g);
  check_bytes(comm, got.view(), owner, "get");
  co_await comm.win_free(w);
}

// Ranks allocate windows of different sizes.
Task<> asymmetric_window(Comm& comm, RankBuffers, const AlgorithmParams&) {
  const Window w = co_await comm.win_allocate(comm.rank() == 2 ? 48 : 64);
  co_await comm.win_free(w);
}

// Rank 0 enters a barrier while the others allocate a window.
Task<> mismatched_collectives(Comm& comm, RankBuffers, const AlgorithmParams&) {
  if (comm.rank() == 0) {
    co_await comm.barrier();
  } else {
    const Window w = co_await comm.win_allocate(8);
    co_await comm.win_free(w);
  }
}

// Rank 1 returns without allocating the window rank 0 waits in.
Task<> missing_allocation(Comm& comm, RankBuffers, const AlgorithmParams&) {
  if (comm.rank() == 0) (void)co_await comm.win_allocate(8);
}

// Windows are numbered in allocation order and freed collectively; a second window's puts do
// not land in the first.
Task<> two_windows(Comm& comm, RankBuffers, const AlgorithmParams&) {
  const Window a = co_await comm.win_allocate(16);
  const Window b = co_await comm.win_allocate(16, false);
  const Window c = co_await comm.win_allocate(16);
  if (a.id != 0 || b.id != 1 || c.id != 2) throw std::runtime_error("windows not numbered in allocation order");
  if (!comm.local(b).is_virtual() || comm.local(a).is_virtual()) throw std::runtime_error("window mode");
  if (comm.rank() == 0) {
    Storage src(16, true);
    fill(src.view(), 41);
    Request r = co_await comm.put(c, 1, 0, src.view());
    co_await comm.wait(r);
    co_await comm.flush(c, 1);
  }
  co_await comm.sync_all(c);
  if (comm.rank() == 1) {
    check_bytes(comm, comm.local(c), 41, "window c");
    for (std::byte x : std::vector<std::byte>(comm.local(a).data(), comm.local(a).data() + 16))
      if (x != std::byte{0}) throw std::runtime_error("a put to window c landed in window a");
  }
  co_await comm.win_free(b);
  co_await comm.win_free(a);
  co_await comm.win_free(c);
}

// Rank 0 alone, under an origin overhead of 5 us per operation (the profile's send_overhead).
// Variant 0: a blocking put of m bytes (put, wait, flush); 1: three empty non-blocking puts, then
// a flush; 2: a get of m bytes.
Task<> overhead_ops(Comm& comm, RankBuffers, const AlgorithmParams& p) {
  const std::size_t m = p.segment;
  const Window w = co_await comm.win_allocate(m, false);
  if (comm.rank() != 0) co_return;
  Storage data(m, false), empty(0, false);
  if (p.fanout == 0) {
    Request r = co_await comm.put(w, 1, 0, data.view());
    co_await comm.wait(r);
    co_await comm.flush(w, 1);
  } else if (p.fanout == 1) {
    std::vector<Request> puts;
    for (int i = 0; i < 3; ++i) puts.push_back(co_await comm.put(w, 1, 0, empty.view()));
    co_await comm.flush(w, 1);
    co_await comm.wait_all(puts);  // complete by the flush: no time
  } else {
    Request r = co_await comm.get(w, 1, 0, data.view());
    co_await comm.wait(r);
  }
}

// Rank 0 puts m bytes to rank 1, waits, flushes, then ends the segment with sync memory
// (flush_all, with nothing left to flush, and win_sync).
Task<> put_then_sync_memory(Comm& comm, RankBuffers, const AlgorithmParams& p) {
  const Window w = co_await comm.win_allocate(p.segment, false);
  if (comm.rank() != 0) co_return;
  Storage data(p.segment, false);
  Request r = co_await comm.put(w, 1, 0, data.view());
  co_await comm.wait(r);
  co_await comm.flush(w, 1);
  co_await comm.sync_memory(w);
}

// ---- tests ---------------------------------------------------------------------------------

TEST(OneSided, BlockingPutIsATransferAndAnAcknowledgement) {
  const auto alg = test_algorithm("test/blocking_put", &blocking_put);
  for (std::size_t m : {std::size_t{0}, std::size_t{1}, std::size_t{1000}, std::size_t{1048576}}) {
    const RunResult r = run_one(exact("test/star16.xml"), spec_for(alg, 3, m));
    const double want = 2 * kLat + bytes_time(m);
    expect_close(r.finish_s[0], want, "origin, m = " + std::to_string(m));
    expect_close(r.finish_s[1], want, "target (barrier), m = " + std::to_string(m));
    expect_close(r.finish_s[2], want, "bystander (barrier)");
  }
}

TEST(OneSided, VirtualBuffersMoveNoBytesAndCostTheSame) {
  const auto alg = test_algorithm("test/blocking_put", &blocking_put);
  for (int variant : {1, 2}) {
    const RunResult r = run_one(exact("test/star16.xml"), spec_for(alg, 2, 4096, variant));
    expect_close(r.finish_s[0], 2 * kLat + bytes_time(4096), "variant " + std::to_string(variant));
  }
}

TEST(OneSided, GetIsARequestAndATransferBack) {
  const auto alg = test_algorithm("test/blocking_get", &blocking_get);
  for (std::size_t m : {std::size_t{0}, std::size_t{1000}, std::size_t{1048576}}) {
    const RunResult r = run_one(exact("test/star16.xml"), spec_for(alg, 2, m));
    expect_close(r.finish_s[0], 2 * kLat + bytes_time(m) + 2 * kLat + bytes_time(5), "m = " + std::to_string(m));
    expect_close(r.finish_s[1], 0, "target");
  }
}

TEST(OneSided, FlushOfNothingIsFree) {
  const auto alg = test_algorithm("test/idle_flushes", &idle_flushes);
  const RunResult r = run_one(exact("test/star16.xml"), spec_for(alg, 3, 0));
  expect_close(r.finish_s[0], 2 * kLat + bytes_time(64), "origin");
}

TEST(OneSided, EmptyPutsStartWhenPosted) {
  const auto alg = test_algorithm("test/late_wait", &late_wait);
  const RunResult r = run_one(exact("test/star16.xml"), spec_for(alg, 2, 0));
  expect_close(r.finish_s[0], 1e-3 + kLat, "origin");
}

TEST(OneSided, ConcurrentPutsShareTheOriginsLink) {
  const auto alg = test_algorithm("test/concurrent_puts", &concurrent_puts);
  for (int variant : {0, 1}) {
    const RunResult r = run_one(exact("test/star16.xml"), spec_for(alg, 4, 100000, variant));
    expect_close(r.time_s, 2 * kLat + 3 * bytes_time(100000), "variant " + std::to_string(variant));
  }
}

// Every put, get and flush first costs the origin the profile's send_overhead (o = 5 us here);
// the operation starts after it.
TEST(OneSided, EachOperationCostsTheOriginItsOverhead) {
  const auto alg = test_algorithm("test/overhead_ops", &overhead_ops);
  SimConfig c = exact("test/star16.xml");
  c.protocol_options = {"ideal/send_overhead:5us"};
  const double o = 5e-6, m = 1000;
  // put: o, then L + m/bw; flush: o, then the acknowledgement L.
  expect_close(run_one(c, spec_for(alg, 2, 1000, 0)).finish_s[0], o + kLat + bytes_time(1000) + o + kLat, "put");
  // Empty puts leave at o, 2o, 3o and arrive L later; the flush's overhead ends at 4o = 20 us,
  // before the last arrival (3o + L = 35 us), whose acknowledgement is back at 55 us.
  expect_close(run_one(c, spec_for(alg, 2, 0, 1)).finish_s[0], 3 * o + kLat + kLat, "three puts and a flush");
  // get: o, then the request L and the data L + m/bw.
  expect_close(run_one(c, spec_for(alg, 2, 1000, 2)).finish_s[0], o + 2 * kLat + m / kBw, "get");
}

// A segment of one put of 1000 B: the put L + m/bw, its flush L, then sync memory: a flush_all of
// nothing (free) and a win_sync, which costs F of the profile inside the rank's node. Under
// tcp+shm with shm/sync_overhead 3 us it ends 3 us later than without (the tcp profile's 100 us,
// between nodes, is not the one a win_sync pays); under ideal, ideal's F.
TEST(OneSided, SyncMemoryCostsTheWinSyncOverhead) {
  const auto alg = test_algorithm("test/put_then_sync_memory", &put_then_sync_memory);
  const double segment = 2 * kLat + bytes_time(1000);
  SimConfig c = exact("test/star16.xml", 1, "tcp+shm");
  expect_close(run_one(c, spec_for(alg, 2, 1000)).finish_s[0], segment, "no F");
  c.protocol_options = {"shm/sync_overhead:3us", "tcp/sync_overhead:100us"};
  expect_close(run_one(c, spec_for(alg, 2, 1000)).finish_s[0], segment + 3e-6, "shm's F");
  SimConfig ideal = exact("test/star16.xml");
  ideal.protocol_options = {"ideal/sync_overhead:7us"};
  expect_close(run_one(ideal, spec_for(alg, 2, 1000)).finish_s[0], segment + 7e-6, "ideal's F");
}

TEST(OneSided, FlushAllWaitsForEveryTarget) {
  const auto alg = test_algorithm("test/flush_all_targets", &flush_all_targets);
  const RunResult r = run_one(exact("test/star16.xml"), spec_for(alg, 3, 10000));
  expect_close(r.finish_s[0], 2 * kLat + bytes_time(5 * 10000), "origin");
}

TEST(OneSided, WaitAnyMixesPutsGetsAndReceives) {
  const auto alg = test_algorithm("test/mixed_wait_any", &mixed_wait_any);
  for (const char* protocol : {"ideal", "tcp"})
    for (int variant : {0, 1}) {
      const RunResult r = run_one(exact("test/star16.xml", 1, protocol), spec_for(alg, 4, 10000, variant));
      if (variant == 0)
        expect_close(r.finish_s[0], 2 * kLat + bytes_time(100000) + kLat,
                     std::string(protocol) + ": the put's acknowledgement after the get");
      else
        EXPECT_GT(r.finish_s[0], 1e-3) << protocol;
    }
}

TEST(OneSided, PutsBypassTheTcpAndShmTransports) {
  // One-sided traffic is RDMA under every profile: the same times as under ideal, between hosts
  // (tcp) and between two ranks of one host (shm; star16 has no loopback, so the route is the
  // host's own links, 20 us as well).
  const auto alg = test_algorithm("test/blocking_put", &blocking_put);
  const std::size_t m = 100000;
  const RunResult tcp = run_one(exact("test/star16.xml", 1, "tcp"), spec_for(alg, 2, m));
  EXPECT_EQ(tcp.protocol, "tcp");
  expect_close(tcp.finish_s[0], 2 * kLat + bytes_time(m), "tcp");
  const RunResult shm = run_one(exact("test/star16.xml", 2, "tcp+shm"), spec_for(alg, 2, m));
  expect_close(shm.finish_s[0], 2 * kLat + bytes_time(m), "shm");
  const auto get = test_algorithm("test/blocking_get", &blocking_get);
  const RunResult g = run_one(exact("test/star16.xml", 1, "tcp"), spec_for(get, 2, m));
  expect_close(g.finish_s[0], 2 * kLat + bytes_time(m) + 2 * kLat + bytes_time(5), "get under tcp");
}

TEST(OneSided, AllToAllThroughWindowsUnderEveryProfile) {
  const auto alg = test_algorithm("test/all_to_all_puts", &all_to_all_puts);
  for (const char* protocol : {"ideal", "tcp", "tcp+shm"}) {
    const RunResult r = run_one(exact("test/star16.xml", 2, protocol), spec_for(alg, 8, 3000));
    // Each rank's 8 puts leave through its host's link with its neighbour's: at least 16 blocks.
    EXPECT_GT(r.time_s, 16 * bytes_time(3000)) << protocol;
  }
}

TEST(OneSided, WindowsAreNumberedAndFreed) {
  const auto alg = test_algorithm("test/two_windows", &two_windows);
  for (const char* protocol : {"ideal", "tcp"})
    EXPECT_NO_THROW(run_one(exact("test/star16.xml", 1, protocol), spec_for(alg, 2, 0)));
}

TEST(OneSidedErrors, WindowSizeMismatchNamesRanksAndSizes) {
  const auto alg = test_algorithm("test/asymmetric_window", &asymmetric_window);
  try {
    run_one(exact("test/star16.xml"), spec_for(alg, 3, 0));
    FAIL() << "asymmetric windows must fail";
  } catch (const EngineError& e) {
    EXPECT_NE(
        std::string(e.what()).find("rank 2: win_allocate of 48 bytes, but rank 0 allocated 64 bytes for window 0"),
        std::string::npos)
        << e.what();
  }
}

TEST(OneSidedErrors, CollectiveCallsMustMatch) {
  const auto alg = test_algorithm("test/mismatched_collectives", &mismatched_collectives);
  try {
    run_one(exact("test/star16.xml"), spec_for(alg, 2, 0));
    FAIL() << "a barrier against a win_allocate must fail";
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find("rank 1 entered win_allocate while the ranks before it are in barrier"),
              std::string::npos)
        << e.what();
  }
}

TEST(OneSidedErrors, DeadlockReportNamesWinAllocate) {
  const auto alg = test_algorithm("test/missing_allocation", &missing_allocation);
  try {
    run_one(exact("test/star16.xml"), spec_for(alg, 2, 0));
    FAIL() << "must deadlock";
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find("rank 0 waiting in win_allocate"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace collsim
