#include "models/facility/facility_power.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace dcsim::facility {

namespace {
constexpr double W_PER_KW = 1000.0;
constexpr double NaN = std::numeric_limits<double>::quiet_NaN();
} // namespace

FacilityPower::FacilityPower(const power::PowerSpec& power, const hardware::HardwareSpec& hardware, int racks,
                             int gpus_per_rack, std::vector<WorkloadShape> workloads,
                             const hardware::PlacementIndex& placement, int rack_grouping,
                             const RackView& racks_view, sim::EventQueue& queue, sim::EventLog& log,
                             Hooks hooks)
    : power_(&power), hardware_(&hardware), gpu_(power.gpu_curve(hardware.gpu)),
      base_w_(power.rack_base_kw * W_PER_KW), racks_(racks), gpus_per_rack_(gpus_per_rack),
      workloads_(std::move(workloads)), placement_(&placement), rack_grouping_(rack_grouping),
      view_(&racks_view), queue_(&queue), log_(&log), hooks_(std::move(hooks)) {
  const std::size_t n_jobs = workloads_.size();
  job_up_.assign(n_jobs, 0);
  rack_up_.assign(static_cast<std::size_t>(racks_), gpus_per_rack_);
  training_.assign(n_jobs, 0);
  serving_busy_.assign(n_jobs, 0.0);
  cap_.assign(n_jobs, 1.0);
  clock_.assign(n_jobs, 1.0);
  job_energy_.resize(n_jobs);
  if (power.budget_kw) available_w_ = *power.budget_kw * W_PER_KW;
}

void FacilityPower::owner_changed(bool gpu_up, int from, int to) {
  if (gpu_up) {
    if (from >= 0) --job_up_[static_cast<std::size_t>(from)];
    if (to >= 0) ++job_up_[static_cast<std::size_t>(to)];
  }
  touch();
}

void FacilityPower::health_changed(int rack, int owner, bool up) {
  rack_up_[static_cast<std::size_t>(rack)] += up ? 1 : -1;
  if (owner >= 0) job_up_[static_cast<std::size_t>(owner)] += up ? 1 : -1;
  touch();
}

void FacilityPower::set_training(int job, bool training) {
  training_[static_cast<std::size_t>(job)] = training ? 1 : 0;
  touch();
}

void FacilityPower::set_serving_load(int job, double busy_gpus) {
  double& b = serving_busy_[static_cast<std::size_t>(job)];
  if (b == busy_gpus) return;
  b = busy_gpus;
  touch();
}

void FacilityPower::schedule_grid_events() {
  for (const auto& e : power_->grid_events) {
    queue_->at(sim::hours_to_ticks(e.start_h), [this, e] { start_grid_event(e); });
    queue_->at(sim::hours_to_ticks(e.start_h + e.duration_h), [this] { end_grid_event(); });
  }
}

void FacilityPower::touch() {
  if (settle_pending_) return;
  settle_pending_ = true;
  queue_->after(0, [this] {
    if (settle_pending_) settle();
  });
}

double FacilityPower::extra_w(int job, double cap) const {
  const auto j = static_cast<std::size_t>(job);
  const double at_cap = gpu_.busy_w(cap);
  double w = workloads_[j].gpus * (at_cap - gpu_.idle_w());
  for (const int r : view_->throttled_racks())
    if (const int g = rack_gpus(j, r); g > 0)
      w += g * (gpu_.busy_w(std::min(cap, view_->rack_clock_frac(r))) - at_cap);
  return w;
}

double FacilityPower::it_power_w(const std::vector<double>& caps) const {
  double w = base_w_ * view_->powered_racks() + gpu_.idle_w() * view_->up_gpus();
  for (std::size_t j = 0; j < training_.size(); ++j) {
    if (training_[j]) w += extra_w(static_cast<int>(j), caps[j]);
    w += serving_w(j);
  }
  return w;
}

std::vector<double> FacilityPower::caps_within_budget(bool& capping) const {
  const std::size_t n_jobs = training_.size();
  std::vector<double> caps(n_jobs, 1.0);
  capping = false;
  if (!available_w_ || n_jobs == 0 || it_power_w(caps) <= *available_w_) return caps;
  capping = true;
  const double min_clock = power_->min_clock_frac;
  if (power_->capping == power::CappingPolicy::UNIFORM) {
    const double c = power::uniform_cap(*available_w_, min_clock, [&](double cap) {
      std::fill(caps.begin(), caps.end(), cap);
      return it_power_w(caps);
    });
    std::fill(caps.begin(), caps.end(), c);
    return caps;
  }
  return power::priority_caps(*available_w_, min_clock, static_cast<int>(n_jobs),
                              [&](const std::vector<double>& cs) { return it_power_w(cs); });
}

