// A sweep split into shards (as Slurm array tasks would run it, sharing one output folder) and merged
// gives the one-machine sweep.csv byte for byte; tools/slurm-sweep writes the batch scripts that do it.
#include "tests/support/shell.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace dcsim;
using test::dcsim_binary;
using test::read_text;
using test::run_shell;
using test::shell_quote;
using test::source_path;

namespace {

// 2 × 4 = 8 points of 2 replicas over 300 simulated hours (well under a second each).
const std::string SWEEP_ARGS =
    fmt::format("{} --vary operations.spare_racks=0,1 --vary hardware.rack.spare_gpus=0,2,4,6 --replicas 2 "
                "--set duration_h=300",
                shell_quote(source_path("scenarios/default.json")));

std::string sweep(const fs::path& out, const std::string& extra) {
  return fmt::format("{} sweep {} -j 2 -q --out {} {} 2>&1", dcsim_binary(), SWEEP_ARGS,
                     shell_quote(out.string()), extra);
}

int point_folders(const fs::path& out) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(out / "points"))
    if (e.path().filename().string().rfind("point-", 0) == 0) ++n;
  return n;
}

} // namespace

TEST_CASE("a sweep run as 4 shards into one folder, then merged, equals the one-machine sweep.csv",
          "[scenario][workflow][sweep]") {
  const fs::path dir = test::fresh_test_dir("sweep-shards");
  const auto whole = run_shell(sweep(dir / "whole", ""));
  INFO(whole.output);
  REQUIRE(whole.exit_code == 0);

  const fs::path shared = dir / "shared";
  for (int shard = 1; shard <= 4; ++shard) {
    const auto r = run_shell(sweep(shared, fmt::format("--shard {}/4", shard)));
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    // Round robin: shard I runs points I-1 and I+3; it writes no sweep.csv.
    CHECK(r.output.find(fmt::format("shard {}/4: 2 points, 2 to run", shard)) != std::string::npos);
    CHECK(point_folders(shared) == 2 * shard);
    CHECK(fs::exists(shared / "points" / fmt::format("point-{:03}", shard - 1) / "complete.json"));
    CHECK(fs::exists(shared / "points" / fmt::format("point-{:03}", shard + 3) / "complete.json"));
    CHECK_FALSE(fs::exists(shared / "sweep.csv"));
  }
  const auto merged = run_shell(sweep(shared, "--merge-only"));
  INFO(merged.output);
  REQUIRE(merged.exit_code == 0);
  const std::string expected = read_text(dir / "whole" / "sweep.csv");
  CHECK(std::count(expected.begin(), expected.end(), '\n') > 8); // every point's summary rows
  CHECK(read_text(shared / "sweep.csv") == expected);

  // A missing point and a changed one: both listed with their folders, exit 2, no sweep.csv left.
  fs::remove_all(shared / "points" / "point-005");
  std::ofstream(shared / "points" / "point-002" / "summary.csv") << "x\n";
  const auto refused = run_shell(sweep(shared, "--merge-only"));
  CHECK(refused.exit_code == 2);
  const std::string points = (shared / "points").string();
  CHECK(refused.output ==
        fmt::format(
            "dcsim sweep: {0}/point-002: point 2 (operations.spare_racks=0, hardware.rack.spare_gpus=4) is "
            "not complete: summary.csv differs from the one recorded\n"
            "dcsim sweep: {0}/point-005: point 5 (operations.spare_racks=1, hardware.rack.spare_gpus=2) is "
            "not complete: no complete.json\n"
            "dcsim sweep --merge-only: 2 of 8 points are not complete; no sweep.csv written\n",
            points));
  CHECK_FALSE(fs::exists(shared / "sweep.csv"));

  const auto bad = run_shell(sweep(shared, "--shard 5/4"));
  CHECK(bad.exit_code == 2);
  CHECK(bad.output == "dcsim sweep: --shard 5/4: expected I/N with 1 <= I <= N <= 999999\n");
  const auto both = run_shell(sweep(shared, "--shard 1/4 --merge-only"));
  CHECK(both.exit_code == 2);
  CHECK(both.output == "dcsim sweep: --merge-only assembles every point: give no --shard\n");
}

