// A service described by a model (/jobs/*/serving) in the replica: its capacity per GPU is the serving
// model's, and a failed GPU takes its whole instance out.
#include "models/serving/spec.hpp"
#include "tests/support/simulate.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

using namespace dcsim;

namespace {
/// One GB200 NVL72 rack without in-rack spares (a failed GPU stays down until repaired: 4 h, fixed),
/// GPU failures with an MTBF of 10,000 h each (~7 in 1,000 h), a service holding the rack.
Scenario service(const std::string& capacity) {
  return test::scenario_from_text(fmt::format(R"({{
    "name": "serving", "seed": 3, "replicas": 1, "duration_h": 1000,
    "hardware": {{ "gpu": {{ "model": "gb200" }}, "rack": {{ "kind": "nvl72", "spare_gpus": 0 }} }},
    "cluster": {{ "racks": 1 }},
    "failures": {{ "modes": [ {{ "name": "gpu", "scope": "gpu", "mtbf_h": 10000, "detect_s": 0, "repair_h": 4 }} ] }},
    "operations": {{ "restart_s": 600, "spare_racks": 0 }},
    "jobs": [ {{ "name": "chat", "kind": "inference", "gpus": 72, "sunk": false, "demand_tokens_per_s": 1e9,
                 {} }} ]
  }})",
                                              capacity));
}
} // namespace

TEST_CASE("serving: a failed GPU takes its instance out, and capacity is the model's", "[scenario][serving]") {
  const Scenario plain_s = service(R"("tokens_per_s_per_gpu": 1000)");
  const Scenario model_s = service(R"("serving": { "model": "deepseek-r1", "tp": 8, "ep": 8, "attention_dp": true,
                                       "precision": "fp4", "tpot_slo_s": 0.05, "restart_s": 0 })");
  // The scenario's rate is the operating curve's at the SLO on this hardware.
  const auto capacity = serving::serving_capacity(*model_s.jobs[0].serving, model_s.hardware);
  REQUIRE(capacity.problem.empty());
  CHECK(model_s.jobs[0].tokens_per_s_per_gpu == capacity.output_tokens_per_s_per_gpu);
  CHECK(capacity.point.tpot_s <= 0.05);
  const auto plain = test::simulate(plain_s).front();
  const auto model = test::simulate(model_s).front();
  REQUIRE(plain.services.size() == 1);
  REQUIRE(model.services.size() == 1);
  // The same failure draws (named streams): with 1-GPU capacity each failure downs 1 GPU for its repair;
  // with DEP8 instances it downs 8 (no two of this seed's failures overlap in one instance).
  REQUIRE(plain.services[0].down_gpu_h > 0);
  CHECK(model.services[0].down_gpu_h == Approx(8 * plain.services[0].down_gpu_h).epsilon(1e-9));
  // Demand above capacity: served tokens = capacity x serving GPU-time.
  CHECK(model.services[0].served_tokens ==
        Approx(capacity.output_tokens_per_s_per_gpu * model.services[0].serving_gpu_h * 3600).epsilon(1e-9));
  CHECK(model.services[0].serving_gpu_h + model.services[0].down_gpu_h == Approx(72.0 * 1000).epsilon(1e-9));
}

namespace {
/// Racks of 72 usable GB200 GPUs without failures, a DeepSeek-R1 service in DEP64 instances (one per
/// rack, 8 GPUs of each left over), 24 h.
Scenario dep64(int racks, const std::string& demand) {
  return test::scenario_from_text(fmt::format(R"({{
    "name": "dep64", "seed": 1, "replicas": 1, "duration_h": 24,
    "hardware": {{ "gpu": {{ "model": "gb200" }}, "rack": {{ "kind": "nvl72", "spare_gpus": 0 }} }},
    "cluster": {{ "racks": {} }},
    "failures": {{ "modes": [] }},
    "operations": {{ "spare_racks": 0 }},
    "jobs": [ {{ "name": "chat", "kind": "inference", "gpus": {}, {},
                 "serving": {{ "model": "deepseek-r1", "tp": 64, "ep": 64, "attention_dp": true,
                              "precision": "fp4", "tpot_slo_s": 0.05 }} }} ]
  }})",
                                              racks, racks * 72, demand));
}
} // namespace

TEST_CASE("serving: a domain's GPUs left over by whole instances are unused, not down", "[scenario][serving]") {
  // 72 GPUs per domain, instances of 64: 8 GPUs of each domain serve nothing. Without failures nothing is
  // down (stop 29 counted the 8 down): serving GPU-hours are the whole rack's, 8 x 24 of them unused.
  const auto r = test::simulate(dep64(1, R"("sunk": false, "demand_tokens_per_s": 1e9)")).front();
  REQUIRE(r.services.size() == 1);
  const auto& sv = r.services[0];
  CHECK(sv.down_gpu_h == 0);
  CHECK(sv.serving_gpu_h == Approx(72.0 * 24));
  CHECK(sv.unused_gpu_h == Approx(8.0 * 24));
  // Capacity counts the 64 GPUs of the instance only.
  CHECK(sv.served_tokens == Approx(dep64(1, R"("sunk": false, "demand_tokens_per_s": 1e9)").jobs[0].tokens_per_s_per_gpu *
                                   64 * 24 * 3600)
                                .epsilon(1e-9));
}

