// The closed-form coarray times on hand examples, written out from the model engine's rules, and
// the term each segment end (sync memory, sync all, sync images) adds to them.
#include "models/coarray_cost.hpp"

#include <gtest/gtest.h>

namespace collsim::models {
namespace {

using coarray::choose_scheme;
using coarray::GetBehaviour;
using coarray::plan_get;
using coarray::plan_put;
using coarray::PutMode;

constexpr double kAlpha = 2e-6, kBeta = 1e-9, kCopyBw = 5e9;
constexpr std::size_t kB = 400000;

// Equal up to the rounding of summing a time unit by unit (the cost model's order) rather than as
// the products written here: 1e-9 relative, far below any one latency or overhead of a case.
#define EXPECT_SAME_TIME(got, want) EXPECT_NEAR(got, want, 1e-9 * (want))

CoarrayCosts costs() { return {{kAlpha, kBeta}, kCopyBw}; }

double copy(double bytes) { return bytes / kCopyBw; }

TEST(CoarrayCost, BlockingPutPaysTwoAlphasPerPut) {
  // Case 1, NR = NL = 8000, 100 units: copy, put, wait, flush each.
  const auto p = plan_put(choose_scheme(8000, 8000, kB, false), 800000);
  EXPECT_SAME_TIME(coarray_put_time(p, costs(), PutMode::blocking), 100 * (copy(8000) + 2 * kAlpha + kBeta * 8000));
  // Case 2, NL 8, NR 8000: 1000 copies of 8 bytes per unit, still one put.
  const auto p2 = plan_put(choose_scheme(8, 8000, kB, false), 800000, 3);
  EXPECT_SAME_TIME(coarray_put_time(p2, costs(), PutMode::blocking), 300 * (copy(8000) + 2 * kAlpha + kBeta * 8000));
  // DMA: no copies.
  const auto p0 = plan_put(choose_scheme(8, 8000, kB, true), 800000);
  EXPECT_SAME_TIME(coarray_put_time(p0, costs(), PutMode::blocking), 100000 * (2 * kAlpha + kBeta * 8));
}

TEST(CoarrayCost, NonBlockingBufferedPutChainsThroughTheBuffer) {
  // Case 4, runs of 500000 cut into 400000 + 100000: 8 units over 4 runs, 2 statements.
  const auto p = plan_put(choose_scheme(1000000, 500000, kB, false), 2000000, 2);
  ASSERT_EQ(p.transfers, 16u);
  EXPECT_SAME_TIME(coarray_put_time(p, costs(), PutMode::nonblocking),
                   2 * 4 * (copy(400000) + kAlpha + kBeta * 400000 + copy(100000) + kAlpha + kBeta * 100000) + kAlpha);
}

TEST(CoarrayCost, NonBlockingDmaPutsLeaveOneAfterAnother) {
  // 10 statements of 100000 puts of 8 bytes: the port injects them back to back, 8 ns apart;
  // their latencies overlap. The last arrives at alpha + 1e6 * 8 * beta, the flush adds alpha.
  const auto p = plan_put(choose_scheme(8, 8000, kB, true), 800000, 10);
  EXPECT_SAME_TIME(coarray_put_time(p, costs(), PutMode::nonblocking), 2 * kAlpha + 1e6 * 8 * kBeta);
}

// The per-operation rules with an overhead o(n) = 1 us + 0.5 ns/B at the origin (a flush: o(0)).
CoarrayCosts with_overhead() { return {{kAlpha, kBeta}, kCopyBw, {{{0, 1e-6, 0.5e-9}}}}; }
double o(double bytes) { return 1e-6 + 0.5e-9 * bytes; }

TEST(CoarrayCost, OnePutPaysItsOverheadThenLatencyAndBytes) {
  // One DMA put of m = 8000 B, non-blocking: its overhead, then it leaves at once and arrives at
  // o(m) + alpha + m*beta; the segment's end waits for it and flushes: o(0) + alpha.
  const auto p = plan_put(choose_scheme(8000, 8000, kB, true), 8000);
  const double arrival = o(8000) + kAlpha + 8000 * kBeta;
  EXPECT_SAME_TIME(coarray_put_time(p, with_overhead(), PutMode::nonblocking), arrival + o(0) + kAlpha);
  // Blocking: the same put waited for, a flush (o(0) + alpha), and the segment end's flush_all
  // with nothing to flush (o(0)).
  EXPECT_SAME_TIME(coarray_put_time(p, with_overhead(), PutMode::blocking), arrival + o(0) + kAlpha + o(0));
}

TEST(CoarrayCost, PutsFromOneOriginStartMaxOfOverheadAndWireTimeApart) {
  // k = 4 DMA puts of m bytes, non-blocking: put i's overhead ends at i*o(m); it starts at
  // max(that, the previous start + m*beta). The last arrives at its start + alpha + m*beta.
  // m = 8000: the wire time (8 us) is above o (5 us): starts o, o+8, o+16, o+24 us.
  const auto big = plan_put(choose_scheme(8000, 8000, kB, true), 4 * 8000);
  EXPECT_SAME_TIME(coarray_put_time(big, with_overhead(), PutMode::nonblocking),
                   o(8000) + 3 * 8000 * kBeta + kAlpha + 8000 * kBeta + o(0) + kAlpha);
  // m = 8: o (1.004 us) is above the wire time (8 ns): starts o, 2o, 3o, 4o.
  const auto small = plan_put(choose_scheme(8, 8, kB, true), 4 * 8);
  EXPECT_SAME_TIME(coarray_put_time(small, with_overhead(), PutMode::nonblocking),
                   4 * o(8) + kAlpha + 8 * kBeta + o(0) + kAlpha);
}

TEST(CoarrayCost, EachFlushPaysItsOverheadAndTheAcknowledgement) {
  // 2 blocking DMA puts of 8 B: each is o(8) + alpha + 8 beta, then its flush o(0) + alpha; the
  // segment's end o(0).
  const auto p = plan_put(choose_scheme(8, 8, kB, true), 16);
  EXPECT_SAME_TIME(coarray_put_time(p, with_overhead(), PutMode::blocking),
                   2 * (o(8) + kAlpha + 8 * kBeta + o(0) + kAlpha) + o(0));
}

// A statement of 3 buffered puts of 4000 B (case 1, NR = NL = 4000, B = 4000) with alpha = 2 us,
// beta = 1 ns/B (wire 4 us), copies at 1 GB/s (4 us), o = 1 us whatever the size. Written out:
//  safe     put 1: copy 0-4, o 4-5, leaves 5, port free 9, arrives 11. put 2 waits for put 1
//           (11): copy 11-15, o 15-16, arrives 22. put 3: 22, 26, 27, arrives 33. End: the
//           flush's o 33-34, + alpha: 36 us.
//  nowait   put 1 arrives 11 (as above). put 2: copy 5-9, o 9-10, leaves 10 (port free since 9),
//           arrives 16, port free 14. put 3: copy 10-14, o 14-15, leaves 15, arrives 21. End:
//           waits to 21, o 22, + alpha: 24 us.
//  double   put 1 (buffer 0) arrives 11. put 2 (buffer 1, not used yet): copy 5-9, o 9-10,
//           leaves 10, arrives 16. put 3 (buffer 0) waits for put 1 (11): copy 11-15, o 15-16,
//           leaves 16 (port free since 14), arrives 22. End: 22 + 1 + 2 = 25 us.
//  blocking each put: copy 4, o 1, arrival 4 + 1 + 2 + 4 = 11, flush 1 + 2: 14 us; 3 of them
//           42, and the segment end's flush_all 1: 43 us.
TEST(CoarrayCost, NonBlockingModesOnThreePutsByHand) {
  const CoarrayCosts c{{2e-6, 1e-9}, 1e9, {{{0, 1e-6, 0}}}};
  const auto p = plan_put(choose_scheme(4000, 4000, 4000, false), 12000);
  ASSERT_EQ(p.scheme.table_case, 1);
  ASSERT_EQ(p.transfers, 3u);
  EXPECT_NEAR(coarray_put_time(p, c, PutMode::nonblocking), 36e-6, 1e-15);
  EXPECT_NEAR(coarray_put_time(p, c, PutMode::nowait), 24e-6, 1e-15);
  EXPECT_NEAR(coarray_put_time(p, c, PutMode::double_buffered), 25e-6, 1e-15);
  EXPECT_NEAR(coarray_put_time(p, c, PutMode::blocking), 43e-6, 1e-15);
}

TEST(CoarrayCost, EmptySegmentIsFree) {
  const auto p = plan_put(choose_scheme(8, 8000, kB, false), 0, 4);
  for (const PutMode mode : {PutMode::blocking, PutMode::nonblocking, PutMode::nowait, PutMode::double_buffered})
    EXPECT_EQ(coarray_put_time(p, costs(), mode), 0);
  EXPECT_EQ(coarray_get_time(plan_get(p.scheme, 0), costs()), 0);
}

TEST(CoarrayCost, FreeCopies) {
  const auto p = plan_put(choose_scheme(8000, 8000, kB, false), 800000);
  EXPECT_SAME_TIME(coarray_put_time(p, {{kAlpha, kBeta}, 0}, PutMode::blocking), 100 * (2 * kAlpha + kBeta * 8000));
}

TEST(CoarrayCost, GetTable1AndOmni) {
  const auto scheme = choose_scheme(8, 8000, kB, false);  // case 2
  EXPECT_SAME_TIME(coarray_get_time(plan_get(scheme, 800000), costs()), 100 * (2 * kAlpha + kBeta * 8000 + copy(8000)));
  EXPECT_SAME_TIME(coarray_get_time(plan_get(scheme, 800000, GetBehaviour::omni), costs()),
                   100000 * (2 * kAlpha + kBeta * 8 + copy(8)));
  const auto dma = choose_scheme(8, 8000, kB, true);
  EXPECT_SAME_TIME(coarray_get_time(plan_get(dma, 800000), costs()), 100000 * (2 * kAlpha + kBeta * 8));
}

// The segment's end, with alpha = 2 us and o = 1 us per operation whatever its size: a
// zero-byte message costs its sender s = o + alpha = 3 us to its arrival, and each image's closing
// sync memory f = o = 1 us.
//  - sync memory adds nothing;
//  - sync images, on any number of images: the origin's message to the target, 3, then its
//    sync memory, 1: 4 us (alpha + 2o; the target's message left when the segment began);
//  - sync all on 2 images: Open MPI 4.1's barrier is recursive doubling, one exchange: 3 + 1 =
//    4 us, the same as sync images;
//  - sync all on 3 images (recursive doubling, p' = 2, one extra rank 2): origin 0 or 1: the
//    exchange 3, then rank 0 releases rank 2, 3, then f: 7 us; origin 2 (the extra rank): its
//    announcement to rank 0 first, 3 more: 10 us;
//  - sync all on 5 images (linear): origin 0 has every report already and releases the 4
//    others one after another: 4 x 3 + 1 = 13 us; origin 3 first reports to rank 0, 3, then
//    rank 0's 4 releases: 16 us;
//  - sync all on 8 images (recursive doubling, 3 exchanges): 9 + 1 = 10 us from any origin.
// Without the overhead (o = 0) both 2-image ends add alpha alone: 2 us.
TEST(CoarraySyncCost, EachEndByHand) {
  const CoarrayCosts c{{2e-6, 1e-9}, 0, {{{0, 1e-6, 0}}}};
  using coarray::SyncKind;
  for (const int images : {2, 3, 8}) EXPECT_EQ(coarray_sync_time(SyncKind::memory, images, 0, c), 0);
  for (const int images : {2, 3, 8}) EXPECT_NEAR(coarray_sync_time(SyncKind::images, images, 0, c), 4e-6, 1e-15);
  EXPECT_NEAR(coarray_sync_time(SyncKind::all, 2, 0, c), 4e-6, 1e-15);
  EXPECT_NEAR(coarray_sync_time(SyncKind::all, 2, 1, c), 4e-6, 1e-15);
  EXPECT_NEAR(coarray_sync_time(SyncKind::all, 3, 0, c), 7e-6, 1e-15);
  EXPECT_NEAR(coarray_sync_time(SyncKind::all, 3, 1, c), 7e-6, 1e-15);
  EXPECT_NEAR(coarray_sync_time(SyncKind::all, 3, 2, c), 10e-6, 1e-15);
  EXPECT_NEAR(coarray_sync_time(SyncKind::all, 5, 0, c), 13e-6, 1e-15);
  EXPECT_NEAR(coarray_sync_time(SyncKind::all, 5, 3, c), 16e-6, 1e-15);
  for (const int origin : {0, 5, 7}) EXPECT_NEAR(coarray_sync_time(SyncKind::all, 8, origin, c), 10e-6, 1e-15);
  const CoarrayCosts no_overhead{{2e-6, 1e-9}, 0};
  EXPECT_NEAR(coarray_sync_time(SyncKind::images, 2, 0, no_overhead), 2e-6, 1e-15);
  EXPECT_NEAR(coarray_sync_time(SyncKind::all, 2, 0, no_overhead), 2e-6, 1e-15);
}

}  // namespace
}  // namespace collsim::models