TEST_CASE("tools/slurm-sweep --dry-run: an array of N shard tasks and a merge after it; the scripts work",
          "[scenario][workflow][sweep]") {
  const fs::path dir = test::fresh_test_dir("slurm-sweep");
  const fs::path out = dir / "shared";
  const auto r = run_shell(fmt::format(
      "cd {} && {} --shards 4 --out {} --partition gpu --account planning --time 02:00:00 --cpus-per-task 2 "
      "--dcsim {} --dry-run -- {} 2>&1",
      shell_quote(dir.string()), shell_quote(source_path("tools/slurm-sweep")), shell_quote(out.string()),
      dcsim_binary(), SWEEP_ARGS)); // dcsim_binary() is quoted already
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_FALSE(fs::exists(out)); // a dry run writes and submits nothing

  const std::string array_mark = "# ==> " + (out / "slurm" / "sweep-array.sbatch").string() + " <==\n";
  const std::string merge_mark = "# ==> " + (out / "slurm" / "sweep-merge.sbatch").string() + " <==\n";
  REQUIRE(r.output.rfind(array_mark, 0) == 0);
  const auto split = r.output.find(merge_mark);
  REQUIRE(split != std::string::npos);
  const std::string array = r.output.substr(array_mark.size(), split - array_mark.size());
  const std::string merge = r.output.substr(split + merge_mark.size());
  for (const std::string line :
       {"#!/bin/bash\n", "#SBATCH --array=1-4\n", "#SBATCH --cpus-per-task=2\n", "#SBATCH --time=02:00:00\n",
        "#SBATCH --partition=gpu\n", "#SBATCH --account=planning\n", "--resume -j 2 \\\n",
        "  --shard \"$SLURM_ARRAY_TASK_ID/4\"\n"})
    CHECK(array.find(line) != std::string::npos);
  CHECK(array.find("#SBATCH --output=" + (out / "slurm" / "shard-%a.log").string() + "\n") !=
        std::string::npos);
  CHECK(array.find("--dependency") == std::string::npos);
  for (const std::string line : {"#SBATCH --dependency=afterany:<array job id>\n", "#SBATCH --partition=gpu\n",
                                 "#SBATCH --account=planning\n", " --merge-only\n"})
    CHECK(merge.find(line) != std::string::npos);
  CHECK(merge.find("--shard") == std::string::npos);

  // Run the scripts as Slurm would (each array task with its SLURM_ARRAY_TASK_ID, then the merge) and
  // compare with a one-machine sweep.
  std::ofstream(dir / "array.sbatch") << array;
  std::ofstream(dir / "merge.sbatch") << merge;
  for (int task = 1; task <= 4; ++task) {
    const auto t = run_shell(fmt::format("cd {} && SLURM_ARRAY_TASK_ID={} bash array.sbatch 2>&1",
                                         shell_quote(dir.string()), task));
    INFO(t.output);
    REQUIRE(t.exit_code == 0);
  }
  const auto m = run_shell(fmt::format("cd {} && bash merge.sbatch 2>&1", shell_quote(dir.string())));
  INFO(m.output);
  REQUIRE(m.exit_code == 0);
  REQUIRE(run_shell(sweep(dir / "whole", "")).exit_code == 0);
  CHECK(read_text(out / "sweep.csv") == read_text(dir / "whole" / "sweep.csv"));
  for (int task = 1; task <= 4; ++task) // each task marked its shard done, which the merge checked
    CHECK(fs::exists(out / "slurm" / fmt::format("shard-{}.done", task)));

  const auto usage =
      run_shell(fmt::format("{} --shards 4 --out {} --dry-run -- {} --shard 1/2 2>&1",
                            shell_quote(source_path("tools/slurm-sweep")), shell_quote(out.string()), SWEEP_ARGS));
  CHECK(usage.exit_code == 2);
  CHECK(usage.output == "slurm-sweep: --shard: set by slurm-sweep; remove it after --\n");
}

