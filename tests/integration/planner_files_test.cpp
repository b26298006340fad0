// Issue 25, through the dcsim binary: nothing of the planner's is deleted or written through a link,
// memory-hungry inputs end with a clear message before they take the machine, and every value of a
// scenario survives into a sweep point or is rejected.
#include "sim/json_reader.hpp"
#include "tests/support/shell.hpp"
#include "tools/dcsim/completion.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <algorithm>
#include <fstream>
#include <sstream>
#include <vector>
#include <string>

#include <unistd.h>

namespace fs = std::filesystem;
using namespace dcsim;
using test::dcsim_binary;
using test::read_text;
using test::run_shell;
using test::shell_quote;
using test::source_path;

namespace {

/// A small, fast run of default.json (4 replicas of 2,000 h) into `out`, with extra options.
test::CommandResult small_run(const fs::path& out, const std::string& extra = "") {
  return run_shell(fmt::format("{} run {} --replicas 4 --set duration_h=2000 -j 2 -q --out {} {} 2>&1",
                               dcsim_binary(), shell_quote(source_path("scenarios/default.json")),
                               shell_quote(out.string()), extra));
}

/// A two-point sweep of default.json (2 replicas of 2,000 h each) into `out`, with extra options.
test::CommandResult small_sweep(const fs::path& out, const std::string& extra = "") {
  return run_shell(fmt::format("{} sweep {} --vary operations.spare_racks=0,2 --replicas 2 --set duration_h=2000 -j 2 "
                               "-q --out {} {} 2>&1",
                               dcsim_binary(), shell_quote(source_path("scenarios/default.json")),
                               shell_quote(out.string()), extra));
}

void write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

/// default.json's document, with `edit` applied, written to `path`.
template <class Edit>
void write_scenario(const fs::path& path, Edit edit) {
  sim::Problems problems;
  sim::Json doc = sim::parse_json_text(read_text(source_path("scenarios/default.json")), problems);
  REQUIRE(problems.empty());
  edit(doc);
  write(path, doc.dump(2));
}

} // namespace

TEST_CASE("a TMPDIR folder that looks stale but was not provably left by dcsim survives a run",
          "[scenario][workflow][outputs]") {
  const fs::path dir = test::fresh_test_dir("foreign-tmp");
  const fs::path tmp = dir / "tmp";
  fs::create_directories(tmp / "dcsim-123-x");
  write(tmp / "dcsim-123-x" / "data", "someone else's\n");
  if (::geteuid() == 0) REQUIRE(::chown((tmp / "dcsim-123-x").c_str(), 65534, 65534) == 0); // another owner
  fs::last_write_time(tmp / "dcsim-123-x", fs::file_time_type::clock::now() - std::chrono::hours(1));
  const auto r = run_shell(fmt::format("TMPDIR={} {} run {} --replicas 2 --set duration_h=1000 -j 2 -q --out {} 2>&1",
                                       shell_quote(tmp.string()), dcsim_binary(),
                                       shell_quote(source_path("scenarios/default.json")),
                                       shell_quote((dir / "out").string())));
  CHECK(r.exit_code == 0);
  CHECK(read_text(tmp / "dcsim-123-x" / "data") == "someone else's\n");
}

TEST_CASE("run --force deletes no file its folder's manifest does not list: it refuses, naming them",
          "[scenario][workflow][outputs]") {
  const fs::path dir = test::fresh_test_dir("force-foreign");
  const fs::path out = dir / "out";
  REQUIRE(small_run(out).exit_code == 0);
  const std::string summary = read_text(out / "summary.csv");
  write(out / "notes.txt", "my notes\n");
  fs::create_directories(out / "mine");
  write(out / "mine" / "plot.py", "print(1)\n");
  const auto r = small_run(out, "--force");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("holds \"mine\", \"notes.txt\", which are not listed in its complete.json as dcsim outputs") !=
        std::string::npos);
  CHECK(read_text(out / "notes.txt") == "my notes\n");
  CHECK(read_text(out / "mine" / "plot.py") == "print(1)\n");
  CHECK(read_text(out / "summary.csv") == summary); // the earlier run stays whole
  // Once the planner moves them, --force replaces the folder (report.html, dcsim's, goes with it).
  fs::remove(out / "notes.txt");
  fs::remove_all(out / "mine");
  write(out / "report.html", "<html></html>\n");
  CHECK(small_run(out, "--force").exit_code == 0);
  CHECK_FALSE(fs::exists(out / "report.html"));
}

