#include "conformance/conformance_cases.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "comm/buffer.hpp"
#include "comm/comm.hpp"
#include "common/test_algorithm.hpp"

namespace collsim::conformance {
namespace {

// A failed observation: the engine broke the contract.
void expect(const Comm& comm, bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error("conformance: rank " + std::to_string(comm.rank()) + ": " + what);
}

// Real bytes holding one 64-bit value each.
struct Words {
  explicit Words(std::size_t n) : storage(n * 8, true) {}
  Buffer all() { return storage.view(); }
  Buffer at(std::size_t i) { return storage.view().slice(i * 8, 8); }
  std::uint64_t get(std::size_t i) const {
    std::uint64_t v;
    std::memcpy(&v, storage.bytes().data() + i * 8, 8);
    return v;
  }
  void set(std::size_t i, std::uint64_t v) { std::memcpy(storage.bytes().data() + i * 8, &v, 8); }
  Storage storage;
};

std::uint64_t word_of(Buffer b, std::size_t i) {
  std::uint64_t v;
  std::memcpy(&v, b.data() + i * 8, 8);
  return v;
}

int next(const Comm& c) { return (c.rank() + 1) % c.size(); }
int previous(const Comm& c) { return (c.rank() + c.size() - 1) % c.size(); }

// ---- two-sided ---------------------------------------------------------------------------------

// Messages of one pair and tag are received in the order sent, whatever the order receives of
// different tags are posted in: each rank sends 3 messages with tag 1 and 3 with tag 2,
// interleaved, to the next rank, which posts the tag-2 receives first.
Task<> order_within_a_tag(Comm& comm, RankBuffers, const AlgorithmParams&) {
  Words out(6), in(6);
  std::vector<Request> sends, recvs;
  for (std::size_t i = 0; i < 3; ++i) recvs.push_back(co_await comm.irecv(in.at(3 + i), previous(comm), 2));
  for (std::size_t i = 0; i < 3; ++i) recvs.push_back(co_await comm.irecv(in.at(i), previous(comm), 1));
  for (std::size_t i = 0; i < 6; ++i) {
    out.set(i, 1000 * static_cast<std::uint64_t>(comm.rank()) + i);
    sends.push_back(co_await comm.isend(out.at(i), next(comm), i % 2 == 0 ? 1 : 2));
  }
  co_await comm.wait_all(recvs);
  co_await comm.wait_all(sends);
  const std::uint64_t from = 1000 * static_cast<std::uint64_t>(previous(comm));
  for (std::size_t i = 0; i < 3; ++i) {
    expect(comm, in.get(i) == from + 2 * i, "tag 1 message " + std::to_string(i) + " out of order");
    expect(comm, in.get(3 + i) == from + 2 * i + 1, "tag 2 message " + std::to_string(i) + " out of order");
  }
  for (const Request& r : recvs) expect(comm, r.is_null(), "wait_all left a request non-null");
  expect(comm, comm.requests().live() == 0, "requests still outstanding after wait_all");
}

// Messages to self, zero-byte messages, and Open MPI's sendrecv around a ring.
Task<> self_zero_and_sendrecv(Comm& comm, RankBuffers, const AlgorithmParams&) {
  Words a(1), b(1);
  a.set(0, 42 + static_cast<std::uint64_t>(comm.rank()));
  Request r = co_await comm.irecv(b.all(), comm.rank(), 7);
  co_await comm.send(a.all(), comm.rank(), 7);
  co_await comm.wait(r);
  expect(comm, b.get(0) == 42 + static_cast<std::uint64_t>(comm.rank()), "message to self lost");
  co_await comm.sendrecv(Buffer{}, next(comm), 8, Buffer{}, previous(comm), 8);
  a.set(0, static_cast<std::uint64_t>(comm.rank()));
  co_await comm.sendrecv(a.all(), next(comm), 9, b.all(), previous(comm), 9);
  expect(comm, b.get(0) == static_cast<std::uint64_t>(previous(comm)), "sendrecv delivered the wrong message");
}

// wait_any skips null requests, yields each completed request once and nulls it; every other
// request of the span stays as it was.
Task<> wait_any_yields_each_once(Comm& comm, RankBuffers, const AlgorithmParams&) {
  if (comm.rank() == 0) {
    Words in(static_cast<std::size_t>(comm.size()));
    std::vector<Request> r(static_cast<std::size_t>(comm.size()) + 1);  // r[0] stays null
    for (int p = 1; p < comm.size(); ++p)
      r[static_cast<std::size_t>(p)] = co_await comm.irecv(in.at(static_cast<std::size_t>(p)), p, 3);
    r.back() = co_await comm.irecv(in.at(0), 0, 4);
    Words self(1);
    self.set(0, 99);
    co_await comm.send(self.all(), 0, 4);
    std::vector<bool> seen(r.size(), false);
    for (std::size_t k = 0; k < r.size() - 1; ++k) {
      const std::size_t live_before = comm.requests().live();
      const std::size_t i = co_await comm.wait_any(r);
      expect(comm, i != 0 && i < r.size(), "wait_any yielded index " + std::to_string(i));
      expect(comm, !seen[i], "wait_any yielded index " + std::to_string(i) + " twice");
      expect(comm, r[i].is_null(), "wait_any did not null the request it completed");
      expect(comm, comm.requests().live() == live_before - 1, "wait_any released other than one request");
      seen[i] = true;
    }
    for (int p = 1; p < comm.size(); ++p)
      expect(comm, in.get(static_cast<std::size_t>(p)) == static_cast<std::uint64_t>(p),
             "wrong data from " + std::to_string(p));
    expect(comm, in.get(0) == 99, "wrong data from self");
  } else {
    Words out(1);
    out.set(0, static_cast<std::uint64_t>(comm.rank()));
    co_await comm.send(out.all(), 0, 3);
  }
}

// Time never runs backwards, and a wait for a message sent after a barrier ends after it.
Task<> clock_is_monotonic(Comm& comm, RankBuffers, const AlgorithmParams&) {
  const double t0 = comm.now();
  co_await comm.barrier();
  const double t1 = comm.now();
  Words w(1);
  co_await comm.sendrecv(w.all(), next(comm), 1, w.all(), previous(comm), 1);
  const double t2 = comm.now();
  expect(comm, t0 <= t1 && t1 <= t2, "the clock ran backwards");
}

// ---- one-sided ----------------------------------------------------------------------------------

// Every rank puts one word into the next rank's window (blocking: put, wait, flush); after
// sync all, each window holds the previous rank's word, and the rest is still zero.
Task<> put_around_a_ring(Comm& comm, RankBuffers, const AlgorithmParams&) {
  const Window w = co_await comm.win_allocate(32);
  const Buffer mine = comm.local(w);
  expect(comm, mine.size() == 32 && comm.window_size(w) == 32, "window of the wrong size");
  for (std::size_t i = 0; i < 4; ++i) expect(comm, word_of(mine, i) == 0, "window memory not zero-filled");
  co_await comm.barrier();  // nobody puts before every rank has looked
  Words v(1);
  v.set(0, 700 + static_cast<std::uint64_t>(comm.rank()));
  Request r = co_await comm.put(w, next(comm), 8, v.all());
  co_await comm.wait(r);
  co_await comm.flush(w, next(comm));
  co_await comm.sync_all(w);
  expect(comm, word_of(mine, 1) == 700 + static_cast<std::uint64_t>(previous(comm)), "put did not land");
  expect(comm, word_of(mine, 0) == 0 && word_of(mine, 2) == 0, "put wrote outside its bytes");
  co_await comm.win_free(w);
}

// A strided put and get (one derived-datatype transfer each, comm/strided.hpp): words 0, 2 and 4
// of a local array go to words 5, 3 and 1 of the next rank's window (a negative step), then the
// origin gets words 1, 3 and 5 of the next rank's window back into 3 contiguous words (blocks of
// 24 B against 8 B: 3 pieces).
Task<> strided_put_and_get(Comm& comm, RankBuffers, const AlgorithmParams&) {
  const Window w = co_await comm.win_allocate(48);
  const Buffer mine = comm.local(w);
  co_await comm.barrier();
  Words v(6);
  const auto me = static_cast<std::uint64_t>(comm.rank()), before = static_cast<std::uint64_t>(previous(comm));
  for (std::size_t i = 0; i < 6; ++i) v.set(i, 1000 * me + i);
  const StridedTransfer put{{0, 8, {{3, 16}}}, {40, 8, {{3, -16}}}};
  Request r = co_await comm.put_strided(w, next(comm), v.all(), put);
  co_await comm.wait(r);
  co_await comm.flush(w, next(comm));
  co_await comm.sync_all(w);
  expect(comm,
         word_of(mine, 5) == 1000 * before && word_of(mine, 3) == 1000 * before + 2 &&
             word_of(mine, 1) == 1000 * before + 4,
         "strided put did not land");
  expect(comm, word_of(mine, 0) == 0 && word_of(mine, 2) == 0 && word_of(mine, 4) == 0,
         "strided put wrote outside its blocks");
  Words got(3);
  const StridedTransfer get{{0, 24, {}}, {8, 8, {{3, 16}}}};
  Request g = co_await comm.get_strided(w, next(comm), got.all(), get);
  co_await comm.wait(g);
  expect(comm, got.get(0) == 1000 * me + 4 && got.get(1) == 1000 * me + 2 && got.get(2) == 1000 * me,
         "strided get read the wrong bytes");
  co_await comm.sync_all(w);
  co_await comm.win_free(w);
}

// Non-blocking puts to every rank (itself included) at distinct offsets, completed by one
// flush_all; the source buffer is reused only once its put completed locally.
Task<> nonblocking_puts_to_everyone(Comm& comm, RankBuffers, const AlgorithmParams&) {
  const auto P = static_cast<std::size_t>(comm.size());
  const Window w = co_await comm.win_allocate(8 * P);
  Words v(P);
  std::vector<Request> r;
  for (std::size_t t = 0; t < P; ++t) {
    v.set(t, 100 * static_cast<std::uint64_t>(comm.rank()) + t);
    r.push_back(co_await comm.put(w, static_cast<int>(t), 8 * static_cast<std::size_t>(comm.rank()), v.at(t)));
  }
  co_await comm.wait_all(r);
  co_await comm.flush_all(w);
  co_await comm.barrier();
  co_await comm.win_sync(w);
  const Buffer mine = comm.local(w);
  for (std::size_t s = 0; s < P; ++s)
    expect(comm, word_of(mine, s) == 100 * s + static_cast<std::uint64_t>(comm.rank()),
           "word from rank " + std::to_string(s) + " missing");
  co_await comm.win_free(w);
}

// A flush completes the put at the target: a message sent after the flush finds the data there.
Task<> flush_then_message(Comm& comm, RankBuffers, const AlgorithmParams&) {
  const Window w = co_await comm.win_allocate(8);
  if (comm.rank() == 0) {
    Words v(1);
    v.set(0, 4242);
    Request r = co_await comm.put(w, 1, 0, v.all());
    co_await comm.flush(w, 1);
    co_await comm.wait(r);
    co_await comm.send(Buffer{}, 1, 5);
  } else if (comm.rank() == 1) {
    co_await comm.recv(Buffer{}, 0, 5);
    co_await comm.win_sync(w);
    expect(comm, word_of(comm.local(w), 0) == 4242, "data not at the target after the origin's flush");
  }
  co_await comm.barrier();
  co_await comm.win_free(w);
}

// Gets from the next rank's window after sync all, into a buffer of the origin.
Task<> get_from_the_next(Comm& comm, RankBuffers, const AlgorithmParams&) {
  const Window w = co_await comm.win_allocate(24);
  const Buffer mine = comm.local(w);
  const std::uint64_t v = 500 + static_cast<std::uint64_t>(comm.rank());
  std::memcpy(mine.data() + 16, &v, 8);
  co_await comm.sync_all(w);
  Words got(1);
  Request r = co_await comm.get(w, next(comm), 16, got.all());
  co_await comm.wait(r);
  expect(comm, got.get(0) == 500 + static_cast<std::uint64_t>(next(comm)), "get read the wrong bytes");
  Request z = co_await comm.get(w, next(comm), 24, Buffer{});  // zero bytes at the very end
  co_await comm.wait(z);
  Request y = co_await comm.put(w, next(comm), 0, Buffer{});
  co_await comm.wait(y);
  co_await comm.sync_all(w);
  co_await comm.win_free(w);
}

// sync images between pairs (0,1), (2,3), ...: a put before the statement is visible to the
// partner after it. An odd last rank syncs with itself only.
Task<> sync_images_in_pairs(Comm& comm, RankBuffers, const AlgorithmParams&) {
  const Window w = co_await comm.win_allocate(8);
  const int partner = (comm.rank() ^ 1) < comm.size() ? comm.rank() ^ 1 : comm.rank();
  Words v(1);
  v.set(0, 900 + static_cast<std::uint64_t>(comm.rank()));
  Request r = co_await comm.put(w, partner, 0, v.all());
  co_await comm.wait(r);
  const std::array<int, 1> images{partner};
  co_await comm.sync_images(w, images);
  expect(comm, word_of(comm.local(w), 0) == 900 + static_cast<std::uint64_t>(partner),
         "put not visible after sync images");
  co_await comm.sync_all(w);
  co_await comm.win_free(w);
}

// Virtual windows cost the same and move nothing; two windows are numbered apart.
Task<> two_windows_one_virtual(Comm& comm, RankBuffers, const AlgorithmParams&) {
  const Window a = co_await comm.win_allocate(64, false);
  const Window b = co_await comm.win_allocate(16);
  expect(comm, a.id != b.id, "two windows got one id");
  expect(comm, comm.local(a).is_virtual() || comm.local(a).size() == 64, "virtual window of the wrong size");
  Request r = co_await comm.put(a, next(comm), 32, Buffer::virtual_of(32));
  co_await comm.wait(r);
  co_await comm.sync_all(a);
  co_await comm.win_free(a);
  co_await comm.win_free(b);
}

// ---- errors of the front (one wording for every engine) -----------------------------------------

Task<> isend_to_nobody(Comm& comm, RankBuffers, const AlgorithmParams&) {
  if (comm.rank() == 0) (void)co_await comm.isend(Buffer{}, comm.size(), 1);
}
Task<> irecv_from_minus_one(Comm& comm, RankBuffers, const AlgorithmParams&) {
  if (comm.rank() == 0) (void)co_await comm.irecv(Buffer{}, -1, 1);
}
Task<> negative_tag(Comm& comm, RankBuffers, const AlgorithmParams&) {
  if (comm.rank() == 0) (void)co_await comm.isend(Buffer{}, 0, -3);
}
Task<> wait_twice(Comm& comm, RankBuffers, const AlgorithmParams&) {
  if (comm.rank() != 0) co_return;
  Request r = co_await comm.irecv(Buffer{}, 0, 1);
  co_await comm.send(Buffer{}, 0, 1);
  Request copy = r;
  co_await comm.wait(r);
  co_await comm.wait(copy);
}
// The front holds one operation per rank: an awaitable made and left while another operation is
// made would lose the first, so that is an error, not a silent overwrite.
Task<> made_and_not_awaited(Comm& comm, RankBuffers, const AlgorithmParams&) {
  if (comm.rank() != 0) co_return;
  auto first = comm.irecv(Buffer{}, 0, 1);
  co_await comm.send(Buffer{}, 0, 1);
  co_await first;
}
Task<> wait_any_on_nulls(Comm& comm, RankBuffers, const AlgorithmParams&) {
  std::array<Request, 2> none;
  if (comm.rank() == 0) co_await comm.wait_any(none);
}
Task<> copy_of_other_size(Comm& comm, RankBuffers, const AlgorithmParams&) {
  if (comm.rank() == 0) co_await comm.copy(Buffer::virtual_of(8), Buffer::virtual_of(4));
}
// Every rank makes the mistake, so that none waits in win_free for one that threw (real MPI
// would hang there).
Task<> put_past_the_window(Comm& comm, RankBuffers, const AlgorithmParams&) {
  const Window w = co_await comm.win_allocate(16);
  (void)co_await comm.put(w, 0, 8, Buffer::virtual_of(16));
  co_await comm.win_free(w);
}
Task<> get_from_nobody(Comm& comm, RankBuffers, const AlgorithmParams&) {
  const Window w = co_await comm.win_allocate(16);
  (void)co_await comm.get(w, comm.size(), 0, Buffer::virtual_of(8));
  co_await comm.win_free(w);
}
Task<> put_on_no_window(Comm& comm, RankBuffers, const AlgorithmParams&) {
  if (comm.rank() == 0) (void)co_await comm.put(Window{5}, 0, 0, Buffer{});
}
Task<> use_after_free(Comm& comm, RankBuffers, const AlgorithmParams&) {
  const Window w = co_await comm.win_allocate(8);
  co_await comm.win_free(w);
  if (comm.rank() == 0) co_await comm.flush_all(w);
}
Task<> windows_of_different_sizes(Comm& comm, RankBuffers, const AlgorithmParams&) {
  const Window w = co_await comm.win_allocate(comm.rank() == 0 ? 16 : 8);
  co_await comm.win_free(w);
}

const std::vector<Case>& all() {
  static const std::vector<Case> list{
      {collsim_test::test_algorithm("conformance/order_within_a_tag", &order_within_a_tag), 1, 4, ""},
      {collsim_test::test_algorithm("conformance/self_zero_and_sendrecv", &self_zero_and_sendrecv), 1, 4, ""},
      {collsim_test::test_algorithm("conformance/wait_any_yields_each_once", &wait_any_yields_each_once), 1, 4, ""},
      {collsim_test::test_algorithm("conformance/clock_is_monotonic", &clock_is_monotonic), 1, 4, ""},
      {collsim_test::test_algorithm("conformance/put_around_a_ring", &put_around_a_ring), 1, 4, ""},
      {collsim_test::test_algorithm("conformance/nonblocking_puts_to_everyone", &nonblocking_puts_to_everyone), 1, 4,
       ""},
      {collsim_test::test_algorithm("conformance/flush_then_message", &flush_then_message), 2, 4, ""},
      {collsim_test::test_algorithm("conformance/get_from_the_next", &get_from_the_next), 1, 4, ""},
      {collsim_test::test_algorithm("conformance/strided_put_and_get", &strided_put_and_get), 1, 4, ""},
      {collsim_test::test_algorithm("conformance/sync_images_in_pairs", &sync_images_in_pairs), 1, 4, ""},
      {collsim_test::test_algorithm("conformance/two_windows_one_virtual", &two_windows_one_virtual), 1, 4, ""},
      {collsim_test::test_algorithm("conformance/isend_to_nobody", &isend_to_nobody), 1, 3,
       "rank 0: isend to rank {P}, which does not exist ({P} ranks)"},
      {collsim_test::test_algorithm("conformance/irecv_from_minus_one", &irecv_from_minus_one), 1, 3,
       "rank 0: irecv from rank -1, which does not exist ({P} ranks)"},
      {collsim_test::test_algorithm("conformance/negative_tag", &negative_tag), 1, 2,
       "rank 0: isend with tag -3 (tags are 0 or more)"},
      {collsim_test::test_algorithm("conformance/wait_twice", &wait_twice), 1, 2,
       "rank 0: wait_all on request 0, which is not an outstanding request of this rank"},
      {collsim_test::test_algorithm("conformance/made_and_not_awaited", &made_and_not_awaited), 1, 2,
       "rank 0: irecv was made and not co_awaited before the next operation"},
      {collsim_test::test_algorithm("conformance/wait_any_on_nulls", &wait_any_on_nulls), 1, 2,
       "rank 0: wait_any on 2 requests, none of them outstanding"},
      {collsim_test::test_algorithm("conformance/copy_of_other_size", &copy_of_other_size), 1, 2,
       "rank 0: copy of 4 bytes into a buffer of 8 bytes"},
      {collsim_test::test_algorithm("conformance/put_past_the_window", &put_past_the_window), 1, 2,
       ": put of 16 bytes at offset 8 of rank 0's window 0, which has 16 bytes"},
      {collsim_test::test_algorithm("conformance/get_from_nobody", &get_from_nobody), 1, 3,
       ": get from rank {P}, which does not exist ({P} ranks)"},
      {collsim_test::test_algorithm("conformance/put_on_no_window", &put_on_no_window), 1, 2,
       "rank 0: window 5 is not allocated"},
      {collsim_test::test_algorithm("conformance/use_after_free", &use_after_free), 1, 2,
       "rank 0: window 0 is not allocated"},
      {collsim_test::test_algorithm("conformance/windows_of_different_sizes", &windows_of_different_sizes), 2, 3,
       "win_allocate of"},
  };
  return list;
}

}  // namespace

std::span<const Case> cases() { return all(); }

}  // namespace collsim::conformance
