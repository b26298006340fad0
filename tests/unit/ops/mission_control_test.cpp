#include "models/ops/mission_control.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

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

// --- Cooling faults: Mission Control detects them and runs their RLCC workflows ----------------------

namespace {
/// The facility's side, recorded: what a workflow isolates at detection and what returns at its end.
struct FakeWorks final : ops::CoolingWorks {
  sim::EventQueue* queue;
  std::vector<std::pair<std::string, double>> calls; // (what, second)
  explicit FakeWorks(sim::EventQueue& q) : queue(&q) {}
  double now_s() const { return sim::to_seconds(queue->now()); }
  bool ends_by_itself(const failure::Failure& f) const override { return f.unit >= 100; }
  void ended(const failure::Failure& f) override { calls.emplace_back("ended " + std::to_string(f.unit), now_s()); }
  ops::Rlcc::Workflow repair_workflow(const failure::Failure& f) override {
    calls.emplace_back("isolate " + std::to_string(f.unit), now_s());
    ops::Rlcc::Workflow w;
    w.component = "rack" + std::to_string(f.unit);
    w.scope = "rack";
    w.cause = "leak";
    w.coolant = w.burn_in = w.crew = true;
    w.done = [this, unit = f.unit] { calls.emplace_back("put back " + std::to_string(unit), now_s()); };
    return w;
  }
  void drain(const std::vector<int>&, bool, std::function<void()> drained) override { drained(); }
};
failure::FailureModeSpec cooling_mode(const char* name, cooling::CoolingElement element, double detect_s,
                                      double repair_h) {
  failure::FailureModeSpec m = fixed(detect_s, repair_h);
  m.name = name;
  m.scope_name = "branch";
  m.domain = failure::Domain::COOLING;
  m.unit_kind = failure::unit_kind_of(element);
  return m;
}
failure::Failure cooling_fault(std::uint64_t id, int mode, int unit, sim::Tick at) {
  failure::Failure f;
  f.id = id;
  f.mode = mode;
  f.unit = unit; // no GPUs: a cooling unit
  f.time = at;
  return f;
}
ops::RlccSpec rlcc_spec() {
  ops::RlccSpec s;
  s.isolate_s = 600;
  s.refill_s = 1800;
  s.burn_in_s = 1800;
  return s;
}
} // namespace

TEST_CASE("a cooling fault's repair is Mission Control's: detected, its RLCC workflow on the RLCC crews, counted",
          "[unit][mission_control]") {
  // Modes: 0 a GPU fault (detect 60 s, 1 h, repair_crews = 1), 1 a leak (Racky 10 s, 4 h, RLCC crews = 1).
  // At t = 0 two leaks and one GPU fault. Each leak: detected at 10 s, isolated at once, isolate 600 s,
  // service 4 h with the one RLCC crew, refill 1,800 s, burn-in 1,800 s:
  //   leak A back at 10 + 600 + 14,400 + 1,800 + 1,800 = 18,610 s;
  //   leak B waits for the crew from 610 s to 15,010 s: back at 15,010 + 14,400 + 3,600 = 33,010 s.
  // The GPU fault's crew is another pool: back at 60 + 3,600 = 3,660 s, with both leaks in service.
  // (Before Mission Control ran cooling repairs it never saw the leaks: its statistics counted none, and
  // a leak handed to it was repaired by a hardware crew at detection + 4 h = 14,410 s.)
  Fixture fx;
  fx.failures.modes = {fixed(60, 1.0), cooling_mode("leak", cooling::CoolingElement::BRANCH, 10, 4.0)};
  fx.ops.repair_crews = 1;
  std::vector<std::pair<std::uint64_t, double>> repaired; // (failure id, second)
  ops::MissionControl::Listener listener;
  listener.detected = [](const failure::Failure&) {};
  listener.repaired = [&](const failure::Failure& f) { repaired.emplace_back(f.id, sim::to_seconds(fx.queue.now())); };
  ops::MissionControl mc(fx.ops, fx.failures, fx.layout, fx.health, fx.queue, fx.log, 1, 0, listener,
                         [](const failure::Failure& f) { return "unit" + std::to_string(f.unit); });
  FakeWorks works(fx.queue);
  const ops::RlccSpec rlcc = rlcc_spec(); // kept by reference, as the scenario's
  mc.attach_facility(works, rlcc, /*rlcc_crews=*/1, /*extra_causes=*/0);
  mc.record(cooling_fault(1, 1, 7, 0)); // recorded before its physics, as the cooling domain's strike does
  mc.on_failure(cooling_fault(1, 1, 7, 0));
  mc.on_failure(cooling_fault(2, 1, 8, 0));
  failure::Failure gpu = fx.fail(3);
  gpu.id = 3;
  mc.on_failure(gpu);
  fx.queue.run_until(sim::to_ticks(700));
  CHECK(mc.busy_rlcc_crews() == 1);
  CHECK(mc.queued_workflows() == 1); // leak B waits for the RLCC crew ...
  CHECK(mc.busy_crews() == 1);       // ... while the GPU repair holds the other pool's crew
  CHECK(mc.queued_repairs() == 0);
  fx.queue.run_until(sim::hours_to_ticks(20));
  REQUIRE(repaired.size() == 3);
  CHECK(repaired[0] == std::pair<std::uint64_t, double>{3, 3660});
  CHECK(repaired[1] == std::pair<std::uint64_t, double>{1, 18610});
  CHECK(repaired[2] == std::pair<std::uint64_t, double>{2, 33010});
  CHECK(works.calls == std::vector<std::pair<std::string, double>>{
                           {"isolate 7", 10}, {"isolate 8", 10}, {"put back 7", 18610}, {"put back 8", 33010}});
  const auto& leak = mc.stats()[1];
  CHECK(leak.failures == 2); // recorded once, though record() and on_failure() both saw fault 1
  CHECK(leak.repaired == 2);
  CHECK(sim::to_seconds(leak.time_to_repair) == 18610 + 33010);
  CHECK(mc.stats()[0].repaired == 1);
  CHECK(mc.active_repairs() == 0);
}

