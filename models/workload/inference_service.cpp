#include "models/workload/inference_service.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <numbers>

namespace dcsim::workload {

InferenceService::InferenceService(const JobSpec& spec, int job, const hardware::Layout& layout,
                                   sched::Allocator& alloc, sched::Scheduler& scheduler, sim::EventQueue& queue,
                                   sim::EventLog& log, const hardware::HardwareSpec* hardware, std::uint64_t seed)
    : spec_(&spec), job_(job), layout_(&layout), alloc_(&alloc), scheduler_(&scheduler), queue_(&queue), log_(&log) {
  if (spec.serving) {
    instance_gpus_ = spec.serving->instance.gpus();
    if (hardware) timeline_ = std::make_unique<serving::ServiceTimeline>(*spec.serving, *hardware, seed);
  }
}

InferenceService::~InferenceService() = default;

double InferenceService::demand_tokens_per_s(sim::Tick at) const {
  if (const auto& trace = spec_->demand_trace; !trace.empty()) {
    const double h = sim::to_hours(at);
    auto it = std::upper_bound(trace.begin(), trace.end(), h, [](double x, const auto& p) { return x < p.first; });
    return it == trace.begin() ? trace.front().second : std::prev(it)->second;
  }
  const double hour = std::fmod(sim::to_hours(at), 24.0);
  return spec_->demand_tokens_per_s *
         (1.0 + spec_->demand_swing_frac * std::cos(2.0 * std::numbers::pi * (hour - spec_->demand_peak_hour) / 24.0));
}

void InferenceService::advance() {
  const sim::Tick dt = queue_->now() - since_;
  since_ = queue_->now();
  if (dt <= 0) return;
  const double dt_s = sim::to_seconds(dt);
  demanded_ += demand_ * dt_s;
  served_ += std::min(demand_, serving_gpus_ * spec_->tokens_per_s_per_gpu) * dt_s;
  serving_ += static_cast<GpuTicks>(serving_gpus_ + unused_gpus_) * dt;
  unused_time_ += static_cast<GpuTicks>(unused_gpus_) * dt;
  moving_time_ += static_cast<GpuTicks>(moving_gpus_) * dt;
  down_time_ += static_cast<GpuTicks>(held_gpus_ - unused_gpus_ - serving_gpus_ - moving_gpus_) * dt;
  if (timeline_)
    timeline_->advance(dt_s, serving_gpus_ / instance_gpus_, demand_ / spec_->serving->osl);
}

void InferenceService::count_domains(int& whole, int& unused) const {
  // A service described by a model serves whole instances: a failed GPU takes its instance out, and a
  // domain's GPUs that form no whole instance serve nothing (leftover, not down).
  whole = unused = 0;
  for (int d : alloc_->job_domains(job_)) {
    const auto r = layout_->domain_range(d);
    int held = 0, healthy = 0;
    for (int g = r.first; g < r.end(); ++g)
      if (alloc_->owner(hardware::GpuIndex{g}).value() == job_) {
        ++held;
        if (alloc_->usable(g)) ++healthy;
      }
    whole += healthy / instance_gpus_ * instance_gpus_;
    unused += held % instance_gpus_;
  }
}

void InferenceService::recount() {
  held_gpus_ = alloc_->job_gpu_count(job_);
  const int before = whole_gpus_;
  count_domains(whole_gpus_, unused_gpus_);
  healthy_gpus_ = whole_gpus_;
  if (const int back = (whole_gpus_ - before) / instance_gpus_; back > 0 && pending_restarts_ > 0) {
    // Struck instances whole again (repaired, or spares swapped in): they load the weights first.
    const int gpus = std::min(back, pending_restarts_) * instance_gpus_;
    pending_restarts_ -= gpus / instance_gpus_;
    restarting_gpus_ += gpus;
    queue_->after(sim::to_ticks(spec_->serving->restart_s), [this, gpus] {
      advance();
      restarting_gpus_ = std::max(0, restarting_gpus_ - gpus);
      recount();
    });
  }
  moving_gpus_ = std::min(moving_gpus_, whole_gpus_);
  serving_gpus_ = std::max(0, whole_gpus_ - moving_gpus_ - restarting_gpus_);
}

void InferenceService::on_failure(std::uint64_t, int) {
  advance();
  int whole = 0, unused = 0;
  count_domains(whole, unused);
  const int before = serving_gpus_ / instance_gpus_;
  if (timeline_ && before > 0) {
    // The struck instances (at least one) lose their requests' KV; they restart once whole again.
    const int lost = std::clamp((whole_gpus_ - whole) / instance_gpus_, 1, before);
    const bool open = timeline_->window_open();
    timeline_->on_failure(before, demand_ / spec_->serving->osl, lost);
    if (!open) close_window_at_end();
    if (spec_->serving->restart_s > 0) pending_restarts_ += (whole_gpus_ - whole) / instance_gpus_;
  }
  recount();
}

void InferenceService::close_window_at_end() {
  if (!timeline_ || !timeline_->window_open()) return;
  queue_->after(sim::to_ticks(timeline_->window_left_s()), [this] {
    advance();
    timeline_->close_window();
  });
}

void InferenceService::on_gpus_changed() {
  advance();
  recount();
}

int InferenceService::wanted_domains() const {
  const int usable = layout_->domain_usable_gpus();
  const int max_domains = layout_->domains_for(spec_->gpus);
  const int min_domains = std::max(1, static_cast<int>(std::ceil(spec_->gpus * spec_->min_gpus_frac / usable)));
  if (!spec_->sunk) return max_domains;
  if (spec_->serving) { // whole instances: the curve's capacity per instance, whole instances per domain
    const int per_domain = usable / instance_gpus_;
    const double instance_rate = spec_->tokens_per_s_per_gpu * instance_gpus_;
    const int instances = static_cast<int>(std::ceil(demand_ / instance_rate));
    const int domains = per_domain > 0 ? (instances + per_domain - 1) / per_domain : max_domains;
    return std::clamp(domains, min_domains, max_domains);
  }
  const int gpus = static_cast<int>(std::ceil(demand_ / spec_->tokens_per_s_per_gpu));
  return std::clamp(layout_->domains_for(gpus), min_domains, max_domains);
}

void InferenceService::take(int domains) {
  if (domains <= 0 || !alloc_->resize(job_, domains)) return;
  const int gpus = domains * (layout_->domain_usable_gpus() / instance_gpus_ * instance_gpus_);
  ++moves_;
  advance();
  moving_gpus_ += gpus;
  recount();
  if (log_->enabled())
    log_->add({queue_->now(), "inference_grow", spec_->name, "job", spec_->name, fmt::format("+{} domains", domains)});
  queue_->after(sim::to_ticks(spec_->move_s), [this, gpus, epoch = move_epoch_] {
    if (epoch != move_epoch_) return; // a shrink ended every move in progress
    advance();
    moving_gpus_ = std::max(0, moving_gpus_ - gpus);
    recount();
  });
}

void InferenceService::start() {
  since_ = queue_->now();
  demand_ = demand_tokens_per_s(queue_->now());
  const int want = wanted_domains();
  const int got = std::min(want, alloc_->free_domains());
  if (got > 0 && alloc_->place(job_, got * layout_->domain_usable_gpus())) recount(); // serving at once
  if (got < want && spec_->sunk) borrow(want - got);
  schedule_step();
}

void InferenceService::schedule_step() {
  const auto& trace = spec_->demand_trace;
  if (trace.empty()) {
    queue_->after(sim::hours_to_ticks(spec_->demand_step_h), [this] { step(-1); });
    return;
  }
  for (std::size_t i = 0; i < trace.size(); ++i) // the next point after now (traces are short: a scan is fine)
    if (sim::hours_to_ticks(trace[i].first) > queue_->now()) {
      queue_->at(sim::hours_to_ticks(trace[i].first), [this, i] { step(static_cast<int>(i)); });
      return;
    }
}

void InferenceService::step(int point) {
  advance();
  // A trace point's value by its index: the date of the tick may convert back to hours a hair below it.
  demand_ = point >= 0 ? spec_->demand_trace[static_cast<std::size_t>(point)].second : demand_tokens_per_s(queue_->now());
  schedule_step();
  if (timeline_) {
    const bool open = timeline_->window_open();
    timeline_->on_demand_step(serving_gpus_ / instance_gpus_, demand_ / spec_->serving->osl);
    if (!open) close_window_at_end();
  }
  if (!spec_->sunk) return;
  const int held = alloc_->job_domain_count(job_) + pending_domains_;
  const int want = wanted_domains();
  if (want > held) {
    const int direct = std::min(want - held, alloc_->free_domains());
    take(direct);
    if (want - held - direct > 0) borrow(want - held - direct);
  } else if (want + 1 < alloc_->job_domain_count(job_)) {
    const int give = alloc_->job_domain_count(job_) - want;
    alloc_->resize(job_, -give);
    pending_restarts_ = 0; // what is given back no longer restarts here
    moving_gpus_ = 0; // the domains given back are the last taken: moves in progress end
    ++move_epoch_;
    recount();
    if (log_->enabled())
      log_->add({queue_->now(), "inference_shrink", spec_->name, "job", spec_->name, fmt::format("-{} domains", give)});
    scheduler_->capacity_changed();
  }
}

void InferenceService::borrow(int domains) {
  pending_domains_ += scheduler_->reclaim(domains, spec_->priority, [this](int n) {
    pending_domains_ -= n;
    take(std::min(n, alloc_->free_domains())); // what another job took first is asked again later
  });
}

void InferenceService::on_capacity_changed() {
  const int short_by = wanted_domains() - alloc_->job_domain_count(job_) - pending_domains_;
  if (short_by > 0) take(std::min(short_by, alloc_->free_domains()));
}

void InferenceService::finish() {
  advance();
  if (timeline_) timeline_->close_window(); // a window still open at the run's end is played whole
}

} // namespace dcsim::workload