TEST_CASE("a sweep writes nothing through a link at OUT/points or a point folder, and deletes no foreign file",
          "[scenario][workflow][outputs]") {
  const fs::path dir = test::fresh_test_dir("sweep-links");
  const fs::path out = dir / "out", elsewhere = dir / "elsewhere";
  fs::create_directories(elsewhere);
  fs::create_directories(out);
  fs::create_directory_symlink(elsewhere, out / "points");
  auto r = small_sweep(out, "--force");
  CHECK(r.exit_code == 2);
  CHECK(r.output == fmt::format("dcsim sweep: {}: is a symbolic link: dcsim writes no output through a link\n",
                                (out / "points").string()));
  CHECK(fs::is_empty(elsewhere));

  // A link at a point folder, to a folder holding a complete.json: neither followed nor deleted.
  fs::remove(out / "points");
  fs::create_directories(out / "points");
  write(elsewhere / "complete.json", "{\"files\": []}\n");
  fs::create_directory_symlink(elsewhere, out / "points" / "point-000");
  r = small_sweep(out, "--force");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("point-000: is a symbolic link") != std::string::npos);
  CHECK(read_text(elsewhere / "complete.json") == "{\"files\": []}\n");

  // A folder with an earlier sweep's outputs needs --force (or --resume); a foreign file in a point
  // folder is never deleted.
  fs::remove_all(out);
  REQUIRE(small_sweep(out).exit_code == 0);
  r = small_sweep(out);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("holds an earlier sweep's outputs (or other files): give --resume") != std::string::npos);
  write(out / "points" / "point-000" / "notes.txt", "mine\n");
  r = small_sweep(out, "--force");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("holds \"notes.txt\", which is not listed in its complete.json") != std::string::npos);
  CHECK(read_text(out / "points" / "point-000" / "notes.txt") == "mine\n");
  fs::remove(out / "points" / "point-000" / "notes.txt");
  CHECK(small_sweep(out, "--force").exit_code == 0);
}

// Under a 4 GB address-space limit, inputs whose events would fill memory end with a message naming the
// key and the figure (exit 3), not an abort: they are refused before anything runs.
TEST_CASE("memory-hungry scenarios and sweeps end with a clear message under a 4 GB address-space limit",
          "[scenario][workflow][limits]") {
  const fs::path dir = test::fresh_test_dir("memory-budget");
  const std::string limit = "ulimit -v 4000000;";
  // 1. A 2 ms checkpoint interval on a job without a step time (continuous progress).
  write_scenario(dir / "checkpoints.json", [](sim::Json& doc) {
    doc["jobs"][0].erase("step_time_s");
    doc["jobs"][0].erase("model_flops_per_step");
    doc["jobs"][0]["checkpoint"]["interval_s"] = 0.002;
  });
  auto r = run_shell(fmt::format("{} {} run {} -q --out {} 2>&1", limit, dcsim_binary(),
                                 shell_quote((dir / "checkpoints.json").string()), shell_quote((dir / "a").string())));
  INFO(r.output);
  CHECK(r.exit_code == 3);
  CHECK(r.output.find("/jobs/0/checkpoint/interval_s: about 6e+08 checkpoints per replica (one every 0.002 s "
                      "over duration_h 336)") != std::string::npos);
  CHECK(r.output.find("GB of memory") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "a"));
  // 2. duration_h 10^6 with the default replicas.
  r = run_shell(fmt::format("{} {} run {} --set duration_h=1e6 -q --out {} 2>&1", limit, dcsim_binary(),
                            shell_quote(source_path("scenarios/default.json")), shell_quote((dir / "b").string())));
  INFO(r.output);
  CHECK(r.exit_code == 3);
  CHECK(r.output.find("duration_h 1000000") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "b"));
  // 3. 1,000,000 points: 1,000 seeds x 1,000 replica counts of hopper-1k-recovery.json (its own sweep
  // block emptied). The plan streams its points, but sweep.csv keeps each point's rows: 10^6 x (64 + 2 x
  // 2 x 2080) bytes (one job and the cluster, resource_budget.hpp), about 8.4 GB over the 2 GB budget.
  r = run_shell(fmt::format("{} {} sweep {} --set 'sweep={{}}' --vary seed=$(seq -s, 1 1000) --vary replicas=$(seq -s, 1 1000) -q "
                            "--out {} 2>&1",
                            limit, dcsim_binary(), shell_quote(source_path("scenarios/hopper-1k-recovery.json")),
                            shell_quote((dir / "c").string())));
  INFO(r.output);
  CHECK(r.exit_code == 3);
  CHECK(r.output.find("plan of 1000000 points (8384 bytes kept per point, sweep.csv rows included) would need "
                      "about 8.4 GB") != std::string::npos);
  CHECK(r.output.find("or run it in shards (--shard)") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "c"));
}

