// TrainingJob's checkpoints: committing or losing the pending time, checkpoints lost with a storage tier
// (fall_back), the tier the next restart loads from, the restart's parts, and the causes charges carry
// (training_job.hpp has the equations). The same class as training_job.cpp, kept apart so that each file stays one concern.
#include "models/workload/training_job.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dcsim::workload {

void TrainingJob::commit_pending() {
  add(JobTime::PRODUCTIVE, pending_productive_);
  add(JobTime::DEGRADED, pending_degraded_);
  add(JobTime::CHECKPOINT, pending_checkpoint_);
  add(JobTime::REDUCED_BATCH, pending_reduced_);
  pending_productive_ = pending_degraded_ = pending_checkpoint_ = pending_reduced_ = 0;
}

void TrainingJob::init_causes(int modes) {
  modes_ = modes;
  causes_ = modes + MECHANISMS;
  cause_time_.assign(static_cast<std::size_t>(JOB_TIME_STATES) * static_cast<std::size_t>(causes_), 0);
  const std::array<std::pair<JobTime, Mechanism>, 5> fixed{{{JobTime::PRODUCTIVE, Mechanism::PRODUCTIVE},
                                                            {JobTime::CHECKPOINT, Mechanism::CHECKPOINT_WRITE},
                                                            {JobTime::DEGRADED, Mechanism::SLOWDOWN},
                                                            {JobTime::REDUCED_BATCH, Mechanism::GROUPS_OUT},
                                                            {JobTime::MAINTENANCE, Mechanism::PLANNED_STOP}}};
  for (const auto& [state, m] : fixed)
    cause_of_[static_cast<std::size_t>(state)] = mechanism(m);
  cause_of_[static_cast<std::size_t>(JobTime::REWORK)] = mechanism(Mechanism::RESCHEDULED);
  set_stop_cause(mechanism(Mechanism::LAUNCH));
}

void TrainingJob::move_time(JobTime from, JobTime to, GpuTicks t) {
  const auto f = static_cast<std::size_t>(from), d = static_cast<std::size_t>(to);
  const auto n = static_cast<std::size_t>(causes_);
  time_[f] -= t;
  time_[d] += t;
  cause_time_[f * n + static_cast<std::size_t>(cause_of_[f])] -= t;
  cause_time_[d * n + static_cast<std::size_t>(cause_of_[d])] += t;
}

void TrainingJob::set_stop_cause(int cause) {
  for (JobTime s : {JobTime::DETECTION, JobTime::RESTART, JobTime::WAITING})
    cause_of_[static_cast<std::size_t>(s)] = cause;
}

void TrainingJob::lose_pending() {
  add(JobTime::REWORK, pending_work());
  pending_productive_ = pending_degraded_ = pending_checkpoint_ = pending_reduced_ = 0;
}

void TrainingJob::commit_checkpoint(sim::Tick at, bool durable) {
  last_commit_at_ = at;
  last_segment_ = {static_cast<GpuTicks>(pending_productive_) * gpus_, static_cast<GpuTicks>(pending_degraded_) * gpus_,
                   static_cast<GpuTicks>(pending_checkpoint_) * gpus_, static_cast<GpuTicks>(pending_reduced_) * gpus_};
  commit_pending();
  ++checkpoints_;
  static const sim::Name checkpoint("checkpoint");
  event(checkpoint, {}, at);
  if (flows()) {
    at_risk_.push_back(last_segment_);
    const auto keep = static_cast<std::size_t>(std::max(0, hooks_.snapshot(durable)));
    while (at_risk_.size() > keep)
      at_risk_.pop_front();
  }
}

void TrainingJob::account_restart(sim::Tick from, sim::Tick to) {
  // The restart's parts run one after the other: each gets its overlap with [from, to).
  sim::Tick begin = restart_began_;
  for (int k = 0; k < RESTART_PARTS; ++k) {
    const sim::Tick end = restart_began_ + restart_ends_[static_cast<std::size_t>(k)];
    const sim::Tick overlap = std::min(to, end) - std::max(from, begin);
    if (overlap > 0) restart_parts_[static_cast<std::size_t>(k)] += static_cast<GpuTicks>(overlap) * gpus_;
    begin = end;
  }
}

void TrainingJob::need_load(int mode, bool first) {
  const auto m = static_cast<std::size_t>(mode);
  after_failure_ = true;
  if (m >= timing_.load.size()) return;
  // The restart reads from the nearest tier that survived every failure since the job last trained.
  if (first || timing_.load[m] > next_load_) load_mode_ = mode;
  next_load_ = first ? timing_.load[m] : std::max(next_load_, timing_.load[m]);
}

void TrainingJob::fall_back(int mode) {
  // A lost checkpoint's segment becomes rework (GPU-time is kept), and it is no recovery point.
  auto to_rework = [this](const std::array<GpuTicks, 4>& segment) {
    const std::array<JobTime, 4> states{JobTime::PRODUCTIVE, JobTime::DEGRADED, JobTime::CHECKPOINT,
                                        JobTime::REDUCED_BATCH};
    for (std::size_t k = 0; k < states.size(); ++k)
      move_time(states[k], JobTime::REWORK, segment[k]); // rework's cause: the failure's (on_failure)
    if (checkpoints_ > 0) --checkpoints_;
    ++checkpoint_fallbacks_;
  };
  if (flows()) { // the storage says how many of the newest checkpoints the failure lost
    const auto lost = std::min(at_risk_.size(), static_cast<std::size_t>(std::max(0, hooks_.lost(mode))));
    for (std::size_t i = 0; i < lost; ++i) {
      to_rework(at_risk_.back());
      at_risk_.pop_back();
    }
    at_risk_.clear(); // the job restores from the newest copy left: the older segments are safe
    if (lost > 0 && log_->enabled())
      event("checkpoint_lost", fmt::format("{} checkpoint(s), {}", lost, hooks_.cause_name(mode)));
    return;
  }
  const auto m = static_cast<std::size_t>(mode);
  if (last_commit_at_ < 0 || m >= timing_.loss_window.size() ||
      queue_->now() - last_commit_at_ >= timing_.loss_window[m])
    return;
  to_rework(last_segment_); // the segment before the last checkpoint is lost with it
  last_commit_at_ = -1;
  if (log_->enabled()) event("checkpoint_lost", hooks_.cause_name(mode));
}

void TrainingJob::arm_snapshot() {
  queue_->cancel(snapshot_timer_);
  if (!flows() || state_ != State::CYCLE) return;
  close_current();
  const sim::Tick done = remaining_ > 0 ? origin_ + wall_of(remaining_) + timing_.write
                                        : origin_ + timing_.write - pending_checkpoint_;
  snapshot_timer_ = queue_->at(done, [this] {
    snapshot_timer_ = {};
    close_current(); // commits the checkpoint completing now (and calls the snapshot hook)
    arm_snapshot();
  });
}

} // namespace dcsim::workload
