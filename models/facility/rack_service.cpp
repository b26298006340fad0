#include "models/facility/rack_service.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dcsim::facility {

namespace {
constexpr const char* THERMAL_CAUSE = "thermal_shutdown";
} // namespace

RackService::RackService(const hardware::Layout& layout, CoolingPlant* plant, const ops::RlccSpec& rlcc,
                         const std::vector<failure::FailureModeSpec>& modes, failure::GpuHealth& health,
                         sched::Allocator& alloc, const hardware::PlacementIndex& placement,
                         int rack_grouping, workload::Workloads& workloads, sim::EventQueue& queue,
                         sim::EventLog& log, ops::MissionControl& mission, Hooks hooks)
    : layout_(&layout), plant_(plant), rlcc_(&rlcc), modes_(&modes), health_(&health), alloc_(&alloc),
      placement_(&placement), rack_grouping_(rack_grouping), workloads_(&workloads), queue_(&queue),
      log_(&log), mission_(&mission), hooks_(std::move(hooks)), gpus_per_rack_(layout.gpus_per_rack()) {
  const auto n_racks = static_cast<std::size_t>(layout.racks());
  off_.assign(n_racks, 0);
  shutdown_.assign(n_racks, 0);
  shutdown_cause_.assign(n_racks, -1);
  shutdown_since_.assign(n_racks, 0);
  return_at_.resize(n_racks);
  powered_racks_ = layout.racks();
}

std::string RackService::racks_name(const std::vector<int>& racks) const {
  if (plant_) return plant_->racks_name(racks);
  if (racks.empty()) return "";
  if (racks.size() == 1) return layout_->rack_name(racks.front());
  return layout_->rack_name(racks.front()) + ".." + layout_->rack_name(racks.back());
}

// ---------------------------------------------------------------------------------------------- shutdowns

void RackService::shutdown_check(const std::vector<int>& racks, int cause) {
  const sim::Tick burn_in = sim::to_ticks(rlcc_->burn_in_s);
  std::vector<int> down;
  for (const int r : racks) {
    const auto i = static_cast<std::size_t>(r);
    if (plant_->thermal(r).cannot_cool) {
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
    if (cause >= causes()) mission_->outage_began(cause); // a mode's failure is counted already
    if (log_->enabled()) {
      const std::string why =
          cause < causes() ? (*modes_)[static_cast<std::size_t>(cause)].name : std::string(THERMAL_CAUSE);
      const double flow = plant_->loops().open_flow_l_per_min(r);
      const cooling::RackThermal& th = plant_->thermal(r);
      log_->add({queue_->now(), "emergency_shutdown", layout_->rack_name(r), "rack", "",
                 flow > 0 ? fmt::format("{}: GPU {:.1f} C at clock {:.3f}, flow {:.1f} L/min", why,
                                        th.gpu_temp_c, th.clock_frac, flow)
                          : why + ": no coolant flow"});
    }
    health_->fail(rack_range(r));
  }
  interrupt(down, cause);
  touch();
}

void RackService::try_return(int rack) {
  const auto i = static_cast<std::size_t>(rack);
  return_at_[i] = {};
  if (!shutdown_[i] || plant_->thermal(rack).cannot_cool) return;
  shutdown_[i] = 0;
  if (off_[i] == 0) ++powered_racks_;
  const int cause = shutdown_cause_[i];
  if (cause >= causes()) mission_->outage_ended(cause, shutdown_since_[i]);
  if (log_->enabled())
    log_->add(
        {queue_->now(), "return_to_service", layout_->rack_name(rack), "rack", "", "emergency_shutdown"});
  health_->repair(rack_range(rack));
  touch();
  if (hooks_.capacity_changed) hooks_.capacity_changed();
}

// ---------------------------------------------------------------------------------------------- service

void RackService::take_out(const std::vector<int>& racks, bool coolant, bool interrupt_jobs, int cause,
                           const std::string& why) {
  for (const int r : racks) {
    const auto i = static_cast<std::size_t>(r);
    if (coolant) {
      if (powered(r)) --powered_racks_;
      ++off_[i];
      plant_->close_branch(r);
    }
    health_->fail(rack_range(r));
  }
  if (log_->enabled())
    log_->add({queue_->now(), coolant ? "isolation" : "out_of_service", racks_name(racks),
               racks.size() > 1 && coolant && plant_->spec().isolation == cooling::Isolation::LOOP ? "loop"
                                                                                                   : "rack",
               "", why});
  if (interrupt_jobs) interrupt(racks, cause);
  touch();
}

void RackService::put_back(const std::vector<int>& racks, bool coolant) {
  for (const int r : racks) {
    const auto i = static_cast<std::size_t>(r);
    health_->repair(rack_range(r));
    if (coolant) {
      plant_->open_branch(r);
      if (--off_[i] == 0 && !shutdown_[i]) ++powered_racks_;
    }
  }
  if (plant_) // a rack back on a loop that cannot cool it is shut down before any job takes it
    shutdown_check(racks, causes());
  touch();
  if (hooks_.capacity_changed) hooks_.capacity_changed();
}

std::vector<int> RackService::training_jobs_on(const std::vector<int>& racks) const {
  std::vector<int> jobs;
  for (int j = 0; j < workloads_->size(); ++j) {
    if (!workloads_->training(j)) continue;
    for (const int r : racks)
      if (placement_->count(rack_grouping_, j, r) > 0) {
        jobs.push_back(j);
        break;
      }
  }
  return jobs;
}

void RackService::interrupt(const std::vector<int>& racks, int cause) {
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

// ---------------------------------------------------------------------------------------------- drains

void RackService::drain(const std::vector<int>& racks, bool coolant, std::function<void()> drained) {
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
  for (const int j : held) // a job already stopped reports at once (job_stopped)
    workloads_->training(j)->hold();
}

void RackService::job_stopped(int job) {
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

// ---------------------------------------------------------------------------------------------- waves

std::vector<std::vector<int>> RackService::wave_steps(const ops::WaveSpec& wave) const {
  const int covered = wave.racks > 0 ? wave.racks : layout_->racks();
  std::vector<std::vector<int>> steps;
  if (wave.coolant && plant_->spec().isolation == cooling::Isolation::LOOP) {
    const int per_loop = plant_->spec().racks_per_loop;
    const int loops_per_step = (wave.racks_per_step + per_loop - 1) / per_loop;
    const int last_loop = plant_->loops().loop_of(covered - 1);
    for (int l = 0; l <= last_loop; l += loops_per_step) {
      steps.emplace_back();
      for (int k = l; k < std::min(last_loop + 1, l + loops_per_step); ++k)
        for (int r : plant_->loop_racks(k))
          steps.back().push_back(r);
    }
  } else {
    for (int r = 0; r < covered; r += wave.racks_per_step) {
      steps.emplace_back();
      for (int k = r; k < std::min(covered, r + wave.racks_per_step); ++k)
        steps.back().push_back(k);
    }
  }
  return steps;
}

void RackService::schedule_waves() {
  for (const auto& wave : rlcc_->waves) {
    const std::vector<std::vector<int>> steps = wave_steps(wave);
    for (std::size_t k = 0; k < steps.size(); ++k) {
      const sim::Tick at = sim::hours_to_ticks(wave.start_h + static_cast<double>(k) * wave.every_h);
      queue_->at(at, [this, racks = steps[k], &wave] {
        ops::Rlcc::Workflow w;
        w.component = racks_name(racks);
        w.scope = wave.coolant && plant_->spec().isolation == cooling::Isolation::LOOP ? "loop" : "rack";
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

} // namespace dcsim::facility
