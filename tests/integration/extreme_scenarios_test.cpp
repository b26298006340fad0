// Extreme scenarios (issue 13): the smallest cluster, the largest, the longest durations, thousands of
// failure modes and hundreds of jobs. Either a located error or a run whose ledger is conserved; each
// case runs in seconds.
#include "tests/support/simulate.hpp"
#include "tools/dcsim/scenario_file.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

using namespace dcsim;

namespace {

/// One job on `racks` hgx racks of one server of `gpus_per_node` GPUs.
std::string hgx(int racks, int gpus_per_node, int job_gpus, const std::string& extra = "") {
  return fmt::format(R"({{"name": "x", "replicas": 2, "duration_h": 48,
    "hardware": {{"gpu": {{"model": "h100-sxm"}}, "rack": {{"kind": "hgx", "gpus_per_node": {}, "nodes_per_rack": 1}}}},
    "cluster": {{"racks": {}}},
    "failures": {{"modes": [{{"name": "gpu", "scope": "gpu", "mtbf_h": 200}}]}},
    "jobs": [{{"name": "j", "gpus": {}, "step_time_s": 2, "model_flops_per_step": 1e14}}]{}}})",
                     gpus_per_node, racks, job_gpus, extra);
}

} // namespace

TEST_CASE("extreme: one GPU runs, fails, repairs and keeps its ledger conserved", "[scenario][extreme]") {
  const Scenario s = test::scenario_from_text(hgx(1, 1, 1));
  REQUIRE(s.cluster.racks * s.hardware.rack.gpus_per_rack() == 1);
  const auto results = test::simulate(s);
  REQUIRE(results.size() == 2);
  for (const auto& r : results) {
    test::require_conserved(r);
    CHECK(r.jobs.at(0).gpu_h[0] > 0);
  }
}

TEST_CASE("extreme: a million GPUs validate and one rack more is a located error", "[scenario][extreme]") {
  // 14,563 NVL72 racks = 1,048,536 GPUs, the most under dcsim's limit of 2^20 (validated, not run).
  const std::string base = R"({"name": "m", "cluster": {"racks": 14563},
    "failures": {"modes": [{"name": "gpu", "scope": "gpu", "mtbf_h": 50000}]},
    "jobs": [{"name": "j", "gpus": 1048536, "step_time_s": 10, "model_flops_per_step": 1e19}]})";
  const auto ok = tools::load_scenario_text(base, "m.json");
  INFO(ok.errors);
  CHECK(ok.scenario.has_value());
  const auto over = tools::load_scenario_text(base, "m.json", {"cluster.racks=14564"});
  CHECK(over.errors == "m.json: /cluster/racks: gives 1048608 GPUs, more than dcsim's limit of 1048576 (got 14564)\n");
}

TEST_CASE("extreme: the longest durations validate, longer ones are located errors", "[scenario][extreme]") {
  const std::string text = hgx(2, 8, 8);
  CHECK(tools::load_scenario_text(text, "x.json", {"duration_h=1000000", "failures.modes.0.repair_h=1000000",
                                                   "operations.restart_s=3600000000"})
            .scenario.has_value());
  CHECK(tools::load_scenario_text(text, "x.json", {"duration_h=1000001"}).errors ==
        "x.json: /duration_h: must be <= 1000000, dcsim's limit on durations (10^6 h) (got 1000001)\n");
  // A year-long replica with repairs of up to 10^5 h (exponential draws far beyond): conserved.
  const Scenario s = test::scenario_from_text(
      text, {"duration_h=8760", "replicas=2", "failures.modes.0.repair_h=100000",
             "failures.modes.0.repair_dist=\"exponential\"", "operations.restart_s=3600000"});
  for (const auto& r : test::simulate(s))
    test::require_conserved(r);
}

TEST_CASE("extreme: two thousand failure modes run with the ledger conserved", "[scenario][extreme]") {
  std::string modes;
  for (int m = 0; m < 2000; ++m)
    modes += fmt::format(R"({}{{"name": "m{}", "scope": "{}", "mtbf_h": {}, "repair_h": 2}})", m ? "," : "", m,
                         m % 2 ? "gpu" : "node", 100000 + m);
  const Scenario s = test::scenario_from_text(hgx(4, 8, 16), {"failures.modes=[" + modes + "]", "replicas=2"});
  REQUIRE(s.failures.modes.size() == 2000);
  for (const auto& r : test::simulate(s))
    test::require_conserved(r);
}

TEST_CASE("extreme: three hundred jobs queue and run with the ledger conserved", "[scenario][extreme]") {
  std::string jobs;
  for (int j = 0; j < 300; ++j)
    jobs += fmt::format(R"({}{{"name": "j{}", "gpus": {}, "step_time_s": 1, "model_flops_per_step": 1e13,
                            "priority": {}, "arrival_h": {}, "work_h": 2}})",
                        j ? "," : "", j, 1 + j % 8, j % 5, (j % 24) * 1.0);
  const Scenario s = test::scenario_from_text(hgx(16, 8, 8), {"jobs=[" + jobs + "]", "replicas=2"});
  REQUIRE(s.jobs.size() == 300);
  for (const auto& r : test::simulate(s)) {
    test::require_conserved(r);
    REQUIRE(r.jobs.size() == 300);
  }
}
