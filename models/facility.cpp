#include "models/facility.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace dcsim {

namespace {
constexpr double W_PER_KW = 1000.0;
constexpr const char* THERMAL_CAUSE = "thermal_shutdown";
constexpr double NaN = std::numeric_limits<double>::quiet_NaN();
} // namespace

std::string Facility::extra_cause_name(int k) {
  if (k != 0) throw std::logic_error("Facility: no such extra cause");
  return THERMAL_CAUSE;
}

Facility::Facility(const Scenario& scenario, const hardware::Layout& layout, failure::GpuHealth& health,
                   sched::Allocator& alloc, const hardware::PlacementIndex& placement, int rack_grouping,
                   workload::Workloads& workloads, sim::EventQueue& queue, sim::EventLog& log,
                   ops::MissionControl& mission, Hooks hooks)
    : s_(&scenario), layout_(&layout), health_(&health), alloc_(&alloc), placement_(&placement),
      rack_grouping_(rack_grouping), workloads_(&workloads), queue_(&queue),
      log_(&log), mission_(&mission), hooks_(std::move(hooks)),
      cooling_(scenario.cooling ? &*scenario.cooling : nullptr),
      gpu_(scenario.power.gpu_curve(scenario.hardware.gpu)), base_w_(scenario.power.rack_base_kw * W_PER_KW),
      racks_(layout.racks()), gpus_per_rack_(layout.gpus_per_rack()),
      modes_(static_cast<int>(scenario.failures.modes.size())) {
  const auto n_jobs = static_cast<std::size_t>(workloads.size());
  const auto n_racks = static_cast<std::size_t>(racks_);
  job_up_.assign(n_jobs, 0);
  rack_up_.assign(n_racks, gpus_per_rack_);
  training_.assign(n_jobs, 0);
  cap_.assign(n_jobs, 1.0);
  clock_.assign(n_jobs, 1.0);
  job_energy_.resize(n_jobs);
  off_.assign(n_racks, 0);
  shutdown_.assign(n_racks, 0);
  shutdown_cause_.assign(n_racks, -1);
  shutdown_since_.assign(n_racks, 0);
  return_at_.resize(n_racks);
  leaks_.assign(n_racks, 0);
  powered_racks_ = racks_;
  if (cooling_) {
    loops_ = std::make_unique<cooling::CoolantLoops>(*cooling_, racks_, cooling_->rack_flow_l_per_min);
    profile_ = std::make_unique<cooling::SupplyProfile>(*cooling_);
    thermal_.resize(n_racks);
    loop_throttled_.assign(static_cast<std::size_t>(loops_->loops()), 0);
  }
}

Facility::~Facility() = default;

// ---------------------------------------------------------------------------------------------- naming

std::vector<int> Facility::loop_rack_list(int loop) const {
  std::vector<int> out;
  for (int r = loops_->first_rack(loop); r < loops_->first_rack(loop) + loops_->loop_racks(loop); ++r)
    out.push_back(r);
  return out;
}

std::vector<int> Facility::unit_racks(int rack) const {
  if (cooling_ && cooling_->isolation == cooling::Isolation::LOOP)
    return loop_rack_list(loops_->loop_of(rack));
  return {rack};
}

std::string Facility::racks_name(const std::vector<int>& racks) const {
  if (racks.empty()) return "";
  if (cooling_ && racks.size() > 1) { // a whole loop?
    const int loop = loops_->loop_of(racks.front());
    if (racks.front() == loops_->first_rack(loop) &&
        static_cast<int>(racks.size()) == loops_->loop_racks(loop))
      return loops_->loop_name(loop);
  }
  if (racks.size() == 1) return layout_->rack_name(racks.front());
  return layout_->rack_name(racks.front()) + ".." + layout_->rack_name(racks.back());
}

std::string Facility::unit_name(const failure::Failure& f) const {
  return cooling::cooling_unit_name(*cooling_, mode(f.mode).cooling_element(), f.unit,
                                    [this](int rack) { return layout_->rack_name(rack); });
}

// ---------------------------------------------------------------------------------------------- start