namespace collsim::models {
namespace {

// The registration term by hand, with the defaults of models/registration.hpp (20 us a call,
// 0.5 us a 4 KiB page): 1 MiB spans 1048576 / 4096 = 256 pages, 20 + 256 x 0.5 = 148 us; one byte
// more takes a 257th page; 2 MiB pages hold it in one.
TEST(RegistrationCost, OneMebibyteByHand) {
  const RegistrationCost r;
  EXPECT_EQ(r.pages(1048576), 256u);
  EXPECT_DOUBLE_EQ(r.time(1048576), 148e-6);
  EXPECT_EQ(r.pages(1048577), 257u);
  EXPECT_DOUBLE_EQ(r.time(1048577), 148.5e-6);
  EXPECT_EQ(r.pages(1), 1u);
  EXPECT_DOUBLE_EQ(r.time(1), 20.5e-6);
  EXPECT_EQ(r.time(0), 0);
  const RegistrationCost huge{20e-6, 0.5e-6, 2 << 20};
  EXPECT_DOUBLE_EQ(huge.time(1048576), 20.5e-6);
}

// The closed forms with the registration term: a(:)[2] = b(:) of 131072 real(8) (1 MiB, case 0,
// one put) under alpha 1 us, beta 1 ns/B. Blocking: the put arrives at 1 + 1048.576 us, its flush
// takes alpha: 1050.576 us; registered per statement each statement first adds 148 us:
// 1198.576 us for one, 2397.152 us for two. A GET: 2 alpha + beta n = 1050.576 us, + 148 us.
TEST(RegistrationCost, InTheClosedFormsByHand) {
  const coarray::Scheme dma = coarray::choose_scheme(1048576, 1048576, 400000, true);
  CoarrayCosts costs{{1e-6, 1e-9}, 2e9};
  EXPECT_NEAR(coarray_put_time(coarray::plan_put(dma, 1048576, 1), costs, coarray::PutMode::blocking), 1050.576e-6,
              1e-12);
  costs.registered_bytes = 1048576;
  EXPECT_NEAR(coarray_put_time(coarray::plan_put(dma, 1048576, 1), costs, coarray::PutMode::blocking), 1198.576e-6,
              1e-12);
  EXPECT_NEAR(coarray_put_time(coarray::plan_put(dma, 1048576, 2), costs, coarray::PutMode::blocking), 2397.152e-6,
              1e-12);
  EXPECT_NEAR(coarray_get_time(coarray::plan_get(dma, 1048576), costs), 1198.576e-6, 1e-12);
}

// The datatype scheme's closed form: a(1:1000:2,1:50)[2] = b(1:500,1:50) of real(8) as one put of
// k = 25000 pieces of m = min(NL, NR) = 8 B, S = 200000 B, under alpha 2 us, beta 1 ns/B and
// o = 0.1 us for every operation. One blocking statement: the overheads 25000 x 0.1 = 2500 us,
// the bytes arrive 2 + 200 us later (2702 us), the flush o + alpha (2704.1 us), the end's flush_all
// o: 2704.2 us. Two: the second's overheads end at 5204.1 us (the port is free since 2700), it
// arrives at 5406.1, is flushed at 5408.2, the end 5408.3 us. Two GETs: 2 x (2500 + 4 + 200) + the
// end's 0.1 = 5408.1 us. Without overheads one put is alpha + beta*S + alpha = 204 us, one
// contiguous put's time.
TEST(CoarrayCost, DatatypeTransferByHand) {
  const coarray::Scheme dt{coarray::Scheme::kDatatypeCase, 200000, 8, 0, 200000};
  ASSERT_TRUE(dt.datatype());
  CoarrayCosts c{{kAlpha, kBeta}, kCopyBw, Overhead{{{0, 0.1e-6, 0}}}};
  EXPECT_DOUBLE_EQ(datatype_overhead(dt, 200000, c.overhead), 2500e-6);
  const auto one = plan_put(dt, 200000, 1), two = plan_put(dt, 200000, 2);
  EXPECT_EQ(one.transfers, 1u);
  EXPECT_EQ(one.copies, 0u);
  EXPECT_EQ(plan_put(dt, 0, 3).transfers, 0u);  // an empty section moves nothing
  EXPECT_NEAR(coarray_put_time(one, c, PutMode::blocking), 2704.2e-6, 1e-12);
  EXPECT_NEAR(coarray_put_time(two, c, PutMode::blocking), 5408.3e-6, 1e-12);
  EXPECT_NEAR(coarray_get_time(plan_get(dt, 200000, GetBehaviour::table1, 2), c), 5408.1e-6, 1e-12);
  // Non-blocking (safe), two statements: the second arrives at 5000 + 2 + 200 = 5202 us; the end's
  // flush_all o + alpha: 5204.1 us.
  EXPECT_NEAR(coarray_put_time(two, c, PutMode::nonblocking), 5204.1e-6, 1e-12);
  EXPECT_NEAR(coarray_put_time(one, costs(), PutMode::blocking), 204e-6, 1e-12);
}

}  // namespace
}  // namespace collsim::models

