// The facility's power part (models/facility/facility_power.hpp) on a toy cluster, driven through an
// engine-free sim::EventQueue and a fake RackView: no replica, no jobs, no cooling plant.
//
// Toy: 2 racks of 4 GPUs (hgx-free: only the counts matter), GPU curve P_max = 1,000 W, idle 0.1, static
// 0.3, k = 2 ⇒ P_idle = 100 W, P_busy(f) = 1,000·(0.3 + 0.7 f²), P_busy(1) = 1,000 W, P_busy(0.8) = 748 W;
// rack base 2 kW ⇒ P_idle + P_base/G = 100 + 500 = 600 W per healthy GPU.
// Workloads in scenario order: 0 "chat" (an inference service) on rack 0, 1 "train" (training) on rack 1.
#include "models/facility/facility_power.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace dcsim;

namespace {

constexpr int RACKS = 2;
constexpr int PER_RACK = 4;

class FakeRacks : public facility::RackView {
public:
  int powered_racks() const override { return powered_count; }
  bool powered(int) const override { return true; }
  int up_gpus() const override { return up; }
  const std::set<int>& throttled_racks() const override { return throttled; }
  double rack_clock_frac(int rack) const override { return clock.at(static_cast<std::size_t>(rack)); }

  int powered_count = RACKS;
  int up = RACKS * PER_RACK;
  std::set<int> throttled;
  std::vector<double> clock = std::vector<double>(RACKS, 1.0);
};

struct Toy {
  hardware::HardwareSpec hardware;
  power::PowerSpec power;
  hardware::PlacementIndex placement{RACKS * PER_RACK, 2};
  int racks_grouping = placement.add_grouping(RACKS, [](int g) { return g / PER_RACK; });
  FakeRacks racks;
  sim::EventQueue queue;
  sim::EventLog log;
  int clock_changes = 0;
  std::vector<int> held, unheld;
  std::unique_ptr<facility::FacilityPower> part;

  Toy() {
    hardware.gpu.power_w = 1000;
    power.gpu_idle_frac = 0.1;
    power.gpu_static_frac = 0.3;
    power.dvfs_exponent = 2;
    power.rack_base_kw = 2;
  }
  /// Builds the part once `power` is final; places chat on rack 0 and train on rack 1, train training.
  void build() {
    facility::FacilityPower::Hooks hooks{[this] { ++clock_changes; }, [this](int j) { held.push_back(j); },
                                         [this](int j) { unheld.push_back(j); }};
    part = std::make_unique<facility::FacilityPower>(
        power, hardware, RACKS, PER_RACK,
        std::vector<facility::WorkloadShape>{{"chat", PER_RACK, false}, {"train", PER_RACK, true}}, placement,
        racks_grouping, racks, queue, log, std::move(hooks));
    for (int g = 0; g < RACKS * PER_RACK; ++g) {
      placement.set_owner(g, g / PER_RACK);
      part->gpu_placed(g / PER_RACK);
    }
    part->set_training(1, true);
  }
};

ledger::ReplicaResult finish(Toy& t, double hours) {
  ledger::ReplicaResult r;
  r.jobs.resize(1); // the training jobs only
  t.queue.run_until(sim::hours_to_ticks(hours));
  t.part->finish(sim::hours_to_ticks(hours), false, r);
  return r;
}

} // namespace

TEST_CASE("facility power: energy of each workload and of the facility, a service listed first",
          "[unit][facility][power]") {
  // P_train = 4 x 600 + 4 x (1,000 − 100) = 6,000 W; P_chat = 4 x 600 = 2,400 W (it never trains);
  // P_IT = 2 x 2,000 + 8 x 100 + 3,600 = 8,400 W. Over 1 h: E_train = 21.6 MJ, E_IT = 30.24 MJ. The
  // training job's outcome (result.jobs[0]) must get the training job's energy, not the service's.
  Toy t;
  t.build();
  const auto r = finish(t, 1);
  CHECK(r.jobs[0].energy_j == Approx(6000.0 * 3600).epsilon(1e-12));
  CHECK(r.energy_j == Approx(8400.0 * 3600).epsilon(1e-12));
  CHECK(r.peak_power_w == Approx(8400.0));
  CHECK(std::isnan(r.throttled_gpu_h));    // no cooling
  CHECK(std::isnan(r.power_capped_gpu_h)); // no budget
  // Per-rack power sums to the aggregate: rack 0 = 2,000 + 4 x 100, rack 1 = 2,000 + 4 x 1,000.
  const auto per_rack = t.part->rack_power_w();
  CHECK(per_rack[0] == Approx(2400.0));
  CHECK(per_rack[1] == Approx(6000.0));
  CHECK(per_rack[0] + per_rack[1] == Approx(t.part->power_w()));
}

