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
#include "tests/support/simulate.hpp"
#include "tools/dcsim/outputs.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

using namespace dcsim;

namespace {
Scenario two_jobs(const std::string& overlap) {
  std::string jobs;
  for (const char* name : {"a", "b"})
    jobs += fmt::format(R"({}{{ "name": "{}", "gpus": 96,
      "model": {{ "layers": 32, "hidden": 8192, "heads": 64, "kv_heads": 8, "ffn_hidden": 28672, "mlp": "swiglu",
                  "seq_len": 8192, "vocab": 128256, "tied_embeddings": false, "global_batch": 96,
                  "precision": "fp8" }},
      "parallelism": {{ "tp": 4, "pp": 1, "zero": 1, "overlap_grad_reduce": false, "overlap_param_gather": false }},
      "checkpoint": {{ "interval_s": 1800, "write_s": 30 }} }})",
                        jobs.empty() ? "" : ",", name);
  return test::scenario_from_text(fmt::format(R"({{
    "name": "shared-fabric", "seed": 3, "replicas": 2, "duration_h": 100,
    "hardware": {{ "gpu": {{ "model": "gb300" }}, "rack": {{ "kind": "nvl72", "spare_gpus": 8 }} }},
    "cluster": {{ "racks": 4 }},
    "fabric": {{ "kind": "roce", "planes": 8, "port_gbps": 100, "tiers": 2, "switch_radix": 64,
                 "oversubscription": 3, "routing_efficiency_frac": 0.5, "reroute_s": 1, "phase_overlap": "{}" }},
    "jobs": [ {} ],
    "output": {{ "timeseries_interval_s": 0, "events": false }}
  }})",
                                              overlap, jobs));
}
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
