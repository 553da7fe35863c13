// collsim coarray from the command line: the Table 1 case and counts it prints for sections given
// as in Fortran, its CSV columns, the model engine's time equal to the closed form it prints,
// and bad sections refused with one line and exit status 2.
#include <gtest/gtest.h>

#include <string>

#include "common/cli_test_util.hpp"
#include "support/units.hpp"

namespace collsim_test {
namespace {

// a(1:1000:2,1:50)[2] = b(1:500,1:50) of real(8): NR = 8 B, NL = 500*50*8 = 200000 B.
const std::string kStrided = " --remote 1:1000:2,1:50 --remote-shape 1000,100 --local 1:500,1:50 --local-shape 500,50";

TEST(CollsimCoarray, PrintsTheCaseAndCountsAndChecksTheData) {
  const Outcome o = collsim("coarray --engine model --alpha 1e-6 --beta 1e-9 --copy-bandwidth 5e9" + kStrided);
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.out.find("case       1  (NR <= B and NR <= NL)"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("NL, NR     200000 B, 8 B   (B = 400000)"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("transfers  25000 puts, 25000 copies (200000 B) for 200000 B"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("data       ok"), std::string::npos) << o.out;
}

TEST(CollsimCoarray, CsvColumnsAndTheModelTimeIsTheClosedForm) {
  // Blocking case 1, 25000 units of 8 B: each a copy (8 B at 5e9 B/s = 1.6 ns), a put
  // (1 us + 8 ns) and a flush (1 us after the arrival): 25000 * 2.0096 us = 50.24 ms.
  const Outcome o = collsim("coarray --engine model --alpha 1e-6 --beta 1e-9 --copy-bandwidth 5e9 --csv" + kStrided);
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(csv_field(o.out, "engine"), "model");
  EXPECT_EQ(csv_field(o.out, "op"), "coarray/put");
  EXPECT_EQ(csv_field(o.out, "case"), "1");
  EXPECT_EQ(csv_field(o.out, "nl_bytes"), "200000");
  EXPECT_EQ(csv_field(o.out, "nr_bytes"), "8");
  EXPECT_EQ(csv_field(o.out, "buffer"), "400000");
  EXPECT_EQ(csv_field(o.out, "unit_bytes"), "8");
  EXPECT_EQ(csv_field(o.out, "transfers"), "25000");
  EXPECT_EQ(csv_field(o.out, "copies"), "25000");
  EXPECT_NEAR(std::stod(csv_field(o.out, "time_s")), 25000 * (1.6e-9 + 2e-6 + 8e-9), 1e-12);
}

TEST(CollsimCoarray, EachCaseFromTheCommandLine) {
  struct Want {
    std::string args, table_case;
  };
  const Want wants[] = {
      {kStrided + " --registered", "0"},
      {kStrided, "1"},
      // NL = 8 B (every other element locally), NR = 8000 B (whole columns): case 2, then 3 with B = 4000.
      {" --remote :,1:5 --remote-shape 1000,10 --local 1:2000:2,: --local-shape 2000,5", "2"},
      {" --remote :,1:5 --remote-shape 1000,10 --local 1:2000:2,: --local-shape 2000,5 --buffer 4000", "3"},
      {" --remote :,1:5 --remote-shape 1000,10 --local :,: --local-shape 1000,5 --buffer 4000", "4"},
  };
  for (const Want& w : wants) {
    const Outcome o = collsim("coarray --engine model --csv" + w.args);
    ASSERT_EQ(o.status, 0) << w.args << "\n" << o.err;
    EXPECT_EQ(csv_field(o.out, "case"), w.table_case) << w.args;
    EXPECT_EQ(o.out.substr(o.out.size() - 4), ",ok\n") << w.args;  // the data column, last
  }
}

TEST(CollsimCoarray, BadSectionsAreOneLineAndExitTwo) {
  expect_bad_input(
      "coarray --engine model --remote 1:1001:2,1:50 --remote-shape 1000,100 --local 1:500,1:50 "
      "--local-shape 500,50",
      "upper bound 1001 is outside 1:1000");
  expect_bad_input(
      "coarray --engine model --remote 1:1000:0,1:50 --remote-shape 1000,100 --local 1:500,1:50 "
      "--local-shape 500,50",
      "stride");
  expect_bad_input(
      "coarray --engine model --remote 1:1000:2,1:50 --remote-shape 1000,100 --local 1:500,1:40 "
      "--local-shape 500,50",
      "does not conform");
  expect_bad_input("coarray --engine model --remote 1:1000:2 --remote-shape 1000,100 --local 1:500 --local-shape 500",
                   "");
  expect_bad_input("coarray --engine formula" + kStrided,
                   "--engine: 'formula' is not a coarray engine: model, sim, mpi, caf-native");
  expect_bad_input("coarray --engine model --get --nonblocking 2" + kStrided, "--nonblocking applies to PUT only");
}

TEST(CollsimCoarray, BadNonBlockingModesAreOneLineAndExitTwo) {
  expect_bad_input("coarray --engine model --nonblocking eager" + kStrided,
                   "--nonblocking: 'eager' is not safe, nowait or double");
  expect_bad_input("coarray --engine sim --get --nonblocking nowait" + kStrided, "--nonblocking applies to PUT only");
  expect_bad_input("coarray --engine model --nonblocking 3 --statements 2" + kStrided, "drop --statements");
}

// --sync: the segment's end, timed with it, in the CSV row; on 3 images under Hockney alpha =
// 1 us, beta = 1 ns/B, a blocking put of 8000 B (a(1:1000)[2] = b(1:1000), case 1, free copies)
// takes 2 alpha + 8 us = 10 us; sync images adds the origin's zero-byte message to image 2,
// alpha: 11 us; sync all adds recursive doubling's exchange with image 2 and the release of
// image 3: 2 alpha, 12 us. The cost model line says the same.
TEST(CollsimCoarray, SyncEndsTheSegment) {
  const std::string whole = " --remote 1:1000 --remote-shape 1000 --local 1:1000 --local-shape 1000 --images 3";
  const struct {
    const char* sync;
    double want_s;
  } cases[] = {{"memory", 10e-6}, {"images", 11e-6}, {"all", 12e-6}};
  for (const auto& c : cases) {
    const std::string args = "coarray --engine model --alpha 1e-6 --beta 1e-9" + whole + " --sync " + c.sync;
    const Outcome o = collsim(args + " --csv");
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_EQ(csv_field(o.out, "sync"), c.sync);
    EXPECT_EQ(csv_field(o.out, "data"), "ok");
    EXPECT_NEAR(std::stod(csv_field(o.out, "time_s")), c.want_s, 1e-15) << c.sync;
    const Outcome text = collsim(args);
    EXPECT_NE(text.out.find("cost model " + collsim::format_seconds(c.want_s)), std::string::npos) << text.out;
  }
  expect_bad_input("coarray --engine model --sync barrier" + kStrided,
                   "--sync: 'barrier' is not memory, all or images");
  expect_bad_input("coarray --engine sim --sync ALL" + kStrided, "--sync: 'ALL' is not memory, all or images");
}

// --images N --pattern: every image runs the statement. Under Hockney alpha = 1 us, beta =
// 1 ns/B, free copies, no overheads, a blocking put of 8000 B takes 2 alpha + 8 us = 10 us on
// one image; all-to-one on 3 images puts twice into image 1, whose port takes one after the
// other: the second starts 8 us late, 18 us; ring on 3 images: 10 us; halo on 3 images: two
// puts an image one after the other, 20 us. The CSV names the pattern and the images; all-to-one's
// cost model line says the same. Two statements all-to-one: image 2 holds image 1's port 0-8,
// acknowledged at 10; image 3 8-16, at 18; their second puts 16-24 and 24-32, the last
// acknowledged at 34 us; none when non-blocking.
TEST(CollsimCoarray, PatternsOnTheModel) {
  const std::string whole = " --remote 1:1000 --remote-shape 1000 --local 1:1000 --local-shape 1000 --images 3";
  const struct {
    const char* pattern;
    double want_s;
  } cases[] = {{"one", 10e-6}, {"all-to-one", 18e-6}, {"ring", 10e-6}, {"halo", 20e-6}};
  for (const auto& c : cases) {
    const std::string args = "coarray --engine model --alpha 1e-6 --beta 1e-9" + whole + " --pattern " + c.pattern;
    const Outcome o = collsim(args + " --csv");
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_EQ(csv_field(o.out, "pattern"), c.pattern);
    EXPECT_EQ(csv_field(o.out, "images"), "3");
    EXPECT_EQ(csv_field(o.out, "data"), "ok");
    EXPECT_NEAR(std::stod(csv_field(o.out, "time_s")), c.want_s, 1e-15) << c.pattern;
  }
  const Outcome text = collsim("coarray --engine model --alpha 1e-6 --beta 1e-9 --pattern all-to-one" + whole);
  EXPECT_NE(text.out.find("cost model " + collsim::format_seconds(18e-6)), std::string::npos) << text.out;
  const std::string two = "coarray --engine model --alpha 1e-6 --beta 1e-9 --statements 2 --pattern all-to-one" + whole;
  const Outcome blocking = collsim(two);
  ASSERT_EQ(blocking.status, 0) << blocking.err;
  EXPECT_NE(blocking.out.find("cost model " + collsim::format_seconds(34e-6)), std::string::npos) << blocking.out;
  const Outcome nonblocking = collsim(two + " --nonblocking safe");
  ASSERT_EQ(nonblocking.status, 0) << nonblocking.err;
  EXPECT_NE(nonblocking.out.find("cost model none: all-to-one"), std::string::npos) << nonblocking.out;
}

// Bad patterns: one line, exit status 2.
TEST(CollsimCoarray, BadPatternsAreOneLineAndExitTwo) {
  expect_bad_input("coarray --engine model --pattern star" + kStrided,
                   "--pattern: 'star' is not one, all-to-one, ring or halo");
  expect_bad_input("coarray --engine model --pattern ring --origin 2" + kStrided,
                   "--origin applies to --pattern one only");
  expect_bad_input("coarray --engine sim --pattern all-to-one --target 1 --images 3" + kStrided,
                   "--target applies to --pattern one only");
  expect_bad_input("coarray --engine model --pattern halo --images 2" + kStrided, "halo needs at least 3 images");
  expect_bad_input("coarray --engine model --pattern ring --images 1" + kStrided, "--images");
}

// The case: 64 non-blocking DMA puts of 800 KB (32 statements of two runs of 800000 B).
// Hockney alpha 10 us, beta 0.8 ns/B: the port injects them one after another, 640 us each, so
// the last arrives at 64 * 640 us + 10 us and the flush adds 10 us: 40.98 ms, not one put's 660 us.
TEST(CollsimCoarray, NonBlockingDmaPutsLeaveOneAtATime) {
  for (const char* mode : {"safe", "nowait", "double"}) {
    const Outcome o = collsim(std::string("coarray --engine model --alpha 10us --beta 0.8ns --payload virtual --csv "
                                          "--local 1:100000,: --local-shape 200000,2 --remote :,: "
                                          "--remote-shape 100000,2 --registered --statements 32 --nonblocking ") +
                              mode);
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_EQ(csv_field(o.out, "transfers"), "64");
    EXPECT_NEAR(std::stod(csv_field(o.out, "time_s")), 64 * 640e-6 + 20e-6, 1e-12) << mode;
  }
}

// Three buffered puts of 4000 B (case 1, B = 4000) with alpha 2 us, beta 1 ns/B, copies at
// 1 GB/s and an overhead of 1 us per operation: 36 us safe, 24 us nowait, 25 us double (written
// out in tests/models/coarray_cost_test.cpp), the cost model line the same, the data right.
TEST(CollsimCoarray, NonBlockingModesOnThreePuts) {
  const struct {
    const char *mode, *op;
    double time;
  } wants[] = {{"safe", "coarray/put-nb", 36e-6},
               {"nowait", "coarray/put-nb-nowait", 24e-6},
               {"double", "coarray/put-nb-double", 25e-6}};
  const std::string args =
      "coarray --engine model --alpha 2us --beta 1ns --copy-bandwidth 1e9 --send-overhead 1us --buffer 4000 "
      "--local 1:500,: --local-shape 1000,3 --remote 1:500,: --remote-shape 1000,3 --nonblocking ";
  for (const auto& w : wants) {
    const Outcome o = collsim(args + w.mode + " --csv");
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_EQ(csv_field(o.out, "op"), w.op);
    EXPECT_EQ(csv_field(o.out, "transfers"), "3");
    EXPECT_EQ(o.out.substr(o.out.size() - 4), ",ok\n") << w.mode;  // the data column, last
    EXPECT_NEAR(std::stod(csv_field(o.out, "time_s")), w.time, 1e-15) << w.mode;
    const Outcome text = collsim(args + w.mode);
    EXPECT_NE(text.out.find("cost model " + std::to_string(static_cast<int>(w.time * 1e6 + 0.5)) + " us"),
              std::string::npos)
        << text.out;
  }
}

// Each engine's options go to that engine only, refused before anything is launched: Omni's
// runtime options to caf-native (OpenCoarrays has none), the simulated engines' to the measured
// ones and the other way round, --payload to measured engines (their bytes are always real), and
// an image beyond --images to every engine.
// a(:)[2] = b(:) of 131072 real(8), 1 MiB by DMA: registering it is 20 us + 256 pages x 0.5 us
// = 148 us (models/registration.hpp's defaults, which a platform without the properties keeps).
const std::string kMebibyte = " --remote : --remote-shape 131072 --local : --local-shape 131072 --registered";

TEST(CollsimCoarray, PerStatementRegistrationIsInTheTimeOnModelAndSim) {
  // Model, alpha 1 us, beta 1 ns/B: 1050.576 us a blocking statement, 2 statements; per statement
  // each adds 148 us, and the closed form printed says the same.
  const std::string model = "coarray --engine model --alpha 1e-6 --beta 1e-9 --statements 2" + kMebibyte;
  const Outcome once = collsim(model + " --csv");
  ASSERT_EQ(once.status, 0) << once.err;
  EXPECT_NEAR(std::stod(csv_field(once.out, "time_s")), 2101.152e-6, 1e-12);
  EXPECT_EQ(csv_field(once.out, "registered"), "1");
  const Outcome each = collsim(model + " --registration per-statement --csv");
  ASSERT_EQ(each.status, 0) << each.err;
  EXPECT_NEAR(std::stod(csv_field(each.out, "time_s")), 2397.152e-6, 1e-12);
  EXPECT_EQ(csv_field(each.out, "registered"), "per-statement");
  EXPECT_EQ(csv_field(each.out, "data"), "ok");
  const Outcome text = collsim(model + " --registration per-statement");
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("cost model 2.397 ms"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("registration 148 us = 20 us + 256 pages of 4096 B x 500 ns, per statement, in the time"),
            std::string::npos)
      << text.out;
  // Sim on Grisou (no registration properties: the defaults): the segment grows by the same 2 x
  // 148 us, and the bytes arrive.
  const std::string sim =
      "coarray --engine sim --platform " + src("platforms/grisou.xml") + " --statements 2 --csv" + kMebibyte;
  // (Once, the time only: size-only bytes keep the test short.)
  const Outcome sim_once = collsim(sim + " --payload virtual"),
                sim_each = collsim(sim + " --registration per-statement");
  ASSERT_EQ(sim_once.status, 0) << sim_once.err;
  ASSERT_EQ(sim_each.status, 0) << sim_each.err;
  EXPECT_NEAR(std::stod(csv_field(sim_each.out, "time_s")) - std::stod(csv_field(sim_once.out, "time_s")), 296e-6,
              1e-9);
  EXPECT_EQ(csv_field(sim_each.out, "data"), "ok");
}

TEST(CollsimCoarray, BadRegistrationOptionsAreOneLine) {
  expect_bad_input("coarray --engine model --registration sometimes" + kMebibyte,
                   "--registration: 'sometimes' is not once or per-statement");
  expect_bad_input("coarray --engine model --registration once" + kStrided,
                   "--registration applies to --registered only");
  expect_bad_input("coarray --engine model --heap 1MiB" + kStrided, "--heap applies to --registered only");
  expect_bad_input("coarray --engine model --heap 0" + kMebibyte, "--heap must be at least 1 byte");
  // 1 MiB + B = 1448576 bytes do not fit a heap of 1 MiB: refused as Omni stops the program.
  expect_bad_input("coarray --engine model --heap 1MiB" + kMebibyte,
                   "take 1448576 bytes of Omni's heap of 1048576 (XMP_ONESIDED_HEAP_SIZE)");
  EXPECT_EQ(collsim("coarray --engine model --heap 1MiB --registration per-statement" + kMebibyte).status, 0);
  for (const char* option : {"registration per-statement", "heap 1GiB"})
    expect_bad_input(std::string("coarray --engine caf-native --") + option + kMebibyte,
                     "does not apply to caf-native");
}

TEST(CollsimCoarray, BadCopySyncAndGetOverheadsAreOneLine) {
  const std::string time = "' is not a time (e.g. 10us, 1.5ms, 2e-6; a bare number is seconds)";
  expect_bad_input("coarray --engine model --copy-overhead fast" + kStrided, "--copy-overhead: 'fast" + time);
  expect_bad_input("coarray --engine model --sync-overhead -1us" + kStrided,
                   "--sync-overhead: -1us must be at least 0");
  expect_bad_input("coarray --engine sim --copy-overhead 1us" + kStrided,
                   "--copy-overhead does not apply to --engine sim");
  expect_bad_input("coarray --engine model --get --get-overhead soon" + kStrided,
                   "--get-overhead: 'soon' is not a time (e.g. 2us) or SIZE:BASE:PER_BYTE;...");
  expect_bad_input("coarray --engine model --loggp 1us,1us,1us,1ns --get --get-overhead 1us" + kStrided,
                   "--get-overhead applies to Hockney only (LogGP has its o)");
  expect_bad_input("coarray --engine sim --get --get-overhead 1us" + kStrided,
                   "--get-overhead does not apply to --engine sim");
}

TEST(CollsimCoarray, OptionsOfOneEngineAreRefusedByTheOthers) {
  for (const auto& [name, value] :
       {std::pair{"buffer", " 64"}, std::pair{"registered", ""}, std::pair{"nonblocking", " 2"},
        std::pair{"nonblocking", " nowait"}, std::pair{"packing", " omni"}})
    expect_bad_input(std::string("coarray --engine caf-native --") + name + value + kStrided,
                     std::string("--") + name + " does not apply to caf-native");
  expect_bad_input("coarray --engine caf-native --get --get-behaviour omni" + kStrided,
                   "--get-behaviour does not apply to caf-native");
  expect_bad_input("coarray --engine mpi --platform x.xml" + kStrided, "--platform does not apply to --engine mpi");
  expect_bad_input("coarray --engine mpi --payload virtual" + kStrided, "--payload does not apply to --engine mpi");
  expect_bad_input("coarray --engine sim --min-runs 3" + kStrided, "--min-runs does not apply to --engine sim");
  expect_bad_input("coarray --engine model --launcher mpirun" + kStrided,
                   "--launcher does not apply to --engine model");
  for (const char* engine : {"model", "sim", "mpi", "caf-native"})
    expect_bad_input(std::string("coarray --engine ") + engine + " --target 3" + kStrided,
                     "needs the origin and target images among 2 images");
}

}  // namespace
}  // namespace collsim_test
