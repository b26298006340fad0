// The planner's workflow end to end, through the dcsim binary: sweeps (killed and resumed), compare
// (its regression rule and the golden outputs of CI), and the JSON Schema against every scenario.
#include "sim/csv_reader.hpp"
#include "sim/json_reader.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/simulate.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>

namespace fs = std::filesystem;
using namespace dcsim;
using test::dcsim_binary;
using test::read_text;
using test::run_shell;
using test::shell_quote;
using test::source_path;

extern char** environ;

namespace {

// 2 × 3 points of 4 replicas; 2,000 simulated hours make a point last ~0.3 s on one core, so a kill
// lands in the middle of the sweep.
const std::vector<std::string> SWEEP_ARGS = {"sweep",      source_path("scenarios/default.json"),
                                             "--vary",     "operations.spare_racks=0,2",
                                             "--vary",     "hardware.rack.spare_gpus=0,4,8",
                                             "--replicas", "4",
                                             "--set",      "duration_h=2000",
                                             "-j",         "1"};

std::string sweep_command(const fs::path& out, const std::string& extra = "") {
  std::string cmd = dcsim_binary();
  for (const auto& a : SWEEP_ARGS)
    cmd += " " + shell_quote(a);
  return cmd + " --out " + shell_quote(out.string()) + " " + extra;
}

int complete_points(const fs::path& out) {
  int n = 0;
  std::error_code ec;
  if (!fs::exists(out / "points")) return 0;
  for (const auto& e : fs::directory_iterator(out / "points", ec))
    if (fs::exists(e.path() / "complete.json")) ++n;
  return n;
}

struct FileId {
  ino_t inode = 0;
  std::int64_t mtime_ns = 0;
  bool operator==(const FileId&) const = default;
};
FileId file_id(const fs::path& p) {
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  return {st.st_ino, static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

} // namespace

TEST_CASE("a sweep killed half-way resumes without repeating finished points, same sweep.csv",
          "[scenario][workflow][sweep]") {
  const fs::path dir = test::fresh_test_dir("sweep-resume");
  const fs::path whole = dir / "uninterrupted", killed = dir / "killed";

  const auto t0 = std::chrono::steady_clock::now();
  const auto straight = run_shell(sweep_command(whole, "-q 2>&1"));
  const double straight_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  INFO(straight.output);
  REQUIRE(straight.exit_code == 0);
  REQUIRE(complete_points(whole) == 6);
  WARN(fmt::format("uninterrupted 2 x 3 x 4-replica sweep: {:.2f} s", straight_s));

  // Start the same sweep and kill it (SIGKILL: no chance to clean up) once two points are complete.
  std::vector<std::string> args{DCSIM_BINARY};
  for (const auto& a : SWEEP_ARGS)
    args.push_back(a);
  for (const auto& a : {std::string("--out"), killed.string(), std::string("-q")})
    args.push_back(a);
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  const std::string log = (dir / "killed.log").string();
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ) == 0);
  posix_spawn_file_actions_destroy(&actions);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (complete_points(killed) < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  REQUIRE(::kill(pid, SIGKILL) == 0);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFSIGNALED(status));
  std::this_thread::sleep_for(std::chrono::milliseconds(300)); // children end with their parent (PDEATHSIG)

  const int done_before = complete_points(killed);
  INFO("complete points when killed: " << done_before);
  REQUIRE(done_before >= 2);
  REQUIRE(done_before < 6); // really half-way
  CHECK_FALSE(fs::exists(killed / "sweep.csv"));
  // Points that look complete are complete: identical to the uninterrupted run's.
  std::map<std::string, FileId> finished;
  for (const auto& e : fs::directory_iterator(killed / "points")) {
    const std::string name = e.path().filename().string();
    if (!fs::exists(e.path() / "complete.json")) continue;
    CHECK(read_text(e.path() / "summary.csv") == read_text(whole / "points" / name / "summary.csv"));
    finished[name] = file_id(e.path() / "summary.csv");
  }

