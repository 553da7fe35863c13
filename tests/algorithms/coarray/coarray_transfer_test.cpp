// The PUT and GET coroutines on a fake one-sided Comm (one_sided_fake.hpp): the bytes land where
// Fortran puts them, for every Table 1 case, blocking and not, on hand examples and random
// section pairs; they issue the plan's operations; the one-buffer caution holds; nothing stays
// outstanding after a segment; and their time under the model engine's rules is the closed form.
#include "algorithms/coarray/coarray_transfer.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/one_sided_fake.hpp"
#include "common/random_sections.hpp"
#include "common/statements.hpp"
#include "models/coarray_cost.hpp"

namespace collsim::coarray {
namespace {

using namespace collsim_test;

Task<> run_put(OneSidedFake& comm, const Statement& s, std::vector<std::byte>& local, std::size_t nputs, PutMode mode,
               Window& window) {
  window = co_await comm.win_allocate(nputs * s.remote.shape().bytes());
  CoarrayContext ctx(window, s.options, true);
  co_await put_segment(comm, ctx, 1, Buffer(local.data(), local.size()), s.local, 0, s.remote, nputs, mode);
}

Task<> run_get(OneSidedFake& comm, const Statement& s, std::vector<std::byte>& local, std::size_t statements,
               GetBehaviour behaviour, Window& window, const std::vector<std::byte>& remote) {
  window = co_await comm.win_allocate(s.remote.shape().bytes());
  comm.memory(window, 1) = remote;
  CoarrayOptions options = s.options;
  options.get = behaviour;
  CoarrayContext ctx(window, options, true);
  for (std::size_t i = 0; i < statements; ++i)
    co_await get_section(comm, ctx, 1, Buffer(local.data(), local.size()), s.local, 0, s.remote);
  co_await end_segment(comm, ctx);  // as a program's segment ends (CoarrayProgram)
}

void run(Task<> task) {
  start(task);
  ASSERT_TRUE(task.done());
  rethrow_if_failed(task);
}

// Runs every way of moving s under s's packing and checks bytes, operations, outstanding
// requests and time.
void check_packed_statement(const Statement& s, const models::CoarrayCosts& costs) {
  const Scheme scheme =
      choose_scheme(s.local, s.remote, s.options.buffer_bytes, s.options.registered, s.options.packing);
  const std::string what = s.local.str() + " / " + s.remote.str() + " B " + std::to_string(s.options.buffer_bytes) +
                           " case " + std::to_string(scheme.table_case) +
                           (s.options.packing == Packing::omni ? " Omni's packing" : "");
  for (const std::size_t nputs : {1, 3})
    for (const PutMode mode : kPutModes) {
      OneSidedFake comm(costs);
      std::vector<std::byte> local = pattern(s.local.shape().bytes());
      Window w;
      run(run_put(comm, s, local, nputs, mode, w));
      ASSERT_EQ(comm.memory(w, 1), expected_put(s, local, nputs)) << what << " " << to_string(mode);
      const Plan plan = plan_put(scheme, s.local.bytes(), nputs);
      EXPECT_EQ(comm.puts, plan.transfers) << what;
      EXPECT_EQ(comm.copies, plan.copies) << what;
      EXPECT_LE(comm.largest_transfer, scheme.unit) << what;
      EXPECT_EQ(comm.requests().live(), 0u) << what;
      EXPECT_TRUE(same_time(comm.now(), models::coarray_put_time(plan, costs, mode)))
          << what << " " << to_string(mode) << " " << nputs << ": " << comm.now() << " vs "
          << models::coarray_put_time(plan, costs, mode);
    }
  for (const GetBehaviour behaviour : {GetBehaviour::table1, GetBehaviour::omni}) {
    OneSidedFake comm(costs);
    std::vector<std::byte> local(s.local.shape().bytes());
    const std::vector<std::byte> remote = pattern(s.remote.shape().bytes());
    Window w;
    run(run_get(comm, s, local, 2, behaviour, w, remote));
    ASSERT_EQ(local, expected_get(s, remote)) << what;
    const Plan plan = plan_get(scheme, s.local.bytes(), behaviour, 2);
    EXPECT_EQ(comm.gets, plan.transfers) << what;
    EXPECT_EQ(comm.copies, plan.copies) << what;
    EXPECT_EQ(comm.requests().live(), 0u) << what;
    EXPECT_TRUE(same_time(comm.now(), models::coarray_get_time(plan, costs)))
        << what << ": " << comm.now() << " vs " << models::coarray_get_time(plan, costs);
  }
}

// Both packings (the statement's case, when given, is Table 1's).
void check_statement(const Statement& s, int expected_case = -1) {
  if (expected_case >= 0) {
    ASSERT_EQ(choose_scheme(s.local, s.remote, s.options.buffer_bytes, s.options.registered).table_case, expected_case);
  }
  for (const Packing packing : {Packing::table1, Packing::omni}) {
    Statement packed = s;
    packed.options.packing = packing;
    check_packed_statement(packed, kCosts);
    check_packed_statement(packed, kCostsWithOverheads);
  }
}

// Per-statement registration registers, before each DMA statement's transfers, the local bytes
// from its first to its last element, and nothing when buffered or registered once. b(1:100:2) of
// b(100), real(8): elements at bytes 0, 16, ..., 784, so 792 bytes (one 4 KiB page: 20.5 us).
TEST(CoarrayTransfer, PerStatementRegistrationRegistersTheTouchedBytes) {
  Statement s = statement("1:100:2", "100", "1:50", "50", 64, true);
  EXPECT_EQ(touched(s.local).offset, 0u);
  EXPECT_EQ(touched(s.local).bytes, 792u);
  models::CoarrayCosts costs = kCosts;
  costs.registered_bytes = 792;
  for (const RegisterWhen when : {RegisterWhen::once, RegisterWhen::per_statement})
    for (const bool registered : {false, true}) {
      s.options.registered = registered;
      s.options.registration = when;
      OneSidedFake comm(costs);
      std::vector<std::byte> local = pattern(s.local.shape().bytes());
      Window w;
      run(run_put(comm, s, local, 3, PutMode::blocking, w));
      ASSERT_EQ(comm.memory(w, 1), expected_put(s, local, 3));
      const bool registers = registered && when == RegisterWhen::per_statement;
      EXPECT_EQ(comm.registrations, registers ? 3u : 0u) << to_string(when) << " registered " << registered;
      models::CoarrayCosts charged = costs;
      if (!registers) charged.registered_bytes = 0;
      const Plan plan = plan_put(choose_scheme(s.local, s.remote, 64, registered), s.local.bytes(), 3);
      EXPECT_TRUE(same_time(comm.now(), models::coarray_put_time(plan, charged, PutMode::blocking)));
    }
  // b(51:100:2): from byte 400 to 792 + 400.
  const Statement upper = statement("51:100:2", "100", "1:25", "25", 64, true);
  EXPECT_EQ(touched(upper.local).offset, 400u);
  EXPECT_EQ(touched(upper.local).bytes, 392u);
}

// Omni's heap (XMP_ONESIDED_HEAP_SIZE, 27 MiB = 28311552 bytes) holds the registered local array
// and B: 28311552 - 400000 = 27911552 bytes fit, one more does not; per-statement registration and
// unregistered data need no room there.
TEST(CoarrayTransfer, OmnisHeapRefusesARegisteredArrayThatDoesNotFit) {
  CoarrayOptions o;
  o.registered = true;
  EXPECT_EQ(o.heap_bytes, 28311552u);
  EXPECT_EQ(heap_problem(o, 27911552), "");
  const std::string why = heap_problem(o, 27911553);
  EXPECT_NE(why.find("28311553 bytes of Omni's heap of 28311552"), std::string::npos) << why;
  o.packing = Packing::omni;  // B rounded up to 4: 400000 already is
  EXPECT_EQ(heap_problem(o, 27911552), "");
  o.buffer_bytes = 399999;  // 400000 under Omni's packing, 399999 under Table 1's
  EXPECT_NE(heap_problem(o, 27911553), "");
  o.packing = Packing::table1;
  EXPECT_EQ(heap_problem(o, 27911553), "");
  o.registration = RegisterWhen::per_statement;
  EXPECT_EQ(heap_problem(o, std::size_t{1} << 40), "");
  o.registration = RegisterWhen::once;
  o.registered = false;
  EXPECT_EQ(heap_problem(o, std::size_t{1} << 40), "");
}

TEST(CoarrayTransfer, EveryCaseOnHandExamples) {
  for (const HandExample& h : hand_examples()) check_statement(h.statement, h.table_case);
}

TEST(CoarrayTransfer, RandomSectionsEveryCase) {
  Rng rng(99);
  for (int i = 0; i < 300; ++i) {
    const Pair p = random_pair(rng);
    const std::size_t b = uniform(rng, 1, 2 * std::max(p.local.contiguous_bytes(), p.remote.contiguous_bytes()) + 1);
    check_statement({p.local, p.remote, CoarrayOptions{b, uniform(rng, 0, 5) == 0, GetBehaviour::table1}});
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(CoarrayTransfer, SizeOnlyBuffersTakeTheSameTime) {
  const Statement s = statement("1:20:2,:", "20,6", ":,2:7", "10,8", 130);  // case 3
  const Plan plan = plan_put(choose_scheme(s.local, s.remote, 130, false), s.local.bytes(), 2);
  OneSidedFake comm(kCosts);
  auto segment = [&]() -> Task<> {
    const Window w = co_await comm.win_allocate(2 * s.remote.shape().bytes(), false);
    CoarrayContext ctx(w, s.options, false);
    co_await put_segment(comm, ctx, 1, Buffer::virtual_of(s.local.shape().bytes()), s.local, 0, s.remote, 2,
                         PutMode::nonblocking);
  };
  run(segment());
  EXPECT_EQ(comm.puts, plan.transfers);
  EXPECT_TRUE(same_time(comm.now(), models::coarray_put_time(plan, kCosts, PutMode::nonblocking)));
}

TEST(CoarrayTransfer, ConformanceIsChecked) {
  OneSidedFake comm(kCosts);
  const Statement s = statement(":,:", "10,6", ":,1:5", "10,12", 100);
  std::vector<std::byte> local(s.local.shape().bytes());
  Window w;
  Task<> t = run_put(comm, s, local, 1, PutMode::blocking, w);
  start(t);
  EXPECT_THROW(rethrow_if_failed(t), SectionError);
}

}  // namespace
}  // namespace collsim::coarray