TEST_CASE("serving: SUNK sizes the service in whole instances of the model's capacity", "[scenario][serving]") {
  // Demand of 1.05 instances: 68 GPUs' worth fits one 72-GPU domain by GPU count, but one DEP64 instance
  // serves only 64 GPUs' worth, so the service takes two domains and serves all of it (a GPU count would
  // take one and serve 1/1.05 = 95.2%).
  const Scenario probe = dep64(3, R"("sunk": true, "demand_tokens_per_s": 1)");
  const double instance = probe.jobs[0].tokens_per_s_per_gpu * 64;
  const Scenario s = dep64(3, fmt::format(R"("sunk": true, "min_gpus_frac": 0.3, "demand_tokens_per_s": {}, "demand_swing_frac": 0)",
                                          1.05 * instance));
  const auto r = test::simulate(s).front();
  const auto& sv = r.services[0];
  CHECK(sv.served_tokens == Approx(sv.demanded_tokens).epsilon(1e-9));
  CHECK(sv.serving_gpu_h == Approx(2 * 72.0 * 24));
  // Its requests: every demanded request served within the SLOs at this load (fluid; one peak window a day
  // at 52% load does not open: below 0.8), cost per token split exactly (checked in the cost test).
  CHECK(sv.modelled);
  CHECK(sv.requests_served == Approx(sv.requests_demanded).epsilon(1e-9));
  CHECK(sv.requests_met == Approx(sv.requests_demanded).epsilon(1e-9));
}

TEST_CASE("serving: a service's GPUs draw idle power plus their busy share of the load power", "[scenario][serving]") {
  // Two DEP64 instances at half their capacity (constant demand, no failures, no windows: 50% < 80%):
  // u = 0.5, so the 128 serving GPUs draw P_idle + 0.5·(P_busy − P_idle) and the 16 left over P_idle, all with
  // their share of rack base power: E = [144·(P_idle + P_base/72) + 128·0.5·(P_busy − P_idle)]·24 h.
  const Scenario probe = dep64(2, R"("sunk": false, "demand_tokens_per_s": 1)");
  const double instance = probe.jobs[0].tokens_per_s_per_gpu * 64;
  const Scenario s = dep64(2, fmt::format(R"("sunk": false, "demand_tokens_per_s": {}, "demand_swing_frac": 0)", instance));
  const auto r = test::simulate(s).front();
  const auto& sv = r.services[0];
  const auto curve = s.power.gpu_curve(s.hardware.gpu);
  const double base_per_gpu_w = s.power.rack_base_kw * 1000 / 72;
  const double expected_w = 144 * (curve.idle_w() + base_per_gpu_w) + 128 * 0.5 * (curve.busy_w(1.0) - curve.idle_w());
  REQUIRE(sv.served_tokens == Approx(sv.demanded_tokens).epsilon(1e-9));
  CHECK(sv.energy_j == Approx(expected_w * 24 * 3600).epsilon(1e-9));
  CHECK(sv.windows == 0);
}

TEST_CASE("serving: a disaggregated service whose prefill pool binds serves that pool's capacity", "[scenario][serving]") {
  // One GB200 rack (72 usable GPUs) in DEP8 instances: n = 9, at r = 0.125 n_p = round(9·0.125/1.125) = 1
  // and n_d = 8. No failures, 24 h, demand far above capacity, no demand-peak window (the fluid mode
  // alone): served = C·24 h with C = min(1·C_p, 8·C_d) = C_p, and every served request has the TTFT of a
  // prompt's prefill on an idle prefill instance (the first token comes from the prefill instance).
  const Scenario s = test::scenario_from_text(R"({
    "name": "disagg", "seed": 1, "replicas": 1, "duration_h": 24,
    "hardware": { "gpu": { "model": "gb200" }, "rack": { "kind": "nvl72", "spare_gpus": 0 } },
    "cluster": { "racks": 1 },
    "failures": { "modes": [] },
    "operations": { "spare_racks": 0 },
    "jobs": [ { "name": "chat", "kind": "inference", "gpus": 72, "sunk": false, "demand_tokens_per_s": 1e9,
                "serving": { "model": "deepseek-r1", "tp": 8, "ep": 8, "attention_dp": true, "precision": "fp4",
                             "isl_tokens": 4096, "osl_tokens": 512, "tpot_slo_s": 0.05,
                             "peak_window_load_frac": 1e12,
                             "disaggregation": { "prefill_instances_per_decode_instance": 0.125,
                                                 "kv_handoff_over": "nvlink" } } } ]
  })");
  const auto& spec = *s.jobs[0].serving;
  const serving::PerfModel m(*serving::find_model_shape("deepseek-r1"), spec.instance, serving::gpu_figures(s.hardware),
                             serving::efficiency_for(s.hardware.gpu.model));
  const auto f = serving::disaggregated_figures(m, 4096, 512, 0.05, *spec.disaggregation);
  REQUIRE(f.problem.empty());
  const double cap = std::min(1 * f.prefill_req_per_s, 8 * f.decode_req_per_s);
  REQUIRE(1 * f.prefill_req_per_s < 8 * f.decode_req_per_s); // the prefill pool binds
  CHECK(s.jobs[0].tokens_per_s_per_gpu == Approx(cap * 512 / 72));
  const auto r = test::simulate(s).front();
  REQUIRE(r.services.size() == 1);
  const auto& sv = r.services[0];
  CHECK(sv.windows == 0);
  CHECK(sv.requests_served == Approx(cap * 24 * 3600).epsilon(1e-9));
  CHECK(sv.served_tokens == Approx(cap * 512 * 24 * 3600).epsilon(1e-9));
  CHECK(sv.ttft_p50_s == Approx(m.prefill_s(4096)).epsilon(0.025)); // a histogram bin: within 2.3%
  // The decoders are not full (the prefill pool binds): TPOT within the SLO point's.
  CHECK(sv.tpot_p50_s <= (f.decode_step_s + f.handoff_tpot_s) * 1.025);
  CHECK(sv.requests_met == Approx(sv.requests_served).epsilon(1e-9));
}
