// GPU power curve, rack design power, capping policies and the energy meter (models/power/,
// models/hardware/gpu_power.hpp), against closed forms.
#include "models/hardware/gpu_power.hpp"
#include "models/power/power_capper.hpp"
#include "models/power/spec.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace dcsim;

TEST_CASE("GPU power by clock: static share plus a DVFS term", "[unit][power]") {
  const hardware::GpuPowerCurve gpu{1800, 0.15, 0.3, 2.0};
  CHECK(gpu.busy_w(1.0) == 1800);
  CHECK(gpu.busy_w(0.5) == Approx(1800 * (0.3 + 0.7 * 0.25))); // 855 W
  CHECK(gpu.idle_w() == Approx(270));
}

TEST_CASE("rack design power: usable GPUs busy, in-rack spares idle, base on", "[unit][power]") {
  // Rubin NVL72 with 8 spares: 64 x 1,800 + 8 x 270 + 0.35 x 72 x 1,800 = 115,200 + 2,160 + 45,360 = 162,720 W.
  hardware::HardwareSpec hw;
  hw.gpu.power_w = 1800;
  hw.rack.kind = hardware::RackKind::NVL72;
  hw.rack.gpus = 72;
  hw.rack.spare_gpus = 8;
  power::PowerSpec p;
  p.rack_base_kw = power::RACK_BASE_FRAC_OF_GPU_POWER * 72 * 1800 / 1000.0;
  CHECK(power::rack_design_power_w(p, hw) == Approx(162720));
}

TEST_CASE("uniform cap: the largest clock whose power fits", "[unit][power]") {
  // P(c) = 1,000 + 4,000·c² W; budget 3,000 W ⇒ c* = sqrt(2,000 / 4,000) = 0.70711.
  auto power_at = [](double c) { return 1000 + 4000 * c * c; };
  CHECK(power::uniform_cap(3000, 0.5, power_at) == Approx(std::sqrt(0.5)).epsilon(1e-8));
  CHECK(power_at(power::uniform_cap(3000, 0.5, power_at)) <= 3000);
  CHECK(power::uniform_cap(6000, 0.5, power_at) == 1.0);  // fits uncapped
  CHECK(power::uniform_cap(1500, 0.5, power_at) == 0.5);  // infeasible: the floor, over budget
}

TEST_CASE("priority caps: the last job is capped first", "[unit][power]") {
  // Two jobs, P = 1,000 + 2,000·c0² + 2,000·c1².
  auto power_at = [](const std::vector<double>& c) { return 1000 + 2000 * c[0] * c[0] + 2000 * c[1] * c[1]; };
  // Budget 4,000: capping job 1 alone suffices: c1 = sqrt(1,000 / 2,000) = 0.70711, job 0 untouched.
  auto caps = power::priority_caps(4000, 0.5, 2, power_at);
  CHECK(caps[0] == 1.0);
  CHECK(caps[1] == Approx(std::sqrt(0.5)).epsilon(1e-8));
  // Budget 3,000: job 1 at its floor 0.5 leaves 1,500 W: job 0 at sqrt(1,500 / 2,000) = 0.86603.
  caps = power::priority_caps(3000, 0.5, 2, power_at);
  CHECK(caps[1] == 0.5);
  CHECK(caps[0] == Approx(std::sqrt(0.75)).epsilon(1e-8));
}

TEST_CASE("energy meter integrates piecewise-constant power", "[unit][power]") {
  power::EnergyMeter m;
  m.set(0, 100);
  m.set(sim::to_ticks(10), 300); // 1,000 J so far
  m.set(sim::to_ticks(10), 50);  // replaced at the same date: no duration, no peak
  m.advance(sim::to_ticks(30));  // + 50 x 20
  CHECK(m.energy_j() == Approx(2000));
  CHECK(m.peak_w() == 100);
  CHECK_THROWS(m.set(0, 1));
}