  const auto resumed = run_shell(sweep_command(killed, "--resume -q 2>&1"));
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  CHECK(resumed.output.find(fmt::format("{} already complete, {} to run", done_before, 6 - done_before)) !=
        std::string::npos);
  for (const auto& [name, id] : finished) { // not rewritten: same inode and modification time
    INFO(name);
    CHECK(file_id(killed / "points" / name / "summary.csv") == id);
  }
  CHECK(complete_points(killed) == 6);
  CHECK(read_text(killed / "sweep.csv") == read_text(whole / "sweep.csv"));

  // sweep.csv: one column per varied key, then the summary columns; 6 points' rows.
  const std::string csv = read_text(whole / "sweep.csv");
  CHECK(csv.rfind("point,operations.spare_racks,hardware.rack.spare_gpus,scenario,job,metric,mean,ci95_low,"
                  "ci95_high,replicas\n",
                  0) == 0);
  CHECK(csv.find("\n5,2,8,default,pretrain,goodput_frac,") != std::string::npos);

  // Resuming a finished sweep runs nothing and rewrites the same sweep.csv.
  const auto again = run_shell(sweep_command(killed, "--resume -q 2>&1"));
  CHECK(again.output.find("6 already complete, 0 to run") != std::string::npos);
  CHECK(read_text(killed / "sweep.csv") == read_text(whole / "sweep.csv"));
}

TEST_CASE("a sweep with one bad point reports it and runs nothing", "[scenario][workflow][sweep]") {
  const fs::path dir = test::fresh_test_dir("sweep-bad-point");
  const auto r = run_shell(fmt::format(
      "{} sweep {} --vary operations.spare_racks=1,17 --vary seed=1,2 --out {} 2>&1", dcsim_binary(),
      shell_quote(source_path("scenarios/default.json")), shell_quote((dir / "out").string())));
  CHECK(r.exit_code == 2);
  const std::string file = source_path("scenarios/default.json");
  for (int point : {2, 3})
    CHECK(r.output.find(
              fmt::format("{} (sweep point {}: operations.spare_racks=17, seed={}): /jobs/0/gpus: needs 16 "
                          "racks of 64 usable GPUs, but only 1 of the cluster's 18 are not spares (got 1024)",
                          file, point, point - 1)) != std::string::npos);
  CHECK(r.output.find("sweep point 0") == std::string::npos);
  CHECK_FALSE(fs::exists(dir / "out"));
}

TEST_CASE("compare: exit 5 on a significantly worse goodput, 0 on a re-run with another seed",
          "[scenario][workflow][compare]") {
  const fs::path dir = test::fresh_test_dir("compare");
  auto run = [&](const std::string& name, const std::string& args) {
    const auto r = run_shell(fmt::format("{} run {} -q -j 2 --out {} {} 2>&1", dcsim_binary(),
                                         shell_quote(source_path("scenarios/default.json")),
                                         shell_quote((dir / name).string()), args));
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
  };
  run("baseline", "--seed 1");
  run("reseeded", "--seed 2");
  // An hour to restart instead of ten minutes: each of ~6.6 interruptions costs 50 more minutes.
  run("slower-restart", "--seed 1 --set operations.restart_s=3600");

  const auto same = run_shell(fmt::format("{} compare {} {}", dcsim_binary(), (dir / "baseline").string(),
                                          (dir / "reseeded").string()));
  INFO(same.output);
  CHECK(same.exit_code == 0);
  CHECK(same.output.find("no regression") != std::string::npos);

  const auto worse = run_shell(fmt::format("{} compare {} {} --json", dcsim_binary(),
                                           (dir / "baseline").string(), (dir / "slower-restart").string()));
  CHECK(worse.exit_code == 5); // a regression: not 1, which is a failure of dcsim itself
  const auto j = nlohmann::json::parse(worse.output);
  CHECK(j.at("regressions").get<int>() > 0);
  bool seen = false;
  for (const auto& row : j.at("rows")) {
    if (row.at("job") != "pretrain" || row.at("metric") != "goodput_frac") continue;
    seen = true;
    CHECK(row.at("verdict") == "REGRESSION");
    CHECK(row.at("diff_frac").get<double>() < -0.01); // beyond the default 1% tolerance
    // non-overlapping 95% confidence intervals
    CHECK(row.at("candidate").at("ci95_high").get<double>() <
          row.at("baseline").at("ci95_low").get<double>());
    CHECK(row.at("p_adjusted").get<double>() < 0.05);
  }
  CHECK(seen);
  // A tolerance larger than the drop lets it pass.
  const auto tolerant =
      run_shell(fmt::format("{} compare {} {} --tolerance-frac 10", dcsim_binary(),
                            (dir / "baseline").string(), (dir / "slower-restart").string()));
  CHECK(tolerant.exit_code == 0);
  // Bad input: exit 2.
  CHECK(run_shell(fmt::format("{} compare {} {} 2>&1", dcsim_binary(), (dir / "baseline").string(),
                              (dir / "nowhere").string()))
            .exit_code == 2);
}

