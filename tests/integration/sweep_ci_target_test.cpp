// `dcsim sweep --ci-target`: each point replicated adaptively exactly as `dcsim run --ci-target` would
// replicate it alone, the unmet target's exit code, resume and shards.
#include "tests/support/shell.hpp"

#include "sim/csv_reader.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>

namespace fs = std::filesystem;
using namespace dcsim;
using test::dcsim_binary;
using test::read_text;
using test::run_shell;
using test::shell_quote;

namespace {

std::string scenario() {
  return shell_quote(std::string(DCSIM_SOURCE_DIR) + "/scenarios/restart-checkpoint-sweep.json");
}

// restart-checkpoint-sweep.json: operations.restart_s = 120, 600, 1800 (slowest) x
// jobs.0.checkpoint.interval_s = auto, 600, 7200; 4 replicas to start with.
std::string sweep(const fs::path& out, const std::string& extra) {
  return fmt::format("{} sweep {} --replicas 4 -j 2 -q --out {} {} 2>&1", dcsim_binary(), scenario(),
                     shell_quote(out.string()), extra);
}

struct PointRow {
  std::string restart_s, interval_s;
  int replicas = 0;
};

/// sweep.csv's goodput_frac row of the job at each point, in point order.
std::vector<PointRow> goodput_rows(const fs::path& sweep_csv) {
  const auto csv = sim::read_csv_file(sweep_csv);
  std::vector<PointRow> rows;
  for (const auto& row : csv.rows)
    if (row[*csv.column("metric")] == "goodput_frac" && row[*csv.column("job")] == "pretrain")
      rows.push_back({row[1], row[2], std::stoi(row[*csv.column("replicas")])});
  return rows;
}

} // namespace

TEST_CASE(
    "sweep --ci-target replicates each point as run --ci-target does: same replica counts, identical outputs",
    "[scenario][workflow][sweep]") {
  const fs::path dir = test::fresh_test_dir("sweep-ci-target");
  const std::string adaptive = "--ci-target 0.004 --max-replicas 30";
  const auto r = run_shell(sweep(dir / "sweep", adaptive));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("goodput_frac (95% CI)  replicas") != std::string::npos); // the table shows the counts
  const auto rows = goodput_rows(dir / "sweep" / "sweep.csv");
  REQUIRE(rows.size() == 9);

  // Batch sizes: the scenario's 4, then max(2, n/2) more until the cap: 4, 6, 9, 13, 19, 28, 30.
  std::set<int> schedule{4};
  for (int n = 4; n < 30;)
    schedule.insert(n = std::min(30, n + std::max(2, n / 2)));
  std::set<int> counts;
  for (const auto& row : rows) {
    CHECK(schedule.count(row.replicas) == 1);
    counts.insert(row.replicas);
  }
  // Points differ in how noisy their goodput is (a 7200 s checkpoint interval loses more per failure
  // than 600 s): they need different numbers of replicas.
  CHECK(counts.size() >= 3);
  CHECK(*counts.begin() == 4);

  // Each point alone, with run --ci-target: the same replicas, byte-identical summary and replicas.
  for (std::size_t p = 0; p < rows.size(); ++p) {
    const fs::path run = dir / fmt::format("run-{}", p);
    const auto single =
        run_shell(fmt::format("{} run {} --replicas 4 -j 2 -q --out {} {} --set operations.restart_s={} "
                              "--set jobs.0.checkpoint.interval_s={} 2>&1",
                              dcsim_binary(), scenario(), shell_quote(run.string()), adaptive,
                              rows[p].restart_s, rows[p].interval_s));
    INFO(single.output);
    REQUIRE(single.exit_code == 0);
    const fs::path point = dir / "sweep" / "points" / fmt::format("point-{:03}", p);
    CHECK(read_text(point / "summary.csv") == read_text(run / "summary.csv"));
    CHECK(read_text(point / "replicas.csv") == read_text(run / "replicas.csv"));
    CHECK(read_text(point / "scenario.json").find(fmt::format("\"replicas\": {},", rows[p].replicas)) !=
          std::string::npos);
  }

  // Shards: each point replicated the same way, and the merge byte-identical to the one-machine sweep.
  for (int shard = 1; shard <= 2; ++shard) {
    const auto s = run_shell(sweep(dir / "shared", fmt::format("{} --shard {}/2", adaptive, shard)));
    INFO(s.output);
    REQUIRE(s.exit_code == 0);
  }
  const auto merged = run_shell(sweep(dir / "shared", adaptive + " --merge-only"));
  INFO(merged.output);
  REQUIRE(merged.exit_code == 0);
  CHECK(read_text(dir / "shared" / "sweep.csv") == read_text(dir / "sweep" / "sweep.csv"));
}

TEST_CASE(
    "sweep --ci-target not met at some point: exit 4 naming the points (--ci-target-soft: 0), and resume "
    "re-runs points replicated otherwise",
    "[scenario][workflow][sweep]") {
  const fs::path dir = test::fresh_test_dir("sweep-ci-target-missed");
  const fs::path out = dir / "sweep";
  // Point 1 (120 s restarts, 600 s checkpoints) is the least noisy: 4 replicas meet 0.004, not 0.0001.
  const auto hard = run_shell(sweep(out, "--ci-target 0.0001 --max-replicas 6"));
  INFO(hard.output);
  CHECK(hard.exit_code == 4);
  CHECK(
      hard.output.find("dcsim sweep: error (exit 4): point 1 (operations.restart_s=120, "
                       "jobs.0.checkpoint.interval_s=600): --ci-target 0.0001 not met after --max-replicas 6 "
                       "replicas (widest goodput_frac 95% half-width ") != std::string::npos);
  CHECK(hard.output.find("dcsim sweep: --ci-target 0.0001 not met at 9 of 9 points\n") != std::string::npos);
  CHECK(fs::exists(out / "sweep.csv")); // outputs written, as run does
  for (const auto& row : goodput_rows(out / "sweep.csv"))
    CHECK(row.replicas == 6);

  // The same replication resumed: nothing runs; --ci-target-soft makes the miss a warning.
  const auto soft = run_shell(sweep(out, "--ci-target 0.0001 --max-replicas 6 --resume --ci-target-soft"));
  INFO(soft.output);
  CHECK(soft.exit_code == 0);
  CHECK(soft.output.find("9 already complete, 0 to run") != std::string::npos);
  CHECK(soft.output.find("dcsim sweep: warning: point 8 (") != std::string::npos);

  // Another cap, or no --ci-target: the points' replication differs from their complete.json: re-run.
  const auto other = run_shell(sweep(out, "--ci-target 0.0001 --max-replicas 8 --resume --ci-target-soft"));
  INFO(other.output);
  CHECK(other.output.find("9 points (2 varied keys), 9 to run") != std::string::npos);
  const auto fixed = run_shell(sweep(out, "--resume"));
  INFO(fixed.output);
  CHECK(fixed.exit_code == 0);
  CHECK(fixed.output.find("9 points (2 varied keys), 9 to run") != std::string::npos);
  for (const auto& row : goodput_rows(out / "sweep.csv"))
    CHECK(row.replicas == 4);
}
