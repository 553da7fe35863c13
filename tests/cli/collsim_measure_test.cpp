// collsim measure as a user runs it: the model engine's options (LogGP, one port, copy rate)
// against hand calculations, every refusal of a model or sim option as one line with exit status
// 2, the real-payload memory guard at its boundary, and the plain-text (non --csv) report.
//
// The model numbers follow the cost rules in src/engines/model/model_engine.hpp:
//  - Hockney: a message of m bytes takes alpha + beta*m; its send completes when it arrives.
//    With one port, a transfer holds the sender's send port and the receiver's receive port.
//  - LogGP as LogGOPSim defines it: a send starts at t0 when the sender's CPU and NIC are free;
//    the CPU is busy until t0 + o, the NIC until t0 + g + (m-1)G; the first byte arrives at
//    t0 + o + L; the receiver handles it when its CPU and NIC are free, at p, and the data is
//    usable at p + o + (m-1)G (one message alone: 2o + L + (m-1)G).
//  - A local copy of n bytes takes n / copy_bandwidth.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "common/cli_test_util.hpp"

namespace {

using namespace collsim_test;

double model_time(const std::string& args) {
  const Outcome o = collsim("measure --engine model --csv " + args);
  EXPECT_EQ(o.status, 0) << args << "\n" << o.err;
  EXPECT_EQ(csv_field(o.out, "data"), "ok") << args;
  return std::stod(csv_field(o.out, "time_s"));
}

// L = 10 us, o = 1 us, g = 2 us, G = 1 ns/byte: every parameter different, so a swap shows.
const std::string kLogGp = " --loggp 1e-5,1e-6,2e-6,1e-9";

TEST(MeasureModel, LogGpMatchesHandCalculation) {
  // bcast/binomial on 2 ranks is one message of m = 1000 bytes: the root's CPU o, latency L,
  // the receiver's o and (m-1)G: 1 + 10 + 1 + 0.999 = 12.999 us. (o and g swapped: 14.999 us;
  // L and G swapped: about 10 ms.)
  EXPECT_NEAR(model_time("--op bcast/binomial --procs 2 --bytes 1000" + kLogGp), 12.999e-6, 1e-15);

  // bcast/basic_linear on 3 ranks, m = 1 ((m-1)G = 0), g = 3 us > o: send 1 starts at 0 (CPU
  // to o, NIC to g), arrives o + L, usable at 2o + L = 12 us. Send 2 starts when the NIC is free,
  // at g, arrives g + o + L, usable at g + 2o + L = 15 us, the last finish. (Were g ignored,
  // rank 2 would finish at 3o + L = 13 us.)
  EXPECT_NEAR(model_time("--op bcast/basic_linear --procs 3 --bytes 1 --loggp 1e-5,1e-6,3e-6,1e-9"), 15e-6, 1e-15);
}

TEST(MeasureModel, OnePortSerialisesTheRootsReceives) {
  // gather/basic_linear on P = 5, m = 1000, alpha = 10 us, beta = 1 ns/byte: the four senders
  // post at 0; with one port the root's receive port takes them one after the other:
  // (P-1)(alpha + beta m) = 4 * 11 us = 44 us. Without it they all arrive at 11 us.
  const std::string gather = "--op gather/basic_linear --procs 5 --bytes 1000 --alpha 1e-5 --beta 1e-9";
  EXPECT_NEAR(model_time(gather + " --one-port"), 44e-6, 1e-15);
  EXPECT_NEAR(model_time(gather), 11e-6, 1e-15);
}

TEST(MeasureModel, CopyBandwidthChargesLocalCopies) {
  // gather/binomial on 2 ranks, root 1, m = 1 MB = 1e6 bytes, alpha = 10 us, beta = 1 ns/byte,
  // copies at 1e9 bytes/s (1 ms per block). Rank 0 sends its block at 0; it arrives at
  // alpha + beta m = 1.01 ms. The root copies its own block into a temporary first (done at
  // 1 ms, hidden by the receive), receives at 1.01 ms, then, being a non-zero root, copies the
  // temporary into place in two parts (its own block, then rank 0's): 2 ms more. 3.01 ms in all;
  // 1.01 ms when copies are free.
  const std::string gather = "--op gather/binomial --procs 2 --root 1 --bytes 1MB --alpha 1e-5 --beta 1e-9";
  EXPECT_NEAR(model_time(gather + " --copy-bandwidth 1e9"), 3.01e-3, 1e-12);
  EXPECT_NEAR(model_time(gather), 1.01e-3, 1e-12);
}

TEST(MeasureModel, RejectsBadModelOptions) {
  const std::string bcast = "measure --engine model --op bcast/binomial --procs 2 --bytes 8";
  const std::string loggp_hockney =
      " applies to Hockney (kind hockney or two_level), not LogGP (L, o, g, G): give one or "
      "the other";
  expect_refused(bcast + kLogGp + " --alpha 2e-5", "collsim: --alpha" + loggp_hockney);
  expect_refused(bcast + kLogGp + " --beta 1e-9", "collsim: --beta" + loggp_hockney);
  const std::string four = "' is not four costs L,o,g,G (e.g. 5us,1us,2us,0.1ns)";
  expect_refused(bcast + " --loggp 1e-5,1e-6,2e-6", "collsim: --loggp: '1e-5,1e-6,2e-6" + four);
  expect_refused(bcast + " --loggp 1,2,3,4,5", "collsim: --loggp: '1,2,3,4,5" + four);
  expect_refused(bcast + " --loggp 1e-5,-1e-6,2e-6,1e-9",
                 "collsim: --loggp: -1e-6 in '1e-5,-1e-6,2e-6,1e-9' must be at least 0");
  expect_refused(bcast + " --loggp 1e-5,,2e-6,1e-9",
                 "collsim: --loggp: '' in '1e-5,,2e-6,1e-9' is not a time (e.g. 10us, 1.5ms, 2e-6; a bare number is "
                 "seconds)");
  expect_refused(bcast + " --loggp 1e-5,1e-6,2e-6,fast",
                 "collsim: --loggp: 'fast' in '1e-5,1e-6,2e-6,fast' is not a time per byte (e.g. 0.8ns, 8e-10; or a "
                 "rate, its inverse: 1.25GBps; a bare number is seconds)");
  expect_refused(bcast + kLogGp + " --one-port",
                 "collsim: --one-port applies to Hockney only (LogGP's g and G already serialise sends)");
  const std::string rate =
      "' is not a rate in bytes per second (e.g. 1.25GBps, 10Gbps, 25GbE; a bare number is bytes/s)";
  expect_refused(bcast + " --copy-bandwidth -5", "collsim: --copy-bandwidth: '-5" + rate);
  expect_refused(bcast + " --copy-bandwidth fast", "collsim: --copy-bandwidth: 'fast" + rate);
  expect_refused(bcast + " --alpha -1e-6", "collsim: --alpha: -1e-6 must be at least 0");
  expect_refused(bcast + " --alpha 10parsecs",
                 "collsim: --alpha: '10parsecs' is not a time (e.g. 10us, 1.5ms, 2e-6; a bare number is seconds)");
}

TEST(MeasureModel, TimesRatesAndCostsPerByteTakeUnits) {
  // The same model spelled with units and without: the same time to the bit.
  const std::string call = "--op gather/binomial --procs 5 --bytes 1000 --root 1";
  const double plain = model_time(call + " --alpha 1e-5 --beta 8e-10 --copy-bandwidth 5e9 --reduce-gamma 1e-10");
  EXPECT_EQ(model_time(call + " --alpha 10us --beta 0.8ns --copy-bandwidth 5GBps --reduce-gamma 0.1ns"), plain);
  EXPECT_EQ(model_time(call + " --alpha 0.01ms --beta 1.25GBps --copy-bandwidth 40Gbps --reduce-gamma 1e-10"), plain);
  // gather/binomial on 5 ranks, root 1, m = 1000: it charges a copy at the root, so a copy rate
  // that were not read would change the time.
  EXPECT_NE(model_time(call + " --alpha 1e-5 --beta 8e-10"), plain);
  const std::string reduce = "--op reduce/binomial --procs 4 --bytes 1000 --reduce-gamma ";
  EXPECT_EQ(model_time(reduce + "0.1ns"), model_time(reduce + "1e-10"));
  EXPECT_NE(model_time(reduce + "0.1ns"), model_time(reduce + "0"));
  EXPECT_EQ(model_time("--op bcast/binomial --procs 2 --bytes 1000 --loggp 10us,1us,2us,1ns"),
            model_time("--op bcast/binomial --procs 2 --bytes 1000" + kLogGp));
}

TEST(MeasureModel, SegmentZeroIsAcceptedByEveryAlgorithm) {
  // --segment 0 (unsegmented) is the documented default, so it means the same to an algorithm
  // without segments; any other segment is refused for it, as in a scenario.
  EXPECT_EQ(model_time("--op bcast/basic_linear --procs 4 --bytes 1000 --segment 0"),
            model_time("--op bcast/basic_linear --procs 4 --bytes 1000"));
  expect_bad_input("measure --engine model --op bcast/basic_linear --procs 4 --bytes 1000 --segment 1KiB",
                   "segment does not apply to bcast/basic_linear");
}

TEST(MeasureModel, EachEngineRefusesTheOthersOptions) {
  const std::string call = " --op bcast/binomial --procs 2 --bytes 8";
  for (const std::string model_option :
       {"--alpha 1e-5", "--beta 1e-9", "--intra 1e-6,1e-10", "--loggp 1,1,1,1", "--one-port", "--copy-bandwidth 1e9"}) {
    const std::string name = model_option.substr(2, model_option.find(' ') - 2);
    expect_refused("measure --engine sim" + call + " " + model_option,
                   "collsim: --" + name + " does not apply to --engine sim");
  }
  for (const std::string& sim_option : {std::string("--eager-limit 1KiB"), std::string("--protocol tcp")}) {
    const std::string name = sim_option.substr(2, sim_option.find(' ') - 2);
    expect_refused("measure --engine model" + call + " " + sim_option,
                   "collsim: --" + name + " does not apply to --engine model");
  }
  // Ranks per node place ranks for the two-level model, and mean nothing to the others; SimGrid
  // options matter only to a model derived from a platform.
  expect_refused("measure --engine model" + call + " --ranks-per-node 2",
                 "collsim: --ranks-per-node applies to --engine model only with --intra or --platform (two-level "
                 "Hockney)");
  expect_refused("measure --engine model" + call + " --cfg network/model:CM02",
                 "collsim: --cfg applies to --engine model only with --platform (its network model's factors)");
}

TEST(MeasureSim, BadCfgIsOneLine) {
  const std::string bcast = "measure --engine sim --op bcast/binomial --procs 2 --bytes 8 --cfg ";
  expect_refused(bcast + "network-model-CM02", "collsim: --cfg: 'network-model-CM02' is not KEY:VALUE");
  // SimGrid itself rejects the key (and would append its list of every known key: only the first
  // line is kept).
  expect_refused(bcast + "network/no-such-option:3",
                 "collsim: bad SimGrid option 'network/no-such-option:3': Bad config key: network/no-such-option");
  // A known key with a value SimGrid cannot parse: SimGrid's text does not name the key, ours does.
  expect_refused(bcast + "network/TCP-gamma:abc",
                 "collsim: bad SimGrid option 'network/TCP-gamma:abc': invalid double");
}

// measure refuses real payloads of more than 8 GiB: bcast holds P copies of the message (P*m),
// gather the P blocks plus the root's P-block result (2*P*m). Every probe names a platform file
// that does not exist: an accepted one stops there, before any buffer is allocated, so even a
// broken guard never allocates 8 GiB.
// The memory estimate (engines/run_memory.hpp) at its boundary, with the limit set by
// COLLSIM_MEMORY_LIMIT so the test does not depend on this machine: real payloads count twice
// their buffers (the algorithms' temporaries and the messages in flight), and each engine its
// measured cost per rank (sim 32 KiB; model 3 KiB, or 256 bytes for a rank that exists only
// while it runs). Refused before anything runs: the nonexistent platform is never opened.
Outcome with_limit(const std::string& limit, const std::string& args) {
  return run_command("COLLSIM_MEMORY_LIMIT=" + limit + " " + COLLSIM_BIN + " " + args);
}

void expect_limit_refused(const std::string& limit, const std::string& args, const std::string& line) {
  const Outcome o = with_limit(limit, args);
  EXPECT_EQ(o.status, 2) << args << "\n" << o.err;
  EXPECT_EQ(o.err, line + "\n") << args;
  EXPECT_EQ(o.out, "") << args;
}

TEST(MeasureGuard, RunsLargerThanTheMemoryLimitAreRefusedUpFront) {
  const std::string nowhere = " --platform /nonexistent/platform.xml";
  const std::string opened = "collsim: /nonexistent/platform.xml: cannot open";
  const std::string payload = " or smaller sizes";
  // bcast, P = 2, sim: 2 * (2 m) bytes of payload + 2 * 32 KiB. Within 8 GiB up to
  // m = 2 GiB - 16 KiB = 2147467264; one byte more is refused.
  const std::string bcast = "measure --engine sim --op bcast/binomial --procs 2 --bytes ";
  EXPECT_EQ(with_limit("8GiB", bcast + "2147467264" + nowhere).err.find(opened), 0u);
  expect_limit_refused(
      "8GiB", bcast + "2147467265" + nowhere,
      "collsim: bcast/binomial on 2 processes on engine sim needs about 8.00GiB of memory (8.00GiB "
      "of real payload, 64.0KiB for the sim engine's ranks), more than COLLSIM_MEMORY_LIMIT's 8.00GiB: "
      "use virtual payloads (--payload virtual)" +
          payload);
  // gather, P = 2: the root's result holds both blocks, so m counts three times per rank pair:
  // 2 * (m + m + 2m) + 64 KiB; within 8 GiB up to 1 GiB - 8 KiB.
  const std::string gather = "measure --engine sim --op gather/binomial --procs 2 --bytes ";
  EXPECT_EQ(with_limit("8GiB", gather + "1073733632" + nowhere).err.find(opened), 0u);
  EXPECT_EQ(with_limit("8GiB", gather + "1073733633" + nowhere).status, 2);
  EXPECT_EQ(with_limit("8GiB", bcast + "1073733633" + nowhere).err.find(opened), 0u);  // a bcast's is half
  // Size-only buffers take no memory: the same run goes through.
  const Outcome o = with_limit("8GiB",
                               "measure --engine model --op bcast/binomial --procs 2 --bytes 5GiB "
                               "--payload virtual --csv");
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(csv_field(o.out, "data"), "unchecked");
}

TEST(MeasureGuard, TheEnginesCostPerRankCounts) {
  // 1000000 ranks of allreduce/ring at 3 KiB each: 2.9 GiB; a binomial broadcast's ranks, which
  // exist only while they run, 256 bytes each: 244 MiB, within 1 GiB.
  expect_limit_refused("1GiB", "measure --engine model --op allreduce/ring --procs 1000000 --bytes 4 --payload virtual",
                       "collsim: allreduce/ring on 1000000 processes on engine model needs about 2.86GiB of memory "
                       "(2.86GiB for the model engine's ranks), more than COLLSIM_MEMORY_LIMIT's 1.00GiB: use fewer "
                       "processes");
  const Outcome late = with_limit(
      "1GiB", "measure --engine model --op bcast/binomial --procs 1000000 --bytes 4 --payload virtual --csv");
  EXPECT_EQ(late.status, 0) << late.err;
  // The formula engine holds nothing per rank.
  EXPECT_EQ(with_limit("1MiB",
                       "measure --engine formula --op allreduce/ring --procs 1000000 --bytes 4 --alpha 1e-6 "
                       "--beta 1e-9")
                .status,
            0);
  expect_limit_refused("lots", "measure --engine model --op bcast/binomial --procs 2 --bytes 4",
                       "collsim: COLLSIM_MEMORY_LIMIT: 'lots' is not a size (e.g. 512MiB, 16GiB)");
}

TEST(MeasureGuard, EveryCommandThatRunsPointsEstimatesFirst) {
  // The same estimate before explain, timeline, coarray and a scenario run anything: one line,
  // exit 2, nothing written.
  const std::string over = "of memory (";
  const struct {
    std::string args, start;
  } cases[] = {
      {"explain bcast/binomial --procs 8 --bytes 4294967297",
       "collsim: bcast/binomial on 8 processes on engine model needs about 64.0GiB "},
      {"timeline --op bcast/binomial --procs 8 --bytes 3GiB --engine model,sim --png " +
           (scratch() / "big.png").string(),
       "collsim: bcast/binomial on 8 processes on engine model needs about 48.0GiB "},
      {"coarray --engine model --local 1:100000,1:100000 --local-shape 100000,100000 --remote 1:100000,1:100000 "
       "--remote-shape 100000,100000",
       "collsim: coarray/put remote(1:100000,1:100000)[2] = local(1:100000,1:100000), 1 per segment, B = 400000 on 2 "
       "images on engine model needs about 298GiB "},
  };
  for (const auto& c : cases) {
    const Outcome o = with_limit("8GiB", c.args);
    EXPECT_EQ(o.status, 2) << c.args << "\n" << o.err;
    EXPECT_EQ(o.err.rfind(c.start + over, 0), 0u) << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_EQ(o.out, "");
  }
  EXPECT_FALSE(fs::exists(scratch() / "big.png"));
  // A scenario: its largest point, before the first one runs.
  const fs::path scenario = scratch() / "too-big.yaml";
  std::ofstream(scenario) << "engines: [model]\nprocs: [2, 1000]\nbytes: [1KiB, 1GiB]\nreal_bytes: true\n"
                             "operations: [bcast/binomial]\n";
  const fs::path out = scratch() / "too-big";
  const Outcome run = with_limit("8GiB", "run " + scenario.string() + " --jobs 1 --out " + out.string());
  EXPECT_EQ(run.status, 2) << run.err;
  EXPECT_EQ(run.err,
            "collsim: " + scenario.string() +
                ": the point bcast/binomial on 1000 processes (root 0, 1073741824 bytes) on engine model needs "
                "about 1.95TiB of memory (1.95TiB of real payload, 250KiB for the model engine's ranks), more "
                "than COLLSIM_MEMORY_LIMIT's 8.00GiB: use virtual payloads (real_bytes: false) or smaller "
                "sizes\n");
  EXPECT_FALSE(fs::exists(out));
  // Two points that fit one at a time, not side by side: fewer jobs.
  std::ofstream(scenario) << "engines: [model]\nprocs: 2\nbytes: [1GiB, 1500MiB]\nreal_bytes: true\n"
                             "operations: [bcast/binomial]\n";
  const Outcome jobs = with_limit("8GiB", "run " + scenario.string() + " --jobs 2 --out " + out.string());
  EXPECT_EQ(jobs.status, 2) << jobs.err;
  EXPECT_NE(jobs.err.find("in each of 2 jobs, more than COLLSIM_MEMORY_LIMIT's 8.00GiB: run fewer points at once "
                          "(--jobs 1)"),
            std::string::npos)
      << jobs.err;
}

TEST(MeasureGuard, ATimelineHoldsItsEventsWithinTheTraceLimit) {
  // 64 KiB in 64-byte segments down a chain of 4: 3 x 1024 messages, some 12000 events; 1 KiB
  // holds 12 (80 bytes each in CSV). The run stops holding events there and is refused.
  const Outcome o = collsim(
      "timeline --op bcast/pipeline --procs 4 --bytes 64KiB --segment 64 --trace-limit 1KiB "
      "--svg " +
      (scratch() / "many.svg").string());
  EXPECT_EQ(o.status, 2) << o.err;
  EXPECT_EQ(o.err,
            "collsim: timeline: the trace would take more than 1 KiB (over 12 events), above the limit of 1 KiB: "
            "trace fewer processes, fewer segments (a larger --segment) or fewer bytes, or raise the trace limit\n");
}

TEST(MeasureGuard, WhatTheEstimateCannotBoundIsWatchedWhileTheModelRuns) {
  // alltoall/linear posts every message at once: 1024^2 of them, over 200 MiB, which no cost per
  // rank foresees; the model engine notices part-way and stops with the same kind of line.
  const Outcome o =
      with_limit("64MiB", "measure --engine model --op alltoall/linear --procs 1024 --bytes 1 --payload virtual");
  EXPECT_EQ(o.status, 2) << o.err;
  EXPECT_EQ(o.err.rfind("collsim: alltoall/linear on 1024 processes (1 bytes) on engine model took ", 0), 0u) << o.err;
  EXPECT_NE(o.err.find("of memory part-way, more than COLLSIM_MEMORY_LIMIT's 64.0MiB: use fewer processes"),
            std::string::npos)
      << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1);
  EXPECT_EQ(o.out, "");
}

