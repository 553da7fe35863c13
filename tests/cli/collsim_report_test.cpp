// collsim report and collsim run --report: the page a user opens, rendered by a real browser
// (headless Chromium, Debian's `chromium`), and the one-line errors of bad input.
//
// The rendered page is checked through the DOM Chromium dumps after loading it (the plots are
// inline SVG with ids plot-KIND-N) and through Chromium's log on stderr: with --enable-logging=stderr
// every console message of the page (errors, CSP violations, failed loads) is one line
// `[...:INFO:CONSOLE:LINE] "message", source: URL (LINE)`, whatever its level, and the page has no
// script, so any such line is a fault. The network is closed to the browser (a proxy on the
// discard port that nothing serves) besides the page's own Content Security Policy.
// The screenshot is kept as an artefact: <build dir>/test-artefacts/report.png (and report.html
// next to it), copied from the test's scratch folder.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "common/cli_test_util.hpp"

namespace {

using namespace collsim_test;

bool have_python_matplotlib() { return run_command("/usr/bin/python3 -c 'import matplotlib'").status == 0; }

// Debian's chromium; empty when it is not installed.
std::string chromium() {
  const Outcome o = run_command("command -v chromium");
  return o.status == 0 ? lines(o.out).at(0) : "";
}

struct Rendered {
  Outcome outcome;                   // out: the DOM after load; err: Chromium's log
  std::vector<std::string> console;  // the page's console messages
};

// Loads `page` in headless Chromium with no network and its own profile (other Chromiums may run),
// dumps the DOM and, when `screenshot` is given, writes a PNG of the first 1280x2400 pixels.
Rendered render(const std::string& browser, const fs::path& page, const fs::path& screenshot = {}) {
  const fs::path profile = scratch() / "chromium-profile";
  const std::string cmd = "timeout 120 " + browser +
                          " --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0"
                          " --proxy-server=127.0.0.1:9 --user-data-dir=" +
                          profile.string() +
                          (screenshot.empty() ? "" : " --window-size=1280,2400 --screenshot=" + screenshot.string()) +
                          " --dump-dom file://" + fs::absolute(page).string();
  Rendered r{run_command(cmd), {}};
  for (const auto& line : lines(r.outcome.err))
    if (line.find(":CONSOLE") != std::string::npos) r.console.push_back(line);
  return r;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

TEST(Report, BadInputIsOneLine) {
  expect_bad_input("report " + (scratch() / "no-such-folder").string(), "no-such-folder: no such folder");
  expect_bad_input("report " + scratch().string(), ": no results.csv (not a results folder of collsim run)");
  expect_bad_input("report", "report takes one results folder");
  expect_bad_input("report a b", "report takes one results folder");
  expect_bad_input("report " + scratch().string() + " -o", "-o needs a value");
  expect_bad_input("run " + src("scenarios/coarray-cases.yaml") + " --report", "is a coarray scenario");
  // Without matplotlib: refused before the run (no folder written), and by report.
  const fs::path none = scratch() / "never-written";
  const Outcome no_python = run_command("COLLSIM_PYTHON=/nonexistent " + std::string(COLLSIM_BIN) + " run " +
                                        src("tests/data/report_small.yaml") + " --report --out " + none.string());
  EXPECT_EQ(no_python.status, 2) << no_python.err;
  EXPECT_EQ(no_python.err,
            "collsim: --report needs python3 with matplotlib (Debian: apt-get install python3-matplotlib)\n");
  EXPECT_FALSE(fs::exists(none));
  // A results.csv that is not one of collsim run's, or one with a bad row: refused by collsim
  // (with the file and line) before tools/report runs, so with or without matplotlib.
  const fs::path dir = scratch() / "not-results";
  fs::create_directories(dir);
  std::ofstream(dir / "results.csv") << "a,b\n1,2\n";
  expect_refused("report " + dir.string(), "collsim: " + (dir / "results.csv").string() +
                                               ":1: not a collsim results CSV (its header lacks "
                                               "engine,op,procs,bytes,segment,root,time_s)");
  expect_refused("report " + src("validation/coarray"), "collsim: " + src("validation/coarray") +
                                                            ": the results of a coarray scenario; tools/plot_coarray "
                                                            "draws them");
  const std::string header = "engine,op,procs,bytes,segment,root,time_s,protocol\n";
  std::ofstream(dir / "results.csv") << header;
  expect_refused("report " + dir.string(),
                 "collsim: " + (dir / "results.csv").string() + ": no rows (the run has measured nothing yet)");
  for (const char* time : {"nan", "-1e-05", "", "inf", "fast"}) {
    std::ofstream(dir / "results.csv") << header << "model,bcast/binomial,4,1024,0,0,2.5e-05,\n"
                                       << "model,bcast/binomial,8,1024,0,0," << time << ",\n";
    expect_refused("report " + dir.string(), "collsim: " + (dir / "results.csv").string() +
                                                 ":3: not a results row (time_s is '" + time +
                                                 "', not a time (a non-negative number of seconds))");
  }
}

// What a log scale has no place for: a barrier (no data: no size axis) and points of 0 bytes
// and 0 s; and the settings of the engines that ran, in readable units: the two-level model's
// own parameters only, the sim engine's protocol in effect (the scenario names none).
TEST(Report, DrawsBarriersAndZerosAndTheSettingsInEffect) {
  if (!have_python_matplotlib()) GTEST_SKIP() << "no /usr/bin/python3 with matplotlib: tools/report cannot run";
  const fs::path dir = scratch() / "report-sizeless";
  const Outcome run =
      collsim("run " + src("tests/data/report_sizeless.yaml") + " --out " + dir.string() + " --quiet --report");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.err, "");
  const std::string page = slurp(dir / "report.html");
  // Against size: bcast at 4 and 8 processes, with a "0B" tick and a "0 s" one (the model engine
  // sends nothing for 0 bytes); the barrier not, as the page says.
  auto figure = [&](const std::string& id) {
    const auto at = page.find("id=\"" + id + "\"");
    return at == std::string::npos ? std::string() : page.substr(at, page.find("</figure>", at) - at);
  };
  const std::string by_size = figure("plot-size-1");
  EXPECT_NE(by_size.find("time against message size: bcast, 4 processes</figcaption>"), std::string::npos);
  EXPECT_NE(by_size.find(">0B</text>"), std::string::npos);
  EXPECT_NE(by_size.find(">0 s</text>"), std::string::npos);
  EXPECT_NE(figure("plot-size-2").find("time against message size: bcast, 8 processes</figcaption>"),
            std::string::npos);
  EXPECT_EQ(figure("plot-size-3"), "");
  EXPECT_NE(page.find("barrier moves no data: time against process count only."), std::string::npos);
  // Against process count: the barrier (no size in its title), bcast at 0B and at 1KiB.
  EXPECT_NE(figure("plot-procs-1").find("time against process count: barrier</figcaption>"), std::string::npos);
  EXPECT_NE(figure("plot-procs-2").find("time against process count: bcast, 0B</figcaption>"), std::string::npos);
  EXPECT_NE(figure("plot-procs-3").find("time against process count: bcast, 1KiB</figcaption>"), std::string::npos);
  EXPECT_EQ(figure("plot-procs-4"), "");
  for (const char* map : {"fastest barrier on model", "fastest barrier on sim", "fastest bcast on model"})
    EXPECT_NE(page.find(map), std::string::npos) << map;

  // The page's text, without its drawings.
  std::string text;
  for (std::size_t at = 0, svg; at != std::string::npos; at = page.find("</svg>", svg)) {
    svg = page.find("<svg", at);
    text += page.substr(at, svg == std::string::npos ? std::string::npos : svg - at);
  }
  // The results table: 0 s for the model's 0-byte broadcasts, no size for the barrier.
  EXPECT_NE(text.find("<td class=''>bcast/binomial</td><td class='num'>4</td><td class='num'>0B</td>"
                      "<td class='num'>-</td><td class='num'>0 s</td>"),
            std::string::npos);
  EXPECT_NE(text.find("<td class=''>barrier/linear</td><td class='num'>4</td><td class='num'>-</td>"),
            std::string::npos);
  // Grisou's 20 us between nodes is 1.9999999999999998e-05 in run.json: no such noise on the page.
  EXPECT_FALSE(std::regex_search(text, std::regex("[0-9]\\.[0-9]{5,}|[0-9]e[-+][0-9]"))) << text;
  EXPECT_NE(text.find("two-level Hockney<ul><li>intra_alpha = 5 us (latency inside a node)</li>"), std::string::npos);
  EXPECT_NE(text.find("<li>alpha = 20 us (latency between nodes)</li>"), std::string::npos);
  EXPECT_NE(text.find("<li>beta = 0.8 ns/B (1.25 GB/s) (time per byte between nodes)</li>"), std::string::npos);
  for (const char* loggp : {"LogGP", "L = ", "o = ", "g = ", "G = "}) EXPECT_EQ(text.find(loggp), std::string::npos);
  EXPECT_NE(text.find("<li>protocol tcp (the platform&#x27;s default: the scenario names none)</li>"),
            std::string::npos);
  EXPECT_EQ(text.find("protocol \"\""), std::string::npos);
}

// A plotting tool that fails (here a Python that passes collsim's matplotlib check, then raises)
// is one line that says so and names the log with what it printed; no traceback, no wait status.
TEST(Report, APlottingToolThatFailsIsOneLineAndALog) {
  if (!have_python_matplotlib()) GTEST_SKIP() << "no /usr/bin/python3 with matplotlib";
  const fs::path python = scratch() / "failing-python";
  std::ofstream(python) << "#!/bin/sh\n"
                           "if [ \"$1\" = -c ]; then exec /usr/bin/python3 \"$@\"; fi\n"
                           "exec /usr/bin/python3 -c 'raise RuntimeError(\"broken tool\")'\n";
  fs::permissions(python, fs::perms::owner_all);
  const fs::path dir = scratch() / "failing";
  fs::create_directories(dir);
  std::ofstream(dir / "results.csv") << "engine,op,procs,bytes,segment,root,time_s\n"
                                        "sim,bcast/binomial,4,1000,0,0,1e-05\n"
                                        "formula-derived,bcast/binomial,4,1000,0,0,2e-05\n";
  const std::string with = "COLLSIM_PYTHON=" + python.string() + " " + COLLSIM_BIN + " ";
  const std::pair<std::string, std::string> calls[] = {
      {"report " + dir.string(), "report"},
      {"compare " + (dir / "results.csv").string() + " --plots " + (dir / "png").string(), "plot_compare"},
      {"timeline --op bcast/binomial --procs 4 --bytes 1KiB --svg " + (dir / "t.svg").string(), "timeline"}};
  for (const auto& [args, tool] : calls) {
    const Outcome o = run_command(with + args);
    EXPECT_EQ(o.status, 1) << args << "\n" << o.err;
    const std::string start = "collsim: tools/" + tool + " failed unexpectedly (exit status 1); what it printed is in ";
    ASSERT_EQ(o.err.rfind(start, 0), 0u) << o.err;
    ASSERT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    const fs::path log = o.err.substr(start.size(), o.err.size() - start.size() - 1);
    EXPECT_NE(slurp(log).find("RuntimeError: broken tool"), std::string::npos) << log;
    fs::remove(log);
  }
}

// tools/plot_coarray (run by hand on a coarray scenario's results) refuses what it cannot draw in
// one line with status 2, as collsim does: no traceback.
TEST(Report, PlotCoarrayRefusesBadInputInOneLine) {
  if (!have_python_matplotlib()) GTEST_SKIP() << "no /usr/bin/python3 with matplotlib";
  const std::string results = slurp(src("validation/coarray/results.csv"));
  const std::string header = results.substr(0, results.find('\n') + 1);
  std::string row = results.substr(header.size(), results.find('\n', header.size()) + 1 - header.size());
  // time_s is the tenth column of the coarray results (coarray_runner.cpp).
  ASSERT_EQ(lines(header)[0].find("engine,op,case,nl_bytes,nr_bytes,buffer,unit_bytes,transfers,copies,time_s,"), 0u);
  std::size_t at = 0;
  for (int comma = 0; comma < 9; ++comma) at = row.find(',', at) + 1;
  const fs::path nan = scratch() / "coarray-nan.csv";
  std::ofstream(nan) << header << row.replace(at, row.find(',', at) - at, "nan");
  const fs::path collective = scratch() / "collective.csv";
  std::ofstream(collective) << "engine,op,procs,bytes,segment,root,time_s\nsim,bcast/binomial,4,8,0,0,1\n";
  const std::pair<fs::path, std::string> cases[] = {
      {scratch() / "no-such.csv", "no-such.csv: No such file or directory"},
      {collective, "collective.csv: not a coarray scenario's results.csv (no sweep column)"},
      {nan, "coarray-nan.csv:2: time_s is 'nan'"}};
  for (const auto& [csv, line] : cases) {
    const Outcome o = run_command(src("tools/plot_coarray") + " " + csv.string() + " " + (scratch() / "pc").string());
    EXPECT_EQ(o.status, 2) << o.err;
    EXPECT_EQ(o.err, "plot_coarray: " + (scratch() / "").string() + line + "\n");
  }
}

// tools/plot_coarray --ratios, the table of validation/coarray-cases.md's shared-memory section:
// per point sim / mpi, bold outside 0.67-1.5x; per pair of schemes the two ratios and whether
// they order alike. A 1.6 MB put on 2 images, buffered (case 4: sim 290 us, mpi 200 us: 1.45)
// and DMA (case 0: sim 100 us, mpi 250 us: 0.40, outside); DMA / buffered is 250 / 200 = 1.25
// measured (DMA slower, no tie) and 100 / 290 = 0.34 simulated (DMA faster): not the same order.
TEST(Report, PlotCoarrayRatiosFlagsPointsAndOrders) {
  const fs::path csv = scratch() / "coarray-ratios.csv";
  const std::string header =
      "engine,op,case,nl_bytes,nr_bytes,buffer,unit_bytes,transfers,copies,time_s,local,local_shape,remote,"
      "remote_shape,elem_bytes,statements,registered,get_behaviour,packing,sync,pattern,images,bytes,runs,min_s,"
      "ci95_s,ci_target_met,data,sweep,key\n";
  const auto row = [](const std::string& engine, const std::string& c, const std::string& reg, const std::string& t) {
    return engine + ",coarray/put," + c + ",1600000,1600000,400000,400000,4,4," + t + ",:,200000,:,200000,8,1," + reg +
           ",table1,table1,memory,one,2,1600000,1," + t + ",0,,ok,dma,k\n";
  };
  std::ofstream(csv) << header << row("sim", "4", "0", "2.9e-4") << row("mpi", "4", "0", "2e-4")
                     << row("sim", "0", "1", "1e-4") << row("mpi", "0", "1", "2.5e-4");
  const Outcome o = run_command(src("tools/plot_coarray") + " --ratios " + csv.string());
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.out.find("| dma | put | 4 | 1600000 | 1600000 | 400000 | no | 1 | 2 | 290.0 | 200.0 | 1.45 |"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("| dma | put | 0 | 1600000 | 1600000 | 400000 | yes | 1 | 2 | 100.0 | 250.0 | **0.40** |"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("Within 0.67-1.5x: 2 images 1 of 2."), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("| DMA / buffered | dma | 1600000 | 1600000 | 1 | 2 | 1.25 | 0.34 | **no** |"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("2 images 0 of 1."), std::string::npos) << o.out;
}

// Log axes of times are labelled readably at any range (tools/plot_axes.py, used by the report
// and the compare plots): at least two ticks in units, where one decade tick alone said nothing.
TEST(Report, LogAxesAreLabelledAtAnyRange) {
  const auto ticks = [](const std::string& range) {
    const Outcome o = run_command("cd " + src("tools") +
                                  " && /usr/bin/python3 -c 'from plot_axes import log_ticks, time_label; "
                                  "print(\", \".join(time_label(t) for t in log_ticks(" +
                                  range + ")))'");
    EXPECT_EQ(o.status, 0) << o.err;
    return o.out;
  };
  EXPECT_EQ(ticks("8e-6, 1.3e-5"), "8 us, 9 us, 10 us\n");
  EXPECT_EQ(ticks("4, 12"), "5 s, 10 s\n");
  EXPECT_EQ(ticks("2e-5, 2.5e-4"), "20 us, 50 us, 100 us, 200 us\n");
  EXPECT_EQ(ticks("1e-6, 1e-3"), "1 us, 10 us, 100 us, 1 ms\n");
  EXPECT_EQ(ticks("1e-9, 1e3"), "1 ns, 100 ns, 10 us, 1 ms, 100 ms, 10 s, 1000 s\n");
  const Outcome noise = run_command("cd " + src("tools") +
                                    " && /usr/bin/python3 -c 'from plot_axes import time_label, per_byte_label; "
                                    "print(time_label(1.9999999999999998e-05), per_byte_label(8e-10), sep=\"; \")'");
  EXPECT_EQ(noise.out, "20 us; 0.8 ns/B (1.25 GB/s)\n") << noise.err;
}

TEST(Report, RendersInChromiumWithPlotsAndNoConsoleMessages) {
  if (!have_python_matplotlib()) GTEST_SKIP() << "no /usr/bin/python3 with matplotlib: tools/report cannot run";
  const std::string browser = chromium();
  if (browser.empty()) GTEST_SKIP() << "chromium is not installed (tools/setup installs it): the page is not rendered";

  const fs::path dir = scratch() / "report-small";
  const Outcome run =
      collsim("run " + src("tests/data/report_small.yaml") + " --out " + dir.string() + " --quiet --report");
  ASSERT_EQ(run.status, 0) << run.err;
  ASSERT_TRUE(fs::exists(dir / "report.html")) << run.out;
  EXPECT_NE(slurp(dir / "report.html").find("No traces were recorded in this run"), std::string::npos);
  // collsim report writes the page elsewhere with -o; with a trace in traces/ (a hand-written
  // 2-rank one, tests/data/report_trace.csv), drawn by tools/timeline when the tree has it.
  fs::create_directories(dir / "traces");
  fs::copy_file(src("tests/data/report_trace.csv"), dir / "traces" / "bcast-2.csv");
  const fs::path page = scratch() / "traced.html";
  const Outcome again = collsim("report " + dir.string() + " -o " + page.string());
  ASSERT_EQ(again.status, 0) << again.err;
  const bool timeline = fs::exists(src("tools/timeline"));

  const fs::path png = scratch() / "report.png";
  const Rendered r = render(browser, page, png);
  ASSERT_EQ(r.outcome.status, 0) << r.outcome.err;
  const std::string& dom = r.outcome.out;
  EXPECT_TRUE(r.console.empty()) << "console messages:\n" << testing::PrintToString(r.console);

  // bcast (2 algorithms) and gather, each at P = 4, 8 and m = 1KiB, 64KiB: 4 plots against size,
  // 4 against process count; a fastest map for bcast on model and on sim (gather has one
  // algorithm: no map); one timeline if tools/timeline can draw it.
  EXPECT_EQ(count(dom, "<svg"), timeline ? 11u : 10u);
  for (const char* id :
       {"plot-size-1", "plot-size-4", "plot-procs-1", "plot-procs-4", "plot-fastest-1", "plot-fastest-2"})
    EXPECT_NE(dom.find(std::string("id=\"") + id + "\""), std::string::npos) << id;
  EXPECT_EQ(dom.find("id=\"plot-size-5\""), std::string::npos);
  EXPECT_EQ(dom.find("id=\"plot-fastest-3\""), std::string::npos);
  if (timeline) {
    EXPECT_NE(dom.find("id=\"plot-timeline-1\" data-kind=\"timeline\""), std::string::npos);
    EXPECT_NE(dom.find("timeline: bcast-2"), std::string::npos);
  } else {
    EXPECT_EQ(dom.find("data-kind=\"timeline\""), std::string::npos);
    EXPECT_NE(dom.find("1 trace(s) in " + (dir / "traces").string() + ", but tools/timeline"), std::string::npos);
  }
  // The maps name the algorithms as text (not as drawn glyphs), and say which engine they are for.
  EXPECT_NE(dom.find("fastest bcast on model"), std::string::npos);
  EXPECT_NE(dom.find("fastest bcast on sim"), std::string::npos);
  EXPECT_TRUE(dom.find("binomial 8KiB") != std::string::npos || dom.find("binary_tree 8KiB") != std::string::npos);
  EXPECT_NE(dom.find("One algorithm only, no map: gather on model; gather on sim."), std::string::npos);
  // The table: one row per point (3 algorithms x 2 procs x 2 sizes), a column per engine.
  EXPECT_EQ(count(dom.substr(dom.find("class=\"results\"")), "<tr>"), 1u + 12u);
  EXPECT_NE(dom.find("<th class=\"num\">model</th><th class=\"num\">sim</th>"), std::string::npos);
  // The scenario's description is text, its markup escaped.
  EXPECT_NE(dom.find("a &lt;b&gt;small&lt;/b&gt; &amp; quick \"report\" test"), std::string::npos);
  EXPECT_EQ(dom.find("<b>small</b>"), std::string::npos);
  // Nothing the browser would fetch: no src= or http(s) link outside the SVG namespaces.
  EXPECT_EQ(count(dom, " src="), 0u);
  const std::string html = slurp(page);
  EXPECT_EQ(count(html, "https://"), 0u);
  EXPECT_EQ(count(html, "http://"), count(html, "xmlns=\"http://www.w3.org/2000/svg\"") +
                                        count(html, "xmlns:xlink=\"http://www.w3.org/1999/xlink\""));

  // The screenshot, a PNG, kept for people to look at.
  const std::string image = slurp(png);
  ASSERT_GT(image.size(), 8u);
  EXPECT_EQ(image.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  const fs::path artefacts = fs::path(COLLSIM_BUILD_DIR) / "test-artefacts";
  fs::create_directories(artefacts);
  fs::copy_file(png, artefacts / "report.png", fs::copy_options::overwrite_existing);
  fs::copy_file(page, artefacts / "report.html", fs::copy_options::overwrite_existing);
}

// The check above can fail: a page under the same policy that asks for a remote image gets a
// console line from Chromium.
TEST(Report, ChromiumReportsABlockedLoadOnTheConsole) {
  const std::string browser = chromium();
  if (browser.empty()) GTEST_SKIP() << "chromium is not installed (tools/setup installs it): the page is not rendered";
  const fs::path page = scratch() / "fetches.html";
  std::ofstream(page) << "<!DOCTYPE html><html><head><meta charset='utf-8'><meta http-equiv='Content-Security-Policy' "
                         "content=\"default-src 'none'; img-src data:\"></head><body>"
                         "<img src='http://example.com/x.png'></body></html>\n";
  const Rendered r = render(browser, page);
  ASSERT_EQ(r.outcome.status, 0) << r.outcome.err;
  ASSERT_EQ(r.console.size(), 1u) << r.outcome.err;
  EXPECT_NE(r.console[0].find("http://example.com/x.png"), std::string::npos) << r.console[0];
}

}  // namespace