// A sweep's plan streams its points (sweep.hpp): 10^6 points are each built, decoded and checked one at a
// time, under a 4 GB address-space limit (measured: 41 MB resident). Materialised, as plans were before
// (every point's document and Scenario up front), points took about 18 kB each on hopper-1k-recovery.json
// and a sweep was limited to 10^5 points. One shard of 999,999 runs two points (0 and 999,999); every
// point is validated.
TEST_CASE("a 10^6-point sweep plans in bounded memory", "[scenario][workflow][limits]") {
  const fs::path dir = test::fresh_test_dir("sweep-million");
  // A small cluster with one job and one failure mode: each point decodes in tens of microseconds.
  write(dir / "t.json", R"({"name": "t", "replicas": 1, "duration_h": 24, "cluster": {"racks": 2},
    "hardware": {"gpu": {"model": "rubin"}, "rack": {"kind": "nvl72"}},
    "failures": {"modes": [{"name": "gpu", "scope": "gpu", "mtbf_h": 50000}]},
    "jobs": [{"name": "j", "gpus": 72, "step_time_s": 1, "model_flops_per_step": 1e15}]})");
  const auto r = run_shell(fmt::format(
      "ulimit -v 4000000; {} sweep {} --vary seed=$(seq -s, 1 1000) --vary duration_h=$(seq -s, 1 1000) -q -j 1 "
      "--shard 1/999999 --out {} 2>&1",
      dcsim_binary(), shell_quote((dir / "t.json").string()), shell_quote((dir / "out").string())));
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("sweep t: 1000000 points (2 varied keys), shard 1/999999: 2 points, 2 to run") !=
        std::string::npos);
  std::vector<std::string> points;
  for (const auto& e : fs::directory_iterator(dir / "out" / "points"))
    points.push_back(e.path().filename().string());
  std::sort(points.begin(), points.end());
  CHECK(points == std::vector<std::string>{"point-000000", "point-999999"});
  // The last point is the last seed with the last duration (first axis slowest).
  const auto last = sim::Json::parse(read_text(dir / "out" / "points" / "point-999999" / "scenario.json"));
  CHECK(last.at("seed") == 1000);
  CHECK(last.at("duration_h") == 1000);
}

TEST_CASE("a sweep point carries the scenario's trace files as a run does", "[scenario][workflow][traces]") {
  const fs::path dir = test::fresh_test_dir("sweep-traces");
  fs::copy_file(source_path("scenarios/cooling-heatwave.json"), dir / "s.json");
  fs::copy_file(source_path("scenarios/heatwave-facility-water.csv"), dir / "heatwave-facility-water.csv");
  const std::string s = shell_quote((dir / "s.json").string());
  auto r = run_shell(fmt::format("{} run {} --replicas 2 -j 2 -q --out {} 2>&1", dcsim_binary(), s,
                                 shell_quote((dir / "run").string())));
  REQUIRE(r.exit_code == 0);
  r = run_shell(fmt::format("{} sweep {} --vary replicas=2 -j 2 -q --out {} 2>&1", dcsim_binary(), s,
                            shell_quote((dir / "sweep").string())));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(read_text(dir / "sweep" / "points" / "point-000" / "summary.csv") == read_text(dir / "run" / "summary.csv"));
}

TEST_CASE("a trace row with an infinite or NaN time or value is a located error", "[scenario][bad_input][traces]") {
  const fs::path dir = test::fresh_test_dir("trace-inf");
  fs::copy_file(source_path("scenarios/cooling-heatwave.json"), dir / "s.json");
  for (const std::string cell : {"inf", "Infinity", "nan", "-inf"}) {
    write(dir / "heatwave-facility-water.csv", "time_h,facility_water_c\n0,30\n" + cell + ",31\n");
    auto r = run_shell(fmt::format("{} validate {} 2>&1", dcsim_binary(), shell_quote((dir / "s.json").string())));
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("heatwave-facility-water.csv line 3: time_h must be a finite number") != std::string::npos);
    write(dir / "heatwave-facility-water.csv", "time_h,facility_water_c\n0,30\n1," + cell + "\n");
    r = run_shell(fmt::format("{} validate {} 2>&1", dcsim_binary(), shell_quote((dir / "s.json").string())));
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("line 3: facility_water_c must be a finite number") != std::string::npos);
  }
}