void Facility::start() {
  for (int g = 0; g < layout_->gpus(); ++g) // the initial placement
    if (const int owner = placement_->owner(g); owner >= 0 && health_->up(g))
      ++job_up_[static_cast<std::size_t>(owner)];
  if (s_->power.budget_kw) available_w_ = *s_->power.budget_kw * W_PER_KW;
  const sim::Tick end = sim::hours_to_ticks(s_->duration_h);
  if (cooling_) {
    // Temperatures at t = 0 are settled by an event, after the jobs have started: a rack that cannot be
    // cooled from the start is shut down like any other, and its jobs recover through the usual path.
    queue_->at(0, [this] { update_supply(true, thermal_cause()); });
    const sim::Tick every = sim::to_ticks(cooling_->racky_interval_s);
    if (every > 0) { // reserve the samples to come: no reallocation of a vector of ~10^6 samples
      const std::size_t per_sample =
          7 + (cooling_->racky_gauges == cooling::RackyGauges::CLUSTER ? 0 : 6 * static_cast<std::size_t>(loops())) +
          (cooling_->racky_gauges == cooling::RackyGauges::RACK ? 6 * static_cast<std::size_t>(racks_) : 0);
      const sim::Tick output_every = sim::to_ticks(s_->output.timeseries_interval_s);
      const std::size_t others = output_every > 0 ? (10 + 2 * static_cast<std::size_t>(workloads_->size())) * static_cast<std::size_t>(end / output_every + 1) : 0;
      log_->reserve_samples(per_sample * static_cast<std::size_t>(end / every + 1) + others);
      auto sampler = std::make_shared<std::function<void()>>();
      *sampler = [this, every, end, sampler] {
        sample_loops();
        if (queue_->now() + every <= end) queue_->after(every, *sampler);
      };
      queue_->at(0, [sampler] { (*sampler)(); });
    }
  }
  for (const auto& e : s_->power.grid_events) {
    queue_->at(sim::hours_to_ticks(e.start_h), [this, e] { start_grid_event(e); });
    queue_->at(sim::hours_to_ticks(e.start_h + e.duration_h), [this, e] { end_grid_event(e); });
  }
  schedule_waves();
  const sim::Tick every = sim::to_ticks(s_->output.timeseries_interval_s);
  if (every > 0) {
    auto sampler = std::make_shared<std::function<void()>>();
    *sampler = [this, every, end, sampler] {
      sample_cluster();
      if (queue_->now() + every <= end) queue_->after(every, *sampler);
    };
    queue_->at(0, [sampler] { (*sampler)(); });
  }
  touch();
}

// ---------------------------------------------------------------------------------------------- inputs

void Facility::on_owner_change(int gpu, int from, int to) {
  if (health_->up(gpu)) {
    if (from >= 0) --job_up_[static_cast<std::size_t>(from)];
    if (to >= 0) ++job_up_[static_cast<std::size_t>(to)];
  }
  touch();
}

void Facility::on_health_change(int gpu, bool up) {
  rack_up_[static_cast<std::size_t>(layout_->rack_of(gpu))] += up ? 1 : -1;
  if (const int owner = placement_->owner(gpu); owner >= 0)
    job_up_[static_cast<std::size_t>(owner)] += up ? 1 : -1;
  touch();
}

void Facility::on_training_changed(int job, bool training) {
  training_[static_cast<std::size_t>(job)] = training ? 1 : 0;
  touch();
}

void Facility::on_job_stopped(int job) {
  std::vector<std::uint64_t> complete;
  for (auto& [id, d] : drains_)
    if (d.waiting.erase(job) && d.waiting.empty()) complete.push_back(id);
  for (const std::uint64_t id : complete) {
    auto it = drains_.find(id);
    if (it == drains_.end()) continue;
    Drain d = std::move(it->second);
    drains_.erase(it);
    // Every job using the racks has saved its work: take the racks away, then let the jobs go (they
    // recover onto other racks at their restart, or wait for these to return).
    take_out(d.racks, d.coolant, /*interrupt_jobs=*/false, -1, "drained");
    for (const int r : d.racks) // down now: no longer draining
      alloc_->set_draining(rack_range(r), false);
    for (const int j : d.held)
      workloads_->training(j)->unhold();
    d.drained();
  }
}