TEST_CASE("compare: runs sharing their seed are tested paired; gates; exact mode", "[scenario][workflow][compare]") {
  const fs::path dir = test::fresh_test_dir("compare-paired");
  auto run = [&](const std::string& name, const std::string& args) {
    const auto r = run_shell(fmt::format("{} run {} -q -j 2 --replicas 3 --out {} {} 2>&1", dcsim_binary(),
                                         shell_quote(source_path("scenarios/default.json")),
                                         shell_quote((dir / name).string()), args));
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
  };
  run("base", "--seed 7");
  run("again", "--seed 7");
  run("slower", "--seed 7 --set operations.restart_s=1200");
  run("other-seed", "--seed 8 --set operations.restart_s=1200");
  const auto compare = [&](const std::string& a, const std::string& b, const std::string& args) {
    return run_shell(fmt::format("{} compare {} {} {} 2>&1", dcsim_binary(), shell_quote((dir / a).string()),
                                 shell_quote((dir / b).string()), args));
  };

  // The paired p-value of goodput_frac, by hand from replicas.csv: 3 pairs, so 2 degrees of freedom,
  // where Student's t has a closed form: p = 1 − |t|/√(t² + 2), t = mean(d)/(s_d/√3).
  auto goodput = [&](const std::string& run_name) {
    const auto csv = sim::read_csv_file(dir / run_name / "replicas.csv");
    const auto job = csv.require_column("job", "replicas.csv"), g = csv.require_column("goodput_frac", "replicas.csv");
    std::vector<double> v;
    for (const auto& row : csv.rows)
      if (row[job] == "pretrain") v.push_back(std::stod(row[g]));
    return v;
  };
  const auto a = goodput("base"), b = goodput("slower");
  REQUIRE(a.size() == 3);
  double mean = 0;
  for (int i = 0; i < 3; ++i)
    mean += (b[static_cast<std::size_t>(i)] - a[static_cast<std::size_t>(i)]) / 3;
  double ss = 0;
  for (int i = 0; i < 3; ++i)
    ss += std::pow(b[static_cast<std::size_t>(i)] - a[static_cast<std::size_t>(i)] - mean, 2);
  const double t = mean / std::sqrt(ss / 2 / 3);
  const double p_hand = 1 - std::fabs(t) / std::sqrt(t * t + 2);
  const auto paired = compare("base", "slower", "--json");
  const auto j = nlohmann::json::parse(paired.output);
  CHECK(j.at("test") == "paired-two-sided-holm");
  bool seen = false;
  for (const auto& row : j.at("rows"))
    if (row.at("job") == "pretrain" && row.at("metric") == "goodput_frac") {
      seen = true;
      CHECK(row.at("paired").get<bool>());
      CHECK(row.at("p_value").get<double>() == Approx(p_hand).epsilon(1e-9));
    }
  CHECK(seen);
  // Other seeds: Welch's test.
  CHECK(nlohmann::json::parse(compare("base", "other-seed", "--json").output).at("test") == "welch-two-sided-holm");
  CHECK(compare("base", "other-seed", "--test paired").output.find(
            "--test paired: the runs do not share a seed (baseline 7, candidate 8)") != std::string::npos);

  // Gates: only goodput_frac can fail; 50% of its mean is more than 20 minutes of restart cost.
  const auto gated = compare("base", "slower", "--metric goodput_frac=50%");
  CHECK(gated.exit_code == 0);
  CHECK(gated.output.find("gates: goodput_frac 50%") != std::string::npos);
  CHECK(compare("base", "slower", "--metric no_such_metric=1").output.find(
            "dcsim compare: --metric no_such_metric: no such metric in either run") != std::string::npos);
  const auto bad = compare("base", "slower", "--metric goodput_frac=lots");
  CHECK(bad.exit_code == 2);
  CHECK(bad.output.find("--metric goodput_frac: the tolerance must be a number >= 0, or a percentage (got lots)") !=
        std::string::npos);

  // Exact mode: same scenario and seed are byte-identical (run.json aside); a change is listed.
  const auto same = compare("base", "again", "--exact");
  CHECK(same.exit_code == 0);
  CHECK(same.output == "identical: every output file is byte for byte the same\n");
  const auto differ = compare("base", "slower", "--exact");
  CHECK(differ.exit_code == 5);
  CHECK(differ.output.find("replicas.csv: differs") != std::string::npos);
}

