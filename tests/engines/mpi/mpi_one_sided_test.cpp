// MpiComm's one-sided half over MPI-3 RMA: windows (symmetric, zero-filled, the same id on every
// rank, freed without leaking MPI windows), puts and gets with their requests, flush / flush_all /
// win_sync, and the front's sync_all / sync_memory / sync_images on top of them.
#include <algorithm>
#include <array>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "common/mpi_test_util.hpp"
#include "common/trace_contract.hpp"
#include "engines/mpi/mpi_comm.hpp"

namespace collsim {
namespace {

using collsim_test::all_ranks;
using collsim_test::run_now;

// Bytes a rank writes in round `round`: distinct per rank and round, so a wrong source or a stale
// value shows.
std::vector<std::byte> pattern(std::size_t n, int rank, int round = 0) {
  std::vector<std::byte> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = static_cast<std::byte>(
        (i * 13 + static_cast<std::size_t>(rank) * 41 + static_cast<std::size_t>(round) * 7 + 1) & 0xff);
  return v;
}

Buffer view(std::vector<std::byte>& v) { return Buffer(v.data(), v.size()); }

std::vector<std::byte> bytes_of(Buffer b) { return std::vector<std::byte>(b.data(), b.data() + b.size()); }

Task<> allocate(Comm& comm, std::size_t bytes, Window& w, bool real = true) {
  w = co_await comm.win_allocate(bytes, real);
}

Task<> free_window(Comm& comm, Window w) { co_await comm.win_free(w); }

// Allocates a window of `bytes` on `comm` for the test's lifetime.
Window allocated(Comm& comm, std::size_t bytes, bool real = true) {
  Window w;
  run_now(allocate(comm, bytes, w, real));
  return w;
}

// The same value on every rank?
bool same_everywhere(long value) {
  long lo = 0, hi = 0;
  MPI_Allreduce(&value, &lo, 1, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&value, &hi, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  return lo == hi;
}

TEST(MpiOneSided, WindowsAreZeroFilledSymmetricAndNumberedAlikeOnEveryRank) {
  MpiComm comm(MPI_COMM_WORLD);
  const Window a = allocated(comm, 100), b = allocated(comm, 3000);
  EXPECT_NE(a.id, b.id);
  EXPECT_TRUE(same_everywhere(a.id));
  EXPECT_TRUE(same_everywhere(b.id));
  EXPECT_EQ(comm.window_size(a), 100u);
  EXPECT_EQ(comm.window_size(b), 3000u);
  const Buffer mine = comm.local(b);
  ASSERT_FALSE(mine.is_virtual());
  EXPECT_TRUE(std::all_of(mine.data(), mine.data() + mine.size(), [](std::byte x) { return x == std::byte{0}; }));
  EXPECT_NE(comm.window_handle(a), MPI_WIN_NULL);
  run_now(free_window(comm, a));
  run_now(free_window(comm, b));
  EXPECT_EQ(comm.window_handle(a), MPI_WIN_NULL);
}

// Each rank puts its pattern into its right neighbour's window at offset 8, then sync all.
Task<> put_ring(Comm& comm, Window w, Buffer mine) {
  const int p = comm.size(), r = comm.rank();
  Request q = co_await comm.put(w, (r + 1) % p, 8, mine);
  co_await comm.wait(q);
  EXPECT_TRUE(q.is_null());
  co_await comm.sync_all(w);
}

TEST(MpiOneSided, RingOfPutsIsVisibleAfterSyncAll) {
  MpiComm comm(MPI_COMM_WORLD);
  const int p = comm.size(), r = comm.rank();
  const Window w = allocated(comm, 8 + 1000);
  auto mine = pattern(1000, r);
  run_now(put_ring(comm, w, view(mine)));
  const Buffer local = comm.local(w);
  EXPECT_EQ(bytes_of(local.slice(8, 1000)), pattern(1000, (r + p - 1) % p));
  EXPECT_EQ(bytes_of(local.slice(0, 8)), std::vector<std::byte>(8)) << "bytes before the offset are untouched";
  EXPECT_EQ(comm.active_requests(), 0u);
  run_now(free_window(comm, w));
}

TEST(MpiOneSided, TracedPutIsDoneAtItsWait) {
  MpiComm comm(MPI_COMM_WORLD);
  const int p = comm.size(), r = comm.rank();
  const Window w = allocated(comm, 8 + 1000);
  auto mine = pattern(1000, r);
  TraceBuffer trace;
  comm.set_trace(&trace);
  run_now(put_ring(comm, w, view(mine)));
  comm.set_trace(nullptr);
  run_now(free_window(comm, w));
  const auto& events = trace.events();
  EXPECT_EQ(collsim_test::trace_contract(events, {p, false, 0}), "");
  const auto done =
      std::find_if(events.begin(), events.end(), [](const TraceEvent& e) { return e.kind == TraceKind::request_done; });
  ASSERT_NE(done, events.end());
  EXPECT_EQ(done->op, OpKind::put);
  EXPECT_EQ(done->protocol, TraceProtocol::one_sided);
  EXPECT_EQ(done->rank, r);
  EXPECT_EQ(done->peer, (r + 1) % p);
  EXPECT_EQ(done->bytes, 1000u);
  // Inside the wait that completed it: after the wait's post, at or before its complete.
  ASSERT_GE(done - events.begin(), 1);
  ASSERT_LT(done + 1, events.end());
  EXPECT_EQ((done - 1)->kind, TraceKind::post);
  EXPECT_EQ((done - 1)->op, OpKind::wait_all);
  EXPECT_EQ((done + 1)->kind, TraceKind::complete);
  EXPECT_EQ((done + 1)->op, OpKind::wait_all);
  EXPECT_GE(done->time, (done - 1)->time);
  EXPECT_LE(done->time, (done + 1)->time);
}

// Every rank writes its own window, syncs, then reads both neighbours' windows with gets waited
// for by wait_any, alongside a two-sided ring exchange in the same request set.
Task<> get_neighbours(Comm& comm, Window w, Buffer left, Buffer right, Buffer out, Buffer in) {
  const int p = comm.size(), r = comm.rank();
  co_await comm.sync_all(w);
  std::array<Request, 4> reqs;
  reqs[0] = co_await comm.get(w, (r + p - 1) % p, 0, left);
  reqs[1] = co_await comm.get(w, (r + 1) % p, 16, right);
  reqs[2] = co_await comm.irecv(in, (r + p - 1) % p, 4);
  reqs[3] = co_await comm.isend(out, (r + 1) % p, 4);
  std::set<std::size_t> seen;
  for (int i = 0; i < 4; ++i) seen.insert(co_await comm.wait_any(reqs));
  EXPECT_EQ(seen.size(), 4u);
  for (const Request& q : reqs) EXPECT_TRUE(q.is_null());
  // Nobody may write its window again before every get of it is done.
  co_await comm.barrier();
}

TEST(MpiOneSided, GetsReadTheNeighboursWindows) {
  MpiComm comm(MPI_COMM_WORLD);
  const int p = comm.size(), r = comm.rank();
  const Window w = allocated(comm, 512);
  const auto written = pattern(512, r);
  std::memcpy(comm.local(w).data(), written.data(), written.size());
  std::vector<std::byte> left(512), right(100), out = pattern(33, r, 9), in(33);
  run_now(get_neighbours(comm, w, view(left), view(right), view(out), view(in)));
  EXPECT_EQ(left, pattern(512, (r + p - 1) % p));
  const auto whole_right = pattern(512, (r + 1) % p);
  EXPECT_EQ(right, std::vector<std::byte>(whole_right.begin() + 16, whole_right.begin() + 116));
  EXPECT_EQ(in, pattern(33, (r + p - 1) % p, 9));
  EXPECT_EQ(comm.active_requests(), 0u);
  run_now(free_window(comm, w));
}

// Puts of distinct slices to every rank (self included), all requests waited together, then only
// flush_all, a barrier and win_sync: the steps of sync all spelled out.
Task<> put_to_all(Comm& comm, Window w, std::vector<std::vector<std::byte>>& data) {
  const int p = comm.size(), r = comm.rank();
  std::vector<Request> reqs;
  for (int t = 0; t < p; ++t) {
    const int target = (r + t) % p;  // staggered, so that not every rank hits rank 0 first
    reqs.push_back(co_await comm.put(w, target, static_cast<std::size_t>(r) * 64, view(data[target])));
  }
  co_await comm.wait_all(reqs);
  co_await comm.flush_all(w);
  co_await comm.barrier();
  co_await comm.win_sync(w);
}

TEST(MpiOneSided, NonBlockingPutsToSeveralTargetsCompleteAtFlushAll) {
  MpiComm comm(MPI_COMM_WORLD);
  const int p = comm.size(), r = comm.rank();
  const Window w = allocated(comm, static_cast<std::size_t>(p) * 64);
  std::vector<std::vector<std::byte>> data;
  for (int t = 0; t < p; ++t) data.push_back(pattern(64, r * 100 + t));
  run_now(put_to_all(comm, w, data));
  const Buffer local = comm.local(w);
  for (int origin = 0; origin < p; ++origin)
    EXPECT_EQ(bytes_of(local.slice(static_cast<std::size_t>(origin) * 64, 64)), pattern(64, origin * 100 + r))
        << "the slice rank " << origin << " put";
  EXPECT_EQ(comm.active_requests(), 0u);
  run_now(free_window(comm, w));
}

// flush(w, target) of one target, then a barrier and win_sync: the put is at its target.
Task<> put_flush_one(Comm& comm, Window w, Buffer mine) {
  const int p = comm.size(), r = comm.rank();
  Request q = co_await comm.put(w, (r + 1) % p, 0, mine);
  co_await comm.wait(q);
  co_await comm.flush(w, (r + 1) % p);
  co_await comm.barrier();
  co_await comm.win_sync(w);
}

TEST(MpiOneSided, FlushOfOneTargetCompletesThePutThere) {
  MpiComm comm(MPI_COMM_WORLD);
  const int p = comm.size(), r = comm.rank();
  const Window w = allocated(comm, 40);
  auto mine = pattern(40, r, 3);
  run_now(put_flush_one(comm, w, view(mine)));
  EXPECT_EQ(bytes_of(comm.local(w)), pattern(40, (r + p - 1) % p, 3));
  run_now(free_window(comm, w));
}

// Rounds of: put to the right neighbour, sync images with both neighbours (after which the left
// neighbour's put is here), read, sync images again (so nobody overwrites before it was read).
Task<> image_rounds(Comm& comm, Window w, int rounds, std::vector<std::vector<std::byte>>& seen) {
  const int p = comm.size(), r = comm.rank();
  std::vector<int> partners;
  for (int image : {(r + p - 1) % p, (r + 1) % p})
    if (std::find(partners.begin(), partners.end(), image) == partners.end()) partners.push_back(image);
  for (int round = 0; round < rounds; ++round) {
    auto mine = pattern(24, r, round);
    Request q = co_await comm.put(w, (r + 1) % p, 0, view(mine));
    co_await comm.wait(q);
    co_await comm.sync_images(w, partners);
    seen.push_back(bytes_of(comm.local(w)));
    co_await comm.sync_images(w, partners);
  }
}

TEST(MpiOneSided, SyncImagesWithPartnersMakesTheirPutsVisible) {
  MpiComm comm(MPI_COMM_WORLD);
  const int p = comm.size(), r = comm.rank();
  const Window w = allocated(comm, 24);
  std::vector<std::vector<std::byte>> seen;
  run_now(image_rounds(comm, w, 5, seen));
  ASSERT_EQ(seen.size(), 5u);
  for (int round = 0; round < 5; ++round)
    EXPECT_EQ(seen[static_cast<std::size_t>(round)], pattern(24, (r + p - 1) % p, round)) << "round " << round;
  EXPECT_EQ(comm.active_requests(), 0u);
  run_now(free_window(comm, w));
}

Task<> self_put_get(Comm& comm, Window w, Buffer src, Buffer back) {
  const int me = comm.rank();
  Request q = co_await comm.put(w, me, 4, src);
  co_await comm.wait(q);
  co_await comm.sync_memory(w);
  q = co_await comm.get(w, me, 4, back);
  co_await comm.wait(q);
}

TEST(MpiOneSided, PutToSelfAndGetFromSelf) {
  MpiComm comm(MPI_COMM_WORLD);
  const int r = comm.rank();
  const Window w = allocated(comm, 68);
  auto src = pattern(64, r, 5);
  std::vector<std::byte> back(64);
  run_now(self_put_get(comm, w, view(src), view(back)));
  EXPECT_EQ(bytes_of(comm.local(w).slice(4, 64)), src);
  EXPECT_EQ(back, src);
  EXPECT_EQ(comm.active_requests(), 0u);
  run_now(free_window(comm, w));
}

// Zero-byte puts and gets, at the end of a window and into an empty one, still have requests that
// complete.
Task<> zero_bytes(Comm& comm, Window w, Window empty) {
  const int p = comm.size(), r = comm.rank();
  std::array<Request, 4> reqs;
  reqs[0] = co_await comm.put(w, (r + 1) % p, comm.window_size(w), Buffer{});
  reqs[1] = co_await comm.get(w, (r + p - 1) % p, 0, Buffer{});
  reqs[2] = co_await comm.put(empty, (r + 1) % p, 0, Buffer{});
  reqs[3] = co_await comm.get(empty, r, 0, Buffer{});
  for (const Request& q : reqs) EXPECT_FALSE(q.is_null());
  co_await comm.wait_all(reqs);
  co_await comm.sync_all(w);
  co_await comm.sync_all(empty);
}

TEST(MpiOneSided, ZeroBytePutsAndGets) {
  MpiComm comm(MPI_COMM_WORLD);
  const Window w = allocated(comm, 16), empty = allocated(comm, 0);
  EXPECT_EQ(comm.window_size(empty), 0u);
  run_now(zero_bytes(comm, w, empty));
  EXPECT_EQ(bytes_of(comm.local(w)), std::vector<std::byte>(16));
  EXPECT_EQ(comm.active_requests(), 0u);
  run_now(free_window(comm, empty));
  run_now(free_window(comm, w));
}

// A virtual window still has real memory (MPI moves bytes); a virtual put sends zeros.
Task<> virtual_put(Comm& comm, Window w) {
  const int p = comm.size(), r = comm.rank();
  co_await comm.sync_all(w);
  Request q = co_await comm.put(w, (r + 1) % p, 8, Buffer::virtual_of(8));
  co_await comm.wait(q);
  // Bytes nobody puts to: reading what this rank put without a flush in between is undefined.
  q = co_await comm.get(w, (r + 1) % p, 16, Buffer::virtual_of(16));
  co_await comm.wait(q);
  co_await comm.sync_all(w);
}

TEST(MpiOneSided, VirtualWindowsAndBuffersStillMoveBytes) {
  MpiComm comm(MPI_COMM_WORLD);
  const Window w = allocated(comm, 32, false);
  const Buffer local = comm.local(w);
  ASSERT_FALSE(local.is_virtual());
  std::memset(local.data(), 0x5a, local.size());
  run_now(virtual_put(comm, w));
  auto expected = std::vector<std::byte>(32, std::byte{0x5a});
  std::fill(expected.begin() + 8, expected.begin() + 16, std::byte{0});
  EXPECT_EQ(bytes_of(local), expected);
  run_now(free_window(comm, w));
}

TEST(MpiOneSided, WindowSizeMismatchIsAnErrorOnEveryRank) {
  if (collsim_test::world_size() < 2) GTEST_SKIP() << "needs two ranks";
  MpiComm comm(MPI_COMM_WORLD);
  const int r = comm.rank();
  const std::size_t mine = r == 1 ? 96 : 64, other = r == 1 ? 64 : 96;
  Window w;
  try {
    run_now(allocate(comm, mine, w));
    ADD_FAILURE() << "no error";
  } catch (const CommError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("rank " + std::to_string(r) + ": win_allocate of " + std::to_string(mine) + " bytes"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("allocated " + std::to_string(other)), std::string::npos) << what;
  }
  EXPECT_TRUE(w.is_null());
  // Nothing was allocated: the comm still serves, and numbers the next window alike everywhere.
  const Window ok = allocated(comm, 64);
  EXPECT_TRUE(same_everywhere(ok.id));
  run_now(free_window(comm, ok));
}

// Rounds of allocate, a put ring, sync all, free.
Task<> churn(MpiComm& comm, int rounds, std::size_t bytes, std::vector<MPI_Fint>& fortran_ids) {
  const int p = comm.size(), r = comm.rank();
  for (int round = 0; round < rounds; ++round) {
    const Window w = co_await comm.win_allocate(bytes);
    fortran_ids.push_back(MPI_Win_c2f(comm.window_handle(w)));
    auto mine = pattern(bytes, r, round);
    Request q = co_await comm.put(w, (r + 1) % p, 0, view(mine));
    co_await comm.wait(q);
    co_await comm.sync_all(w);
    EXPECT_EQ(bytes_of(comm.local(w)), pattern(bytes, (r + p - 1) % p, round)) << "round " << round;
    co_await comm.win_free(w);
  }
}

TEST(MpiOneSided, WindowsAllocatedAndFreedRepeatedlyDoNotLeak) {
  MpiComm comm(MPI_COMM_WORLD);
  std::vector<MPI_Fint> ids;
  run_now(churn(comm, 100, 256, ids));
  ASSERT_EQ(ids.size(), 100u);
  // Open MPI numbers live windows in its Fortran handle table and reuses a freed number: a window
  // not really freed would push the numbers up, one per round.
  EXPECT_LE(*std::max_element(ids.begin(), ids.end()), ids.front() + 2);
}

// A freed window is kept for the next allocation of its size, zero-filled again; one of another
// size is new, and the one kept before it is then really freed.
TEST(MpiOneSided, AFreedWindowServesTheNextOfItsSizeZeroed) {
  MpiComm comm(MPI_COMM_WORLD);
  const int p = comm.size(), r = comm.rank();
  const Window a = allocated(comm, 4096);
  const MPI_Win first = comm.window_handle(a);
  auto mine = pattern(4096, r);
  run_now(put_ring(comm, a, view(mine).slice(0, 4000)));
  auto left = pattern(4096, (r + p - 1) % p);
  EXPECT_EQ(bytes_of(comm.local(a).slice(8, 4000)), bytes_of(view(left).slice(0, 4000)));
  run_now(free_window(comm, a));
  EXPECT_EQ(comm.window_handle(a), MPI_WIN_NULL);
  const Window b = allocated(comm, 4096);
  EXPECT_NE(b.id, a.id);
  EXPECT_EQ(comm.window_handle(b), first);  // the same MPI window, kept
  const Buffer again = comm.local(b);
  EXPECT_TRUE(std::all_of(again.data(), again.data() + again.size(), [](std::byte x) { return x == std::byte{0}; }));
  run_now(free_window(comm, b));
  const Window c = allocated(comm, 100);  // another size: a new window
  EXPECT_EQ(comm.window_size(c), 100u);
  EXPECT_TRUE(same_everywhere(c.id));
  run_now(free_window(comm, c));  // the 4096-byte one is freed now, this one kept
  EXPECT_TRUE(all_ranks(true));
}

// Leaves a put request of 8 bytes at offset 0 unwaited.
Task<> abandon(Comm& comm, Window w, Buffer data) {
  const int p = comm.size(), r = comm.rank();
  Request q = co_await comm.put(w, (r + 1) % p, 0, data);
  (void)q;
}

TEST(MpiOneSided, CancelAllWaitsForPutsAndTheDestructorFreesWindows) {
  {
    MpiComm comm(MPI_COMM_WORLD);
    const Window w = allocated(comm, 16);
    allocated(comm, 8);  // never freed: the destructor does it
    auto data = pattern(16, comm.rank());
    run_now(abandon(comm, w, view(data).slice(0, 8)));
    EXPECT_EQ(comm.active_requests(), 1u);
    comm.cancel_all();
    EXPECT_EQ(comm.active_requests(), 0u);
    // The comm serves again; the window is still there.
    run_now(put_ring(comm, w, view(data).slice(0, 8)));
    run_now(abandon(comm, w, view(data).slice(0, 8)));  // and one more left for the destructor
  }
  // Every rank got through the destructors' collective frees.
  EXPECT_TRUE(all_ranks(true));
}

// Outside the contract (a window's requests are to be completed before win_free), but tolerated:
// win_free completes the put, whose request stays outstanding until waited for, then at once.
Task<> free_before_wait(Comm& comm, Window w, Buffer data) {
  const int p = comm.size(), r = comm.rank();
  std::array<Request, 2> reqs;
  reqs[1] = co_await comm.put(w, (r + 1) % p, 0, data);
  co_await comm.win_free(w);
  EXPECT_EQ(comm.requests().live(), 1u);
  EXPECT_EQ(co_await comm.wait_any(reqs), 1u);
  EXPECT_TRUE(reqs[1].is_null());
}

TEST(MpiOneSided, WinFreeCompletesAnUnwaitedPutWhoseWaitThenReturns) {
  MpiComm comm(MPI_COMM_WORLD);
  const Window w = allocated(comm, 16);
  auto data = pattern(16, comm.rank());
  run_now(free_before_wait(comm, w, view(data)));
  EXPECT_EQ(comm.active_requests(), 0u);
}

Task<> use_after_free(Comm& comm, Window w) {
  Request q = co_await comm.put(w, comm.rank(), 0, Buffer{});
  co_await comm.wait(q);
}

TEST(MpiOneSided, PutToAFreedWindowIsAnError) {
  MpiComm comm(MPI_COMM_WORLD);
  const Window w = allocated(comm, 16);
  run_now(free_window(comm, w));
  EXPECT_THROW(run_now(use_after_free(comm, w)), CommError);
  // Ids are not reused: a new window does not revive the old handle.
  const Window next = allocated(comm, 16);
  EXPECT_NE(next.id, w.id);
  EXPECT_THROW(run_now(use_after_free(comm, w)), CommError);
  run_now(free_window(comm, next));
}

}  // namespace
}  // namespace collsim
