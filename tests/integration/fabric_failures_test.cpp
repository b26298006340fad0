// Fabric faults cost a single-plane design interruptions and a multi-plane design bandwidth.
//
// Two designs of the same 16 NVL72 racks (1,152 GPUs, 8 in-rack spares per rack), one job on 16 x 64
// GPUs, radix-64 two-tier fabrics with 1.6 Tb/s per GPU: (1) one plane of 1600G, (2) eight planes of
// 200G. Each plane has 36 leaves (32 down ports: 2 rails x 16 racks); leaves 0-31 carry the job's rails
// 0-63, leaves 32-35 the spare rails. Only leaves fail. The leaf MTBF is 720 h in design 1 and 8 x 720 h
// in design 2 (8 x as many leaves): the whole fabric sees one leaf failure per 20 h in both, and with the
// same seed the failure dates are the same (one Poisson stream of the same total rate).
// Expected (λ = 32/36 per 20 h = 1 per 81,000 s of failures touching the job's GPUs; detection D = 60 s,
// restart R = 600 s, checkpoints τ = 1,800 s + δ = 30 s, repair 4 h, reroute 1 s, scaleout_comm_frac c = 0.2):
//   no faults:   G0 = τ/(τ+δ) = 0.98361
//   one plane:   a leaf failure cuts 2 GPUs per rack off: an interruption like a GPU failure, swapped for
//                in-rack spares; goodput from renewal theory (checkpoint_interval.hpp): G1 = 0.9645,
//                a loss of ~1,860 s per failure
//   eight planes: the job keeps 7/8 of the bandwidth of those GPUs for D + repair = 14,460 s: the step
//                stretches by s = 1 + c(8/7 - 1) = 1.02857 (progress loses 1 - 1/s = 2.78% of running
//                time), plus a 1 s reroute stall: ~397 s per failure, no interruption
//   ratio of losses (G0 - G1) / (G0 - G8) ~ 1,860 / 397 ~ 4: the single plane loses ~4x more goodput.
#include "models/workload/checkpoint_interval.hpp"
#include "tests/support/simulate.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cmath>

using namespace dcsim;

namespace {
Scenario design(int planes) {
  const std::string json = fmt::format(R"({{
    "name": "fabric{}", "seed": 5, "replicas": 4, "duration_h": 2000,
    "hardware": {{ "gpu": {{ "model": "rubin" }}, "rack": {{ "kind": "nvl72", "spare_gpus": 8 }} }},
    "cluster": {{ "racks": 16 }},
    "fabric": {{ "kind": "roce", "planes": {}, "port_gbps": {}, "tiers": 2, "switch_radix": 64, "reroute_s": 1 }},
    "failures": {{ "modes": [ {{ "name": "leaf", "scope": "leaf", "mtbf_h": {}, "detect_s": 60, "repair_h": 4 }} ] }},
    "operations": {{ "restart_s": 600 }},
    "jobs": [ {{ "name": "j", "gpus": 1024, "step_time_s": 1, "model_flops_per_step": 1e15,
                 "scaleout_comm_frac": 0.2, "checkpoint": {{ "interval_s": 1800, "write_s": 30 }} }} ],
    "output": {{ "timeseries_interval_s": 0, "events": false }}
  }})",
                                       planes, planes, 1600 / planes, 720 * planes);
  return test::scenario_from_text(json);
}
} // namespace

TEST_CASE("a leaf failure interrupts a single-plane job but only slows a multi-plane one", "[scenario][fabric]") {
  const auto results = test::simulate_all({design(1), design(8)});
  for (const auto& runs : results)
    for (const auto& r : runs)
      test::require_conserved(r);
  const auto& one = results[0];
  const auto& eight = results[1];

  const double lambda_per_s = (32.0 / 36.0) / (20.0 * 3600.0);
  const double g0 = 1800.0 / 1830.0;
  const double g1_theory = workload::renewal_goodput({lambda_per_s, 60, 600, 1800, 30});
  const double slowdown = 1.0 + 0.2 * (8.0 / 7.0 - 1.0);
  const double loss8_per_failure_s = 1.0 + (60.0 + 4 * 3600.0) * (1.0 - 1.0 / slowdown) * g0;
  const double g8_theory = g0 - lambda_per_s * loss8_per_failure_s;

  const double g1 = test::mean_metric(one, "j", "goodput_frac");
  const double g8 = test::mean_metric(eight, "j", "goodput_frac");
  INFO(fmt::format("one plane: goodput {:.4f} (theory {:.4f}); eight planes: {:.4f} (theory {:.4f}); loss ratio "
                   "{:.2f} (theory {:.2f})",
                   g1, g1_theory, g8, g8_theory, (g0 - g1) / (g0 - g8), (g0 - g1_theory) / (g0 - g8_theory)));
  CHECK(std::fabs(g1 - g1_theory) < 0.005);
  CHECK((g0 - g8) == Approx(g0 - g8_theory).epsilon(0.25));
  CHECK(g1 < g8);
  CHECK((g0 - g1) / (g0 - g8) == Approx((g0 - g1_theory) / (g0 - g8_theory)).epsilon(0.30));

  // How the losses are booked: interruptions and rework with one plane; degraded time with eight.
  CHECK(test::mean_metric(one, "j", "interruptions") > 50);
  CHECK(test::mean_metric(one, "j", "ledger_degraded_gpu_h") == 0);
  CHECK(test::mean_metric(eight, "j", "interruptions") == 0);
  CHECK(test::mean_metric(eight, "j", "ledger_rework_gpu_h") == 0);
  CHECK(test::mean_metric(eight, "j", "ledger_degraded_gpu_h") > 0);
}
