// Every input under tests/fuzz/regressions/ (crashes and hangs the loader fuzzer found, and the probe's
// hostile inputs of issue 13) is replayed through the loader as the fuzzer feeds it: each must be
// rejected with located errors, never crash. Files ending in .json also go through `dcsim validate`.
#include "tests/fuzz/fuzz_input.hpp"
#include "tests/support/shell.hpp"
#include "tools/dcsim/scenario_file.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

std::vector<std::filesystem::path> regression_files() {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(DCSIM_SOURCE_DIR) / "tests/fuzz/regressions"))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string bytes_of(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

} // namespace

TEST_CASE("fuzz regressions: the loader rejects every regression input with located errors", "[unit][fuzz]") {
  const auto files = regression_files();
  REQUIRE(files.size() >= 10);
  for (const auto& path : files) {
    INFO(path.filename().string());
    const auto input = dcsim::fuzz::split_fuzz_input(bytes_of(path));
    const auto loaded = dcsim::tools::load_scenario_text(input.text, "fuzz/scenario.json", input.sets);
    CHECK_FALSE(loaded.scenario.has_value());
    REQUIRE_FALSE(loaded.errors.empty());
    std::istringstream lines(loaded.errors);
    for (std::string line; std::getline(lines, line);) {
      INFO(line);
      CHECK(line.rfind("fuzz/scenario.json: ", 0) == 0);
      CHECK(line.size() <= 600); // excerpts, never whole values
    }
  }
}

TEST_CASE("fuzz regressions: dcsim validate exits 2 on every regression scenario file", "[unit][fuzz]") {
  for (const auto& path : regression_files()) {
    if (path.extension() != ".json") continue;
    INFO(path.filename().string());
    const auto r = dcsim::test::run_shell(dcsim::test::dcsim_binary() + " validate " +
                                          dcsim::test::shell_quote(path.string()) + " 2>&1");
    CHECK(r.exit_code == 2);
    CHECK(r.output.rfind(path.string() + ": /", 0) == 0);
  }
}