namespace {

/// The comma-separated cells of a CSV line (no quoting in these files), empty ones kept.
std::vector<std::string> cells_of(const std::string& line) {
  std::vector<std::string> cells(1);
  for (char c : line) {
    if (c == ',')
      cells.emplace_back();
    else
      cells.back().push_back(c);
  }
  return cells;
}

std::string joined(const std::vector<std::string>& cells) {
  std::string line;
  for (std::size_t i = 0; i < cells.size(); ++i)
    line += (i ? "," : "") + cells[i];
  return line;
}

/// Replaces every `metric` value of `job` in summary.csv (mean and interval) and replicas.csv with `value`,
/// then rewrites the folder's completion marker, as if a run had produced it.
void set_metric(const fs::path& dir, const std::string& job, const std::string& metric, const std::string& value) {
  std::string summary, replicas, line;
  std::istringstream in(read_text(dir / "summary.csv"));
  while (std::getline(in, line)) { // scenario,job,metric,mean,ci95_low,ci95_high,replicas
    auto cells = cells_of(line);
    if (cells.size() > 5 && cells[1] == job && cells[2] == metric) cells[3] = cells[4] = cells[5] = value;
    summary += joined(cells) + "\n";
  }
  std::istringstream rin(read_text(dir / "replicas.csv"));
  std::size_t column = 0;
  for (int row = 0; std::getline(rin, line); ++row) { // replica,job,<metrics>
    auto cells = cells_of(line);
    if (row == 0)
      column = static_cast<std::size_t>(std::find(cells.begin(), cells.end(), metric) - cells.begin());
    else if (cells[1] == job)
      cells.at(column) = value;
    replicas += joined(cells) + "\n";
  }
  write(dir / "summary.csv", summary);
  write(dir / "replicas.csv", replicas);
  tools::write_completion_marker(dir);
}

} // namespace

TEST_CASE("compare: infinite metrics are judged without a test, seedless runs say why they are not paired, "
          "--exact reports then exits 5",
          "[scenario][workflow][compare]") {
  const fs::path dir = test::fresh_test_dir("compare-hostile");
  REQUIRE(small_run(dir / "a").exit_code == 0);
  REQUIRE(small_run(dir / "b").exit_code == 0);
  REQUIRE(read_text(dir / "a" / "replicas.csv").rfind("replica,job,", 0) == 0);
  // The baseline's goodput was infinite: a finite candidate is certainly worse (higher is better).
  fs::copy(dir / "a", dir / "inf");
  set_metric(dir / "inf", "pretrain", "goodput_frac", "inf");
  auto r = run_shell(fmt::format("{} compare {} {} --report {} 2>&1", dcsim_binary(),
                                 shell_quote((dir / "inf").string()), shell_quote((dir / "b").string()),
                                 shell_quote((dir / "page.html").string())));
  INFO(r.output);
  CHECK(r.exit_code == 5);  // a regression
  CHECK(r.output.find("REGRESSION (infinite)") != std::string::npos);
  CHECK(fs::exists(dir / "page.html"));
  r = run_shell(fmt::format("{} compare {} {} 2>&1", dcsim_binary(), shell_quote((dir / "b").string()),
                            shell_quote((dir / "inf").string())));
  CHECK(r.exit_code == 0); // the other way round it improved
  CHECK(r.output.find("improved") != std::string::npos);
  // A scenario without a seed: the table says why the replicas are not paired.
  write_scenario(dir / "seedless.json", [](sim::Json& doc) { doc.erase("seed"); });
  for (const char* out : {"c", "d"})
    REQUIRE(run_shell(fmt::format("{} run {} --replicas 4 --set duration_h=2000 -j 2 -q --out {} 2>&1", dcsim_binary(),
                                  shell_quote((dir / "seedless.json").string()), shell_quote((dir / out).string())))
                .exit_code == 0);
  r = run_shell(fmt::format("{} compare {} {} 2>&1", dcsim_binary(), shell_quote((dir / "c").string()),
                            shell_quote((dir / "d").string())));
  CHECK(r.output.find("note: replicas cannot be paired: the baseline's and the candidate's scenario.json records "
                      "no seed") != std::string::npos);
  r = run_shell(fmt::format("{} compare --test paired {} {} 2>&1", dcsim_binary(), shell_quote((dir / "c").string()),
                            shell_quote((dir / "d").string())));
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("--test paired: replicas cannot be paired") != std::string::npos);
  // --exact: every difference listed, then a count, exit 5 (a difference is a regression).
  r = run_shell(fmt::format("{} compare --exact {} {} 2>&1", dcsim_binary(), shell_quote((dir / "a").string()),
                            shell_quote((dir / "inf").string())));
  CHECK(r.exit_code == 5);
  CHECK(r.output == "replicas.csv: differs (" + std::to_string(fs::file_size(dir / "a" / "replicas.csv")) + " and " +
                        std::to_string(fs::file_size(dir / "inf" / "replicas.csv")) + " bytes)\nsummary.csv: differs (" +
                        std::to_string(fs::file_size(dir / "a" / "summary.csv")) + " and " +
                        std::to_string(fs::file_size(dir / "inf" / "summary.csv")) +
                        " bytes)\n2 files differ: not identical (exit 5)\n");
}
