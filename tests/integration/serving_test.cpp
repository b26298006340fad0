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
                                       "precision": "fp4", "tpot_slo_s": 0.05 })");
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