void Facility::on_failure(const failure::Failure& f) { // Mission Control has recorded it
  switch (mode(f.mode).cooling_element()) {
  case cooling::CoolingElement::BRANCH:
    ++leaks_[static_cast<std::size_t>(f.unit)];
    break;
  case cooling::CoolingElement::VALVE:
    loops_->valve_failed(f.unit);
    resolve({f.unit}, f.mode);
    break;
  case cooling::CoolingElement::PUMP: {
    const int loop = f.unit / cooling_->pumps;
    loops_->pump_failed(loop, f.unit % cooling_->pumps);
    resolve_loop(loop, f.mode);
    break;
  }
  case cooling::CoolingElement::LOOP:
    loops_->cdu_failed(f.unit);
    resolve_loop(f.unit, f.mode);
    break;
  case cooling::CoolingElement::FACILITY:
    ++excursions_;
    update_supply(false, f.mode);
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
  --excursions_;
  update_supply(false, thermal_cause());
}

ops::Rlcc::Workflow Facility::repair_workflow(const failure::Failure& f) {
  const auto& m = mode(f.mode);
  const bool by_rack = cooling_->isolation == cooling::Isolation::RACK;
  ops::Rlcc::Workflow w;
  w.cause = m.name;
  w.crew = true;
  switch (m.cooling_element()) {
  case cooling::CoolingElement::BRANCH: {
    // Racky saw the leak: Valvey isolates and drains the rack (without per-rack valves, the loop) now.
    const std::vector<int> racks = unit_racks(f.unit);
    take_out(racks, /*coolant=*/true, /*interrupt_jobs=*/true, f.mode, m.name);
    w.component = racks_name(racks);
    w.scope = by_rack ? "rack" : "loop";
    w.coolant = w.burn_in = true;
    w.done = [this, f, racks] {
      --leaks_[static_cast<std::size_t>(f.unit)];
      put_back(racks, true);
    };
    break;
  }
  case cooling::CoolingElement::VALVE: {
    // The branch still flows: its service is planned work (drained at a checkpoint first).
    const std::vector<int> racks = unit_racks(f.unit);
    w.component = racks_name(racks);
    w.scope = by_rack ? "rack" : "loop";
    w.racks = racks;
    w.drain = w.coolant = w.burn_in = true;
    w.done = [this, f, racks] {
      loops_->valve_repaired(f.unit);
      resolve({f.unit}, thermal_cause());
      put_back(racks, true);
    };
    break;
  }
  case cooling::CoolingElement::PUMP: {
    const int loop = f.unit / cooling_->pumps;
    w.component = unit_name(f);
    w.scope = "pump";
    w.done = [this, f, loop] {
      loops_->pump_repaired(loop, f.unit % cooling_->pumps);
      resolve_loop(loop, thermal_cause());
    };
    break;
  }
  case cooling::CoolingElement::LOOP:
    w.component = loops_->loop_name(f.unit);
    w.scope = "loop";
    w.done = [this, f] {
      loops_->cdu_repaired(f.unit);
      resolve_loop(f.unit, thermal_cause()); // its racks return after burn-in (emergency shutdown path)
    };
    break;
  case cooling::CoolingElement::FACILITY:
    throw std::logic_error("Facility: a facility water excursion has no repair workflow");
  }
  return w;
}

// ---------------------------------------------------------------------------------------------- thermal

cooling::RackLoad Facility::design_load() const {
  const int domains = gpus_per_rack_ / layout_->domain_gpus();
  const int busy = domains * layout_->domain_usable_gpus();
  return {busy, gpus_per_rack_ - busy, base_w_};
}

void Facility::update_supply(bool force, int cause) {
  if (!cooling_) return;
  const double before = supply_c_;
  supply_c_ = profile_->at(queue_->now()) + excursions_ * cooling_->facility_excursion_k;
  if (force || supply_c_ != before) resolve_all(cause);
  if (force) { // the profile's next step; each step schedules the next
    const sim::Tick next = profile_->next_change(queue_->now());
    if (next >= 0)
      queue_->at(next, [this] { update_supply(true, thermal_cause()); });
  }
}

void Facility::resolve_all(int cause) {
  std::vector<int> all(static_cast<std::size_t>(racks_));
  for (int r = 0; r < racks_; ++r)
    all[static_cast<std::size_t>(r)] = r;
  resolve(all, cause);
}

void Facility::resolve(const std::vector<int>& racks, int cause) {
  const cooling::RackLoad load = design_load();
  std::vector<std::pair<double, cooling::RackThermal>> cache; // racks with the same flow share a state
  for (const int r : racks) {
    const double flow = loops_->open_flow_l_per_min(r);
    auto hit = std::find_if(cache.begin(), cache.end(), [flow](const auto& c) { return c.first == flow; });
    if (hit == cache.end()) {
      cache.emplace_back(flow, cooling::solve_rack(cooling_->thermal, gpu_, supply_c_, flow, load));
      hit = cache.end() - 1;
    }
    cooling::RackThermal& th = thermal_[static_cast<std::size_t>(r)];
    const bool was = throttled_.count(r) != 0;
    th = hit->second;
    const bool is = th.clock_frac < 1.0 && !th.cannot_cool; // a rack that cannot be cooled is shut down
    if (was == is) continue;
    const auto loop = static_cast<std::size_t>(loops_->loop_of(r));
    if (is) {
      throttled_.insert(r);
      if (loop_throttled_[loop]++ == 0 && log_->enabled())
        log_->add({queue_->now(), "throttling_start", loops_->loop_name(static_cast<int>(loop)), "loop", "",
                   fmt::format("clock {:.3f} at {:.1f} C", th.clock_frac, th.gpu_temp_c)});
    } else {
      throttled_.erase(r);
      if (--loop_throttled_[loop] == 0 && log_->enabled())
        log_->add(
            {queue_->now(), "throttling_end", loops_->loop_name(static_cast<int>(loop)), "loop", "", ""});
    }
  }
  shutdown_check(racks, cause);
  touch();
}

void Facility::shutdown_check(const std::vector<int>& racks, int cause) {
  const sim::Tick burn_in = sim::to_ticks(s_->rlcc.burn_in_s);
  std::vector<int> down;
  for (const int r : racks) {
    const auto i = static_cast<std::size_t>(r);
    if (thermal_[i].cannot_cool) {
      queue_->cancel(return_at_[i]);
      if (powered(r)) down.push_back(r);
    } else if (shutdown_[i] && !queue_->pending(return_at_[i])) {
      return_at_[i] = queue_->after(burn_in, [this, r] { try_return(r); });
    }
  }
  if (down.empty()) return;
  for (const int r : down) {
    const auto i = static_cast<std::size_t>(r);
    shutdown_[i] = 1;
    shutdown_cause_[i] = cause;
    shutdown_since_[i] = queue_->now();
    --powered_racks_;
    if (cause >= modes_) mission_->outage_began(cause); // a mode's failure is counted already
    if (log_->enabled()) {
      const std::string why = cause < modes_ ? mode(cause).name : std::string(THERMAL_CAUSE);
      const double flow = loops_->open_flow_l_per_min(r);
      log_->add({queue_->now(), "emergency_shutdown", layout_->rack_name(r), "rack", "",
                 flow > 0 ? fmt::format("{}: GPU {:.1f} C at clock {:.3f}, flow {:.1f} L/min", why,
                                        thermal_[i].gpu_temp_c, thermal_[i].clock_frac, flow)
                          : why + ": no coolant flow"});
    }
    health_->fail(rack_range(r));
  }
  interrupt(down, cause);
  touch();
}

void Facility::try_return(int rack) {
  const auto i = static_cast<std::size_t>(rack);
  return_at_[i] = {};
  if (!shutdown_[i] || thermal_[i].cannot_cool) return;
  shutdown_[i] = 0;
  if (off_[i] == 0) ++powered_racks_;
  const int cause = shutdown_cause_[i];
  if (cause >= modes_) mission_->outage_ended(cause, shutdown_since_[i]);
  if (log_->enabled())
    log_->add(
        {queue_->now(), "return_to_service", layout_->rack_name(rack), "rack", "", "emergency_shutdown"});
  health_->repair(rack_range(rack));
  touch();
  if (hooks_.capacity_changed) hooks_.capacity_changed();
}

// ---------------------------------------------------------------------------------------------- service

void Facility::take_out(const std::vector<int>& racks, bool coolant, bool interrupt_jobs, int cause,
                        const std::string& why) {
  for (const int r : racks) {
    const auto i = static_cast<std::size_t>(r);
    if (coolant) {
      if (powered(r)) --powered_racks_;
      ++off_[i];
      loops_->close_branch(r);
    }
    health_->fail(rack_range(r));
  }
  if (log_->enabled())
    log_->add(
        {queue_->now(), coolant ? "isolation" : "out_of_service", racks_name(racks),
         racks.size() > 1 && coolant && cooling_->isolation == cooling::Isolation::LOOP ? "loop" : "rack", "",
         why});
  if (interrupt_jobs) interrupt(racks, cause);
  touch();
}

void Facility::put_back(const std::vector<int>& racks, bool coolant) {
  for (const int r : racks) {
    const auto i = static_cast<std::size_t>(r);
    health_->repair(rack_range(r));
    if (coolant) {
      loops_->open_branch(r);
      if (--off_[i] == 0 && !shutdown_[i]) ++powered_racks_;
    }
  }
  if (cooling_) // a rack back on a loop that cannot cool it is shut down before any job takes it
    shutdown_check(racks, thermal_cause());
  touch();
  if (hooks_.capacity_changed) hooks_.capacity_changed();
}

std::vector<int> Facility::training_jobs_on(const std::vector<int>& racks) const {
  std::vector<int> jobs;
  for (int j = 0; j < workloads_->size(); ++j) {
    if (!workloads_->training(j)) continue;
    for (const int r : racks)
      if (rack_gpus(static_cast<std::size_t>(j), r) > 0) {
        jobs.push_back(j);
        break;
      }
  }
  return jobs;
}

void Facility::interrupt(const std::vector<int>& racks, int cause) {
  const std::vector<int> struck = training_jobs_on(racks); // services recount on the health change
  // Every struck job hears of the failure before any recovers: none moves onto a rack going down too.
  std::vector<std::uint64_t> ids;
  for (const int j : struck) {
    ids.push_back(next_syn_id_++);
    workloads_->training(j)->on_failure(ids.back(), cause);
  }
  for (std::size_t k = 0; k < struck.size(); ++k) // Racky saw it: detected at once
    workloads_->training(struck[k])->on_failure_detected(ids[k]);
}

void Facility::drain(const std::vector<int>& racks, bool coolant, std::function<void()> drained) {
  Drain d;
  d.racks = racks;
  d.coolant = coolant;
  d.drained = std::move(drained);
  d.held = training_jobs_on(racks); // a service does not wait: it moves
  d.waiting.insert(d.held.begin(), d.held.end());
  if (d.held.empty()) {
    take_out(racks, coolant, false, -1, "drained");
    d.drained();
    return;
  }
  // While the jobs there reach a checkpoint, nothing new is placed on the racks (drained GPUs stay up
  // but are unusable: arrivals, elastic growth and services look elsewhere).
  for (const int r : racks)
    alloc_->set_draining(rack_range(r), true);
  const std::uint64_t id = next_drain_id_++;
  const std::vector<int> held = d.held;
  drains_.emplace(id, std::move(d));
  for (const int j : held) // a job already stopped reports at once (on_job_stopped)
    workloads_->training(j)->hold();
}

void Facility::schedule_waves() {
  for (const auto& wave : s_->rlcc.waves) {
    const int covered = wave.racks > 0 ? wave.racks : racks_;
    std::vector<std::vector<int>> steps;
    if (wave.coolant && cooling_->isolation == cooling::Isolation::LOOP) {
      const int loops_per_step =
          (wave.racks_per_step + cooling_->racks_per_loop - 1) / cooling_->racks_per_loop;
      const int last_loop = loops_->loop_of(covered - 1);
      for (int l = 0; l <= last_loop; l += loops_per_step) {
        steps.emplace_back();
        for (int k = l; k < std::min(last_loop + 1, l + loops_per_step); ++k)
          for (int r : loop_rack_list(k))
            steps.back().push_back(r);
      }
    } else {
      for (int r = 0; r < covered; r += wave.racks_per_step) {
        steps.emplace_back();
        for (int k = r; k < std::min(covered, r + wave.racks_per_step); ++k)
          steps.back().push_back(k);
      }
    }
    for (std::size_t k = 0; k < steps.size(); ++k) {
      const sim::Tick at = sim::hours_to_ticks(wave.start_h + static_cast<double>(k) * wave.every_h);
      queue_->at(at, [this, racks = steps[k], &wave] {
        ops::Rlcc::Workflow w;
        w.component = racks_name(racks);
        w.scope = wave.coolant && cooling_->isolation == cooling::Isolation::LOOP ? "loop" : "rack";
        w.cause = wave.name;
        w.racks = racks;
        w.drain = w.burn_in = true;
        w.coolant = wave.coolant;
        w.service = sim::hours_to_ticks(wave.service_h);
        w.done = [this, racks, coolant = wave.coolant] { put_back(racks, coolant); };
        mission_->run_workflow(std::move(w));
      });
    }
  }
}

// ---------------------------------------------------------------------------------------------- power

void Facility::touch() {
  if (settle_pending_) return;
  settle_pending_ = true;
  queue_->after(0, [this] {
    if (settle_pending_) settle();
  });
}

double Facility::extra_w(int job, double cap) const {
  const auto j = static_cast<std::size_t>(job);
  const double at_cap = gpu_.busy_w(cap);
  double w = s_->jobs[j].gpus * (at_cap - gpu_.idle_w());
  for (const int r : throttled_)
    if (const int g = rack_gpus(j, r); g > 0)
      w += g * (gpu_.busy_w(std::min(cap, thermal_[static_cast<std::size_t>(r)].clock_frac)) - at_cap);
  return w;
}

double Facility::it_power_w(const std::vector<double>& caps) const {
  const int up = health_->gpus() - health_->down_gpus();
  double w = base_w_ * powered_racks_ + gpu_.idle_w() * up;
  for (std::size_t j = 0; j < training_.size(); ++j)
    if (training_[j]) w += extra_w(static_cast<int>(j), caps[j]);
  return w;
}

void Facility::settle() {
  settle_pending_ = false;
  const sim::Tick now = queue_->now();
  const std::size_t n_jobs = training_.size();
  std::vector<double> caps(n_jobs, 1.0);
  bool capping = false;
  if (available_w_ && n_jobs > 0 && it_power_w(caps) > *available_w_) {
    capping = true;
    const double min_clock = s_->power.min_clock_frac;
    if (s_->power.capping == power::CappingPolicy::UNIFORM) {
      const double c = power::uniform_cap(*available_w_, min_clock, [&](double cap) {
        std::fill(caps.begin(), caps.end(), cap);
        return it_power_w(caps);
      });
      std::fill(caps.begin(), caps.end(), c);
    } else {
      caps = power::priority_caps(*available_w_, min_clock, static_cast<int>(n_jobs),
                                  [&](const std::vector<double>& cs) { return it_power_w(cs); });
    }
  }
  if (capping != capping_ && log_->enabled())
    log_->add({now, capping ? "power_capping_start" : "power_capping_end", "facility", "power", "",
               capping ? fmt::format("available {:.1f} kW, cap {:.3f}", *available_w_ / W_PER_KW,
                                     *std::min_element(caps.begin(), caps.end()))
                       : std::string()});
  capping_ = capping;
  cap_ = caps;

  bool changed = false;
  double throttled_gpus = 0;
  double capped_gpus = 0;
  for (std::size_t j = 0; j < n_jobs; ++j) {
    double c = cap_[j];
    int on_throttled = 0;
    for (const int r : throttled_)
      if (const int g = rack_gpus(j, r); g > 0) {
        c = std::min(c, thermal_[static_cast<std::size_t>(r)].clock_frac);
        on_throttled += g;
      }
    if (c != clock_[j]) {
      clock_[j] = c;
      changed = true;
    }
    if (training_[j]) {
      throttled_gpus += on_throttled;
      if (cap_[j] < 1.0) capped_gpus += s_->jobs[j].gpus;
    }
  }
  total_.set(now, it_power_w(cap_));
  const double per_gpu_w = gpu_.idle_w() + base_w_ / gpus_per_rack_;
  for (std::size_t j = 0; j < n_jobs; ++j)
    job_energy_[j].set(now,
                       job_up_[j] * per_gpu_w + (training_[j] ? extra_w(static_cast<int>(j), cap_[j]) : 0.0));
  isolated_gpus_.set(now, static_cast<double>(racks_ - powered_racks_) * gpus_per_rack_);
  throttled_gpus_.set(now, throttled_gpus);
  capped_gpus_.set(now, capped_gpus);
  if (changed && hooks_.clocks_changed) hooks_.clocks_changed();
}

void Facility::start_grid_event(const power::GridEvent& e) {
  const double reference_w = s_->power.budget_kw
                                 ? *s_->power.budget_kw * W_PER_KW
                                 : racks_ * power::rack_design_power_w(s_->power, s_->hardware);
  available_w_ = reference_w * (1.0 - e.cut_frac);
  if (log_->enabled())
    log_->add({queue_->now(), "grid_event_start", "facility", "power", "",
               fmt::format("cut {} of {:.1f} kW: {:.1f} kW available", e.cut_frac, reference_w / W_PER_KW,
                           *available_w_ / W_PER_KW)});
  if (s_->power.grid_policy == power::GridPolicy::PAUSE) {
    // Stop the latest jobs first until the others fit uncapped; capping covers what remains.
    const int up = health_->gpus() - health_->down_gpus();
    double projected = base_w_ * powered_racks_ + gpu_.idle_w() * up;
    for (std::size_t j = 0; j < training_.size(); ++j)
      projected += extra_w(static_cast<int>(j), 1.0);
    for (int j = static_cast<int>(training_.size()) - 1; j >= 0 && projected > *available_w_; --j) {
      if (!workloads_->training(j)) continue; // an inference service is not paused
      projected -= extra_w(j, 1.0);
      paused_.push_back(j);
      if (log_->enabled())
        log_->add({queue_->now(), "grid_pause", s_->jobs[static_cast<std::size_t>(j)].name, "job",
                   s_->jobs[static_cast<std::size_t>(j)].name, "stops at a checkpoint for the grid event"});
      workloads_->training(j)->hold();
    }
  }
  touch();
}

void Facility::end_grid_event(const power::GridEvent&) {
  available_w_.reset();
  if (s_->power.budget_kw) available_w_ = *s_->power.budget_kw * W_PER_KW;
  if (log_->enabled()) log_->add({queue_->now(), "grid_event_end", "facility", "power", "", ""});
  const std::vector<int> paused = std::move(paused_);
  paused_.clear();
  for (const int j : paused)
    workloads_->training(j)->unhold();
  touch();
}

// ---------------------------------------------------------------------------------------------- Racky

std::vector<double> Facility::rack_power_w(std::vector<double>* hottest_gpu_w,
                                           std::vector<int>* busy_gpus) const {
  const auto n = static_cast<std::size_t>(racks_);
  std::vector<double> busy_w(n, 0.0), hottest(n, 0.0);
  std::vector<int> busy(n, 0);
  std::vector<double> rack_clock(n, 1.0);
  for (const int r : throttled_)
    rack_clock[static_cast<std::size_t>(r)] = thermal_[static_cast<std::size_t>(r)].clock_frac;
  for (std::size_t j = 0; j < training_.size(); ++j) {
    if (!training_[j]) continue;
    for (std::size_t r = 0; r < n; ++r) {
      const int g = rack_gpus(j, static_cast<int>(r));
      if (g == 0) continue;
      const double f = std::min(cap_[j], rack_clock[r]);
      const double w = gpu_.busy_w(f);
      busy_w[r] += g * w;
      busy[r] += g;
      hottest[r] = std::max(hottest[r], w);
    }
  }
  std::vector<double> p(n, 0.0);
  for (std::size_t r = 0; r < n; ++r) {
    if (!powered(static_cast<int>(r))) {
      hottest[r] = 0;
      continue;
    }
    p[r] = base_w_ + busy_w[r] + (rack_up_[r] - busy[r]) * gpu_.idle_w();
    if (busy[r] == 0 && rack_up_[r] > 0) hottest[r] = gpu_.idle_w();
  }
  if (hottest_gpu_w) *hottest_gpu_w = std::move(hottest);
  if (busy_gpus) *busy_gpus = std::move(busy);
  return p;
}

void Facility::sample_cluster() {
  if (settle_pending_) settle();
  const sim::Tick now = queue_->now();
  log_->sample({now, "cluster", "power_kw", total_.power_w() / W_PER_KW});
  if (s_->power.budget_kw || !s_->power.grid_events.empty())
    log_->sample({now, "cluster", "power_budget_kw", available_w_ ? *available_w_ / W_PER_KW : NaN});
}

void Facility::sample_loops() {
  if (settle_pending_) settle();
  const sim::Tick now = queue_->now();
  std::vector<double> hottest;
  std::vector<int> busy;
  const std::vector<double> power = rack_power_w(&hottest, &busy);
  const cooling::Coolant& coolant = cooling_->thermal.coolant;
  const double r_th = cooling_->thermal.thermal_resistance_k_per_w;
  const bool per_loop = cooling_->racky_gauges != cooling::RackyGauges::CLUSTER;
  const bool per_rack = cooling_->racky_gauges == cooling::RackyGauges::RACK;
  double heat_removed_w = 0;
  double flow_l_per_min = 0;
  double return_max_c = NaN;
  double gpu_max_c = NaN;
  auto raise = [](double& max, double v) {
    if (!std::isnan(v) && !(v <= max)) max = v;
  };
  for (int l = 0; l < loops_->loops(); ++l) {
    const cooling::LoopReading reading = loops_->read(l, supply_c_, power);
    heat_removed_w += reading.heat_removed_w;
    flow_l_per_min += reading.flow_l_per_min;
    raise(return_max_c, reading.return_c);
    double gpu_max = NaN;
    int throttled = 0;
    int isolated = 0;
    for (int r = loops_->first_rack(l); r < loops_->first_rack(l) + loops_->loop_racks(l); ++r) {
      const auto i = static_cast<std::size_t>(r);
      const double flow = loops_->flow_l_per_min(r);
      const double ret = supply_c_ + coolant.rise_k(power[i], flow);
      const double gpu_c = hottest[i] > 0 ? ret + hottest[i] * r_th : NaN;
      raise(gpu_max, gpu_c);
      if (busy[i] > 0 && throttled_.count(r)) throttled += busy[i];
      if (!powered(r)) ++isolated;
      if (per_rack) {
        const std::string rack = layout_->rack_name(r);
        log_->sample({now, rack, "return_temp_c", ret});
        log_->sample({now, rack, "flow_l_per_min", flow});
        log_->sample({now, rack, "pressure_kpa", loops_->pressure_drop_kpa(r)});
        log_->sample({now, rack, "leak", leaks_[i] > 0 ? 1.0 : 0.0});
        log_->sample({now, rack, "power_kw", power[i] / W_PER_KW});
        log_->sample({now, rack, "gpu_temp_max_c", gpu_c});
      }
    }
    raise(gpu_max_c, gpu_max);
    if (!per_loop) continue;
    const std::string loop_name = loops_->loop_name(l);
    log_->sample({now, loop_name, "return_temp_c", reading.return_c});
    log_->sample({now, loop_name, "flow_l_per_min", reading.flow_l_per_min});
    log_->sample({now, loop_name, "gpu_temp_max_c", gpu_max});
    log_->sample({now, loop_name, "power_kw", reading.power_w / W_PER_KW});
    log_->sample({now, loop_name, "throttled_gpus", static_cast<double>(throttled)});
    log_->sample({now, loop_name, "isolated_racks", static_cast<double>(isolated)});
  }
  // Two independent paths to the facility's power: per rack here, by aggregates in settle(). They must
  // agree (a bug otherwise, never a property of the input).
  double racks_w = 0;
  for (const double w : power)
    racks_w += w;
  if (std::fabs(racks_w - total_.power_w()) > 1e-9 * std::max(1.0, racks_w))
    throw std::logic_error(fmt::format("Facility: power per rack ({} W) and by aggregates ({} W) disagree", racks_w,
                                       total_.power_w()));
  log_->sample({now, "cluster", "supply_temp_c", supply_c_});
  log_->sample({now, "cluster", "return_temp_max_c", return_max_c});
  log_->sample({now, "cluster", "gpu_temp_max_c", gpu_max_c});
  log_->sample({now, "cluster", "flow_l_per_min", flow_l_per_min});
  log_->sample({now, "cluster", "heat_removed_kw", heat_removed_w / W_PER_KW});
  log_->sample({now, "cluster", "throttled_gpus", throttled_gpus_.power_w()});
  log_->sample({now, "cluster", "isolated_racks", static_cast<double>(racks_ - powered_racks_)});
}

// ---------------------------------------------------------------------------------------------- results

void Facility::finish(sim::Tick end, ledger::ReplicaResult& result) {
  if (settle_pending_) settle();
  total_.advance(end);
  for (auto& m : job_energy_)
    m.advance(end);
  isolated_gpus_.advance(end);
  throttled_gpus_.advance(end);
  capped_gpus_.advance(end);
  result.energy_j = total_.energy_j();
  result.peak_power_w = total_.peak_w();
  // result.jobs holds the training jobs only, in scenario order; job_energy_ every workload.
  std::size_t k = 0;
  for (int j = 0; j < workloads_->size(); ++j)
    if (workloads_->training(j) && k < result.jobs.size())
      result.jobs[k++].energy_j = job_energy_[static_cast<std::size_t>(j)].energy_j();
  result.cooling_isolated_gpu_h = cooling_ ? isolated_gpus_.energy_j() / sim::S_PER_H : NaN;
  result.throttled_gpu_h = cooling_ ? throttled_gpus_.energy_j() / sim::S_PER_H : NaN;
  result.power_capped_gpu_h =
      s_->power.budget_kw || !s_->power.grid_events.empty() ? capped_gpus_.energy_j() / sim::S_PER_H : NaN;
}

} // namespace dcsim
