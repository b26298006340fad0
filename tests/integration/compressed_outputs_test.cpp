// `dcsim run|sweep --compress gzip|zstd` through the binary: the same outputs as a plain run, decoded by
// independent tools (gzip -dc, zstd -dc), byte-identical from run to run, and read by every command that
// reads outputs (compare, compare --exact, report, sweep --merge-only). pandas reading them is checked by
// the Python package's tests (tools/python/tests).
#include "tests/support/shell.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <set>

namespace fs = std::filesystem;
using namespace dcsim;
using test::dcsim_binary;
using test::read_text;
using test::run_shell;
using test::shell_quote;
using test::source_path;

namespace {

std::set<std::string> names_in(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir))
    names.insert(e.path().filename().string());
  return names;
}

std::string q(const fs::path& p) { return shell_quote(p.string()); }

// The decompressed bytes of a file, by an independent decoder (Debian's gzip and zstd tools).
std::string decoded(const fs::path& file) {
  const bool gz = file.extension() == ".gz";
  const auto r = run_shell(fmt::format("{} -dc {}", gz ? "gzip" : "zstd", q(file)));
  INFO(file.string());
  REQUIRE(r.exit_code == 0);
  return r.output;
}

} // namespace

TEST_CASE("run --compress: the plain outputs compressed, byte-identical run to run, read by compare and report",
          "[scenario][workflow][compress]") {
  const fs::path dir = test::fresh_test_dir("compressed-run");
  auto run = [&](const std::string& name, const std::string& extra, int seed = 5) {
    const auto r = run_shell(fmt::format("{} run {} -q -j 2 --replicas 2 --seed {} --set duration_h=96 --out {} {} 2>&1",
                                         dcsim_binary(), shell_quote(source_path("scenarios/default.json")),
                                         seed, q(dir / name), extra));
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
  };
  run("plain", "");
  run("gz", "--compress gzip");
  run("gz-again", "--compress gzip");
  run("zst", "--compress zstd");
  run("zst-again", "--compress zstd");

  // Every CSV file of the plain run, and only those, is there compressed; the rest is as it was.
  std::set<std::string> want_gz, want_zst;
  int csv_files = 0;
  for (const auto& name : names_in(dir / "plain")) {
    const bool csv = fs::path(name).extension() == ".csv";
    csv_files += csv;
    want_gz.insert(csv ? name + ".gz" : name);
    want_zst.insert(csv ? name + ".zst" : name);
  }
  CHECK(csv_files >= 7);
  CHECK(names_in(dir / "gz") == want_gz);
  CHECK(names_in(dir / "zst") == want_zst);
  for (const auto& name : names_in(dir / "plain")) {
    if (fs::path(name).extension() != ".csv") continue;
    INFO(name);
    CHECK(decoded(dir / "gz" / (name + ".gz")) == read_text(dir / "plain" / name));
    CHECK(decoded(dir / "zst" / (name + ".zst")) == read_text(dir / "plain" / name));
  }
  // Same scenario and seed: byte-identical compressed files (no time stamp or name in the gzip header).
  for (const std::string form : {"gz", "zst"})
    for (const auto& name : names_in(dir / form))
      if (name != "run.json") CHECK(read_text(dir / form / name) == read_text(dir / (form + "-again") / name));

  // compare reads them: --exact compares contents (plain against gzip: identical), the statistics are the
  // same as between two plain runs.
  const auto exact = run_shell(fmt::format("{} compare --exact {} {} 2>&1", dcsim_binary(), q(dir / "plain"), q(dir / "gz")));
  CHECK(exact.exit_code == 0);
  CHECK(exact.output == "identical: every output file is byte for byte the same\n");
  const auto json_rows = [&](const std::string& a, const std::string& b) {
    const auto r = run_shell(fmt::format("{} compare --json {} {}", dcsim_binary(), q(dir / a), q(dir / b)));
    REQUIRE(r.exit_code == 0);
    return nlohmann::json::parse(r.output).at("rows");
  };
  CHECK(json_rows("plain", "zst") == json_rows("plain", "plain"));
  CHECK(json_rows("zst", "gz") == json_rows("plain", "plain"));
  // report reads them: the same page as from the plain outputs.
  for (const std::string name : {"plain", "zst"})
    REQUIRE(run_shell(fmt::format("{} report {} >/dev/null", dcsim_binary(), q(dir / name))).exit_code == 0);
  CHECK(read_text(dir / "zst" / "report.html") == read_text(dir / "plain" / "report.html"));
  // A changed output is still told apart through the compression.
  run("zst-other", "--compress zstd", 6);
  const auto differ = run_shell(fmt::format("{} compare --exact {} {} 2>&1", dcsim_binary(), q(dir / "gz"), q(dir / "zst-other")));
  CHECK(differ.exit_code == 5);
  CHECK(differ.output.find("replicas.csv: differs") != std::string::npos);
}

TEST_CASE("compressed outputs: a bad --compress value is exit 2 naming the option and the value, nothing written",
          "[scenario][workflow][compress]") {
  const fs::path dir = test::fresh_test_dir("compressed-bad");
  for (const std::string command : {"run", "sweep"}) {
    const auto r = run_shell(fmt::format("{} {} {} --compress lz4 --out {} 2>&1", dcsim_binary(), command,
                                         shell_quote(source_path("scenarios/default.json")), q(dir / command)));
    CHECK(r.exit_code == 2);
    CHECK(r.output == fmt::format("dcsim {}: --compress: expected none, gzip or zstd (got \"lz4\")\n", command));
    CHECK_FALSE(fs::exists(dir / command));
  }
}

TEST_CASE("sweep --compress: points and sweep.csv compressed, and --merge-only in another form replaces sweep.csv",
          "[scenario][workflow][compress][sweep]") {
  const fs::path dir = test::fresh_test_dir("compressed-sweep");
  auto sweep = [&](const std::string& name, const std::string& extra) {
    const auto r = run_shell(fmt::format("{} sweep {} --vary operations.spare_racks=0,2 -q -j 2 --replicas 2 "
                                         "--set duration_h=96 --out {} {} 2>&1",
                                         dcsim_binary(), shell_quote(source_path("scenarios/default.json")),
                                         q(dir / name), extra));
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    return r.output;
  };
  sweep("plain", "");
  CHECK(sweep("zst", "--compress zstd").find("outputs written to " + (dir / "zst").string() +
                                             "/ (sweep.csv.zst, points/)") != std::string::npos);
  CHECK(names_in(dir / "zst") == std::set<std::string>{"points", "sweep.csv.zst"});
  CHECK(decoded(dir / "zst" / "sweep.csv.zst") == read_text(dir / "plain" / "sweep.csv"));
  for (const auto& name : names_in(dir / "zst" / "points" / "point-001"))
    if (name != "complete.json" && name != "scenario.json") CHECK(fs::path(name).extension() == ".zst");
  // The merge reads the compressed points and writes sweep.csv in its own form, the other one gone.
  sweep("zst", "--merge-only --compress gzip");
  CHECK(names_in(dir / "zst") == std::set<std::string>{"points", "sweep.csv.gz"});
  CHECK(decoded(dir / "zst" / "sweep.csv.gz") == read_text(dir / "plain" / "sweep.csv"));
  // --resume finds every compressed point complete.
  CHECK(sweep("zst", "--resume --compress gzip").find("2 already complete, 0 to run") != std::string::npos);
  const auto report = run_shell(fmt::format("{} report {} 2>&1", dcsim_binary(), q(dir / "zst")));
  INFO(report.output);
  CHECK(report.exit_code == 0);
}
