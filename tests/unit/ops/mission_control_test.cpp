#include "models/ops/mission_control.hpp"

#include <catch2/catch.hpp>

using namespace dcsim;

namespace {
struct Fixture {
  hardware::Layout layout{[] {
                            hardware::HardwareSpec h;
                            return h;
                          }(),
                          hardware::ClusterSpec{1}};
  failure::FailuresSpec failures;
  ops::OperationsSpec ops;
  failure::GpuHealth health{layout.gpus()};
  sim::EventQueue queue;
  sim::EventLog log;
  std::vector<std::string> order;

  failure::Failure fail(int gpu, int mode = 0) {
    failure::Failure f;
    f.id = static_cast<std::uint64_t>(order.size() + 100 * gpu);
    f.mode = mode;
    f.scope = hardware::Scope::GPU;
    f.unit = gpu;
    f.gpus = {gpu, 1};
    f.time = queue.now();
    health.fail(f.gpus);
    return f;
  }
};
failure::FailureModeSpec fixed(double detect_s, double repair_h) {
  failure::FailureModeSpec m;
  m.name = "m";
  m.scope_name = "gpu";
  m.detect_s = detect_s;
  m.repair_h = repair_h;
  return m;
}
} // namespace

TEST_CASE("repairs queue for a limited number of crews, in detection order", "[unit][mission_control]") {
  Fixture fx;
  fx.failures.modes = {fixed(60, 1.0)};
  fx.ops.repair_crews = 1;
  std::vector<double> repaired_at_h;
  ops::MissionControl::Listener listener;
  listener.detected = [](const failure::Failure&) {};
  listener.repaired = [&](const failure::Failure&) { repaired_at_h.push_back(sim::to_hours(fx.queue.now())); };
  ops::MissionControl mc(fx.ops, fx.failures, fx.layout, fx.health, fx.queue, fx.log, 1, 0, listener);
  for (int g : {3, 5, 9})
    mc.on_failure(fx.fail(g));
  fx.queue.run_until(sim::hours_to_ticks(10));
  // Detected at 60 s; one crew: done at 1 h + 60 s, 2 h + 60 s, 3 h + 60 s.
  REQUIRE(repaired_at_h.size() == 3);
  CHECK(repaired_at_h[0] == Approx(1 + 60 / 3600.0));
  CHECK(repaired_at_h[1] == Approx(2 + 60 / 3600.0));
  CHECK(repaired_at_h[2] == Approx(3 + 60 / 3600.0));
  CHECK(fx.health.down_gpus() == 0);
  // MTTR runs from failure to back in service: (1 + 2 + 3) h / 3 + 60 s.
  const auto& s = mc.stats()[0];
  CHECK(s.repaired == 3);
  CHECK(sim::to_hours(s.time_to_repair) / 3 == Approx(2 + 60 / 3600.0));
}

TEST_CASE("a repair without a crew (a link flap) neither waits for nor holds one", "[unit][mission_control]") {
  Fixture fx;
  failure::FailureModeSpec flap = fixed(0, 0.01);
  flap.name = "flap";
  flap.repair_crew = false;
  fx.failures.modes = {fixed(60, 1.0), flap};
  fx.ops.repair_crews = 1;
  std::vector<std::pair<int, double>> repaired; // (GPU, hour)
  ops::MissionControl::Listener listener;
  listener.detected = [](const failure::Failure&) {};
  listener.repaired = [&](const failure::Failure& f) {
    repaired.emplace_back(f.gpus.first, sim::to_hours(fx.queue.now()));
  };
  ops::MissionControl mc(fx.ops, fx.failures, fx.layout, fx.health, fx.queue, fx.log, 1, 0, listener);
  mc.on_failure(fx.fail(3));    // holds the only crew from 60 s to 1 h + 60 s
  mc.on_failure(fx.fail(5, 1)); // a flap: back after 0.01 h although the crew is busy
  mc.on_failure(fx.fail(9));    // queues for the crew, which the flap never took: 2 h + 60 s
  fx.queue.run_until(sim::hours_to_ticks(10));
  REQUIRE(repaired.size() == 3);
  CHECK(repaired[0].first == 5);
  CHECK(repaired[0].second == Approx(0.01));
  CHECK(repaired[1].first == 3);
  CHECK(repaired[1].second == Approx(1 + 60 / 3600.0));
  CHECK(repaired[2].first == 9);
  CHECK(repaired[2].second == Approx(2 + 60 / 3600.0));
  CHECK(sim::to_hours(mc.stats()[1].time_to_repair) == Approx(0.01)); // its MTTR is its own repair time
}

