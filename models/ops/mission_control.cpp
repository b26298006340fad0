#include "models/ops/mission_control.hpp"

#include <fmt/format.h>

namespace dcsim::ops {

MissionControl::MissionControl(const OperationsSpec& ops, const failure::FailuresSpec& failures,
                               const hardware::Layout& layout, failure::GpuHealth& health, sim::EventQueue& queue,
                               sim::EventLog& log, std::uint64_t seed, std::uint64_t replica, Listener listener,
                               Namer namer)
    : ops_(&ops), failures_(&failures), layout_(&layout), health_(&health), queue_(&queue), log_(&log),
      listener_(std::move(listener)), namer_(std::move(namer)), stats_(failures.modes.size()) {
  for (const auto& m : failures.modes)
    repair_rng_.emplace_back(seed, replica, "repair/" + m.name);
}

std::string MissionControl::component(const failure::Failure& f) const {
  return namer_ ? namer_(f) : layout_->unit_name(f.scope, f.unit);
}

const std::string& MissionControl::scope(const failure::Failure& f) const {
  return failures_->modes[static_cast<std::size_t>(f.mode)].scope_name;
}

void MissionControl::on_failure(const failure::Failure& f) {
  const auto& mode = failures_->modes[static_cast<std::size_t>(f.mode)];
  ++stats_[static_cast<std::size_t>(f.mode)].failures;
  if (log_->enabled())
    log_->add({f.time, "failure", component(f), scope(f), "", mode.name});
  queue_->after(sim::to_ticks(mode.detect_s), [this, f] { detect(f); });
}

void MissionControl::detect(const failure::Failure& f) {
  const auto& mode = failures_->modes[static_cast<std::size_t>(f.mode)];
  if (log_->enabled())
    log_->add({queue_->now(), "detection", component(f), scope(f), "", mode.name});
  Repair r{f, sim::hours_to_ticks(mode.draw_repair_h(repair_rng_[static_cast<std::size_t>(f.mode)]))};
  if (r.duration == 0) {
    complete_repair(f); // nothing to replace: back in service at once, before jobs react
  } else if (ops_->repair_crews == 0 || busy_ < ops_->repair_crews) {
    begin_repair(r);
  } else {
    waiting_.push_back(r);
  }
  listener_.detected(f);
}

void MissionControl::begin_repair(const Repair& r) {
  ++busy_;
  if (log_->enabled())
    log_->add({queue_->now(), "repair_start", component(r.failure), scope(r.failure),
               "", fmt::format("{} {:.3f} h", failures_->modes[static_cast<std::size_t>(r.failure.mode)].name,
                               sim::to_hours(r.duration))});
  queue_->after(r.duration, [this, f = r.failure] {
    --busy_;
    complete_repair(f);
    while (!waiting_.empty() && (ops_->repair_crews == 0 || busy_ < ops_->repair_crews)) {
      Repair next = waiting_.front();
      waiting_.pop_front();
      begin_repair(next);
    }
  });
}

void MissionControl::complete_repair(const failure::Failure& f) {
  auto& s = stats_[static_cast<std::size_t>(f.mode)];
  ++s.repaired;
  s.time_to_repair += queue_->now() - f.time;
  health_->repair(f.gpus);
  if (log_->enabled())
    log_->add({queue_->now(), "repair_done", component(f), scope(f), "",
               failures_->modes[static_cast<std::size_t>(f.mode)].name});
  listener_.repaired(f);
}

} // namespace dcsim::ops
