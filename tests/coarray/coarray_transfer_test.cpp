// The PUT and GET coroutines on a fake one-sided Comm (one_sided_fake.hpp): the bytes land where
// Fortran puts them, for every Table 1 case, blocking and not, on hand examples and random
// section pairs; they issue the plan's operations; the one-buffer caution holds; nothing stays
// outstanding after a segment; and their time under the model engine's rules is the closed form.
#include "algorithms/coarray/coarray_transfer.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "coarray/one_sided_fake.hpp"
#include "coarray/random_sections.hpp"
#include "models/coarray_cost.hpp"

namespace collsim::coarray {
namespace {

using namespace test_sections;

const models::CoarrayCosts kCosts{{1e-6, 1e-9}, 2e9};

struct Statement {
  Section local, remote;
  CoarrayOptions options;
};

Statement statement(const std::string& local, const std::string& local_shape, const std::string& remote,
                    const std::string& remote_shape, std::size_t buffer_bytes, bool registered = false) {
  return {parse_section(local, parse_shape(local_shape, 8)), parse_section(remote, parse_shape(remote_shape, 8)),
          CoarrayOptions{buffer_bytes, registered, GetBehaviour::table1}};
}

// Local array bytes 1, 2, 3, ... (mod 251, never 0), so a byte out of place shows.
std::vector<std::byte> pattern(std::size_t bytes) {
  std::vector<std::byte> v(bytes);
  for (std::size_t i = 0; i < bytes; ++i) v[i] = static_cast<std::byte>(1 + i % 251);
  return v;
}

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
}

void run(Task<> task) {
  start(task);
  ASSERT_TRUE(task.done());
  rethrow_if_failed(task);
}

// What the remote coarrays hold after the PUTs: the local section's elements at the remote
// section's offsets, in Fortran order, in each of the nputs coarrays; zero elsewhere.
std::vector<std::byte> expected_put(const Statement& s, const std::vector<std::byte>& local, std::size_t nputs) {
  const std::size_t coarray = s.remote.shape().bytes(), eb = s.local.shape().element_bytes;
  std::vector<std::byte> want(nputs * coarray);
  const std::vector<std::size_t> from = enumerate(s.local), to = enumerate(s.remote);
  for (std::size_t i = 0; i < nputs; ++i)
    for (std::size_t e = 0; e < from.size(); ++e)
      for (std::size_t b = 0; b < eb; ++b) want[i * coarray + to[e] + b] = local[from[e] + b];
  return want;
}

std::vector<std::byte> expected_get(const Statement& s, const std::vector<std::byte>& remote) {
  const std::size_t eb = s.local.shape().element_bytes;
  std::vector<std::byte> want(s.local.shape().bytes());
  const std::vector<std::size_t> to = enumerate(s.local), from = enumerate(s.remote);
  for (std::size_t e = 0; e < from.size(); ++e)
    for (std::size_t b = 0; b < eb; ++b) want[to[e] + b] = remote[from[e] + b];
  return want;
}

bool near(double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b)) + 1e-18; }

// Runs every way of moving s and checks bytes, operations, outstanding requests and time.
void check_statement(const Statement& s, int expected_case = -1) {
  const Scheme scheme = choose_scheme(s.local, s.remote, s.options.buffer_bytes, s.options.registered);
  if (expected_case >= 0) {
    ASSERT_EQ(scheme.table_case, expected_case);
  }
  const std::string what = s.local.str() + " / " + s.remote.str() + " B " + std::to_string(s.options.buffer_bytes) +
                           " case " + std::to_string(scheme.table_case);
  for (const std::size_t nputs : {1, 3})
    for (const PutMode mode : {PutMode::blocking, PutMode::nonblocking}) {
      OneSidedFake comm(kCosts);
      std::vector<std::byte> local = pattern(s.local.shape().bytes());
      Window w;
      run(run_put(comm, s, local, nputs, mode, w));
      const bool blocking = mode == PutMode::blocking;
      ASSERT_EQ(comm.memory(w, 1), expected_put(s, local, nputs)) << what;
      const Plan plan = plan_put(scheme, s.local.bytes(), nputs);
      EXPECT_EQ(comm.puts, plan.transfers) << what;
      EXPECT_EQ(comm.copies, plan.copies) << what;
      EXPECT_LE(comm.largest_transfer, scheme.unit) << what;
      EXPECT_EQ(comm.requests().live(), 0u) << what;
      EXPECT_TRUE(near(comm.now(), models::coarray_put_time(plan, kCosts, blocking)))
          << what << (blocking ? " blocking " : " non-blocking ") << nputs << ": " << comm.now() << " vs "
          << models::coarray_put_time(plan, kCosts, blocking);
    }
  for (const GetBehaviour behaviour : {GetBehaviour::table1, GetBehaviour::omni}) {
    OneSidedFake comm(kCosts);
    std::vector<std::byte> local(s.local.shape().bytes());
    const std::vector<std::byte> remote = pattern(s.remote.shape().bytes());
    Window w;
    run(run_get(comm, s, local, 2, behaviour, w, remote));
    ASSERT_EQ(local, expected_get(s, remote)) << what;
    const Plan plan = plan_get(scheme, s.local.bytes(), behaviour, 2);
    EXPECT_EQ(comm.gets, plan.transfers) << what;
    EXPECT_EQ(comm.copies, plan.copies) << what;
    EXPECT_EQ(comm.requests().live(), 0u) << what;
    EXPECT_TRUE(near(comm.now(), models::coarray_get_time(plan, kCosts)))
        << what << ": " << comm.now() << " vs " << models::coarray_get_time(plan, kCosts);
  }
}

TEST(CoarrayTransfer, EveryCaseOnHandExamples) {
  // NL 8 (every other element of a column), NR 480 (six whole columns).
  check_statement(statement("1:20:2,:", "20,6", ":,2:7", "10,8", 1000, true), 0);
  check_statement(statement("1:20:2,:", "20,6", ":,2:7", "10,8", 1000), 2);
  check_statement(statement("1:20:2,:", "20,6", ":,2:7", "10,8", 480), 2);  // NR = B
  check_statement(statement("1:20:2,:", "20,6", ":,2:7", "10,8", 130), 3);  // units 128, 128, 128, 96
  check_statement(statement("1:20:2,:", "20,6", ":,2:7", "10,8", 9), 3);    // one piece per unit
  // NL 480, NR 80 (every other column).
  check_statement(statement(":,:", "10,6", ":,1:12:2", "10,12", 100), 1);
  check_statement(statement(":,:", "10,6", ":,1:12:2", "10,12", 80), 1);  // NR = B
  check_statement(statement(":,:", "10,6", ":,1:12:2", "10,12", 50), 4);  // units 50, 30
  check_statement(statement(":,:", "10,6", ":,:", "10,6", 100), 4);       // NL = NR = 480
  check_statement(statement(":,:", "10,6", ":,:", "10,6", 480), 1);       // NR = NL = B
  // Backwards and scalar subscripts; an empty section.
  check_statement(statement("10:1:-1,3", "10,4", "3,:", "5,10", 100), 1);
  check_statement(statement("5:4,:", "10,4", "3:2,1:4", "5,10", 100));
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
  EXPECT_TRUE(near(comm.now(), models::coarray_put_time(plan, kCosts, false)));
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