TEST_CASE("facility power: a service's GPUs draw idle plus their busy share of the load power",
          "[unit][facility][power]") {
  // The service's 4 GPUs at busy share u = 0.5 (b = 2 busy GPU equivalents) for the first hour, then u = 1:
  // P_chat = 4 x 600 + b x (1,000 − 100): 4,200 W, then 6,000 W (the same as the training job's 4 busy
  // GPUs). E_chat = (4,200 + 6,000) x 3,600 J; P_IT = 8,400 + 1,800 = 10,200 W, then 12,000 W; the rack
  // holding the service draws 2,000 + 4 x 100 + 1,800 W in the first hour.
  Toy t;
  t.build();
  t.part->set_serving_load(0, 2.0);
  t.queue.run_until(sim::hours_to_ticks(0.5));
  CHECK(t.part->power_w() == Approx(10200.0));
  CHECK(t.part->rack_power_w()[0] == Approx(4200.0));
  t.queue.at(sim::hours_to_ticks(1), [&t] { t.part->set_serving_load(0, 4.0); });
  ledger::ReplicaResult r;
  r.jobs.resize(1);
  r.services.resize(1);
  t.queue.run_until(sim::hours_to_ticks(2));
  t.part->finish(sim::hours_to_ticks(2), false, r);
  CHECK(r.services[0].energy_j == Approx((4200.0 + 6000.0) * 3600).epsilon(1e-12));
  CHECK(r.jobs[0].energy_j == Approx(2 * 6000.0 * 3600).epsilon(1e-12));
  CHECK(r.energy_j == Approx((10200.0 + 12000.0) * 3600).epsilon(1e-12));
}

TEST_CASE("facility power: a throttled rack slows the jobs on it and lowers their power",
          "[unit][facility][power]") {
  // Rack 1 throttled at f = 0.8: train's clock is 0.8 and its GPUs draw P_busy(0.8) = 748 W:
  // P_IT = 4,000 + 800 + 4 x (748 − 100) = 7,392 W. chat (rack 0) keeps clock 1.
  Toy t;
  t.racks.throttled = {1};
  t.racks.clock = {1.0, 0.8};
  t.build();
  t.queue.run_until(0);
  CHECK(t.part->job_clock(1) == Approx(0.8));
  CHECK(t.part->job_clock(0) == 1.0);
  CHECK(t.clock_changes == 1);
  CHECK(t.part->power_w() == Approx(7392.0));
  CHECK(t.part->throttled_gpus() == 4);
}

TEST_CASE("facility power: a budget caps the training job's clock to fit", "[unit][facility][power]") {
  // Budget 7,392 W is the power at clock 0.8 (previous test): the uniform cap is c = 0.8 (bisection to
  // 1e-9), P_IT at the budget, and the job's 4 GPUs count as capped for the hour.
  Toy t;
  t.power.budget_kw = 7.392;
  t.build();
  const auto r = finish(t, 1);
  CHECK(t.part->job_clock(1) == Approx(0.8).epsilon(1e-8));
  CHECK(t.part->power_w() <= 7392.0 + 1e-6);
  CHECK(t.part->power_w() == Approx(7392.0).epsilon(1e-8));
  CHECK(r.power_capped_gpu_h == Approx(4.0).epsilon(1e-12));
}

TEST_CASE("facility power: a grid event under the pause policy holds training jobs, never a service",
          "[unit][facility][power]") {
  // Budget 8.4 kW (the uncapped P_IT); an event from 1 h to 2 h cuts half: 4,200 W available < 8,400 W.
  // Pausing the latest job first: train (index 1) is held; chat (index 0) is a service and is skipped.
  // The event ends at 2 h: train is released.
  Toy t;
  t.power.budget_kw = 8.4;
  t.power.grid_policy = power::GridPolicy::PAUSE;
  t.power.grid_events = {{1.0, 1.0, 0.5}};
  t.build();
  t.part->schedule_grid_events();
  t.queue.run_until(sim::hours_to_ticks(1.5));
  CHECK(t.held == std::vector<int>{1});
  CHECK(t.unheld.empty());
  t.queue.run_until(sim::hours_to_ticks(2.5));
  CHECK(t.unheld == std::vector<int>{1});
}

TEST_CASE("facility power: a failed GPU stops drawing power, per rack and in aggregate",
          "[unit][facility][power]") {
  // One GPU of chat's rack (rack 0) fails: the cluster has 7 healthy GPUs, P_IT = 4,000 + 700 + 3,600 =
  // 8,300 W; rack 0 draws 2,000 + 3 x 100 = 2,300 W, rack 1 unchanged at 6,000 W: the two paths agree.
  Toy t;
  t.build();
  t.queue.run_until(0);
  t.racks.up = 7;
  t.part->health_changed(0, 0, false);
  t.queue.run_until(sim::to_ticks(1.0));
  CHECK(t.part->power_w() == Approx(8300.0));
  const auto per_rack = t.part->rack_power_w();
  CHECK(per_rack[0] == Approx(2300.0));
  CHECK(per_rack[1] == Approx(6000.0));
}
