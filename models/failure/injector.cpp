#include "models/failure/injector.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace dcsim::failure {

FailureInjector::FailureInjector(const std::vector<FailureModeSpec>& modes, const hardware::Layout& layout,
                                 GpuHealth& health, sim::EventQueue& queue, std::uint64_t seed,
                                 std::uint64_t replica, Listener listener, const std::vector<int>& units)
    : layout_(&layout), health_(&health), queue_(&queue), listener_(std::move(listener)) {
  processes_.resize(modes.size());
  for (std::size_t i = 0; i < modes.size(); ++i) {
    Process& p = processes_[i];
    p.spec = &modes[i];
    p.index = static_cast<int>(i);
    if (!units.empty())
      p.units = units.at(i);
    else if (modes[i].on_hardware())
      p.units = layout.unit_count(modes[i].scope());
    else
      throw std::logic_error("FailureInjector: mode " + modes[i].name + " of a non-hardware domain without its unit count");
    p.unit_rate_per_s = modes[i].unit_rate_per_h(layout) / sim::S_PER_H;
    p.weibull_scale_s = 1.0 / p.unit_rate_per_s / std::tgamma(1.0 + 1.0 / modes[i].weibull_shape);
    p.rng = sim::Rng(seed, replica, "failure/" + modes[i].name);
    p.down.assign(static_cast<std::size_t>(p.units), 0);
    if (modes[i].lemon_frac > 0) {
      sim::Rng pick(seed, replica, "lemon/" + modes[i].name);
      p.lemon.assign(static_cast<std::size_t>(p.units), 0);
      for (auto& l : p.lemon)
        if (pick.bernoulli(modes[i].lemon_frac)) {
          l = 1;
          ++p.lemon_count;
        }
    }
  }
}

double FailureInjector::lemon_factor(const Process& p, int unit) const {
  return !p.lemon.empty() && p.lemon[static_cast<std::size_t>(unit)] ? p.spec->lemon_factor : 1.0;
}

bool FailureInjector::is_lemon(int mode, int unit) const {
  const Process& p = processes_[static_cast<std::size_t>(mode)];
  return !p.lemon.empty() && p.lemon[static_cast<std::size_t>(unit)];
}

void FailureInjector::fix_lemon(int mode, int unit) {
  Process& p = processes_[static_cast<std::size_t>(mode)];
  if (p.lemon.empty() || !p.lemon[static_cast<std::size_t>(unit)]) return;
  p.lemon[static_cast<std::size_t>(unit)] = 0;
  --p.lemon_count;
}

void FailureInjector::start() {
  for (Process& p : processes_) {
    if (p.spec->weibull_shape == 1.0) {
      schedule_poisson(p);
    } else {
      const double k = p.spec->weibull_shape;
      for (int u = 0; u < p.units; ++u) {
        sim::Tick first = draw_lifetime(p, u);
        if (!p.spec->weibull_new) { // residual life in equilibrium: U times a length-biased lifetime
          const double length_biased_s =
              p.weibull_scale_s / lemon_factor(p, u) * std::pow(p.rng.gamma(1.0 + 1.0 / k), 1.0 / k);
          first = std::max<sim::Tick>(1, sim::to_ticks(p.rng.uniform01() * length_biased_s));
        }
        p.heap.emplace(queue_->now() + first, u);
      }
      schedule_weibull(p);
    }
  }
}

sim::Tick FailureInjector::draw_lifetime(Process& p, int unit) {
  return std::max<sim::Tick>(
      1, sim::to_ticks(p.rng.weibull(p.spec->weibull_shape, p.weibull_scale_s / lemon_factor(p, unit))));
}

void FailureInjector::schedule_poisson(Process& p) {
  const double top_factor = p.lemon.empty() ? 1.0 : p.spec->lemon_factor; // thinning envelope
  const double total_rate_per_s = p.unit_rate_per_s * p.units * top_factor;
  if (!(total_rate_per_s > 0)) return; // an empty population never fails
  const sim::Tick delay = std::max<sim::Tick>(1, sim::to_ticks(p.rng.exponential(total_rate_per_s)));
  Candidate c;
  c.unit = static_cast<int>(p.rng.below(static_cast<std::uint64_t>(p.units)));
  if (top_factor > 1.0) c.keep = p.rng.uniform01() < lemon_factor(p, c.unit) / top_factor;
  if (p.spec->predicted_frac > 0) c.predicted = p.rng.bernoulli(p.spec->predicted_frac);
  const sim::Tick date = queue_->now() + delay;
  if (c.keep && c.predicted && predictor_) {
    const sim::Tick announce = std::max(queue_->now(), date - sim::hours_to_ticks(p.spec->lead_time_h));
    queue_->at(announce, [this, &p, c, date] {
      if (!p.down[static_cast<std::size_t>(c.unit)]) predictor_(p.index, c.unit, date);
    });
  }
  p.pending = queue_->at(date, [this, &p, c] {
    p.pending = {};
    // The lemon status may have changed since the draw: keep the decision made with the rate then.
    if (c.keep && !p.down[static_cast<std::size_t>(c.unit)]) strike(p, c.unit);
    schedule_poisson(p);
  });
}

void FailureInjector::schedule_weibull(Process& p) {
  queue_->cancel(p.pending);
  if (p.heap.empty()) return;
  p.pending = queue_->at(std::max(queue_->now(), p.heap.top().first), [this, &p] {
    p.pending = {};
    const int unit = p.heap.top().second;
    p.heap.pop();
    if (!p.down[static_cast<std::size_t>(unit)] && !strike(p, unit)) // struck: its clock restarts at renew()
      p.heap.emplace(queue_->now() + draw_lifetime(p, unit), unit);  // discarded: a new lifetime from now
    schedule_weibull(p);
  });
}

bool FailureInjector::strike(Process& p, int unit) {
  if (paused_ && p.spec->on_hardware() && paused_(p.index, layout_->unit_range(p.spec->scope(), unit))) {
    ++discarded_; // its clock is paused (exponential); a Weibull unit's restarts (schedule_weibull)
    return false;
  }
  Failure f;
  f.id = next_id_++;
  f.mode = p.index;
  f.unit = unit;
  if (p.spec->on_hardware()) {
    f.scope = p.spec->scope();
    f.gpus = layout_->unit_range(f.scope, unit);
  }
  f.time = queue_->now();
  f.lemon = is_lemon(p.index, unit);
  p.down[static_cast<std::size_t>(unit)] = 1;
  if (p.spec->takes_down()) health_->fail(f.gpus);
  listener_(f);
  return true;
}

void FailureInjector::renew(const Failure& failure) { return_unit(failure.mode, failure.unit); }

bool FailureInjector::take_unit(int mode, int unit) {
  char& down = processes_[static_cast<std::size_t>(mode)].down[static_cast<std::size_t>(unit)];
  if (down) return false;
  down = 1;
  return true;
}

void FailureInjector::return_unit(int mode, int unit) {
  Process& p = processes_[static_cast<std::size_t>(mode)];
  p.down[static_cast<std::size_t>(unit)] = 0;
  if (p.spec->weibull_shape == 1.0) return;
  p.heap.emplace(queue_->now() + draw_lifetime(p, unit), unit);
  schedule_weibull(p);
}

void FailureInjector::strike_at(int mode, int unit, sim::Tick date) {
  Process& p = processes_[static_cast<std::size_t>(mode)];
  queue_->at(std::max(queue_->now(), date), [this, &p, unit] {
    if (!p.down[static_cast<std::size_t>(unit)]) strike(p, unit);
  });
}

} // namespace dcsim::failure
