#include "models/facility.hpp"

#include <stdexcept>

namespace dcsim {

namespace {
constexpr double W_PER_KW = 1000.0;
constexpr const char* THERMAL_CAUSE = "thermal_shutdown";
} // namespace

std::string Facility::extra_cause_name(int k) {
  if (k != 0) throw std::logic_error("Facility: no such extra cause");
  return THERMAL_CAUSE;
}

std::string Facility::extra_cause_domain(int k) {
  if (k != 0) throw std::logic_error("Facility: no such extra cause");
  return "cooling"; // a rack shut down by its coolant's temperature
}

Facility::Facility(const Scenario& scenario, const hardware::Layout& layout, failure::GpuHealth& health,
                   sched::Allocator& alloc, const hardware::PlacementIndex& placement, int rack_grouping,
                   workload::Workloads& workloads, sim::EventQueue& queue, sim::EventLog& log,
                   ops::MissionControl& mission, Hooks hooks)
    : s_(&scenario), layout_(&layout), health_(&health), placement_(&placement), workloads_(&workloads),
      queue_(&queue), modes_(static_cast<int>(scenario.failures.modes.size())) {
  const double base_w = scenario.power.rack_base_kw * W_PER_KW;
  if (scenario.cooling)
    plant_ = std::make_unique<facility::CoolingPlant>(
        *scenario.cooling, layout, scenario.power.gpu_curve(scenario.hardware.gpu), base_w, queue, log,
        [this](const std::vector<int>& racks, int cause) {
          service_->shutdown_check(racks, cause);
          power_->touch();
        });
  service_ = std::make_unique<facility::RackService>(
      layout, plant_.get(), scenario.rlcc, scenario.failures.modes, health, alloc, placement, rack_grouping,
      workloads, queue, log, mission,
      facility::RackService::Hooks{[this] { power_->touch(); }, std::move(hooks.capacity_changed)});
  std::vector<facility::WorkloadShape> shapes;
  for (int j = 0; j < workloads.size(); ++j) {
    const auto& spec = scenario.jobs[static_cast<std::size_t>(j)];
    shapes.push_back({spec.name, spec.gpus, workloads.training(j) != nullptr});
  }
  facility::FacilityPower::Hooks power_hooks{std::move(hooks.clocks_changed),
                                             [this](int j) { workloads_->training(j)->hold(); },
                                             [this](int j) { workloads_->training(j)->unhold(); }};
  power_ = std::make_unique<facility::FacilityPower>(
      scenario.power, scenario.hardware, layout.racks(), layout.gpus_per_rack(), std::move(shapes), placement,
      rack_grouping, *service_, queue, log, std::move(power_hooks));
  if (plant_)
    racky_ = std::make_unique<facility::RackyTelemetry>(*plant_, *power_, *service_, layout, queue, log);
}

Facility::~Facility() = default;

void Facility::start() {
  for (int g = 0; g < layout_->gpus(); ++g) // the initial placement
    if (const int owner = placement_->owner(g); owner >= 0 && health_->up(g)) power_->gpu_placed(owner);
  const sim::Tick end = sim::hours_to_ticks(s_->duration_h);
  const sim::Tick output_every = sim::to_ticks(s_->output.timeseries_interval_s);
  if (plant_) {
    plant_->start(thermal_cause());
    const std::size_t others = output_every > 0 ? (10 + 2 * static_cast<std::size_t>(workloads_->size())) *
                                                      static_cast<std::size_t>(end / output_every + 1)
                                                : 0;
    racky_->start(end, others);
  }
  power_->schedule_grid_events();
  service_->schedule_waves();
  facility::sample_every(*queue_, output_every, end, [this] { power_->sample_cluster(); });
  power_->touch();
}

void Facility::on_owner_change(int gpu, int from, int to) {
  power_->owner_changed(health_->up(gpu), from, to);
}

void Facility::on_health_change(int gpu, bool up) {
  power_->health_changed(layout_->rack_of(gpu), placement_->owner(gpu), up);
}

void Facility::on_failure(const failure::Failure& f) { // Mission Control has recorded it
  switch (mode(f.mode).cooling_element()) {
  case cooling::CoolingElement::BRANCH:
    plant_->leak(f.unit, +1);
    break;
  case cooling::CoolingElement::VALVE:
    plant_->valve(f.unit, /*failed=*/true, f.mode);
    break;
  case cooling::CoolingElement::PUMP:
    plant_->pump(f.unit / s_->cooling->pumps, f.unit % s_->cooling->pumps, /*failed=*/true, f.mode);
    break;
  case cooling::CoolingElement::LOOP:
    plant_->cdu(f.unit, /*failed=*/true, f.mode);
    break;
  case cooling::CoolingElement::FACILITY:
    plant_->excursion(+1, f.mode);
    break;
  }
}

bool Facility::ends_by_itself(const failure::Failure& f) const {
  switch (mode(f.mode).cooling_element()) {
  case cooling::CoolingElement::BRANCH:
  case cooling::CoolingElement::VALVE:
  case cooling::CoolingElement::PUMP:
  case cooling::CoolingElement::LOOP:
    return false;
  case cooling::CoolingElement::FACILITY:
    return true; // the excursion passes
  }
  return false;
}

void Facility::ended(const failure::Failure& f) {
  if (!ends_by_itself(f)) throw std::logic_error("Facility: only a facility water excursion ends by itself");
  plant_->excursion(-1, thermal_cause());
}

ops::Rlcc::Workflow Facility::repair_workflow(const failure::Failure& f) {
  const auto& m = mode(f.mode);
  const bool by_rack = s_->cooling->isolation == cooling::Isolation::RACK;
  ops::Rlcc::Workflow w;
  w.cause = m.name;
  w.crew = true;
  switch (m.cooling_element()) {
  case cooling::CoolingElement::BRANCH: {
    // Racky saw the leak: Valvey isolates and drains the rack (without per-rack valves, the loop) now.
    const std::vector<int> racks = plant_->unit_racks(f.unit);
    service_->take_out(racks, /*coolant=*/true, /*interrupt_jobs=*/true, f.mode, m.name);
    w.component = plant_->racks_name(racks);
    w.scope = by_rack ? "rack" : "loop";
    w.coolant = w.burn_in = true;
    w.done = [this, f, racks] {
      plant_->leak(f.unit, -1);
      service_->put_back(racks, true);
    };
    break;
  }
  case cooling::CoolingElement::VALVE: {
    // The branch still flows: its service is planned work (drained at a checkpoint first).
    const std::vector<int> racks = plant_->unit_racks(f.unit);
    w.component = plant_->racks_name(racks);
    w.scope = by_rack ? "rack" : "loop";
    w.racks = racks;
    w.drain = w.coolant = w.burn_in = true;
    w.done = [this, f, racks] {
      plant_->valve(f.unit, /*failed=*/false, thermal_cause());
      service_->put_back(racks, true);
    };
    break;
  }
  case cooling::CoolingElement::PUMP: {
    const int pumps = s_->cooling->pumps;
    w.component = cooling::cooling_unit_name(*s_->cooling, m.cooling_element(), f.unit,
                                             [this](int rack) { return layout_->rack_name(rack); });
    w.scope = "pump";
    w.done = [this, f, pumps] {
      plant_->pump(f.unit / pumps, f.unit % pumps, /*failed=*/false, thermal_cause());
    };
    break;
  }
  case cooling::CoolingElement::LOOP:
    w.component = plant_->loops().loop_name(f.unit);
    w.scope = "loop";
    // its racks return after burn-in (emergency shutdown path)
    w.done = [this, f] { plant_->cdu(f.unit, /*failed=*/false, thermal_cause()); };
    break;
  case cooling::CoolingElement::FACILITY:
    throw std::logic_error("Facility: a facility water excursion has no repair workflow");
  }
  return w;
}

} // namespace dcsim