TEST_CASE("a cooling repair's service time is drawn from repair/<mode>, as the facility drew it",
          "[unit][mission_control]") {
  Fixture fx;
  failure::FailureModeSpec leak = cooling_mode("leak", cooling::CoolingElement::BRANCH, 10, 4.0);
  leak.repair_dist = failure::RepairDist::EXPONENTIAL;
  fx.failures.modes = {leak};
  std::vector<double> repaired_s;
  ops::MissionControl::Listener listener;
  listener.repaired = [&](const failure::Failure&) { repaired_s.push_back(sim::to_seconds(fx.queue.now())); };
  ops::MissionControl mc(fx.ops, fx.failures, fx.layout, fx.health, fx.queue, fx.log, 42, 3, listener);
  FakeWorks works(fx.queue);
  const ops::RlccSpec rlcc = rlcc_spec(); // kept by reference, as the scenario's
  mc.attach_facility(works, rlcc, 0, 0);
  mc.on_failure(cooling_fault(1, 0, 0, 0));
  mc.on_failure(cooling_fault(2, 0, 1, 0));
  fx.queue.run_until(sim::hours_to_ticks(1000));
  // Unlimited crews: each back at 10 + 600 + its draw + 3,600 s, draws in detection order.
  sim::Rng rng(42, 3, "repair/leak");
  std::vector<double> expected;
  for (int k = 0; k < 2; ++k)
    expected.push_back(10 + 600 + sim::to_seconds(sim::hours_to_ticks(leak.draw_repair_h(rng))) + 3600);
  std::sort(expected.begin(), expected.end());
  REQUIRE(repaired_s.size() == 2);
  CHECK(repaired_s[0] == Approx(expected[0]).epsilon(1e-12));
  CHECK(repaired_s[1] == Approx(expected[1]).epsilon(1e-12));
}

TEST_CASE("a facility water excursion ends by itself: no workflow, its time drawn at the strike",
          "[unit][mission_control]") {
  // Repair 0.001 h = 3.6 s, shorter than the 10 s detection: it ends (and counts as repaired after
  // 3.6 s) before it is detected; the detection is still noted, and nothing is isolated.
  Fixture fx;
  fx.failures.modes = {cooling_mode("water", cooling::CoolingElement::FACILITY, 10, 0.001)};
  int repaired = 0;
  ops::MissionControl::Listener listener;
  listener.repaired = [&](const failure::Failure&) { ++repaired; };
  ops::MissionControl mc(fx.ops, fx.failures, fx.layout, fx.health, fx.queue, fx.log, 1, 0, listener,
                         [](const failure::Failure&) { return std::string("facility"); });
  FakeWorks works(fx.queue);
  const ops::RlccSpec rlcc = rlcc_spec(); // kept by reference, as the scenario's
  mc.attach_facility(works, rlcc, 1, 0);
  mc.on_failure(cooling_fault(1, 0, 100, 0)); // FakeWorks: units >= 100 end by themselves
  fx.queue.run_until(sim::hours_to_ticks(1));
  CHECK(works.calls == std::vector<std::pair<std::string, double>>{{"ended 100", 3.6}});
  CHECK(repaired == 1);
  CHECK(sim::to_seconds(mc.stats()[0].time_to_repair) == Approx(3.6));
  std::vector<std::pair<std::string, double>> events;
  for (const auto& e : fx.log.take())
    events.emplace_back(std::string(e.kind.str()), sim::to_seconds(e.time));
  CHECK(events == std::vector<std::pair<std::string, double>>{{"failure", 0}, {"detection", 10}});
}

TEST_CASE("outages of an extra cause (thermal shutdowns) count after the modes", "[unit][mission_control]") {
  Fixture fx;
  fx.failures.modes = {fixed(60, 1.0)};
  ops::MissionControl mc(fx.ops, fx.failures, fx.layout, fx.health, fx.queue, fx.log, 1, 0, {});
  FakeWorks works(fx.queue);
  const ops::RlccSpec rlcc = rlcc_spec(); // kept by reference, as the scenario's
  mc.attach_facility(works, rlcc, 0, /*extra_causes=*/1);
  REQUIRE(mc.stats().size() == 2);
  mc.outage_began(1);
  mc.outage_began(1);
  fx.queue.run_until(sim::hours_to_ticks(2));
  mc.outage_ended(1, sim::hours_to_ticks(0.5));
  CHECK(mc.stats()[1].failures == 2);
  CHECK(mc.stats()[1].repaired == 1);
  CHECK(sim::to_hours(mc.stats()[1].time_to_repair) == Approx(1.5));
  CHECK(mc.stats()[0].failures == 0);
}
