// Every scenario under scenarios/ loads and runs (shortened), with its ledger conserved.
#include "tests/support/simulate.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iterator>

using namespace dcsim;

TEST_CASE("every scenario under scenarios/ validates and runs", "[scenario][library]") {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(std::string(DCSIM_SOURCE_DIR) + "/scenarios"))
    if (e.path().extension() == ".json") names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  REQUIRE(names.size() >= 2);
  std::vector<Scenario> scenarios;
  for (const auto& n : names) {
    INFO(n);
    // Shortened to 48 h; jobs arriving later arrive at 24 h instead, so that every job runs.
    std::vector<std::string> overrides{"replicas=2", "duration_h=48"};
    // A job stream: one job of its template (at 0 h, 10 h of work) stands for the stream's hundred.
    std::ifstream text(std::string(DCSIM_SOURCE_DIR) + "/scenarios/" + n);
    const bool stream = std::string(std::istreambuf_iterator<char>(text), {}).find("\"job_stream\"") != std::string::npos;
    if (stream) overrides.insert(overrides.end(), {"job_stream.arrivals_per_day=0", "job_stream.trace=[[0, 64, 10]]"});
    const Scenario full = test::scenario_from_file("scenarios/" + n, stream ? overrides : std::vector<std::string>{});
    for (std::size_t j = 0; j < full.jobs.size(); ++j)
      if (full.jobs[j].arrival_h > 24) overrides.push_back(fmt::format("jobs.{}.arrival_h=24", j));
    scenarios.push_back(test::scenario_from_file("scenarios/" + n, overrides));
  }
  const auto results = test::simulate_all(scenarios);
  for (std::size_t i = 0; i < names.size(); ++i) {
    INFO(names[i]);
    REQUIRE(results[i].size() == 2);
    for (const auto& r : results[i]) {
      test::require_conserved(r);
      for (const auto& job : r.jobs)
        CHECK(job.gpu_h[0] > 0); // every job made progress
    }
  }
}