TEST_CASE("run: run.json records provenance; an earlier run is replaced only with --force", "[scenario][workflow][outputs]") {
  const fs::path dir = test::fresh_test_dir("provenance");
  const fs::path out = dir / "out";
  const std::string cmd = fmt::format("{} run {} -q -j 2 --replicas 2 --seed 3 --out {}", dcsim_binary(),
                                      shell_quote(source_path("scenarios/default.json")), shell_quote(out.string()));
  REQUIRE(run_shell(cmd).exit_code == 0);
  const auto run = nlohmann::json::parse(read_text(out / "run.json"));
  CHECK(run.at("seed") == 3);
  CHECK(run.at("replicas") == 2);
  CHECK(run.at("dcsim_version") == "0.1.0");
  CHECK(run.at("command_line").at(1) == "run");
  CHECK(run.at("date_utc").get<std::string>().size() == 20);
  CHECK(run.at("git_commit").get<std::string>().size() >= 7);
  CHECK(read_text(out / "complete.json").find("run.json") == std::string::npos); // not an output: not listed
  // A stale report must not survive beside new outputs.
  { std::ofstream(out / "report.html") << "<html>an earlier run's report</html>"; }
  const auto refused = run_shell(cmd + " 2>&1");
  CHECK(refused.exit_code == 2);
  CHECK(refused.output == fmt::format("dcsim: {}: holds an earlier run's outputs: give --force to replace them (the "
                                      "whole folder), or another --out\n",
                                      out.string()));
  CHECK(fs::exists(out / "report.html"));
  REQUIRE(run_shell(cmd + " --force").exit_code == 0);
  CHECK_FALSE(fs::exists(out / "report.html"));
  CHECK(fs::exists(out / "run.json"));
}