void FacilityPower::settle() {
  settle_pending_ = false;
  const sim::Tick now = queue_->now();
  const std::size_t n_jobs = training_.size();
  bool capping = false;
  const std::vector<double> caps = caps_within_budget(capping);
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
    for (const int r : view_->throttled_racks())
      if (const int g = rack_gpus(j, r); g > 0) {
        c = std::min(c, view_->rack_clock_frac(r));
        on_throttled += g;
      }
    if (c != clock_[j]) {
      clock_[j] = c;
      changed = true;
    }
    if (training_[j]) {
      throttled_gpus += on_throttled;
      if (cap_[j] < 1.0) capped_gpus += workloads_[j].gpus;
    }
  }
  total_.set(now, it_power_w(cap_));
  const double per_gpu_w = gpu_.idle_w() + base_w_ / gpus_per_rack_;
  for (std::size_t j = 0; j < n_jobs; ++j)
    job_energy_[j].set(now,
                       job_up_[j] * per_gpu_w + (training_[j] ? extra_w(static_cast<int>(j), cap_[j]) : 0.0) +
                           serving_w(j));
  isolated_gpus_.set(now, static_cast<double>(racks_ - view_->powered_racks()) * gpus_per_rack_);
  throttled_gpus_.set(now, throttled_gpus);
  capped_gpus_.set(now, capped_gpus);
  if (changed && hooks_.clocks_changed) hooks_.clocks_changed();
}

void FacilityPower::start_grid_event(const power::GridEvent& e) {
  const double reference_w = power_->budget_kw ? *power_->budget_kw * W_PER_KW
                                               : racks_ * power::rack_design_power_w(*power_, *hardware_);
  available_w_ = reference_w * (1.0 - e.cut_frac);
  if (log_->enabled())
    log_->add({queue_->now(), "grid_event_start", "facility", "power", "",
               fmt::format("cut {} of {:.1f} kW: {:.1f} kW available", e.cut_frac, reference_w / W_PER_KW,
                           *available_w_ / W_PER_KW)});
  if (power_->grid_policy == power::GridPolicy::PAUSE) {
    // Stop the latest jobs first until the others fit uncapped; capping covers what remains.
    double projected = base_w_ * view_->powered_racks() + gpu_.idle_w() * view_->up_gpus();
    for (std::size_t j = 0; j < training_.size(); ++j)
      projected += extra_w(static_cast<int>(j), 1.0) + serving_w(j);
    for (int j = static_cast<int>(training_.size()) - 1; j >= 0 && projected > *available_w_; --j) {
      const WorkloadShape& w = workloads_[static_cast<std::size_t>(j)];
      if (!w.training) continue; // an inference service is not paused
      projected -= extra_w(j, 1.0);
      paused_.push_back(j);
      if (log_->enabled())
        log_->add(
            {queue_->now(), "grid_pause", w.name, "job", w.name, "stops at a checkpoint for the grid event"});
      if (hooks_.hold) hooks_.hold(j);
    }
  }
  touch();
}

void FacilityPower::end_grid_event() {
  available_w_.reset();
  if (power_->budget_kw) available_w_ = *power_->budget_kw * W_PER_KW;
  if (log_->enabled()) log_->add({queue_->now(), "grid_event_end", "facility", "power", "", ""});
  const std::vector<int> paused = std::move(paused_);
  paused_.clear();
  for (const int j : paused)
    if (hooks_.unhold) hooks_.unhold(j);
  touch();
}

std::vector<double> FacilityPower::rack_power_w(std::vector<double>* hottest_gpu_w,
                                                std::vector<int>* busy_gpus) const {
  const auto n = static_cast<std::size_t>(racks_);
  std::vector<double> busy_w(n, 0.0), hottest(n, 0.0);
  std::vector<int> busy(n, 0);
  std::vector<double> rack_clock(n, 1.0);
  for (const int r : view_->throttled_racks())
    rack_clock[static_cast<std::size_t>(r)] = view_->rack_clock_frac(r);
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
  for (std::size_t j = 0; j < training_.size(); ++j) { // a service's load, spread over its racks by GPUs
    if (!(serving_busy_[j] > 0) || job_up_[j] <= 0) continue;
    for (std::size_t r = 0; r < n; ++r)
      busy_w[r] += serving_w(j) * rack_gpus(j, static_cast<int>(r)) / job_up_[j];
  }
  std::vector<double> p(n, 0.0);
  for (std::size_t r = 0; r < n; ++r) {
    if (!view_->powered(static_cast<int>(r))) {
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

void FacilityPower::sample_cluster() {
  settle_if_pending();
  const sim::Tick now = queue_->now();
  log_->sample({now, "cluster", "power_kw", total_.power_w() / W_PER_KW});
  if (power_->budget_kw || !power_->grid_events.empty())
    log_->sample({now, "cluster", "power_budget_kw", available_w_ ? *available_w_ / W_PER_KW : NaN});
}

void FacilityPower::finish(sim::Tick end, bool cooling, ledger::ReplicaResult& result) {
  settle_if_pending();
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
  for (std::size_t j = 0; j < workloads_.size(); ++j)
    if (workloads_[j].training && k < result.jobs.size())
      result.jobs[k++].energy_j = job_energy_[j].energy_j();
  std::size_t v = 0; // result.services: the services, in scenario order
  for (std::size_t j = 0; j < workloads_.size(); ++j)
    if (!workloads_[j].training && v < result.services.size()) result.services[v++].energy_j = job_energy_[j].energy_j();
  result.cooling_isolated_gpu_h = cooling ? isolated_gpus_.energy_j() / sim::S_PER_H : NaN;
  result.throttled_gpu_h = cooling ? throttled_gpus_.energy_j() / sim::S_PER_H : NaN;
  result.power_capped_gpu_h =
      power_->budget_kw || !power_->grid_events.empty() ? capped_gpus_.energy_j() / sim::S_PER_H : NaN;
}

} // namespace dcsim::facility