namespace collsim::models {
namespace {

// A copy's per-call cost c0 and win_sync's F, by hand: remote(1:10000)[2] = local(1:20000:2) of
// real(8), B = 400000: case 2 (NL 8 < NR 80000 <= B), one unit of 80000 B packed from 10000
// pieces of 8 B. Under alpha 0, beta 0.04 ns/B (25 GB/s), copies at 25 GB/s, o = 90 ns, c0 =
// 100 ns, F = 2 us, blocking: 10000 x (100 + 0.32) ns of copies = 1003.2 us, the put's o 0.09
// and its 80000 x 0.04 ns = 3.2 us, its flush's o 0.09, the end's flush_all 0.09 and F 2:
// 1008.67 us. Without c0 and F: 3.2 + 3.2 + 0.27 = 6.67 us. The GET of the same section: o + 3.2
// (the get), the 10000 copies out 1003.2, the end's 0.09 + 2: 1008.58 us.
TEST(CoarrayCost, CopyCallsAndWinSyncByHand) {
  const coarray::Scheme s = coarray::choose_scheme(8, 80000, 400000, false);
  ASSERT_EQ(s.table_case, 2);
  const coarray::Plan put = coarray::plan_put(s, 80000);
  ASSERT_EQ(put.copies, 10000u);
  CoarrayCosts c{{0, 0.04e-9}, 25e9, Overhead{{{0, 90e-9, 0}}}};
  EXPECT_NEAR(coarray_put_time(put, c, coarray::PutMode::blocking), 6.67e-6, 1e-12);
  c.copy_overhead = 100e-9, c.sync_overhead = 2e-6;
  EXPECT_NEAR(coarray_put_time(put, c, coarray::PutMode::blocking), 1008.67e-6, 1e-12);
  EXPECT_NEAR(coarray_get_time(coarray::plan_get(s, 80000), c), 1008.58e-6, 1e-12);
  // A get's own overhead of 0.13 us instead of o: 0.04 us more; the end's flush_all keeps o.
  c.get_overhead = Overhead{{{0, 130e-9, 0}}};
  EXPECT_NEAR(coarray_get_time(coarray::plan_get(s, 80000), c), 1008.62e-6, 1e-12);
  EXPECT_NEAR(coarray_put_time(put, c, coarray::PutMode::blocking), 1008.67e-6, 1e-12);
  c.get_overhead.reset();
  // Case 1 copies a unit at once: 8000 B in one copy, 0.1 + 0.32 us; the put 0.09 + 0.32, the
  // flush 0.09, the end 0.09 + 2: 3.01 us.
  const coarray::Plan whole = coarray::plan_put(coarray::choose_scheme(8000, 8000, 400000, false), 8000);
  EXPECT_NEAR(coarray_put_time(whole, c, coarray::PutMode::blocking), 3.01e-6, 1e-12);
  // A sync images or sync all end runs a second sync memory, F again: on 2 images with alpha 0,
  // the message s = o(0) = 0.09 us, then f + F = 2.09 us: 2.18 us.
  EXPECT_NEAR(coarray_sync_time(coarray::SyncKind::images, 2, 0, c), 2.18e-6, 1e-15);
  EXPECT_NEAR(coarray_sync_time(coarray::SyncKind::all, 2, 0, c), 2.18e-6, 1e-15);
}

}  // namespace
}  // namespace collsim::models