namespace {

struct GoldenCase {
  std::string name, scenario, args;
  std::vector<std::string> files{"summary.csv", "replicas.csv", "scenario.json"}; ///< kept, compared
};

/// tests/golden/cases.txt: NAME SCENARIO [+FILE...] ARGS... per line, # comments.
std::vector<GoldenCase> golden_cases() {
  std::vector<GoldenCase> out;
  std::istringstream cases(read_text(source_path("tests/golden/cases.txt")));
  std::string line;
  while (std::getline(cases, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    GoldenCase c;
    std::string word;
    words >> c.name >> c.scenario;
    while (words >> word) {
      if (word[0] == '+')
        c.files.push_back(word.substr(1));
      else
        c.args += " " + word;
    }
    out.push_back(c);
  }
  return out;
}

/// "" when the two texts are equal, else where they first differ (line number and both lines).
std::string first_difference(const std::string& golden, const std::string& fresh) {
  if (golden == fresh) return "";
  std::istringstream a(golden), b(fresh);
  std::string la, lb;
  for (int line = 1;; ++line) {
    const bool more_a = static_cast<bool>(std::getline(a, la));
    const bool more_b = static_cast<bool>(std::getline(b, lb));
    if (!more_a && !more_b) return "the files differ in their line endings";
    if (la != lb || more_a != more_b)
      return fmt::format("first difference at line {}:\n  golden: {}\n  fresh:  {}", line,
                         more_a ? la : "(end of file)", more_b ? lb : "(end of file)");
  }
}

} // namespace

TEST_CASE("golden outputs: a fresh run of each reference case is byte-identical to tests/golden",
          "[scenario][workflow][golden]") {
  // Outputs are byte-deterministic (same seed, any -j: determinism_test), so a golden is compared exactly:
  // any change to any number of summary.csv, replicas.csv or scenario.json fails here, and is accepted
  // only by regenerating with tools/update-golden and committing the reviewed diff of tests/golden.
  const fs::path dir = test::fresh_test_dir("golden");
  int checked = 0;
  for (const auto& c : golden_cases()) {
    INFO(c.name);
    const fs::path golden = source_path("tests/golden/" + c.name);
    const auto run =
        run_shell(fmt::format("{} run {} -q -j 2 --out {}{} 2>&1", dcsim_binary(),
                              shell_quote(source_path(c.scenario)), shell_quote((dir / c.name).string()), c.args));
    if (run.exit_code != 0) FAIL("dcsim run exited with " << run.exit_code << ":\n" << run.output);
    for (const auto& file : c.files) {
      INFO(file);
      REQUIRE(fs::exists(golden / file));
      const std::string difference = first_difference(read_text(golden / file), read_text(dir / c.name / file));
      INFO(difference << "\n(an intended change: tools/update-golden, then review and commit git diff tests/golden)");
      CHECK(difference.empty());
    }
    ++checked;
  }
  CHECK(checked >= 7);
}

TEST_CASE("golden outputs exercise every metric of replicas.csv with a non-zero value", "[scenario][workflow][golden]") {
  // A metric whose every golden value is zero or empty is not guarded by the goldens (a bug that changes
  // it would pass). The columns are today's replicas.csv header (a golden regenerated by update-golden
  // has it; the exact comparison above keeps it so), and each must be finite and non-zero in at least
  // one row of one golden.
  std::map<std::string, std::vector<std::string>> covered_by; // metric -> golden cases
  std::vector<std::string> columns;
  for (const auto& c : golden_cases()) {
    const auto csv = sim::read_csv_file(source_path("tests/golden/" + c.name + "/replicas.csv"));
    if (columns.empty()) columns = csv.header;
    INFO(c.name);
    CHECK(csv.header == columns); // every golden has the same, current columns
    for (std::size_t col = 0; col < csv.header.size(); ++col)
      for (const auto& row : csv.rows) {
        const double v = csv.header[col] == "job" ? 0.0 : sim::csv_number(row[col]);
        if (std::isfinite(v) && v != 0) {
          covered_by[csv.header[col]].push_back(c.name);
          break;
        }
      }
  }
  REQUIRE(columns.size() > 2);
  std::string uncovered;
  for (std::size_t col = 2; col < columns.size(); ++col) // past "replica" and "job"
    if (!covered_by.count(columns[col])) uncovered += " " + columns[col];
  INFO("metrics no golden exercises:" << uncovered);
  CHECK(uncovered.empty());
}

TEST_CASE("every scenario under scenarios/ validates against `dcsim schema` (python3-jsonschema)",
          "[scenario][workflow][schema]") {
  const fs::path dir = test::fresh_test_dir("schema");
  const auto schema = run_shell(dcsim_binary() + " schema > " + shell_quote((dir / "schema.json").string()));
  REQUIRE(schema.exit_code == 0);
  // Scenarios allow // comments: strip them with dcsim's own parser, then hand plain JSON to the checker.
  std::string files;
  int scenarios = 0;
  for (const auto& e : fs::directory_iterator(source_path("scenarios"))) {
    if (e.path().extension() != ".json") continue;
    sim::Problems problems;
    const auto doc = sim::parse_json_text(read_text(e.path()), problems);
    REQUIRE(problems.empty());
    const fs::path plain = dir / e.path().filename();
    std::ofstream(plain) << doc.dump();
    files += " " + shell_quote(plain.string());
    ++scenarios;
  }
  // A document with a typo, a bound and an enum violation must fail: the check can fail.
  std::ofstream(dir / "bad.json") << R"({"cluster": {"racks": 0}, "hardware": {"rack": {"kind": "dgx"}},
                                         "jobs": [{"name": "x", "gpus": 8, "tpyo": 1}]})";
  const std::string checker = source_path("tests/integration/check_json_schema.py");
  const auto good = run_shell(fmt::format("/usr/bin/python3 {} {}{} 2>&1", shell_quote(checker),
                                          shell_quote((dir / "schema.json").string()), files));
  INFO(good.output);
  CHECK(good.exit_code == 0);
  CHECK(scenarios >= 2);
  const auto bad = run_shell(fmt::format("/usr/bin/python3 {} {} {} 2>&1", shell_quote(checker),
                                         shell_quote((dir / "schema.json").string()),
                                         shell_quote((dir / "bad.json").string())));
  INFO(bad.output);
  CHECK(bad.exit_code == 1);
  CHECK(bad.output.find("/cluster/racks") != std::string::npos);
  CHECK(bad.output.find("'tpyo' was unexpected") != std::string::npos);
  CHECK(bad.output.find("'dgx' is not one of") != std::string::npos);
}

