#include "models/failure/injector.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace dcsim;
using namespace dcsim::failure;

namespace {
hardware::Layout small_layout(int racks) {
  hardware::HardwareSpec h;
  h.rack.kind = hardware::RackKind::NVL72;
  return hardware::Layout(h, hardware::ClusterSpec{racks});
}
FailureModeSpec mode(hardware::Scope scope, double mtbf_h, double shape = 1.0) {
  FailureModeSpec m;
  m.name = "m";
  m.unit_kind = failure::unit_kind_of(scope);
  m.rate_key = RateKey::MTBF_H;
  m.rate_value = mtbf_h;
  m.weibull_shape = shape;
  return m;
}
} // namespace

TEST_CASE("rate keys convert to a rate per unit", "[unit][failure]") {
  const auto layout = small_layout(1);
  FailureModeSpec m = mode(hardware::Scope::TRAY, 100);
  CHECK(m.unit_rate_per_h(layout) == Approx(0.01));
  m.rate_key = RateKey::PER_GPU_DAY;
  m.rate_value = 0.24; // per GPU-day: a 4-GPU tray fails 0.96 times a day = 0.04 per hour
  CHECK(m.unit_rate_per_h(layout) == Approx(0.04));
  m.rate_key = RateKey::PER_NODE_DAY;
  m.unit_kind = failure::unit_kind_of(hardware::Scope::GPU); // a node's rate spread over its 4 GPUs: 0.24 / 4 / 24
  CHECK(m.unit_rate_per_h(layout) == Approx(0.0025));
}

TEST_CASE("exponential failures arrive at N·λ over the population", "[unit][failure]") {
  // 10 racks = 720 GPUs, MTBF 720 h per GPU: 1 failure per hour. Over 20,000 h: 20,000 ± 141 (Poisson).
  const auto layout = small_layout(10);
  const std::vector<FailureModeSpec> modes{mode(hardware::Scope::GPU, 720)};
  GpuHealth health(layout.gpus());
  sim::EventQueue q;
  int count = 0;
  FailureInjector* self = nullptr;
  FailureInjector inj(modes, layout, health, q, 1, 0, [&](const Failure& f) {
    ++count;
    health.repair(f.gpus); // instant repair: no thinning
    self->renew(f);
  });
  self = &inj;
  inj.start();
  q.run_until(sim::hours_to_ticks(20000));
  CHECK(std::abs(count - 20000) < 4 * 141);
}

TEST_CASE("a unit struck by a mode fails again only after its repair (thinning per mode)", "[unit][failure]") {
  // 54 trays at MTBF 1 h, never repaired: each fails exactly once, even though every GPU is down for
  // another mode from the start (modes are independent).
  const auto layout = small_layout(3);
  const std::vector<FailureModeSpec> modes{mode(hardware::Scope::TRAY, 1)};
  GpuHealth health(layout.gpus());
  health.fail({0, layout.gpus()}); // all GPUs down for some other mode
  sim::EventQueue q;
  std::vector<int> struck(static_cast<std::size_t>(layout.unit_count(hardware::Scope::TRAY)), 0);
  FailureInjector inj(modes, layout, health, q, 3, 0, [&](const Failure& f) { ++struck[static_cast<std::size_t>(f.unit)]; });
  inj.start();
  q.run_until(sim::hours_to_ticks(1000));
  for (int n : struck)
    CHECK(n == 1);
}

TEST_CASE("a stationary Weibull fleet fails at its mean rate from the start", "[unit][failure]") {
  // 10,000 GPUs, shape 0.5, MTBF 1,000 h: in the first 10 h a steady-state fleet has 10,000 x 10 / 1,000
  // = 100 failures expected (sd 10); a fleet installed at t = 0 has 10,000 (1 - e^{-(10/η)^0.5}) with
  // η = 1,000 / Γ(3) = 500 h: 1,319 failures.
  hardware::HardwareSpec h;
  h.rack.kind = hardware::RackKind::HGX;
  h.rack.gpus_per_node = 10;
  h.rack.nodes_per_rack = 100;
  const hardware::Layout layout(h, hardware::ClusterSpec{10});
  for (bool fresh : {false, true}) {
    auto m = mode(hardware::Scope::GPU, 1000, 0.5);
    m.weibull_new = fresh;
    const std::vector<FailureModeSpec> modes{m};
    GpuHealth health(layout.gpus());
    sim::EventQueue q;
    int count = 0;
    FailureInjector inj(modes, layout, health, q, 17, 0, [&](const Failure&) { ++count; });
    inj.start();
    q.run_until(sim::hours_to_ticks(10));
    if (fresh)
      CHECK(count == Approx(10000 * (1 - std::exp(-std::sqrt(10.0 / 500.0)))).margin(4 * 34));
    else
      CHECK(count == Approx(100).margin(40));
  }
}

