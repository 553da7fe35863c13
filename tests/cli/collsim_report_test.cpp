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

#include "cli_test_util.hpp"

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
  if (!have_python_matplotlib()) GTEST_SKIP() << "no /usr/bin/python3 with matplotlib: tools/report cannot run";
  // A results.csv that is not one of collsim run's: tools/report's own line, status 2.
  const fs::path dir = scratch() / "not-results";
  fs::create_directories(dir);
  std::ofstream(dir / "results.csv") << "a,b\n1,2\n";
  expect_bad_input("report " + dir.string(), "results.csv:1: no engine column");
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