TEST_CASE("sweep --zip: keys varied together; unequal lengths are an error", "[scenario][workflow][sweep]") {
  const fs::path dir = test::fresh_test_dir("sweep-zip");
  const std::string scenario = shell_quote(source_path("scenarios/default.json"));
  const auto bad =
      run_shell(fmt::format("{} sweep {} --zip operations.spare_racks=0,1,2 --zip seed=1,2 --out {} 2>&1",
                            dcsim_binary(), scenario, shell_quote((dir / "bad").string())));
  CHECK(bad.exit_code == 2);
  CHECK(bad.output ==
        "dcsim sweep: zipped key seed lists 2 values, but operations.spare_racks lists 3 (zipped "
        "keys vary together: give each as many values)\n");
  CHECK_FALSE(fs::exists(dir / "bad"));

  // 2 zipped pairs x 2 values of duration_h: 4 points, not 8.
  const auto r =
      run_shell(fmt::format("{} sweep {} --vary duration_h=100,200 --zip operations.spare_racks=0,2 "
                            "--zip seed=3,4 --replicas 2 -j 2 -q --out {} 2>&1",
                            dcsim_binary(), scenario, shell_quote((dir / "zip").string())));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.rfind("sweep default: 4 points (3 varied keys), 4 to run\n", 0) == 0);
  const std::string csv = read_text(dir / "zip" / "sweep.csv");
  CHECK(csv.rfind("point,duration_h,operations.spare_racks,seed,scenario,job,metric,", 0) == 0);
  for (const std::string row :
       {"\n0,100,0,3,default,", "\n1,100,2,4,default,", "\n2,200,0,3,default,", "\n3,200,2,4,default,"})
    CHECK(csv.find(row) != std::string::npos);
  CHECK(csv.find("\n1,100,2,3,") == std::string::npos);
}

TEST_CASE("sweep --skip-invalid: bad points reported as without it, the others run, sweep.csv lists them",
          "[scenario][workflow][sweep]") {
  const fs::path dir = test::fresh_test_dir("sweep-skip-invalid");
  const std::string file = source_path("scenarios/default.json");
  auto sweep_with = [&](const std::string& racks, const fs::path& out) {
    return run_shell(fmt::format("{} sweep {} --vary operations.spare_racks={} --vary seed=1,2 --replicas 2 "
                                 "--set duration_h=100 -j 2 -q --skip-invalid --out {} 2>&1",
                                 dcsim_binary(), shell_quote(file), racks, shell_quote(out.string())));
  };
  const auto r = sweep_with("1,17", dir / "out");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  for (int point : {2, 3})
    CHECK(r.output.find(
              fmt::format("{} (sweep point {}: operations.spare_racks=17, seed={}): /jobs/0/gpus: needs 16 "
                          "racks of 64 usable GPUs, but only 1 of the cluster's 18 are not spares (got 1024)",
                          file, point, point - 1)) != std::string::npos);
  CHECK(r.output.find("dcsim sweep: --skip-invalid: 2 of 4 points are invalid and skipped (see above)\n") !=
        std::string::npos);
  CHECK(r.output.find("sweep default: 4 points (2 varied keys), 2 to run\n") != std::string::npos);
  const std::string csv = read_text(dir / "out" / "sweep.csv");
  CHECK(csv.find("\n0,1,1,default,") != std::string::npos);
  CHECK(csv.find("\n1,1,2,default,") != std::string::npos);
  CHECK(csv.find("\n2,") == std::string::npos);
  CHECK(csv.find("\n3,") == std::string::npos);
  CHECK_FALSE(fs::exists(dir / "out" / "points" / "point-002"));
  // The merge checks the valid points only.
  const auto merged =
      run_shell(fmt::format("{} sweep {} --vary operations.spare_racks=1,17 --vary seed=1,2 "
                            "--replicas 2 --set duration_h=100 --skip-invalid --merge-only --out {} "
                            "2>/dev/null",
                            dcsim_binary(), shell_quote(file), shell_quote((dir / "out").string())));
  CHECK(merged.exit_code == 0);
  CHECK(read_text(dir / "out" / "sweep.csv") == csv);

  const auto none = sweep_with("17", dir / "none");
  CHECK(none.exit_code == 2);
  CHECK(none.output.find("dcsim sweep: --skip-invalid: no point is valid\n") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "none"));
}
