#include "models/facility/cooling_plant.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dcsim::facility {

CoolingPlant::CoolingPlant(const cooling::CoolingSpec& spec, const hardware::Layout& layout,
                           hardware::GpuPowerCurve gpu, double rack_base_w, sim::EventQueue& queue,
                           sim::EventLog& log, Resolved resolved)
    : spec_(&spec), layout_(&layout), gpu_(std::move(gpu)), base_w_(rack_base_w), queue_(&queue), log_(&log),
      resolved_(std::move(resolved)), loops_(spec, layout.racks(), spec.rack_flow_l_per_min), profile_(spec) {
  const auto n_racks = static_cast<std::size_t>(layout.racks());
  thermal_.resize(n_racks);
  leaks_.assign(n_racks, 0);
  loop_throttled_.assign(static_cast<std::size_t>(loops_.loops()), 0);
}

void CoolingPlant::start(int cause) {
  profile_cause_ = cause;
  // Temperatures at t = 0 are settled by an event, after the jobs have started: a rack that cannot be
  // cooled from the start is shut down like any other, and its jobs recover through the usual path.
  queue_->at(0, [this] { update_supply(true, profile_cause_); });
}

// ---------------------------------------------------------------------------------------------- elements

void CoolingPlant::valve(int rack, bool failed, int cause) {
  if (failed)
    loops_.valve_failed(rack);
  else
    loops_.valve_repaired(rack);
  resolve({rack}, cause);
}

void CoolingPlant::pump(int loop, int pump, bool failed, int cause) {
  if (failed)
    loops_.pump_failed(loop, pump);
  else
    loops_.pump_repaired(loop, pump);
  resolve(loop_racks(loop), cause);
}

void CoolingPlant::cdu(int loop, bool failed, int cause) {
  if (failed)
    loops_.cdu_failed(loop);
  else
    loops_.cdu_repaired(loop);
  resolve(loop_racks(loop), cause);
}

void CoolingPlant::excursion(int delta, int cause) {
  excursions_ += delta;
  update_supply(false, cause);
}

// ---------------------------------------------------------------------------------------------- naming

std::vector<int> CoolingPlant::loop_racks(int loop) const {
  std::vector<int> out;
  for (int r = loops_.first_rack(loop); r < loops_.first_rack(loop) + loops_.loop_racks(loop); ++r)
    out.push_back(r);
  return out;
}

std::vector<int> CoolingPlant::unit_racks(int rack) const {
  if (spec_->isolation == cooling::Isolation::LOOP) return loop_racks(loops_.loop_of(rack));
  return {rack};
}

std::string CoolingPlant::racks_name(const std::vector<int>& racks) const {
  if (racks.empty()) return "";
  if (racks.size() > 1) { // a whole loop?
    const int loop = loops_.loop_of(racks.front());
    if (racks.front() == loops_.first_rack(loop) && static_cast<int>(racks.size()) == loops_.loop_racks(loop))
      return loops_.loop_name(loop);
  }
  if (racks.size() == 1) return layout_->rack_name(racks.front());
  return layout_->rack_name(racks.front()) + ".." + layout_->rack_name(racks.back());
}

// ---------------------------------------------------------------------------------------------- thermal

cooling::RackLoad CoolingPlant::design_load() const {
  const int gpus_per_rack = layout_->gpus_per_rack();
  const int domains = gpus_per_rack / layout_->domain_gpus();
  const int busy = domains * layout_->domain_usable_gpus();
  return {busy, gpus_per_rack - busy, base_w_};
}

void CoolingPlant::update_supply(bool force, int cause) {
  const double before = supply_c_;
  supply_c_ = profile_.at(queue_->now()) + excursions_ * spec_->facility_excursion_k;
  if (force || supply_c_ != before) {
    std::vector<int> all(static_cast<std::size_t>(layout_->racks()));
    for (int r = 0; r < layout_->racks(); ++r)
      all[static_cast<std::size_t>(r)] = r;
    resolve(all, cause);
  }
  if (force) { // the profile's next step; each step schedules the next
    const sim::Tick next = profile_.next_change(queue_->now());
    if (next >= 0) queue_->at(next, [this] { update_supply(true, profile_cause_); });
  }
}

void CoolingPlant::resolve(const std::vector<int>& racks, int cause) {
  const cooling::RackLoad load = design_load();
  std::vector<std::pair<double, cooling::RackThermal>> cache; // racks with the same flow share a state
  for (const int r : racks) {
    const double flow = loops_.open_flow_l_per_min(r);
    auto hit = std::find_if(cache.begin(), cache.end(), [flow](const auto& c) { return c.first == flow; });
    if (hit == cache.end()) {
      cache.emplace_back(flow, cooling::solve_rack(spec_->thermal, gpu_, supply_c_, flow, load));
      hit = cache.end() - 1;
    }
    cooling::RackThermal& th = thermal_[static_cast<std::size_t>(r)];
    const bool was = throttled_.count(r) != 0;
    th = hit->second;
    const bool is = th.clock_frac < 1.0 && !th.cannot_cool; // a rack that cannot be cooled is shut down
    if (was == is) continue;
    const auto loop = static_cast<std::size_t>(loops_.loop_of(r));
    if (is) {
      throttled_.insert(r);
      if (loop_throttled_[loop]++ == 0 && log_->enabled())
        log_->add({queue_->now(), "throttling_start", loops_.loop_name(static_cast<int>(loop)), "loop", "",
                   fmt::format("clock {:.3f} at {:.1f} C", th.clock_frac, th.gpu_temp_c)});
    } else {
      throttled_.erase(r);
      if (--loop_throttled_[loop] == 0 && log_->enabled())
        log_->add(
            {queue_->now(), "throttling_end", loops_.loop_name(static_cast<int>(loop)), "loop", "", ""});
    }
  }
  if (resolved_) resolved_(racks, cause);
}

} // namespace dcsim::facility