TEST_CASE("run --ci-target adds replicas until every job's goodput interval is narrow enough", "[scenario][workflow]") {
  const fs::path dir = test::fresh_test_dir("ci-target");
  const std::string scenario = shell_quote(source_path("scenarios/default.json"));
  // default.json's 10 replicas give a half-width of ~0.0033 on pretrain's goodput: 0.002 needs more.
  const auto r = run_shell(fmt::format("{} run {} --ci-target 0.002 -j 2 --out {} 2>&1", dcsim_binary(), scenario,
                                       shell_quote((dir / "a").string())));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto summary = sim::read_csv_file(dir / "a" / "summary.csv");
  int replicas = 0;
  for (const auto& row : summary.rows)
    if (row[1] == "pretrain" && row[2] == "goodput_frac") {
      replicas = std::stoi(row[6]);
      CHECK((std::stod(row[5]) - std::stod(row[4])) / 2 <= 0.002);
    }
  CHECK(replicas > 10);
  CHECK(r.output.find(fmt::format("dcsim: {} replicas: widest goodput_frac 95% half-width", replicas)) !=
        std::string::npos);
  // The scenario document records how many ran: re-running it reproduces the outputs byte for byte.
  const auto again = run_shell(fmt::format("{} run {} -q -j 1 --out {}", dcsim_binary(),
                                           shell_quote((dir / "a" / "scenario.json").string()),
                                           shell_quote((dir / "b").string())));
  REQUIRE(again.exit_code == 0);
  CHECK(read_text(dir / "a" / "replicas.csv") == read_text(dir / "b" / "replicas.csv"));
  // An unreachable target stops at the cap: exit 4, outputs written; --ci-target-soft makes it a warning.
  const auto capped = run_shell(fmt::format("{} run {} --ci-target 0.000001 --max-replicas 12 -q -j 2 --out {} 2>&1",
                                            dcsim_binary(), scenario, shell_quote((dir / "c").string())));
  CHECK(capped.exit_code == 4);
  CHECK(capped.output.find("dcsim: error (exit 4): --ci-target 1e-06 not met after --max-replicas 12 replicas") !=
        std::string::npos);
  CHECK(test::read_text(dir / "c" / "scenario.json").find("\"replicas\": 12") != std::string::npos);
  const auto soft = run_shell(fmt::format("{} run {} --ci-target 0.000001 --max-replicas 4 --ci-target-soft -q -j 2 "
                                          "--out {} 2>&1",
                                          dcsim_binary(), scenario, shell_quote((dir / "d").string())));
  CHECK(soft.exit_code == 0);
  CHECK(soft.output.find("dcsim: warning: --ci-target 1e-06 not met after --max-replicas 4 replicas") !=
        std::string::npos);
}