// Without --csv: what was run, the time in readable units and in seconds with the rank that
// finished last, and the data check.
TEST(MeasurePlainText, DescribesTimesAndNamesTheLastRank) {
  // bcast/pipeline from root 2 of 4 is the chain 2 -> 3 -> 0 -> 1 (collsim tree bcast/pipeline
  // --procs 4 --root 2), so rank 1 finishes last, not rank P-1. Under LogGP with m = 1000 each hop
  // is o + L + o + (m-1)G = 12.999 us after the previous hop's data is usable, and the sender is
  // done at its send's start + o, earlier: 3 hops = 38.997 us. (Under Hockney the last sender's
  // send would end with the last arrival, a tie.)
  const Outcome o = collsim("measure --engine model --op bcast/pipeline --procs 4 --root 2 --bytes 1000" + kLogGp);
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.err, "");
  const auto out = lines(o.out);
  ASSERT_EQ(out.size(), 3u) << o.out;
  EXPECT_EQ(out[0], "bcast/pipeline on 4 processes (root 2, 1000 bytes) on engine model");
  // "time  39 us  (3.8997e-05 s; last to finish: rank 1)": 4 significant digits, then seconds.
  const std::string head = "time  39 us  (";
  ASSERT_EQ(out[1].rfind(head, 0), 0u) << out[1];
  EXPECT_NEAR(std::stod(out[1].substr(head.size())), 38.997e-6, 1e-10) << out[1];
  const std::string tail = " s; last to finish: rank 1)";
  ASSERT_GE(out[1].size(), tail.size());
  EXPECT_EQ(out[1].substr(out[1].size() - tail.size()), tail) << out[1];
  EXPECT_EQ(out[2], "data  ok");

  // A gather's root finishes last once it copies after its receives: gather/binomial, root 1,
  // with a copy rate (see CopyBandwidthChargesLocalCopies); size-only buffers are not checked.
  const Outcome g = collsim(
      "measure --engine model --op gather/binomial --procs 2 --root 1 --bytes 1MB --alpha 1e-5 --beta 1e-9 "
      "--copy-bandwidth 1e9 --payload virtual");
  ASSERT_EQ(g.status, 0) << g.err;
  EXPECT_EQ(g.out,
            "gather/binomial on 2 processes (root 1, 1000000 bytes) on engine model\n"
            "time  3.01 ms  (0.00301 s; last to finish: rank 1)\n"
            "data  unchecked\n");
}

}  // namespace

