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
      p.units = layout.unit_count(modes[i].scope);
    else
      throw std::logic_error("FailureInjector: fabric mode " + modes[i].name + " without its unit count");
    p.unit_rate_per_s = modes[i].unit_rate_per_h(layout) / sim::S_PER_H;
    p.weibull_scale_s = 1.0 / p.unit_rate_per_s / std::tgamma(1.0 + 1.0 / modes[i].weibull_shape);
    p.rng = sim::Rng(seed, replica, "failure/" + modes[i].name);
    p.down.assign(static_cast<std::size_t>(p.units), 0);
  }
}

void FailureInjector::start() {
  for (Process& p : processes_) {
    if (p.spec->weibull_shape == 1.0) {
      schedule_poisson(p);
    } else {
      const double k = p.spec->weibull_shape;
      for (int u = 0; u < p.units; ++u) {
        sim::Tick first = draw_lifetime(p);
        if (!p.spec->weibull_new) { // residual life in equilibrium: U times a length-biased lifetime
          const double length_biased_s = p.weibull_scale_s * std::pow(p.rng.gamma(1.0 + 1.0 / k), 1.0 / k);
          first = std::max<sim::Tick>(1, sim::to_ticks(p.rng.uniform01() * length_biased_s));
        }
        p.heap.emplace(queue_->now() + first, u);
      }
      schedule_weibull(p);
    }
  }
}

sim::Tick FailureInjector::draw_lifetime(Process& p) {
  return std::max<sim::Tick>(1, sim::to_ticks(p.rng.weibull(p.spec->weibull_shape, p.weibull_scale_s)));
}

void FailureInjector::schedule_poisson(Process& p) {
  const double total_rate_per_s = p.unit_rate_per_s * p.units;
  if (!(total_rate_per_s > 0)) return; // an empty population never fails
  const sim::Tick delay = std::max<sim::Tick>(1, sim::to_ticks(p.rng.exponential(total_rate_per_s)));
  p.pending = queue_->after(delay, [this, &p] {
    p.pending = {};
    const int unit = static_cast<int>(p.rng.below(static_cast<std::uint64_t>(p.units)));
    if (!p.down[static_cast<std::size_t>(unit)]) strike(p, unit);
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
    strike(p, unit); // its clock restarts at renew()
    schedule_weibull(p);
  });
}

void FailureInjector::strike(Process& p, int unit) {
  Failure f;
  f.id = next_id_++;
  f.mode = p.index;
  f.scope = p.spec->scope;
  f.unit = unit;
  if (p.spec->on_hardware()) f.gpus = layout_->unit_range(p.spec->scope, unit);
  f.time = queue_->now();
  p.down[static_cast<std::size_t>(unit)] = 1;
  health_->fail(f.gpus);
  listener_(f);
}

void FailureInjector::renew(const Failure& failure) {
  Process& p = processes_[static_cast<std::size_t>(failure.mode)];
  p.down[static_cast<std::size_t>(failure.unit)] = 0;
  if (p.spec->weibull_shape == 1.0) return;
  p.heap.emplace(queue_->now() + draw_lifetime(p), failure.unit);
  schedule_weibull(p);
}

} // namespace dcsim::failure
