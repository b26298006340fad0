// Two model jobs on one oversubscribed fabric: their DP rings meet on leaf bundles and slow each other
// (models/fabric/shared_fabric.hpp), by the overlap model of fabric.phase_overlap.
//
// 4 GB300 NVL72 racks of 64 usable GPUs, 8 planes of 100G ports, radix 64, oversubscription 3 (d = 48,
// u = 16: a leaf holds 12 slots of every rack), routing efficiency 0.5: a leaf bundle carries
// 8 x 16 x 12.5e9 x 0.5 = 8e11 B/s. Two jobs of 96 GPUs (tp 4, dp 24): a holds rack 0 and 32 GPUs of
// rack 1, b rack 2 and 32 of rack 3. A DP ring has 16 members in the first rack and 8 in the second;
// member j ≥ 8 of the first rack (slots 32-63) sends to member j mod 8 of the second (slots 0-31),
// across leaves. Per leaf bundle (e.g. leaf 3, slots 36-47) each job sends 12 such flows: alone
// 8e11/12 = 6.7e10 B/s each. The ring's pace: first-rack members carry S/16 each
// (w = 1/32), second-rack members S/8 (w = 1/16) at their access η·1e11 (η = nic_efficiency_frac,
// inside the shared solve): alone τ ∝ max(1/(32·6.7e10), 1/(16·η·1e11)), the second rack sets the
// pace for η > 2/3; together 24 flows get 3.3e10 each, τ ∝ 1/(32·3.3e10) = 1/(10.7e11): the DP
// phase takes 1.5·η times as long. Aligned, both jobs slow; isolated, neither does.
#include "sim/csv_reader.hpp"
#include "tests/support/shell.hpp"
#include "tests/support/simulate.hpp"
#include "tools/dcsim/outputs.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cmath>

using namespace dcsim;
namespace fs = std::filesystem;

namespace {
/// `names` jobs as below; `storage`: "" none, else storage.network with host memory + object store
/// tiers (the store 800 Gb/s each way: a 420 GB checkpoint drains in about 4 s alone).
Scenario jobs_on_fabric(const std::string& overlap, std::vector<const char*> names, const std::string& storage) {
  const std::string checkpoint =
      storage.empty() ? R"("interval_s": 1800, "write_s": 30)"
                      : R"("interval_s": 600, "tiers": ["mem", "store"], "async": true)";
  const std::string storage_key =
      storage.empty() ? ""
                      : fmt::format(R"("storage": {{ "network": "{}", "tiers": [
        {{ "name": "mem", "kind": "host_memory" }},
        {{ "name": "store", "kind": "object_store", "write_gbps": 800, "read_gbps": 800 }} ] }},)",
                                    storage);
  std::string jobs;
  for (const char* name : names)
    jobs += fmt::format(R"({}{{ "name": "{}", "gpus": 96,
      "model": {{ "layers": 32, "hidden": 8192, "heads": 64, "kv_heads": 8, "ffn_hidden": 28672, "mlp": "swiglu",
                  "seq_len": 8192, "vocab": 128256, "tied_embeddings": false, "global_batch": 96,
                  "precision": "fp8" }},
      "parallelism": {{ "tp": 4, "pp": 1, "zero": 1, "overlap_grad_reduce": false, "overlap_param_gather": false }},
      "checkpoint": {{ {} }} }})",
                        jobs.empty() ? "" : ",", name, checkpoint);
  return test::scenario_from_text(fmt::format(R"({{
    "name": "shared-fabric", "seed": 3, "replicas": 2, "duration_h": 100,
    "hardware": {{ "gpu": {{ "model": "gb300" }}, "rack": {{ "kind": "nvl72", "spare_gpus": 8 }} }},
    "cluster": {{ "racks": 4 }},
    "fabric": {{ "kind": "roce", "planes": 8, "port_gbps": 100, "tiers": 2, "switch_radix": 64,
                 "oversubscription": 3, "routing_efficiency_frac": 0.5, "reroute_s": 1, "phase_overlap": "{}" }},
    {}
    "jobs": [ {} ],
    "output": {{ "timeseries_interval_s": 0, "events": false }}
  }})",
                                              overlap, storage_key, jobs));
}

Scenario two_jobs(const std::string& overlap) { return jobs_on_fabric(overlap, {"a", "b"}, ""); }
} // namespace

TEST_CASE("two jobs whose rings meet on leaf bundles slow each other unless priced in isolation",
          "[scenario][fabric][sharing]") {
  const auto isolated = test::simulate(two_jobs("isolated"));
  const auto aligned = test::simulate(two_jobs("aligned"));
  const auto duty = test::simulate(two_jobs("duty_cycle"));
  for (const auto* runs : {&isolated, &aligned, &duty})
    for (const auto& r : *runs)
      test::require_conserved(r);
  for (const char* job : {"a", "b"}) {
    CHECK(test::mean_metric(isolated, job, "ledger_degraded_gpu_h") == 0);
    const double worst = test::mean_metric(aligned, job, "ledger_degraded_gpu_h");
    const double mean = test::mean_metric(duty, job, "ledger_degraded_gpu_h");
    CHECK(worst > 0);
    CHECK(mean > 0);
    CHECK(mean < worst); // overlapping only part of the time costs less than always
    CHECK(test::mean_metric(aligned, job, "goodput_frac") < test::mean_metric(isolated, job, "goodput_frac"));
  }
}

