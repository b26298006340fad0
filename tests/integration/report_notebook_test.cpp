// report.html in a real browser (Debian's chromium, headless) and the goodput notebook executed headless
// (jupyter nbconvert --execute), both on a fresh run of the default scenario; the sweep notebook on a fresh
// sweep of restart-checkpoint-sweep.json. tools/dev.sh installs chromium and jupyter.
#include "sim/csv_reader.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/svg_axes.hpp"
#include "tools/dcsim/completion.hpp"
#include "tools/dcsim/svg_plots.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

namespace fs = std::filesystem;
using namespace dcsim;
using test::dcsim_binary;
using test::read_text;
using test::run_shell;
using test::shell_quote;
using test::source_path;

namespace {

/// scenarios/default.json, 4 replicas; `options` adds dcsim run options (e.g. --set cost={}).
void run_default(const fs::path& out, const std::string& options = "") {
  const auto r = run_shell(fmt::format("{} run {} -q -j 2 --replicas 4 --out {} {} 2>&1", dcsim_binary(),
                                       shell_quote(source_path("scenarios/default.json")),
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

/// The <svg> element with this id in a page, or "".
std::string svg_by_id(const std::string& html, const std::string& id) {
  const auto at = html.find(fmt::format("id=\"{}\"", id));
  if (at == std::string::npos) return "";
  const auto begin = html.rfind("<svg", at);
  const auto end = html.find("</svg>", at);
  return begin == std::string::npos || end == std::string::npos ? "" : html.substr(begin, end + 6 - begin);
}

/// A number attribute of the first element of `svg` matching `pattern` (one group), or NaN.
double attribute(const std::string& svg, const std::string& pattern) {
  std::smatch m;
  if (!std::regex_search(svg, m, std::regex(pattern))) return std::nan("");
  return std::stod(m[1].str());
}

struct Pixels {
  int non_background = 0, coloured = 0; ///< tests/integration/png_pixels.py
};

/// Screenshots one chart alone (the page's style, the chart at its size) and counts its pixels: the
/// coloured ones are the chart's marks (lines, points, bars, cells), grid and text being grey.
Pixels chart_pixels(const fs::path& dir, const std::string& page_html, const std::string& svg) {
  REQUIRE_FALSE(svg.empty());
  const auto style_begin = page_html.find("<style>"), style_end = page_html.find("</style>");
  const std::string style = style_begin == std::string::npos ? "" : page_html.substr(style_begin, style_end + 8 - style_begin);
  const int width = static_cast<int>(attribute(svg, R"re(width="(\d+)")re")),
            height = static_cast<int>(attribute(svg, R"re(height="(\d+)")re"));
  static int n = 0;
  const fs::path page = dir / fmt::format("chart-{}.html", ++n), shot = dir / fmt::format("chart-{}.png", n);
  std::ofstream(page) << "<!DOCTYPE html><html><head><meta charset=\"utf-8\">" << style
                      << "<style>body{margin:0}</style></head><body>" << svg << "</body></html>";
  // Headless chromium clips a window lower than about 200 pixels: the page's white below the chart is
  // neither coloured nor counted as the chart's.
  const auto s = run_shell(chromium(dir / "profile-chart", fmt::format("--hide-scrollbars --window-size={},{} --screenshot={} {}",
                                                                        width, std::max(height, 300), shell_quote(shot.string()),
                                                                        shell_quote("file://" + page.string()))) +
                           " 2>/dev/null");
  REQUIRE(s.exit_code == 0);
  const auto r = run_shell(fmt::format("python3 {} {}", shell_quote(source_path("tests/integration/png_pixels.py")),
                                       shell_quote(shot.string())));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  std::istringstream in(r.output);
  int w = 0, h = 0;
  Pixels p;
  in >> w >> h >> p.non_background >> p.coloured;
  CHECK(w == width);
  return p;
}

/// Loads a page in chromium, fails on anything it logged, and saves its screenshot under the test output.
std::string load_and_shoot(const fs::path& dir, const fs::path& page, const std::string& screenshot, int height) {
  const PageLoad loaded = load_page(dir, page);
  for (const auto& p : loaded.problems)
    FAIL_CHECK("the page logged: " << p);
  const fs::path shot = fs::path(DCSIM_TEST_OUTPUT_DIR) / screenshot;
  fs::remove(shot);
  const auto s = run_shell(chromium(dir / "profile-shot", fmt::format("--hide-scrollbars --window-size=1400,{} --screenshot={} {}",
                                                                       height, shell_quote(shot.string()),
                                                                       shell_quote("file://" + page.string()))) +
                           " 2>/dev/null");
  CHECK(s.exit_code == 0);
  CHECK(fs::exists(shot));
  WARN("screenshot: " << shot.string());
  return loaded.dom;
}

/// The largest mean over replicas, over time, of one entity's gauge in timeseries.csv.
double max_mean_gauge(const fs::path& run, const std::string& entity, const std::string& gauge) {
  const auto doc = sim::read_csv_file(run / "timeseries.csv");
  const auto t = *doc.column("time_s"), e = *doc.column("entity"), g = *doc.column("gauge"), v = *doc.column("value");
  std::map<double, std::pair<double, int>> by_time;
  for (const auto& row : doc.rows)
    if (row[e] == entity && row[g] == gauge) {
      auto& [sum, count] = by_time[std::stod(row[t])];
      sum += std::stod(row[v]), ++count;
    }
  double best = -INFINITY;
  for (const auto& [time, sc] : by_time)
    best = std::max(best, sc.first / sc.second);
  return best;
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
  // The power chart's cluster series is the cluster's total: its largest value is the largest mean over
  // replicas of the cluster's power_kw in timeseries.csv (within 1%).
  const double power_max = max_mean_gauge(run, "cluster", "power_kw");
  const double drawn = attribute(svg_by_id(dom, "gauge-power-kw"), R"re(data-series="cluster" data-y-max="([^"]+)")re");
  CHECK(std::fabs(drawn - power_max) <= 0.01 * power_max);
  // Step charts draw their min-max band.
  CHECK(svg_by_id(dom, "gauge-healthy-gpus").find("class=\"band\"") != std::string::npos);
  // Gauges constant over the run are a table, not flat charts: default.json's step time never changes.
  const auto constants = dom.find("id=\"constant-gauges\"");
  REQUIRE(constants != std::string::npos);
  const std::string table = dom.substr(constants, dom.find("</table>", constants) - constants);
  CHECK(table.find("<td class=\"metric\">step_time_s</td><td>pretrain</td><td>1.0750</td>") != std::string::npos);
  CHECK(table.find(">healthy_gpus<") == std::string::npos);
  CHECK(dom.find("id=\"gauge-step-time-s\"") == std::string::npos);
  // The CDF of the time between interruptions counts every gap: per replica, its interruptions − 1.
  {
    const auto events = sim::read_csv_file(run / "events.csv");
    std::map<std::string, int> per_replica;
    for (const auto& row : events.rows)
      if (row[*events.column("kind")] == "interruption" && row[*events.column("component")] == "pretrain")
        ++per_replica[row[*events.column("replica")]];
    int gaps = 0;
    for (const auto& [replica, n] : per_replica)
      gaps += n - 1;
    REQUIRE(gaps > 0);
    CHECK(svg_by_id(dom, "interruption-cdf-svg").find(fmt::format("pretrain: {} gaps", gaps)) != std::string::npos);
  }
  // Replica 0's timeline: the job's row runs, goes down and restarts (default.json's replica 0 is interrupted).
  const std::string timeline = svg_by_id(dom, "job-timeline-svg");
  CHECK(count(timeline, "data-state=\"running\"") >= 2);
  CHECK(count(timeline, "data-state=\"down\"") >= 1);
  CHECK(count(timeline, "data-state=\"restarting\"") >= 1);
  CHECK(chart_pixels(dir, html, timeline).coloured > 1000);
  CHECK(chart_pixels(dir, html, svg_by_id(dom, "interruption-cdf-svg")).coloured > 100);

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
  // A fraction whose Student t interval reaches past 1 (few replicas near the bound) is shown ending at 1.
  std::ofstream(run / "summary.csv", std::ios::app) << "default,pretrain,near_one_frac,0.998,0.99,1.006,4\n";
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
  CHECK(html.find("<td class=\"metric\">near_one_frac</td><td>0.9980 <span class=\"ci\">[0.9900, 1.0000]</span>") !=
        std::string::npos);
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
  {
    std::ofstream ts(run / "timeseries.csv");
    ts << "replica,time_s,entity,gauge,value\n0,0,cluster,healthy_gpus,1296\n0,3600,cluster,healthy_gpus,1288\n"
          "0,0,loop0,supply_temp_c,45\n0,3600,loop0,supply_temp_c,46.5\n"
          "0,0,cluster,it_power_kw,2100\n0,3600,cluster,it_power_kw,2000\n0,0,cluster,racks_spare,2\n"
          "0,3600,cluster,racks_spare,2\n0,0,cluster,power_kw,800\n0,3600,cluster,power_kw,900\n";
    // 8 loops: power 100 kW each, then 110 + i; their hottest GPU 50 + i °C, then 60 + i.
    for (int i = 0; i < 8; ++i)
      ts << fmt::format("0,0,loop{0},power_kw,100\n0,3600,loop{0},power_kw,{1}\n0,0,loop{0},gpu_temp_max_c,{2}\n"
                        "0,3600,loop{0},gpu_temp_max_c,{3}\n",
                        i, 110 + i, 50 + i, 60 + i);
  }
  remark();
  REQUIRE(run_shell(fmt::format("{} report {}", dcsim_binary(), shell_quote(run.string()))).exit_code == 0);
  const std::string with_gauges = read_text(run / "report.html");
  const auto cooling = with_gauges.find("id=\"cooling-power\"");
  REQUIRE(cooling != std::string::npos);
  CHECK(with_gauges.find("id=\"gauge-supply-temp-c\"") > cooling);
  CHECK(with_gauges.find("id=\"gauge-it-power-kw\"") > cooling);
  CHECK(with_gauges.find("id=\"gauge-healthy-gpus\"") < cooling);
  CHECK(with_gauges.find("No cooling or power gauge") == std::string::npos);
  // The cluster's total is its own chart (900 kW at most), its 8 loops another: their mean (113.5 kW at
  // most), and the hottest loop's GPU for a *max* gauge (67 °C), not the mean of the maxima (63.5 °C).
  CHECK(attribute(svg_by_id(with_gauges, "gauge-power-kw"), R"re(data-series="cluster" data-y-max="([^"]+)")re") == 900);
  CHECK(svg_by_id(with_gauges, "gauge-power-kw").find("loop") == std::string::npos);
  CHECK(attribute(svg_by_id(with_gauges, "gauge-power-kw-parts"), R"re(data-series="mean of 8 parts" data-y-max="([^"]+)")re") ==
        113.5);
  CHECK(attribute(svg_by_id(with_gauges, "gauge-gpu-temp-max-c"), R"re(data-series="max of 8 parts" data-y-max="([^"]+)")re") ==
        67);
  // A gauge constant over the run is a row of the table, not a chart.
  CHECK(with_gauges.find("<td class=\"metric\">racks_spare</td><td>cluster</td><td>2.0000</td>") != std::string::npos);
  CHECK(with_gauges.find("id=\"gauge-racks-spare\"") == std::string::npos);

  // No summary.csv: nothing to report, exit 2, nothing written.
  fs::remove(run / "summary.csv");
  fs::remove(run / "report.html");
  CHECK(run_shell(fmt::format("{} report {} 2>&1", dcsim_binary(), shell_quote(run.string()))).exit_code ==
        2);
  CHECK_FALSE(fs::exists(run / "report.html"));
}

TEST_CASE("sweep report and compare page in headless chromium: charts drawn, axes to scale, error bars, heatmap, "
          "Pareto fronts, one compare panel per metric",
          "[scenario][workflow][report][browser]") {
  const fs::path dir = test::fresh_test_dir("sweep-report");
  const fs::path sweep = dir / "sweep";
  // scenarios/restart-checkpoint-sweep.json: 3 restart times × 3 checkpoint policies = 9 points, 3 replicas.
  auto r = run_shell(fmt::format("{} sweep {} --set replicas=3 -j 2 -q --out {} 2>&1", dcsim_binary(),
                                 shell_quote(source_path("scenarios/restart-checkpoint-sweep.json")),
                                 shell_quote(sweep.string())));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  r = run_shell(fmt::format("{} report {} --pareto gpus,goodput_frac --pareto interruptions,goodput_frac 2>&1",
                            dcsim_binary(), shell_quote(sweep.string())));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const fs::path page = sweep / "report.html";
  const std::string html = read_text(page);
  for (const char* banned : {"<script", "<link", "<img", "<iframe", "@import", "url(", "src=", "https:"})
    CHECK(html.find(banned) == std::string::npos);
  const std::string dom = load_and_shoot(dir, page, "sweep-report-screenshot.png", 2200);
  for (const char* id : {"sweep-facts", "sweep-metrics", "sweep-heatmap", "pareto", "sweep-table"})
    CHECK(dom.find(fmt::format("id=\"{}\"", id)) != std::string::npos);
  CHECK(dom.find("id=\"invalid-points\"") == std::string::npos); // every point is valid
  // goodput_frac against each key: 9 points, each with its interval from sweep.csv as an error bar.
  const auto sweep_csv = sim::read_csv_file(sweep / "sweep.csv");
  std::vector<double> lows;
  for (const auto& row : sweep_csv.rows)
    if (row[*sweep_csv.column("metric")] == "goodput_frac" && row[*sweep_csv.column("job")] == "pretrain")
      lows.push_back(std::stod(row[*sweep_csv.column("ci95_low")]));
  REQUIRE(lows.size() == 9);
  for (const char* id : {"sweep-goodput-frac-vs-operations-restart-s", "sweep-goodput-frac-vs-jobs-0-checkpoint-interval-s"}) {
    const std::string svg = svg_by_id(dom, id);
    INFO(id);
    CHECK(count(svg, "class=\"errorbar\"") == 9);
    CHECK(count(svg, "class=\"mean\"") == 9);
    CHECK(svg.find(fmt::format("data-low=\"{:.6g}\"", lows.front())) != std::string::npos);
    CHECK(chart_pixels(dir, html, svg).coloured > 300);
  }
  // Axes are what they claim. restart_s (120, 600, 1800 s) is numeric and spans more than a decade
  // unevenly: a log axis from 104 to 2,061 s (5% of its 1.18 decades as room at each end), ticks at 200,
  // 500, 1000, 2000 (under two decades: 2 × and 5 × 10^k added to the decade), their
  // positions and the means' proportional to log10 of the value; the checkpoint interval (auto, 600,
  // 7200) has a word among its values: categories, evenly spaced, no numeric ticks.
  {
    const std::string by_restart = svg_by_id(dom, "sweep-goodput-frac-vs-operations-restart-s");
    CHECK(by_restart.find("class=\"chart x-log\"") != std::string::npos);
    const auto ticks = test::ticks_of(by_restart, "xtick");
    std::vector<double> values;
    for (const auto& [v, pos] : ticks)
      values.push_back(v);
    CHECK(values == std::vector<double>{200, 500, 1000, 2000});
    auto points = test::marks_of(by_restart);
    CHECK(points.size() == 9);
    points.insert(points.end(), ticks.begin(), ticks.end());
    CHECK(test::affine_in(points, test::log10_of));
    CHECK_FALSE(test::affine_in(points, test::linear_of)); // the check can fail: not a linear axis
    CHECK(test::affine_in(test::ticks_of(by_restart, "ytick"), test::linear_of));
    for (const auto& [v, pos] : test::ticks_of(by_restart, "ytick"))
      CHECK(v <= 1); // goodput_frac's axis ends at 1 at most
    const std::string by_interval = svg_by_id(dom, "sweep-goodput-frac-vs-jobs-0-checkpoint-interval-s");
    CHECK(by_interval.find("class=\"chart x-categorical\"") != std::string::npos);
    CHECK(test::ticks_of(by_interval, "xtick").empty());
    // No interval is drawn past 1 (sweep.csv keeps the unclipped Student t bound).
    const std::regex high("data-high=\"([^\"]+)\"");
    for (const std::string& svg : {by_restart, by_interval})
      for (auto it = std::sregex_iterator(svg.begin(), svg.end(), high); it != std::sregex_iterator(); ++it)
        CHECK(std::stod((*it)[1].str()) <= 1);
  }
  // Two keys vary: a heatmap of 3 × 3 cells, each with its mean written in it.
  const std::string heat = svg_by_id(dom, "heatmap-goodput-frac-pretrain");
  CHECK(count(heat, "class=\"cell\"") == 9);
  CHECK(chart_pixels(dir, html, heat).coloured > 5000);
  // The Pareto front against GPUs: every point has 1,296 GPUs, so the front is the best point.
  const std::string pareto = svg_by_id(dom, "pareto-gpus-vs-goodput-frac"); // chosen with --pareto
  CHECK(count(pareto, "class=\"front-point\"") >= 1);
  CHECK(count(pareto, "class=\"front-point\"") + count(pareto, "class=\"dominated\"") == 9);
  CHECK(chart_pixels(dir, html, pareto).coloured > 100);
  // The front over two metrics chosen on the command line: pretrain's interruptions (fewer better; the
  // cluster has none) against the cluster's goodput_frac. The front points are exactly the points no other
  // beats on both, computed here from sweep.csv; its axes are linear (interruptions do not span decades).
  {
    std::map<std::string, double> interruptions, goodput; // by point
    for (const auto& row : sweep_csv.rows) {
      const std::string point = row[*sweep_csv.column("point")], job = row[*sweep_csv.column("job")],
                        metric = row[*sweep_csv.column("metric")];
      if (job == "pretrain" && metric == "interruptions") interruptions[point] = std::stod(row[*sweep_csv.column("mean")]);
      if (job == "cluster" && metric == "goodput_frac") goodput[point] = std::stod(row[*sweep_csv.column("mean")]);
    }
    REQUIRE(interruptions.size() == 9);
    int expected_front = 0;
    for (const auto& [p, x] : interruptions) {
      bool dominated = false;
      for (const auto& [q, y] : interruptions)
        dominated = dominated || (q != p && y <= x && goodput[q] >= goodput[p] && (y < x || goodput[q] > goodput[p]));
      expected_front += dominated ? 0 : 1;
    }
    const std::string chosen = svg_by_id(dom, "pareto-interruptions-vs-goodput-frac");
    CHECK(chosen.find("x-linear y-linear") != std::string::npos);
    CHECK(count(chosen, "class=\"front-point\"") == expected_front);
    CHECK(count(chosen, "class=\"front-point\"") + count(chosen, "class=\"dominated\"") == 9);
    CHECK(test::affine_in(test::ticks_of(chosen, "xtick"), test::linear_of));
    auto marks = test::marks_of(chosen);
    const auto xt = test::ticks_of(chosen, "xtick");
    marks.insert(marks.end(), xt.begin(), xt.end());
    CHECK(test::affine_in(marks, test::linear_of));
  }
  // A metric without a better direction cannot make a front.
  CHECK(run_shell(fmt::format("{} report {} --pareto checkpoint_interval_s,goodput_frac 2>&1", dcsim_binary(),
                              shell_quote(sweep.string())))
            .output.find("--pareto: checkpoint_interval_s has no better direction") != std::string::npos);
  // The pixel check can fail: the same kind of chart without marks has no coloured pixel.
  tools::svg::IntervalChart empty{"empty", "no data", "x", "y", {"a", "b"}, {}};
  CHECK(chart_pixels(dir, html, tools::svg::interval_chart(empty)).coloured == 0);

  // The compare page of two points that share their seed: the paired test and its p-value.
  const fs::path compare_page = dir / "compare.html";
  r = run_shell(fmt::format("{} compare {} {} --json --metric goodput_frac=0.5% --report {}", dcsim_binary(),
                            shell_quote((sweep / "points/point-000").string()),
                            shell_quote((sweep / "points/point-003").string()), shell_quote(compare_page.string())));
  INFO(r.output);
  REQUIRE((r.exit_code == 0 || r.exit_code == 5));
  const auto json = nlohmann::json::parse(r.output);
  double p_goodput = -1;
  for (const auto& row : json.at("rows"))
    if (row.at("job") == "pretrain" && row.at("metric") == "goodput_frac") p_goodput = row.at("p_value").get<double>();
  REQUIRE(p_goodput >= 0);
  const std::string compare_dom = load_and_shoot(dir, compare_page, "compare-screenshot.png", 1600);
  CHECK(compare_dom.find("<th>p-value</th>") != std::string::npos);
  CHECK(compare_dom.find("Test: paired t-test") != std::string::npos);
  const auto goodput_row = compare_dom.find("<td class=\"metric\">goodput_frac</td>");
  REQUIRE(goodput_row != std::string::npos);
  CHECK(compare_dom.substr(goodput_row, compare_dom.find("</tr>", goodput_row) - goodput_row)
            .find(fmt::format("<td>{:.4f}</td>", p_goodput)) != std::string::npos);
  // One panel per metric, each on its own scale: the gated goodput_frac rows first; every panel's ticks
  // proportional to their values; a fraction's panel never past 1, its intervals clipped.
  CHECK(count(compare_dom, "class=\"chart compare-panel\"") >= 20);
  const auto first_panel = compare_dom.find("class=\"chart compare-panel\"");
  CHECK(compare_dom.substr(first_panel, 200).find("-goodput-frac\"") != std::string::npos);
  const std::string goodput_panel = svg_by_id(compare_dom, "compare-panel-pretrain-goodput-frac");
  const std::string interruptions_panel = svg_by_id(compare_dom, "compare-panel-pretrain-interruptions");
  for (const std::string& panel : {goodput_panel, interruptions_panel}) {
    CHECK(count(panel, "class=\"errorbar\"") == 2);
    CHECK(test::affine_in(test::ticks_of(panel, "xtick"), test::linear_of));
  }
  for (const auto& [v, pos] : test::ticks_of(goodput_panel, "xtick"))
    CHECK((v > 0.5 && v <= 1)); // its own scale: near the values, not from 0 as a shared scale would be
  CHECK(goodput_panel.find("class=\"limit\"") != std::string::npos); // the gate's tolerance limit
  CHECK(chart_pixels(dir, read_text(compare_page), goodput_panel).coloured > 50);
}

TEST_CASE("sweep report lists the points --skip-invalid skipped, and a Pareto front over GPUs",
          "[scenario][workflow][report]") {
  const fs::path dir = test::fresh_test_dir("sweep-report-invalid");
  const fs::path sweep = dir / "sweep";
  // 10 racks leave 8 that are not spares: too few for the 1,024-GPU job; 18 and 20 racks run.
  // With a cost block (defaults): cost metrics, so a second Pareto front, against cost_total_usd.
  auto r = run_shell(fmt::format("{} sweep {} --vary cluster.racks=10,18,20 --skip-invalid --set replicas=2 --set 'cost={{}}' "
                                 "-j 2 -q --out {} 2>&1",
                                 dcsim_binary(), shell_quote(source_path("scenarios/default.json")), shell_quote(sweep.string())));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  r = run_shell(fmt::format("{} report {} --metric goodput_frac --metric interruptions 2>&1", dcsim_binary(),
                            shell_quote(sweep.string())));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const std::string html = read_text(sweep / "report.html");
  const auto invalid = html.find("id=\"invalid-points\"");
  REQUIRE(invalid != std::string::npos);
  CHECK(html.find("<td>0</td><td>10</td><td class=\"metric\">", invalid) != std::string::npos);
  CHECK(html.find("only 8 of the cluster&#39;s 10 are not spares", invalid) != std::string::npos);
  CHECK(html.find("id=\"sweep-heatmap\"") == std::string::npos); // one key varies
  CHECK(html.find("id=\"sweep-interruptions-vs-cluster-racks\"") != std::string::npos);
  // Two valid points, two categories: point 0 is not plotted.
  CHECK(count(svg_by_id(html, "sweep-goodput-frac-vs-cluster-racks"), "class=\"mean\"") == 2);
  // Pareto over GPUs: 18 racks of 72 GPUs (1,296) and 20 racks (1,440), each at its goodput.
  const std::string pareto = svg_by_id(html, "pareto-gpus");
  CHECK(pareto.find("data-x=\"1296\"") != std::string::npos);
  CHECK(pareto.find("data-x=\"1440\"") != std::string::npos);
  // Against cost: the two points at their cluster cost_total_usd means from sweep.csv.
  const std::string cost = svg_by_id(html, "pareto-cost");
  CHECK(count(cost, "class=\"front-point\"") + count(cost, "class=\"dominated\"") == 2);
  const auto sweep_csv = sim::read_csv_file(sweep / "sweep.csv");
  for (const auto& row : sweep_csv.rows)
    if (row[*sweep_csv.column("job")] == "cluster" && row[*sweep_csv.column("metric")] == "cost_total_usd")
      CHECK(cost.find(fmt::format("data-x=\"{:.6g}\"", std::stod(row[*sweep_csv.column("mean")]))) != std::string::npos);
  // Running the sweep again (--force: the folder holds an earlier sweep) removes the report of the earlier
  // sweep.csv.
  REQUIRE(fs::exists(sweep / "report.html"));
  r = run_shell(fmt::format("{} sweep {} --vary cluster.racks=10,18,20 --skip-invalid --set replicas=2 --set 'cost={{}}' -j 2 -q --force --out {} 2>&1",
                            dcsim_binary(), shell_quote(source_path("scenarios/default.json")), shell_quote(sweep.string())));
  CHECK(r.exit_code == 0);
  CHECK_FALSE(fs::exists(sweep / "report.html"));
  REQUIRE(run_shell(fmt::format("{} report {}", dcsim_binary(), shell_quote(sweep.string()))).exit_code == 0);
  // An unknown metric is an error naming it.
  r = run_shell(fmt::format("{} report {} --metric no_such_metric 2>&1", dcsim_binary(), shell_quote(sweep.string())));
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("no metric no_such_metric") != std::string::npos);
}

TEST_CASE("sweep report: keys zipped together make no series of each other", "[scenario][workflow][report]") {
  const fs::path dir = test::fresh_test_dir("sweep-report-zip");
  const fs::path sweep = dir / "sweep";
  // restart_s and repair_crews vary together (2 values), checkpoint interval across them: 4 points.
  auto r = run_shell(fmt::format("{} sweep {} --zip operations.restart_s=120,1800 --zip operations.repair_crews=2,4 "
                                 "--vary jobs.0.checkpoint.interval_s=auto,7200 --set replicas=2 -j 2 -q --out {} 2>&1",
                                 dcsim_binary(), shell_quote(source_path("scenarios/default.json")), shell_quote(sweep.string())));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  REQUIRE(run_shell(fmt::format("{} report {}", dcsim_binary(), shell_quote(sweep.string()))).exit_code == 0);
  const std::string html = read_text(sweep / "report.html");
  // Against restart_s: one series per checkpoint interval (2), not per (crews, interval) pair.
  const std::string by_restart = svg_by_id(html, "sweep-goodput-frac-vs-operations-restart-s");
  CHECK(count(by_restart, "class=\"mean\"") == 4);
  CHECK(by_restart.find(">jobs.0.checkpoint.interval_s=auto<") != std::string::npos);
  CHECK(by_restart.find("repair_crews=") == std::string::npos);
  // Against the interval: one series per (restart_s, crews) pair, which vary together.
  const std::string by_interval = svg_by_id(html, "sweep-goodput-frac-vs-jobs-0-checkpoint-interval-s");
  CHECK(by_interval.find(">operations.restart_s=120, operations.repair_crews=2<") != std::string::npos);
  CHECK(html.find("id=\"sweep-heatmap\"") == std::string::npos); // three keys vary
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
                                       shell_quote(source_path("tools/notebooks/" + name + ".ipynb"))));
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
  // restart-checkpoint-sweep.json: 3 restart times x 3 checkpoint intervals, 3 replicas each; its outputs
  // compressed (zstd), which the notebook reads as plain ones (the goodput notebook reads a plain run).
  const auto s = run_shell(fmt::format("{} sweep {} -q -j 2 --replicas 3 --compress zstd --out {} 2>&1", dcsim_binary(),
                                       shell_quote(source_path("scenarios/restart-checkpoint-sweep.json")),
                                       shell_quote((dir / "rcs").string())));
  INFO(s.output);
  REQUIRE(s.exit_code == 0);
  REQUIRE(fs::exists(dir / "rcs" / "sweep.csv.zst"));
  const ExecutedNotebook nb = execute_notebook(dir, "sweep", "DCSIM_SWEEP=rcs");
  INFO(nb.text);
  CHECK(nb.errors == 0);
  CHECK(nb.images == 5); // goodput against each of the 2 keys, one heatmap, the best and worst points
  CHECK(nb.text.find("rcs: 9 points, varied keys ['operations.restart_s', 'jobs.0.checkpoint.interval_s'], "
                     "jobs ['pretrain'], 3 to 3 replicas per point") != std::string::npos);
  // The best point has the highest mean goodput_frac of sweep.csv (the notebook ranks from it).
  CHECK(nb.text.find("best goodput_frac of pretrain: point ") != std::string::npos);
}

TEST_CASE("report splits a restart in parts in the GPU-time waterfall", "[scenario][workflow][report]") {
  const fs::path dir = test::fresh_test_dir("report-restart-parts");
  const fs::path run = dir / "run";
  auto r = run_shell(fmt::format("{} run {} --replicas 2 -j 2 -q --out {} 2>&1", dcsim_binary(),
                                 shell_quote(source_path("scenarios/recovery-tiers.json")), shell_quote(run.string())));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  r = run_shell(fmt::format("{} report {} 2>&1", dcsim_binary(), shell_quote(run.string())));
  REQUIRE(r.exit_code == 0);
  const std::string html = read_text(run / "report.html");
  const std::string job = svg_by_id(html, "waterfall-pretrain");
  for (const char* part : {"restart: reschedule", "restart: init", "restart: load"})
    CHECK(job.find(part) != std::string::npos);
  CHECK(job.find(">restart<") == std::string::npos); // replaced by its parts
  // The cluster has no restart parts: its restart stays one step.
  CHECK(svg_by_id(html, "waterfall-cluster").find("restart: init") == std::string::npos);
}
