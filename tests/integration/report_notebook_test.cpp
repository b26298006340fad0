// report.html in a real browser (Debian's chromium, headless) and the goodput notebook executed headless
// (jupyter nbconvert --execute), both on a fresh run of the default scenario; the sweep notebook on a fresh
// sweep of restart-checkpoint-sweep.json. tools/dev.sh installs chromium and jupyter.
#include "tests/support/shell.hpp"
#include "tools/dcsim/completion.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace fs = std::filesystem;
using namespace dcsim;
using test::dcsim_binary;
using test::read_text;
using test::run_shell;
using test::shell_quote;

namespace {

std::string source(const std::string& relative) {
  return std::string(DCSIM_SOURCE_DIR) + "/" + relative;
}

/// scenarios/default.json, 4 replicas; `options` adds dcsim run options (e.g. --set cost={}).
void run_default(const fs::path& out, const std::string& options = "") {
  const auto r = run_shell(fmt::format("{} run {} -q -j 2 --replicas 4 --out {} {} 2>&1", dcsim_binary(),
                                       shell_quote(source("scenarios/default.json")),
                                       shell_quote(out.string()), options));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
}

int count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (auto p = text.find(needle); p != std::string::npos; p = text.find(needle, p + needle.size()))
    ++n;
  return n;
}

/// Headless chromium as root on a machine without network (flags: /work/.library/env/machines/cpp.md).
std::string chromium(const fs::path& profile, const std::string& args) {
  const std::string binary = "/usr/bin/chromium";
  if (!fs::exists(binary))
    FAIL("chromium is not installed: tools/dev.sh test installs it (Debian package chromium)");
  return fmt::format("timeout 120 {} --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
                     "--disable-background-networking --disable-component-update --disable-sync "
                     "--user-data-dir={} {}",
                     binary, shell_quote(profile.string()), args);
}

struct PageLoad {
  std::string dom;
  std::vector<std::string> problems; ///< console messages and failed loads logged by the page
};

/// Loads a page from a file, returns the DOM after load and what the page logged.
PageLoad load_page(const fs::path& dir, const fs::path& page) {
  const fs::path log = dir / (page.filename().string() + ".chromium.log");
  const auto r = run_shell(chromium(dir / "profile-dom", "--enable-logging=stderr --v=0 --dump-dom " +
                                                             shell_quote("file://" + page.string())) +
                           " 2> " + shell_quote(log.string()));
  REQUIRE(r.exit_code == 0);
  PageLoad out{r.output, {}};
  std::istringstream lines(read_text(log));
  std::string line;
  // The page's own messages: console output (errors, uncaught exceptions) and failed resource loads.
  // Chromium's messages about D-Bus and the GPU on this machine are not about the page.
  const std::regex page_problem(R"(:CONSOLE[:(]|net::ERR_|Failed to load resource|Refused to)");
  while (std::getline(lines, line))
    if (std::regex_search(line, page_problem)) out.problems.push_back(line);
  return out;
}

} // namespace