TEST_CASE("fabric link utilisation: leaf bundles loaded but not beyond capacity, and the CSV rows byte-identical per seed",
          "[scenario][fabric][utilisation]") {
  // The duty-cycle case above, run twice: the utilisation rows (fabric_utilisation.csv and its series)
  // are the same bytes; the leaf tier carries the rings (some link loaded), and no link exceeds 1.
  const Scenario s = two_jobs("duty_cycle");
  const auto first = test::simulate(s), second = test::simulate(s);
  REQUIRE(first.size() == second.size());
  for (std::size_t r = 0; r < first.size(); ++r) {
    const auto a = tools::format_replica_rows(s, first[r]), b = tools::format_replica_rows(s, second[r]);
    CHECK(a.utilisation == b.utilisation);
    CHECK(a.utilisation_series == b.utilisation_series);
    CHECK(!a.utilisation_series.empty());
    bool leaf = false;
    for (const auto& u : first[r].fabric_utilisation) {
      CHECK(u.max_frac <= 1.0 + 1e-9);
      CHECK(u.p50_frac <= u.p99_frac);
      CHECK(u.p99_frac <= u.max_frac + 1e-6);
      if (u.tier == "leaf_spine") leaf = u.max_frac > 0;
    }
    CHECK(leaf);
  }
}

TEST_CASE("a job alone on a fabric with separate storage has no fabric slowdown, two on shared bundles do",
          "[scenario][fabric][sharing]") {
  // Alone, every shared-fabric factor is 1: the step as shared is the step alone, exactly.
  const auto alone = test::simulate(jobs_on_fabric("aligned", {"a"}, "separate"));
  for (const auto& r : alone)
    test::require_conserved(r);
  CHECK(test::mean_metric(alone, "a", "fabric_slowdown_frac") == 0.0);
  CHECK(test::mean_metric(alone, "a", "step_shared_s") == test::mean_metric(alone, "a", "step_alone_s"));
  const double comm = test::mean_metric(alone, "a", "exposed_comm_frac");
  CHECK(comm > 0);
  CHECK(comm < 1);
  // Two jobs whose rings meet (the case above), aligned: both slower than alone, by the same play.
  const auto two = test::simulate(two_jobs("aligned"));
  for (const char* job : {"a", "b"}) {
    CHECK(test::mean_metric(two, job, "fabric_slowdown_frac") > 0);
    CHECK(test::mean_metric(two, job, "step_shared_s") > test::mean_metric(two, job, "step_alone_s"));
    CHECK(test::mean_metric(two, job, "exposed_comm_frac") > comm); // the slowed part is communication
  }
}

TEST_CASE("converged storage: a job's own drains slow its collectives, and its drains follow what their flows get",
          "[scenario][fabric][sharing][storage]") {
  // One job alone with asynchronous checkpoints drained to an object store. Separate: the drains ride
  // their own network, the job is alone on the fabric (slowdown exactly 0). Converged: each drain's 96
  // flows share the job's access links and leaf bundles while in flight, so its DP phase is slower
  // then; the drain itself also takes longer than the store's closed form when its flows are short of it.
  const auto separate = test::simulate(jobs_on_fabric("duty_cycle", {"a"}, "separate"));
  const auto converged = test::simulate(jobs_on_fabric("duty_cycle", {"a"}, "converged"));
  for (const auto* runs : {&separate, &converged})
    for (const auto& r : *runs)
      test::require_conserved(r);
  CHECK(test::mean_metric(separate, "a", "fabric_slowdown_frac") == 0.0);
  CHECK(test::mean_metric(converged, "a", "fabric_slowdown_frac") > 0);
  CHECK(test::mean_metric(converged, "a", "checkpoints") > 0);
  CHECK(std::isfinite(test::mean_metric(converged, "a", "checkpoint_durable_max_s")));
}

TEST_CASE("report: the fabric slowdowns section gives each replica's distribution of the jobs' fabric_slowdown_frac",
          "[scenario][fabric][sharing][report]") {
  // scenarios/converged-storage.json (2 replicas, two jobs each): one row per replica, the jobs' mean,
  // min, median, p90 and max; for two identical jobs slowed alike, min = max = the replicas.csv value.
  const fs::path dir = test::fresh_test_dir("fabric-slowdowns-report");
  const auto run = test::run_shell(fmt::format("{} run {} -q -j 2 --out {} 2>&1", test::dcsim_binary(),
                                               test::shell_quote(test::source_path("scenarios/converged-storage.json")),
                                               test::shell_quote((dir / "run").string())));
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const auto report = test::run_shell(fmt::format("{} report {} 2>&1", test::dcsim_binary(), test::shell_quote((dir / "run").string())));
  REQUIRE(report.exit_code == 0);
  const std::string html = test::read_text(dir / "run" / "report.html");
  const auto at = html.find("id=\"fabric-slowdowns\"");
  REQUIRE(at != std::string::npos);
  CHECK(html.find("href=\"#fabric-slowdowns\"") != std::string::npos);
  const std::string section = html.substr(at, html.find("</section>", at) - at);
  const auto csv = sim::read_csv_file(dir / "run" / "replicas.csv");
  const std::size_t col = csv.require_column("fabric_slowdown_frac", "replicas.csv");
  const double v = sim::csv_number(csv.rows.at(0).at(col));
  REQUIRE(v > 0);
  CHECK(section.find(fmt::format("<tr><td>0</td><td>2</td><td>{0:.4f}%</td><td>{0:.4f}%</td>", 100 * v)) != std::string::npos);
  CHECK(section.find("<tr><td>1</td><td>2</td>") != std::string::npos);
}
