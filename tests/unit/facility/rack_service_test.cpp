// RLCC's physical actions on racks (models/facility/rack_service.hpp) with a real cooling plant, GPU
// health, allocator and Mission Control on 8 Rubin NVL72 racks in two loops of 4, driven through an
// engine-free sim::EventQueue (no replica, no jobs): which racks are powered, when they go down and come
// back, and what the rest of the replica is told.
#include "models/facility/rack_service.hpp"

#include <catch2/catch.hpp>

using namespace dcsim;

namespace {

class NoWorks : public ops::CoolingWorks {
public:
  bool ends_by_itself(const failure::Failure&) const override { return false; }
  void ended(const failure::Failure&) override {}
  ops::Rlcc::Workflow repair_workflow(const failure::Failure&) override { return {}; }
  void drain(const std::vector<int>&, bool, std::function<void()>) override {}
};

struct Toy {
  hardware::HardwareSpec hardware;
  cooling::CoolingSpec spec;
  ops::RlccSpec rlcc;
  ops::OperationsSpec ops;
  failure::FailuresSpec failures; // no modes: cause 0 is the facility's thermal_shutdown
  std::unique_ptr<hardware::Layout> layout;
  sim::EventQueue queue;
  sim::EventLog log;
  std::unique_ptr<failure::GpuHealth> health;
  std::unique_ptr<sched::Allocator> alloc;
  std::unique_ptr<hardware::PlacementIndex> placement;
  int racks_grouping = 0;
  workload::Workloads workloads;
  NoWorks works;
  std::unique_ptr<ops::MissionControl> mission;
  std::unique_ptr<facility::CoolingPlant> plant;
  std::unique_ptr<facility::RackService> service;
  int changed = 0, capacity = 0;

  Toy() {
    hardware.rack.kind = hardware::RackKind::NVL72;
    hardware.rack.gpus = 72;
    hardware.rack.spare_gpus = 8;
    spec.racks_per_loop = 4;
    spec.rack_flow_l_per_min = 244;
    spec.thermal.coolant = cooling::Coolant::propylene_glycol(0.25);
    spec.thermal.curve = {{92, 0.8}, {95, 0.5}};
    layout = std::make_unique<hardware::Layout>(hardware, hardware::ClusterSpec{8});
    health = std::make_unique<failure::GpuHealth>(layout->gpus());
    alloc = std::make_unique<sched::Allocator>(*layout, *health, 0);
    placement = std::make_unique<hardware::PlacementIndex>(layout->gpus(), 0);
    racks_grouping = placement->add_grouping(8, [this](int g) { return layout->rack_of(g); });
    mission = std::make_unique<ops::MissionControl>(ops, failures, *layout, *health, queue, log, 1, 0,
                                                    ops::MissionControl::Listener{});
    mission->attach_facility(works, rlcc, 0, 1);
    plant = std::make_unique<facility::CoolingPlant>(
        spec, *layout, hardware::GpuPowerCurve{1800, 0.15, 0.3, 2.0}, 45360, queue, log,
        [this](const std::vector<int>& racks, int cause) { service->shutdown_check(racks, cause); });
    service = std::make_unique<facility::RackService>(
        *layout, plant.get(), rlcc, failures.modes, *health, *alloc, *placement, racks_grouping, workloads,
        queue, log, *mission, facility::RackService::Hooks{[this] { ++changed; }, [this] { ++capacity; }});
    plant->start(0);
    queue.run_until(0);
  }
  int count(const char* kind) const {
    int n = 0;
    for (const auto& e : log.records())
      n += e.kind == kind;
    return n;
  }
};

} // namespace

TEST_CASE("rack service: racks that cannot be cooled shut down at once and return after burn-in",
          "[unit][facility][rlcc]") {
  // CDU of loop 1 fails: racks 4..7 have no flow ⇒ cannot cool ⇒ shut down: 4 racks unpowered, their
  // 4 x 72 GPUs down. Repaired at 1 h: each rack returns rlcc.burn_in_s = 1,800 s later (at 1.5 h).
  Toy t;
  REQUIRE(t.service->powered_racks() == 8);
  t.plant->cdu(1, true, 0);
  CHECK(t.service->powered_racks() == 4);
  CHECK(!t.service->powered(5));
  CHECK(t.service->powered(3));
  CHECK(t.health->down_gpus() == 4 * 72);
  CHECK(t.count("emergency_shutdown") == 4);
  t.queue.run_until(sim::hours_to_ticks(1));
  t.plant->cdu(1, false, 0);
  t.queue.run_until(sim::hours_to_ticks(1.5) - 1);
  CHECK(t.service->powered_racks() == 4); // burning in
  CHECK(t.capacity == 0);
  t.queue.run_until(sim::hours_to_ticks(1.5));
  CHECK(t.service->powered_racks() == 8);
  CHECK(t.health->down_gpus() == 0);
  CHECK(t.capacity == 4);
  CHECK(t.count("return_to_service") == 4);
}

TEST_CASE("rack service: a rack that cannot be cooled again before burn-in ends stays down",
          "[unit][facility][rlcc]") {
  Toy t;
  t.plant->cdu(1, true, 0);
  t.plant->cdu(1, false, 0); // return scheduled at +1,800 s
  t.queue.run_until(sim::to_ticks(600));
  t.plant->cdu(1, true, 0); // the return is cancelled
  t.queue.run_until(sim::hours_to_ticks(10));
  CHECK(t.service->powered_racks() == 4);
  CHECK(t.count("return_to_service") == 0);
}

TEST_CASE("rack service: isolation closes the branch and unpowers the rack until put back",
          "[unit][facility][rlcc]") {
  Toy t;
  t.service->take_out({2}, /*coolant=*/true, /*interrupt_jobs=*/true, 0, "leak");
  CHECK(t.service->powered_racks() == 7);
  CHECK(t.plant->loops().branch_closed(2));
  CHECK(t.health->down_gpus() == 72);
  CHECK(t.count("isolation") == 1);
  t.service->put_back({2}, true);
  CHECK(t.service->powered_racks() == 8);
  CHECK(!t.plant->loops().branch_closed(2));
  CHECK(t.health->down_gpus() == 0);
  CHECK(t.capacity == 1);
  // Work off the coolant side: the rack is out of service (GPUs down) but stays powered.
  t.service->take_out({3}, false, false, 0, "firmware");
  CHECK(t.service->powered_racks() == 8);
  CHECK(t.health->down_gpus() == 72);
}

TEST_CASE("rack service: a drain with no training job on the racks takes them out at once",
          "[unit][facility][rlcc]") {
  Toy t;
  bool drained = false;
  t.service->drain({4, 5, 6, 7}, true, [&] { drained = true; });
  CHECK(drained);
  CHECK(t.service->powered_racks() == 4);
  CHECK(t.service->racks_name({4, 5, 6, 7}) == "loop0001");
}