TEST_CASE("Weibull units renew at repair and keep the mode's mean time between failures", "[unit][failure]") {
  // One rack, shape 2, MTBF 100 h, renewed at once: mean inter-failure time 100 h (sd 52.3 h, n ~ 500).
  const auto layout = small_layout(1);
  const std::vector<FailureModeSpec> modes{mode(hardware::Scope::RACK, 100, 2.0)};
  GpuHealth health(layout.gpus());
  sim::EventQueue q;
  std::vector<sim::Tick> times;
  FailureInjector* self = nullptr;
  FailureInjector inj(modes, layout, health, q, 5, 0, [&](const Failure& f) {
    times.push_back(f.time);
    health.repair(f.gpus);
    self->renew(f);
  });
  self = &inj;
  inj.start();
  q.run_until(sim::hours_to_ticks(50000));
  REQUIRE(times.size() > 400);
  const double mean_h = sim::to_hours(times.back()) / static_cast<double>(times.size());
  CHECK(mean_h == Approx(100).margin(4 * 52.3 / std::sqrt(static_cast<double>(times.size()))));
}

TEST_CASE("a pause filter discards strikes: exponential clocks pause, Weibull clocks restart", "[unit][failure]") {
  // Exponential: 720 GPUs, 1 failure per hour over the population, paused every other hour. Discarding the
  // Poisson points of paused hours leaves a Poisson process over the other hours: 10,000 ± 100 strikes and
  // 10,000 ± 100 discarded over 20,000 h (4σ bounds).
  {
    const auto layout = small_layout(10);
    const std::vector<FailureModeSpec> modes{mode(hardware::Scope::GPU, 720)};
    GpuHealth health(layout.gpus());
    sim::EventQueue q;
    int count = 0;
    FailureInjector* self = nullptr;
    FailureInjector inj(modes, layout, health, q, 1, 0, [&](const Failure& f) {
      ++count;
      CHECK((f.time / sim::hours_to_ticks(1)) % 2 == 0); // never in a paused hour
      health.repair(f.gpus);
      self->renew(f);
    });
    self = &inj;
    inj.set_pause([&q](int, hardware::GpuRange gpus) {
      CHECK(gpus.count == 1);
      return (q.now() / sim::hours_to_ticks(1)) % 2 == 1;
    });
    inj.start();
    q.run_until(sim::hours_to_ticks(20000));
    CHECK(std::abs(count - 10000) < 4 * 100);
    CHECK(std::abs(static_cast<double>(inj.discarded()) - 10000) < 4 * 100);
  }
  // Weibull: one rack, shape 2, MTBF 100 h, always paused: nothing is struck, and each discarded strike
  // draws a new lifetime from its date, so discards form the renewal process of the mode: mean gap 100 h
  // (sd 52.3 h): 500 ± 4·52.3·√500/100 = ± 47 discards over 50,000 h.
  const auto layout = small_layout(1);
  const std::vector<FailureModeSpec> modes{mode(hardware::Scope::RACK, 100, 2.0)};
  GpuHealth health(layout.gpus());
  sim::EventQueue q;
  int struck = 0;
  FailureInjector inj(modes, layout, health, q, 5, 0, [&](const Failure&) { ++struck; });
  inj.set_pause([](int, hardware::GpuRange) { return true; });
  inj.start();
  q.run_until(sim::hours_to_ticks(50000));
  CHECK(struck == 0);
  CHECK(health.down_gpus() == 0);
  CHECK(std::abs(static_cast<double>(inj.discarded()) - 500) < 47);
}