TEST_CASE("a zero-length repair completes at detection, before jobs hear of it", "[unit][mission_control]") {
  Fixture fx;
  fx.failures.modes = {fixed(600, 0.0)};
  ops::MissionControl::Listener listener;
  listener.detected = [&](const failure::Failure&) {
    fx.order.push_back(fx.health.up(4) ? "detected(up)" : "detected(down)");
  };
  listener.repaired = [&](const failure::Failure&) { fx.order.push_back("repaired"); };
  ops::MissionControl mc(fx.ops, fx.failures, fx.layout, fx.health, fx.queue, fx.log, 1, 0, listener);
  mc.on_failure(fx.fail(4));
  fx.queue.run_until(sim::to_ticks(599));
  CHECK(fx.order.empty());
  fx.queue.run_until(sim::to_ticks(600));
  CHECK(fx.order == std::vector<std::string>{"repaired", "detected(up)"});
}

TEST_CASE("a repair pipeline's mean time to repair matches its stage algebra", "[unit][mission_control]") {
  // Stages: triage 0.1 h (no crew, succeeds 30%), reset 0.5 h (50%), tray swap 4 h (90%), RMA 72 h (100%).
  // E[repair] = Σ_i P(reach i)·d_i = 0.1 + 0.7·0.5 + 0.35·4 + 0.035·72 = 4.37 h.
  // Per-repair sd from the algebra of a discrete mixture: E[X²] = Σ P(end at i)·(Σ_{k<=i} d_k)², with
  // ends 0.3 @ 0.1, 0.35 @ 0.6, 0.315 @ 4.6, 0.035 @ 76.6: E[X²] = 215.99, sd = √(215.99 − 4.37²) = 14.04 h.
  Fixture fx;
  failure::FailureModeSpec m = fixed(0, 0);
  m.repair_pipeline = true;
  fx.failures.modes = {m};
  auto stage = [](const char* name, double h, double success, bool crew) {
    ops::RepairStage st;
    st.name = name;
    st.duration_h = h;
    st.success_frac = success;
    st.crew = crew;
    return st;
  };
  fx.ops.repair_pipeline = {stage("triage", 0.1, 0.3, false), stage("reset", 0.5, 0.5, true),
                            stage("tray_swap", 4, 0.9, true), stage("rma", 72, 1.0, true)};
  CHECK(ops::pipeline_mean_h(fx.ops.repair_pipeline) == Approx(4.37));
  ops::MissionControl::Listener listener;
  listener.detected = [](const failure::Failure&) {};
  listener.repaired = [](const failure::Failure&) {};
  ops::MissionControl mc(fx.ops, fx.failures, fx.layout, fx.health, fx.queue, fx.log, 1, 0, listener);
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    failure::Failure f;
    f.id = static_cast<std::uint64_t>(i);
    f.mode = 0;
    f.unit = i % 72;
    f.gpus = {i % 72, 1};
    f.time = fx.queue.now();
    fx.health.fail(f.gpus);
    mc.on_failure(f);
  }
  fx.queue.run_until(sim::hours_to_ticks(10000));
  const auto& s = mc.stats()[0];
  REQUIRE(s.repaired == static_cast<std::uint64_t>(n));
  CHECK(sim::to_hours(s.time_to_repair) / n == Approx(4.37).margin(4 * 14.04 / std::sqrt(n)));
  CHECK(fx.health.down_gpus() == 0);
}