TEST_CASE(
    "report.html: every section present, self-contained, no page errors in headless chromium, screenshot",
    "[scenario][workflow][report][browser]") {
  const fs::path dir = test::fresh_test_dir("report");
  const fs::path run = dir / "run";
  run_default(run, "--set 'cost={}'"); // with cost metrics: the cost waterfall is drawn
  const auto t0 = std::chrono::steady_clock::now();
  const auto report = run_shell(fmt::format("{} report {} 2>&1", dcsim_binary(), shell_quote(run.string())));
  INFO(report.output);
  REQUIRE(report.exit_code == 0);
  const fs::path page = run / "report.html";
  const std::string html = read_text(page);

  // Self-contained: no scripts, stylesheets, fonts, images or frames from anywhere.
  for (const char* banned : {"<script", "<link", "<img", "<iframe", "@import", "url(", "src=", "https:"})
    CHECK(html.find(banned) == std::string::npos);
  CHECK(count(html, "http://") == count(html, "xmlns=\"http://www.w3.org/2000/svg\""));

  const PageLoad loaded = load_page(dir, page);
  for (const auto& p : loaded.problems)
    FAIL_CHECK("the page logged: " << p);
  const std::string& dom = loaded.dom;
  for (const char* id : {"title", "summary", "waterfall", "cost-waterfall", "interruptions", "timeseries",
                         "rack-grid", "cooling-power", "waterfall-pretrain", "waterfall-cluster",
                         "cost-waterfall-pretrain", "cost-waterfall-cluster", "causes-pretrain",
                         "gauge-healthy-gpus", "gauge-training", "rack-grid-svg"})
    CHECK(dom.find(fmt::format("id=\"{}\"", id)) != std::string::npos);
  // The cost waterfall follows the GPU-time one, is linked from the navigation and prices each state.
  CHECK(dom.find("id=\"cost-waterfall\"") > dom.find("id=\"waterfall\""));
  CHECK(dom.find("href=\"#cost-waterfall\"") != std::string::npos);
  CHECK(dom.find("% on productive GPU-hours") != std::string::npos);
  for (const char* state : {">restart (", ">rework (", ">idle (", ">spare (", ">productive ("})
    CHECK(dom.find(state) != std::string::npos);
  CHECK(dom.find("<table class=\"summary-table\">") != std::string::npos);
  CHECK(dom.find("<td class=\"metric\">goodput_frac</td>") != std::string::npos);
  CHECK(count(dom, "class=\"rack\"") == 18); // default.json: 18 racks, one cell each
  CHECK(count(dom, "<svg") >= 8);
  // default.json models no cooling, but power is always accounted: the section shows the power gauge.
  CHECK(dom.find("id=\"gauge-power-kw\"") != std::string::npos);
  CHECK(dom.find("No cooling or power gauge") == std::string::npos);

  // A screenshot for people (under the build tree).
  const fs::path shot = fs::path(DCSIM_TEST_OUTPUT_DIR) / "report-screenshot.png";
  fs::remove(shot);
  const auto s =
      run_shell(chromium(dir / "profile-shot", "--hide-scrollbars --window-size=1400,3000 --screenshot=" +
                                                   shell_quote(shot.string()) + " " +
                                                   shell_quote("file://" + page.string())) +
                " 2>/dev/null");
  CHECK(s.exit_code == 0);
  REQUIRE(fs::exists(shot));
  CHECK(read_text(shot).rfind("\x89PNG", 0) == 0);
  CHECK(fs::file_size(shot) > 50000); // a blank page is a few kilobytes
  WARN(fmt::format("report + two chromium loads: {:.1f} s; screenshot {}",
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
                   shot.string()));

  // The checker itself can fail: a page with a script error and a missing resource is caught.
  const fs::path broken = dir / "broken.html";
  std::ofstream(broken) << "<!DOCTYPE html><html><body><p id=\"x\">x</p>"
                           "<script>console.error('boom'); undefinedFunction();</script></body></html>";
  CHECK(load_page(dir, broken).problems.size() >= 1);
}

TEST_CASE("report degrades gracefully when files are missing", "[scenario][workflow][report]") {
  const fs::path dir = test::fresh_test_dir("report-partial");
  const fs::path run = dir / "run";
  run_default(run);
  // report refuses a folder whose files differ from its completion marker: after each hand edit here, a
  // new marker describes what the folder holds.
  auto remark = [&run] {
    fs::remove(run / "report.html");
    tools::write_completion_marker(run);
  };
  for (const char* f : {"ledger.csv", "causes.csv", "timeseries.csv", "events.csv", "racks.csv", "scenario.json"})
    fs::remove(run / f);
  remark();
  const auto r = run_shell(fmt::format("{} report {} 2>&1", dcsim_binary(), shell_quote(run.string())));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const std::string html = read_text(run / "report.html");
  CHECK(html.find("ledger.csv is not in this run&#39;s outputs.") != std::string::npos);
  CHECK(html.find("causes.csv is not in this run&#39;s outputs.") != std::string::npos);
  CHECK(html.find("timeseries.csv is not in this run&#39;s outputs.") != std::string::npos);
  CHECK(html.find("the rack grid needs one of them") != std::string::npos);
  CHECK(html.find("id=\"summary\"") != std::string::npos);
  // default.json has no cost block: no cost metrics, so no cost waterfall and no link to it.
  CHECK(html.find("cost-waterfall") == std::string::npos);
  CHECK(html.find("id=\"waterfall\"") != std::string::npos);

  // racks.csv, when a run has it, drives the grid (cells grouped by loop).
  std::ofstream(run / "racks.csv")
      << "replica,rack,loop,availability_frac\n0,rack0000,0,1\n0,rack0001,0,0.97\n"
         "1,rack0000,0,1\n1,rack0001,0,0.99\n0,rack0002,1,0.5\n1,rack0002,1,0.5\n";
  remark();
  REQUIRE(run_shell(fmt::format("{} report {}", dcsim_binary(), shell_quote(run.string()))).exit_code == 0);
  const std::string with_racks = read_text(run / "report.html");
  CHECK(count(with_racks, "class=\"rack\"") == 3);
  CHECK(with_racks.find("rack0001: availability 98.000%") != std::string::npos);
  CHECK(with_racks.find(">loop 1</text>") != std::string::npos);

  // Cooling and power gauges, when a run has them, get their own section; other gauges stay in "Over time".
  std::ofstream(run / "timeseries.csv") << "replica,time_s,entity,gauge,value\n0,0,cluster,healthy_gpus,1296\n"
                                           "0,0,loop0,supply_temp_c,45\n0,3600,loop0,supply_temp_c,46.5\n"
                                           "0,0,cluster,it_power_kw,2100\n";
  remark();
  REQUIRE(run_shell(fmt::format("{} report {}", dcsim_binary(), shell_quote(run.string()))).exit_code == 0);
  const std::string with_gauges = read_text(run / "report.html");
  const auto cooling = with_gauges.find("id=\"cooling-power\"");
  REQUIRE(cooling != std::string::npos);
  CHECK(with_gauges.find("id=\"gauge-supply-temp-c\"") > cooling);
  CHECK(with_gauges.find("id=\"gauge-it-power-kw\"") > cooling);
  CHECK(with_gauges.find("id=\"gauge-healthy-gpus\"") < cooling);
  CHECK(with_gauges.find("No cooling or power gauge") == std::string::npos);

  // No summary.csv: nothing to report, exit 2, nothing written.
  fs::remove(run / "summary.csv");
  fs::remove(run / "report.html");
  CHECK(run_shell(fmt::format("{} report {} 2>&1", dcsim_binary(), shell_quote(run.string()))).exit_code ==
        2);
  CHECK_FALSE(fs::exists(run / "report.html"));
}

