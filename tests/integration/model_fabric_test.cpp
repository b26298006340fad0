// A job described by a model on a scale-out fabric: its cross-rack collectives are played on the SimGrid
// fabric (FabricCommModel), in the World's constructor for the healthy step and in replicas as the
// fabric degrades.
//
// 4 GB300 NVL72 racks of 64 usable GPUs, an 8-plane RoCE fabric of 100G ports (800 Gb/s per GPU), radix 64 (rail-optimised:
// leaf l holds the same 8 slots of every rack). One 256-GPU job, tp 4 x dp 64: each DP group has 16
// members per rack, and its inter-rack ring joins GPUs of the same slot, under the same leaf. So:
//   - no bundle is on any route: DP groups share no link and one group's ring (64 flows) stands for all;
//   - each member gets its full 8 x 12.5 GB/s, as the alpha-beta model assumes with the fabric's
//     scale-out bandwidth (routing efficiency 1): the two step times agree.
// Communication does not overlap compute here, so that DP time is exposed and compared.
#include "models/workload/step_model.hpp"
#include "tools/dcsim/step_report.hpp"
#include "models/world.hpp"
#include "tests/support/simulate.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

using namespace dcsim;

namespace {
Scenario design(double leaf_mtbf_h) {
  const std::string failures =
      leaf_mtbf_h > 0
          ? fmt::format(R"("failures": {{ "modes": [ {{ "name": "leaf", "scope": "leaf", "mtbf_h": {}, "detect_s": 60,
                                                       "repair_h": 4 }} ] }},)",
                        leaf_mtbf_h)
          : std::string();
  return test::scenario_from_text(fmt::format(R"({{
    "name": "model-fabric", "seed": 3, "replicas": 2, "duration_h": 200,
    "hardware": {{ "gpu": {{ "model": "gb300" }}, "rack": {{ "kind": "nvl72", "spare_gpus": 8 }} }},
    "cluster": {{ "racks": 4 }},
    "fabric": {{ "kind": "roce", "planes": 8, "port_gbps": 100, "tiers": 2, "switch_radix": 64,
                 "routing_efficiency_frac": 1.0, "reroute_s": 1 }},
    {}
    "jobs": [ {{ "name": "j", "gpus": 256,
      "model": {{ "layers": 32, "hidden": 8192, "heads": 64, "kv_heads": 8, "ffn_hidden": 28672, "mlp": "swiglu",
                  "seq_len": 8192, "vocab": 128256, "tied_embeddings": false, "global_batch": 256,
                  "precision": "fp8" }},
      "parallelism": {{ "tp": 4, "pp": 1, "zero": 1, "overlap_grad_reduce": false, "overlap_param_gather": false }},
      "checkpoint": {{ "interval_s": 1800, "write_s": 30 }} }} ],
    "output": {{ "timeseries_interval_s": 0, "events": false }}
  }})",
                                              failures));
}
} // namespace

TEST_CASE("a model job's healthy step plays one DP ring on the fabric and agrees with alpha-beta there",
          "[scenario][fabric][step]") {
  const Scenario s = design(0);
  const workload::StepBreakdown alpha_beta = workload::healthy_step(*s.jobs[0].model, s.hardware, scale_out_gbps(s));
  World world(s);
  REQUIRE(world.healthy_step(0));
  const workload::StepBreakdown& played = *world.healthy_step(0);
  CHECK(played.dp_s > 0);
  CHECK(played.dp_s == Approx(alpha_beta.dp_s).epsilon(1e-6));
  CHECK(played.step_time_s == Approx(alpha_beta.step_time_s).epsilon(1e-6));
  CHECK(world.scenario().jobs[0].step_time_s == played.step_time_s);
  REQUIRE(world.fabric_comm(0));
  CHECK(world.fabric_comm(0)->probes() == 1);
  CHECK(world.fabric_comm(0)->flows_played() == 64); // one DP group: 4 racks x 16 members
  CHECK(sim::Platform::clock_ticks() == 0);          // the probe ran in a child
}

TEST_CASE("leaf failures slow a model job on a multi-plane fabric without interrupting it",
          "[scenario][fabric][step]") {
  const auto healthy = test::simulate(design(0));
  const auto faulty = test::simulate(design(50));
  for (const auto* runs : {&healthy, &faulty})
    for (const auto& r : *runs)
      test::require_conserved(r);
  CHECK(test::mean_metric(healthy, "j", "ledger_degraded_gpu_h") == 0);
  CHECK(test::mean_metric(faulty, "j", "ledger_degraded_gpu_h") > 0);
  CHECK(test::mean_metric(faulty, "j", "interruptions") == 0); // 8 planes: a leaf costs 1/8, never the link
  CHECK(test::mean_metric(faulty, "j", "goodput_frac") < test::mean_metric(healthy, "j", "goodput_frac"));
}

TEST_CASE("dcsim step prices a model job on the fabric, and can report twice in one process",
          "[scenario][fabric][step]") {
  const Scenario s = design(0);
  const workload::StepBreakdown alpha_beta = workload::healthy_step(*s.jobs[0].model, s.hardware, scale_out_gbps(s));
  const std::string json = tools::step_report_json(s);
  CHECK(tools::step_report_json(s) == json); // the World is built in a child: no second engine here
  const auto j = nlohmann::json::parse(json);
  CHECK(j.at("job") == "j");
  CHECK(j.at("scale_out_network") == "played on the fabric (64 flows in 1 probe)");
  CHECK(j.at("step_time_s").get<double>() == Approx(alpha_beta.step_time_s).epsilon(1e-6));
  CHECK(j.at("mfu_frac").get<double>() == Approx(alpha_beta.mfu_frac).epsilon(1e-6));
  CHECK(j.at("tflops_per_gpu").get<double>() == Approx(alpha_beta.model_tflops_per_gpu).epsilon(1e-6));
  CHECK(j.at("memory_gb_per_gpu").get<double>() == Approx(alpha_beta.memory.total_gb()));
  CHECK_THAT(tools::step_report_text(s), Catch::Contains("(scale-out collectives: played on the fabric (64 flows in 1 probe))"));
}
