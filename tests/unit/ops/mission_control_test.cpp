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