namespace {

struct ExecutedNotebook {
  int images = 0, errors = 0;
  std::string text; ///< every stream output, concatenated
};

/// Executes tools/notebooks/NAME.ipynb headless from `dir` with `env` (e.g. "DCSIM_OUT=run"), as the
/// README runs it: a relative folder in `env` is taken from the command's folder (the kernel runs in the
/// notebook's).
ExecutedNotebook execute_notebook(const fs::path& dir, const std::string& name, const std::string& env) {
  if (!fs::exists("/usr/bin/jupyter"))
    FAIL("jupyter is not installed: tools/dev.sh test installs jupyter-nbconvert");
  const auto t0 = std::chrono::steady_clock::now();
  const fs::path executed = dir / (name + ".executed.ipynb");
  const auto r = run_shell(fmt::format("cd {} && {} PYDEVD_DISABLE_FILE_VALIDATION=1 timeout 600 "
                                       "/usr/bin/jupyter nbconvert --to notebook --execute "
                                       "--ExecutePreprocessor.timeout=300 --output {} {} 2>&1",
                                       shell_quote(dir.string()), env, shell_quote(executed.string()),
                                       shell_quote(source("tools/notebooks/" + name + ".ipynb"))));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  WARN(fmt::format("notebook {} executed in {:.1f} s", name,
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()));
  const auto nb = nlohmann::json::parse(read_text(executed));
  ExecutedNotebook out;
  for (const auto& cell : nb.at("cells"))
    if (cell.contains("outputs"))
      for (const auto& o : cell.at("outputs")) {
        if (o.at("output_type") == "error") ++out.errors;
        if (o.contains("data") && o.at("data").contains("image/png")) ++out.images;
        if (o.at("output_type") == "stream")
          for (const auto& line : o.at("text"))
            out.text += line.get<std::string>();
      }
  return out;
}

} // namespace

TEST_CASE("the goodput notebook executes headless on a fresh run (jupyter nbconvert --execute)",
          "[scenario][workflow][notebook]") {
  const fs::path dir = test::fresh_test_dir("notebook");
  run_default(dir / "run");
  const ExecutedNotebook nb = execute_notebook(dir, "goodput", "DCSIM_OUT=run");
  INFO(nb.text);
  CHECK(nb.errors == 0);
  // goodput by replica, goodput over time, the loss waterfall, causes, time series
  CHECK(nb.images >= 5);
  CHECK(nb.text.find("run: scenario 'default', 4 replicas, jobs ['pretrain']") != std::string::npos);
}

TEST_CASE("the sweep notebook executes headless on a fresh sweep (jupyter nbconvert --execute)",
          "[scenario][workflow][notebook]") {
  const fs::path dir = test::fresh_test_dir("sweep-notebook");
  // restart-checkpoint-sweep.json: 3 restart times x 3 checkpoint intervals, 3 replicas each.
  const auto s = run_shell(fmt::format("{} sweep {} -q -j 2 --replicas 3 --out {} 2>&1", dcsim_binary(),
                                       shell_quote(source("scenarios/restart-checkpoint-sweep.json")),
                                       shell_quote((dir / "rcs").string())));
  INFO(s.output);
  REQUIRE(s.exit_code == 0);
  const ExecutedNotebook nb = execute_notebook(dir, "sweep", "DCSIM_SWEEP=rcs");
  INFO(nb.text);
  CHECK(nb.errors == 0);
  CHECK(nb.images == 5); // goodput against each of the 2 keys, one heatmap, the best and worst points
  CHECK(nb.text.find("rcs: 9 points, varied keys ['operations.restart_s', 'jobs.0.checkpoint.interval_s'], "
                     "jobs ['pretrain'], 3 to 3 replicas per point") != std::string::npos);
  // The best point has the highest mean goodput_frac of sweep.csv (the notebook ranks from it).
  CHECK(nb.text.find("best goodput_frac of pretrain: point ") != std::string::npos);
}
