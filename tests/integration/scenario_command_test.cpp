// `dcsim scenario FILE`: the resolved scenario as plain JSON (tools/dcsim/resolved_scenario.hpp).
#include "tests/support/shell.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using dcsim::test::dcsim_binary;
using dcsim::test::read_text;
using dcsim::test::run_shell;
using dcsim::test::shell_quote;

namespace {

std::string scenario_file(const std::string& name) {
  return std::string(DCSIM_SOURCE_DIR) + "/scenarios/" + name;
}

/// Runs `dcsim scenario` on `file` (extra arguments appended), writes stdout to `out`; returns the exit code.
int print_scenario(const std::string& file, const fs::path& out, const std::string& extra = "") {
  return run_shell(fmt::format("{} scenario {} {} > {}", dcsim_binary(), shell_quote(file), extra,
                               shell_quote(out.string())))
      .exit_code;
}

void run(const std::string& file, const fs::path& out) {
  const auto r = run_shell(fmt::format("{} run {} -q -j 2 --replicas 2 --out {} 2>&1", dcsim_binary(),
                                       shell_quote(file), shell_quote(out.string())));
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
}

} // namespace

TEST_CASE("dcsim scenario: a commented scenario with a trace file prints plain JSON that runs identically",
          "[scenario][workflow][resolved]") {
  const fs::path dir = dcsim::test::fresh_test_dir("resolved-scenario");
  // cooling-heatwave.json has // comments and a facility water trace file beside it; the printed file is
  // written elsewhere, so it must stand alone (the trace inlined).
  const std::string original = scenario_file("cooling-heatwave.json");
  REQUIRE(read_text(original).find("//") != std::string::npos);
  const fs::path printed = dir / "resolved.json";
  REQUIRE(print_scenario(original, printed) == 0);
  CHECK(run_shell(fmt::format("python3 -m json.tool {} > /dev/null", shell_quote(printed.string())))
            .exit_code == 0);
  const auto doc = nlohmann::json::parse(read_text(printed));
  CHECK(doc.at("name") == "cooling-heatwave");
  CHECK_FALSE(doc.at("cooling").contains("facility_water_trace_file"));
  CHECK(doc.at("cooling").at("facility_water_trace").size() > 1);
  CHECK(doc.at("output").at("timeseries_interval_s") == 3600.0); // a constant default from the key table

  run(original, dir / "original");
  run(printed.string(), dir / "printed");
  for (const char* csv : {"summary.csv", "replicas.csv"}) {
    INFO(csv);
    CHECK(read_text(dir / "original" / csv) == read_text(dir / "printed" / csv));
  }
  // Resolving the resolved file changes nothing.
  REQUIRE(print_scenario(printed.string(), dir / "again.json") == 0);
  CHECK(read_text(dir / "again.json") == read_text(printed));
}

TEST_CASE("dcsim scenario: --set applied, defaults that do not apply left out",
          "[scenario][workflow][resolved]") {
  const fs::path dir = dcsim::test::fresh_test_dir("resolved-scenario-set");
  const fs::path printed = dir / "resolved.json";
  REQUIRE(print_scenario(scenario_file("default.json"), printed,
                         "--set replicas=3 --set output.events=false") == 0);
  const auto doc = nlohmann::json::parse(read_text(printed));
  CHECK(doc.at("replicas") == 3);
  CHECK(doc.at("output").at("events") == false);
  CHECK(doc.at("seed").is_number_integer());
  // grid_policy has a constant default ("cap") but is an error without grid events: left out.
  if (doc.at("power").value("grid_events", nlohmann::json::array()).empty())
    CHECK_FALSE(doc.at("power").contains("grid_policy"));
}

TEST_CASE("dcsim scenario: a bad file is reported with its location, exit 2",
          "[scenario][workflow][resolved]") {
  const fs::path dir = dcsim::test::fresh_test_dir("resolved-scenario-bad");
  const fs::path bad = dir / "bad.json";
  std::ofstream(bad) << "{\"cluster\": {\"racks\": 2}, \"replicas\": 0}\n";
  const auto r = run_shell(fmt::format("{} scenario {} 2>&1", dcsim_binary(), shell_quote(bad.string())));
  CHECK(r.exit_code == 2);
  CHECK(r.output == bad.string() + ": /replicas: must be in [1, 100000] (got 0)\n");
}
