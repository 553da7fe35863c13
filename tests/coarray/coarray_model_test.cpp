// The PUT and GET coroutines in the model engine (Hockney with a copy bandwidth, with and without
// a per-operation overhead at the origin), image 1 to image 2 (ranks 0 and 1): the time of a PUT
// segment or of GET statements is the cost model of models/coarray_cost.hpp, and the bytes reach
// image 2's coarrays (PUT) or image 1's array (GET) where Fortran puts them; every Table 1 case,
// blocking and in every non-blocking mode, on hand examples and a grid of sections and buffers;
// and each segment end (sync memory, sync all, sync images) of a CoarrayProgram by hand and
// against coarray_sync_time on 2 to 9 images, the data checked.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "algorithms/coarray/coarray_transfer.hpp"
#include "common/random_sections.hpp"
#include "common/statements.hpp"
#include "engines/model/model_engine.hpp"
#include "experiment/results/coarray_point.hpp"
#include "models/coarray_cost.hpp"

namespace collsim::coarray {
namespace {

using namespace collsim_test;

// What the one run does, and what it saw. An AlgorithmFn takes no context, so the test hands it
// the job here.
struct Job {
  const Statement* statement = nullptr;
  bool get = false;
  std::size_t statements = 1;  // PUTs per segment, or GETs
  PutMode mode = PutMode::blocking;
  GetBehaviour behaviour = GetBehaviour::table1;
  double elapsed = -1;
  std::string error;
};
Job* job = nullptr;

// Image 1 (rank 0) moves the data; image 2 (rank 1) only holds the coarrays. Barriers (free in
// the model) order the setup and the final check around the timed part.
Task<> coarray_statements(Comm& comm, RankBuffers, const AlgorithmParams&) {
  Job& j = *job;
  const Statement& s = *j.statement;
  const std::size_t coarray = s.remote.shape().bytes();
  const Window w = co_await comm.win_allocate((j.get ? 1 : j.statements) * coarray);
  CoarrayOptions options = s.options;
  options.get = j.behaviour;
  CoarrayContext ctx(w, options, true);
  const std::vector<std::byte> remote = pattern(coarray);
  if (comm.rank() == 1) {
    if (j.get && coarray > 0) std::memcpy(comm.local(w).data(), remote.data(), coarray);
    co_await comm.barrier();  // the coarray is ready
    co_await comm.barrier();  // the statements are over
    const Buffer mine = comm.local(w);
    if (!j.get && std::vector<std::byte>(mine.data(), mine.data() + mine.size()) !=
                      expected_put(s, pattern(s.local.shape().bytes()), j.statements))
      j.error = "the remote coarrays are wrong";
    co_return;
  }
  std::vector<std::byte> local =
      j.get ? std::vector<std::byte>(s.local.shape().bytes()) : pattern(s.local.shape().bytes());
  const Buffer data(local.data(), local.size());
  co_await comm.barrier();
  const double start = comm.now();
  if (j.get) {
    for (std::size_t i = 0; i < j.statements; ++i) co_await get_section(comm, ctx, 1, data, s.local, 0, s.remote);
    co_await end_segment(comm, ctx);  // as a program's segment ends (CoarrayProgram)
  } else {
    co_await put_segment(comm, ctx, 1, data, s.local, 0, s.remote, j.statements, j.mode);
  }
  j.elapsed = comm.now() - start;
  if (j.get && local != expected_get(s, remote)) j.error = "the local array is wrong";
  co_await comm.barrier();
}

const AlgorithmInfo kCoarrayStatements{"test/coarray", Operation::bcast, 0, 0, "", &coarray_statements};

double run_in_model(Job& j, const ModelConfig& config) {
  RunSpec spec;
  spec.algorithm = &kCoarrayStatements;
  spec.procs = 2;
  spec.real_bytes = false;
  job = &j;
  run_model(config, spec);
  job = nullptr;
  return j.elapsed;
}

double run_in_model(Job& j, const models::CoarrayCosts& costs) {
  ModelConfig config;
  config.hockney = costs.hockney;
  config.copy_bandwidth = costs.copy_bandwidth;
  config.send_overhead = costs.overhead;
  config.registration = costs.registration;
  config.copy_overhead = costs.copy_overhead;
  config.sync_overhead = costs.sync_overhead;
  config.get_overhead = costs.get_overhead;
  return run_in_model(j, config);
}

void check_in_model(const Statement& s, const models::CoarrayCosts& costs = kCosts) {
  const Scheme scheme = choose_scheme(s.local, s.remote, s.options.buffer_bytes, s.options.registered);
  for (const std::size_t nputs : {1, 4})
    for (const PutMode mode : kPutModes) {
      Job j;
      j.statement = &s, j.statements = nputs, j.mode = mode;
      const double model = run_in_model(j, costs);
      const double formula = models::coarray_put_time(plan_put(scheme, s.local.bytes(), nputs), costs, mode);
      EXPECT_EQ(j.error, "") << describe(s) << " " << to_string(mode);
      EXPECT_TRUE(same_time(model, formula)) << describe(s) << " " << to_string(mode) << ", " << nputs
                                             << " PUTs: model " << model << " s, formula " << formula << " s";
    }
  for (const GetBehaviour behaviour : {GetBehaviour::table1, GetBehaviour::omni}) {
    Job j;
    j.statement = &s, j.get = true, j.statements = 2, j.behaviour = behaviour;
    const double model = run_in_model(j, costs);
    const double formula = models::coarray_get_time(plan_get(scheme, s.local.bytes(), behaviour, 2), costs);
    EXPECT_EQ(j.error, "") << describe(s);
    EXPECT_TRUE(same_time(model, formula)) << describe(s) << (behaviour == GetBehaviour::omni ? " omni" : " table1")
                                           << " GET: model " << model << " s, formula " << formula << " s";
  }
}

// Registering per statement in the engine, by hand (models/coarray_cost_test.cpp has the same
// numbers from the closed form): a(:)[2] = b(:) of 1 MiB by DMA under alpha 1 us, beta 1 ns/B
// takes 1050.576 us a blocking statement, and each registration of the 256 pages 20 + 256 x 0.5 =
// 148 us more; once (outside the segment) adds nothing. For GET as well, and in every mode the
// engine and the closed form agree; the bytes arrive.
TEST(CoarrayModel, PerStatementRegistrationByHand) {
  Statement s = statement(":", "131072", ":", "131072", 400000, true);
  Job once;
  once.statement = &s;
  EXPECT_NEAR(run_in_model(once, kCosts), 1050.576e-6, 1e-12);
  s.options.registration = RegisterWhen::per_statement;
  Job each;
  each.statement = &s, each.statements = 2;
  EXPECT_NEAR(run_in_model(each, kCosts), 2397.152e-6, 1e-12);
  EXPECT_EQ(each.error, "");
  // Every mode, on 64 KiB (16 pages, 28 us a statement) to keep the test short.
  Statement small = statement(":", "8192", ":", "8192", 400000, true);
  small.options.registration = RegisterWhen::per_statement;
  models::CoarrayCosts costs = kCosts;
  costs.registered_bytes = 65536;
  const Scheme dma = choose_scheme(small.local, small.remote, 400000, true);
  for (const PutMode mode : kPutModes) {
    Job j;
    j.statement = &small, j.statements = 3, j.mode = mode;
    const double model = run_in_model(j, kCosts);
    const double formula = models::coarray_put_time(plan_put(dma, 65536, 3), costs, mode);
    EXPECT_EQ(j.error, "") << to_string(mode);
    EXPECT_TRUE(same_time(model, formula)) << to_string(mode) << ": model " << model << ", formula " << formula;
  }
  Job get;
  get.statement = &s, get.get = true;
  EXPECT_NEAR(run_in_model(get, kCosts), 1198.576e-6, 1e-12);
  EXPECT_EQ(get.error, "");
}

TEST(CoarrayModel, ClosedFormsOnHandExamples) {
  for (const HandExample& h : hand_examples()) check_in_model(h.statement);
}

TEST(CoarrayModel, ClosedFormsWithOverheadsOnHandExamples) {
  for (const HandExample& h : hand_examples()) check_in_model(h.statement, kCostsWithOverheads);
  for (const HandExample& h : hand_examples()) check_in_model(h.statement, kCostsWithCallCosts);
  for (const HandExample& h : hand_examples()) check_in_model(h.statement, kCostsWithGetOverhead);
}

// A grid of sections, buffers and every scheme: the engine and the cost model agree, with
// overheads or not, with a copy's per-call cost and win_sync's, and with a get's own overhead. The section is 2 x 4 x 8
// real(8) elements in both arrays; an array of extents (2x, 4y, 8) keeps runs of 16 B (x = 2), 64 B (x = 1, y = 2) or
// 512 B (x = y = 1), so NL and NR each take the three values, and B is below, at and between them.
TEST(CoarrayModel, CostModelEqualsTheEngineOverAGrid) {
  struct Layout {
    const char* section;
    const char* shape;
  };
  const Layout layouts[] = {{"1:2,:,:", "4,4,8"}, {":,1:4,:", "2,8,8"}, {":,:,:", "2,4,8"}};
  int cases[5] = {};
  for (const Layout& l : layouts)
    for (const Layout& r : layouts)
      for (const std::size_t b : {8, 16, 40, 64, 100, 512, 1000})
        for (const bool registered : {false, true}) {
          if (registered && b != 8) continue;  // B plays no part in DMA
          const Statement s = statement(l.section, l.shape, r.section, r.shape, b, registered);
          ++cases[choose_scheme(s.local, s.remote, b, registered).table_case];
          check_in_model(s);
          check_in_model(s, kCostsWithCallCosts);
          check_in_model(s, kCostsWithGetOverhead);
          if (::testing::Test::HasFailure()) return;
        }
  for (int c = 0; c < 5; ++c) EXPECT_GT(cases[c], 0) << "case " << c << " not reached";
}

// LogGP (L 10 us, o 1 us, g 2 us, G 1 ns/B), DMA puts of m = 1001 B (the local array's runs of
// 1001 integer(1) elements): a put holds the CPU o and the NIC g + (m-1)G = 3 us and arrives
// o + L + (m-1)G = 12 us after its start; a flush holds the CPU o, then waits for the arrivals
// and the acknowledgement L.
//  - blocking, one put: arrives 12, flush 12-13 then 13 + L = 23, the segment end's flush_all
//    with nothing to flush: o, 24 us;
//  - non-blocking, two puts: the second starts when the NIC frees at 3 (max(o, g + (m-1)G)
//    apart), arrives 15; the end waits to 15, flush_all's o to 16, + L: 26 us.
TEST(CoarrayModel, LogGPOperationsByHand) {
  ModelConfig config;
  config.kind = ModelConfig::Kind::loggp;
  config.loggp = {10e-6, 1e-6, 2e-6, 1e-9};
  const auto one = [](const char* local, const char* local_shape) {
    Statement s{parse_section(local, parse_shape(local_shape, 1)), parse_section(":", parse_shape("1001", 1)),
                CoarrayOptions{400000, true, GetBehaviour::table1}};
    return s;
  };
  const Statement single = one("1:1001", "2002");
  Job j;
  j.statement = &single, j.mode = PutMode::blocking;
  EXPECT_NEAR(run_in_model(j, config), 24e-6, 1e-12);
  const Statement two{parse_section("1:1001,:", parse_shape("2002,2", 1)),
                      parse_section(":,:", parse_shape("1001,2", 1)),
                      CoarrayOptions{400000, true, GetBehaviour::table1}};
  Job k;
  k.statement = &two, k.mode = PutMode::nonblocking;
  EXPECT_NEAR(run_in_model(k, config), 26e-6, 1e-12);
  EXPECT_EQ(k.error, "");
}

TEST(CoarrayModel, ClosedFormsOnRandomSections) {
  Rng rng(5);
  for (int i = 0; i < 100; ++i) {
    const Pair p = random_pair(rng);
    const std::size_t b = uniform(rng, 1, 2 * std::max(p.local.contiguous_bytes(), p.remote.contiguous_bytes()) + 1);
    check_in_model({p.local, p.remote, CoarrayOptions{b, uniform(rng, 0, 5) == 0, GetBehaviour::table1}});
  }
}

// --- the segment's end ---

// remote(1:1000)[target] = local(1:1000) of real(8) (case 1: NL = NR = 8000 B, one put out of
// the buffer), or its GET, as a CoarrayProgram (every image runs its part of the segment's end).
CoarrayPoint whole_array(bool get, SyncKind sync, int origin, int target) {
  CoarrayPoint p;
  p.get = get;
  p.local = parse_section("1:1000", parse_shape("1000", 8));
  p.remote = parse_section("1:1000", parse_shape("1000", 8));
  p.sync = sync;
  p.origin = origin;
  p.target = target;
  return p;
}

// Hockney alpha = 2 us, beta = 1 ns/B, free copies, o = 1 us per operation whatever its size.
ModelConfig end_model() {
  ModelConfig c;
  c.hockney = {2e-6, 1e-9};
  c.send_overhead = models::Overhead{{{0, 1e-6, 0}}};
  return c;
}

RunResult run_point(const CoarrayPoint& p, int images, const ModelConfig& config = end_model()) {
  const CoarrayProgram program(p);
  return run_model(config, coarray_spec(program, images));
}

// Written out (models/coarray_cost_test.cpp has the sync terms):
//  - PUT, blocking: the put's o 0-1, 8000 B on the wire, arrives 1 + 2 + 8 = 11; its flush's o
//    and the acknowledgement: 14; the segment end's sync memory (flush_all, nothing left): 15 us.
//    sync images adds the origin's message to the target (o + alpha) and a last sync memory (o):
//    19 us; so does sync all on 2 images; on 3, origin image 1: two messages, 22 us; origin
//    image 3 (the barrier's extra rank): three, 25 us.
//  - GET: o + 2 alpha + 8000 beta = 13, sync memory 14 us; sync images 18 us; sync all on 3
//    images from image 3: 24 us.
TEST(CoarrayModel, SegmentEndsByHand) {
  const struct {
    bool get;
    SyncKind sync;
    int images, origin, target;
    double want_s;
  } cases[] = {
      {false, SyncKind::memory, 2, 0, 1, 15e-6}, {false, SyncKind::images, 2, 0, 1, 19e-6},
      {false, SyncKind::all, 2, 0, 1, 19e-6},    {false, SyncKind::memory, 3, 0, 1, 15e-6},
      {false, SyncKind::images, 3, 0, 1, 19e-6}, {false, SyncKind::all, 3, 0, 1, 22e-6},
      {false, SyncKind::all, 3, 2, 0, 25e-6},    {true, SyncKind::memory, 2, 0, 1, 14e-6},
      {true, SyncKind::images, 2, 0, 1, 18e-6},  {true, SyncKind::all, 3, 2, 1, 24e-6},
  };
  for (const auto& c : cases) {
    const RunResult r = run_point(whole_array(c.get, c.sync, c.origin, c.target), c.images);
    EXPECT_NEAR(r.time_s, c.want_s, 1e-12) << (c.get ? "GET" : "PUT") << " sync " << to_string(c.sync) << " on "
                                           << c.images << " images from image " << c.origin + 1;
    EXPECT_EQ(r.data_error, "");
  }
}

// The model engine's time of a segment and its end is coarray_put_time (coarray_get_time) plus
// coarray_sync_time, from every position of the origin on 2 to 9 images: recursive doubling
// (2, 3, 8, 9 images, extra ranks or not) and linear (4, 5) barriers; with a copy's per-call cost
// c0 = 0.2 us and win_sync's F = 0.7 us (sync all and sync images run it twice).
TEST(CoarrayModel, SegmentEndsEqualTheCostModel) {
  ModelConfig config = end_model();
  config.copy_overhead = 0.2e-6, config.sync_overhead = 0.7e-6;
  const models::CoarrayCosts costs{config.hockney, 0, config.send_overhead, {}, 0, 0.2e-6, 0.7e-6};
  for (const int images : {2, 3, 4, 5, 8, 9})
    for (int origin = 0; origin < images; ++origin)
      for (const SyncKind sync : {SyncKind::memory, SyncKind::all, SyncKind::images})
        for (const bool get : {false, true}) {
          const CoarrayPoint p = whole_array(get, sync, origin, (origin + 1) % images);
          const RunResult r = run_point(p, images, config);
          const double segment = get ? models::coarray_get_time(p.plan(), costs)
                                     : models::coarray_put_time(p.plan(), costs, PutMode::blocking);
          EXPECT_TRUE(same_time(r.time_s, segment + models::coarray_sync_time(sync, images, origin, costs)))
              << p.describe() << " on " << images << " images from image " << origin + 1 << ": model " << r.time_s;
          EXPECT_EQ(r.data_error, "") << p.describe();
        }
}

}  // namespace
}  // namespace collsim::coarray