namespace {

// --timing osu: collsim measure's CSV gets the OSU columns beside time_s. bcast/binomial on 4
// ranks, m = 100000 bytes, alpha = 10 us, beta = 1 ns/byte: L = alpha + beta m = 110 us,
// a = 10 us (the barrier's empty messages). The hand calculation is in
// tests/engines/model/model_osu_timing_test.cpp: the ranks' latencies are L, 2L + 2a, L + a and
// 2L, so avg (6L + 3a) / 4 = 172.5 us, min 110 us, max 240 us; time_s stays 2L = 220 us.
TEST(MeasureModel, OsuTimingAddsItsColumns) {
  const std::string call =
      "measure --engine model --csv --op bcast/binomial --procs 4 --bytes 100000 --alpha 1e-5 "
      "--beta 1e-9";
  const Outcome o = collsim(call + " --timing osu");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NEAR(std::stod(csv_field(o.out, "time_s")), 220e-6, 1e-15);
  EXPECT_NEAR(std::stod(csv_field(o.out, "osu_avg_s")), 172.5e-6, 1e-15);
  EXPECT_NEAR(std::stod(csv_field(o.out, "osu_min_s")), 110e-6, 1e-15);
  EXPECT_NEAR(std::stod(csv_field(o.out, "osu_max_s")), 240e-6, 1e-15);
  // The default, also when named: the columns are empty.
  for (const std::string timing : {"", " --timing collective"}) {
    const Outcome d = collsim(call + timing);
    ASSERT_EQ(d.status, 0) << d.err;
    EXPECT_EQ(csv_field(d.out, "osu_avg_s"), "") << timing;
    EXPECT_NEAR(std::stod(csv_field(d.out, "time_s")), 220e-6, 1e-15);
  }
  // Plain text: one more line under the time.
  const Outcome t = collsim(
      "measure --engine model --op bcast/binomial --procs 4 --bytes 100000 --alpha 1e-5 "
      "--beta 1e-9 --timing osu");
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_NE(t.out.find("\nosu   avg 172.5 us  min 110 us  max 240 us  (osu_bcast's: each rank's mean of 2 calls "
                       "from its own entry, after 1 untimed)\n"),
            std::string::npos)
      << t.out;
}

TEST(MeasureModel, BadTimingIsOneLine) {
  const std::string call = "measure --op bcast/binomial --procs 2 --bytes 8 --timing ";
  expect_refused(call + "OSU --engine model", "collsim: --timing: 'OSU' is not collective or osu");
  // The formulas predict one time from a common start; they have no ranks to time.
  expect_refused(call + "osu --engine formula", "collsim: --timing does not apply to --engine formula");
}

}  // namespace
