#include "models/workload/training_job.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

namespace dcsim::workload {

std::string_view job_time_name(JobTime state) {
  switch (state) {
  case JobTime::PRODUCTIVE: return "productive";
  case JobTime::CHECKPOINT: return "checkpoint";
  case JobTime::REWORK: return "rework";
  case JobTime::DETECTION: return "detection";
  case JobTime::RESTART: return "restart";
  case JobTime::WAITING: return "waiting";
  case JobTime::DEGRADED: return "degraded";
  case JobTime::MAINTENANCE: return "maintenance";
  case JobTime::COUNT: break;
  }
  return "?";
}

TrainingJob::TrainingJob(const JobSpec& spec, JobTiming timing, int modes, sim::EventQueue& queue,
                         sim::EventLog& log, Hooks hooks)
    : spec_(&spec), timing_(timing), queue_(&queue), log_(&log), hooks_(std::move(hooks)),
      failures_by_mode_(static_cast<std::size_t>(modes), 0), interruptions_by_mode_(static_cast<std::size_t>(modes), 0) {
  if (timing_.interval <= 0 || timing_.step <= 0) throw std::logic_error("TrainingJob: interval and step must be > 0");
  remaining_ = timing_.interval;
}

void TrainingJob::event(std::string kind, std::string detail) {
  log_->add({queue_->now(), std::move(kind), spec_->name, "job", spec_->name, std::move(detail)});
}

void TrainingJob::close_current() {
  const sim::Tick dt = queue_->now() - since_;
  switch (state_) {
  case State::RUN: {
    sim::Tick progress = dt;
    if (slowdown_ != 1.0)
      progress = std::min(remaining_, static_cast<sim::Tick>(std::llround(static_cast<double>(dt) / slowdown_)));
    pending_productive_ += progress;
    pending_degraded_ += dt - progress;
    remaining_ -= progress;
    break;
  }
  case State::CHECKPOINT: pending_checkpoint_ += dt; break;
  case State::RESTART: add(JobTime::RESTART, dt); break;
  case State::DETECTION: add(JobTime::DETECTION, dt); break;
  case State::WAITING: add(JobTime::WAITING, dt); break;
  case State::MAINTENANCE: add(JobTime::MAINTENANCE, dt); break;
  case State::IDLE:
  case State::DONE: break;
  }
  since_ = queue_->now();
}

void TrainingJob::transition(State next) {
  close_current();
  queue_->cancel(timer_);
  state_ = next;
}

void TrainingJob::start() {
  start_ = since_ = queue_->now();
  if (timing_.planned_every > 0) queue_->after(timing_.planned_every, [this] { planned_tick(); });
  start_restart();
}

void TrainingJob::start_restart() {
  transition(State::RESTART);
  remaining_ = timing_.interval;
  event("restart");
  timer_ = queue_->after(timing_.restart, [this] { begin_run(); });
}

void TrainingJob::begin_run() {
  if (planned_due_ && pending_work() == 0) {
    begin_maintenance();
    return;
  }
  const bool restarted = state_ == State::RESTART;
  transition(State::RUN);
  if (restarted) event("running");
  const auto wall = static_cast<sim::Tick>(std::ceil(static_cast<double>(remaining_) * slowdown_));
  timer_ = queue_->after(wall, [this] { start_checkpoint(); });
}

void TrainingJob::start_checkpoint() {
  transition(State::CHECKPOINT);
  timer_ = queue_->after(timing_.write, [this] { checkpoint_done(); });
}

void TrainingJob::checkpoint_done() {
  close_current();
  add(JobTime::PRODUCTIVE, pending_productive_);
  add(JobTime::DEGRADED, pending_degraded_);
  add(JobTime::CHECKPOINT, pending_checkpoint_);
  pending_productive_ = pending_degraded_ = pending_checkpoint_ = 0;
  remaining_ = timing_.interval;
  ++checkpoints_;
  event("checkpoint");
  timer_ = {};
  if (planned_due_)
    begin_maintenance();
  else
    begin_run();
}

void TrainingJob::planned_tick() {
  queue_->after(timing_.planned_every, [this] { planned_tick(); });
  planned_due_ = true;
  if (state_ != State::RUN) return; // taken at the next checkpoint, or when the job runs again
  close_current();
  if (pending_work() == 0)
    begin_maintenance();
  else
    start_checkpoint();
}

void TrainingJob::begin_maintenance() {
  planned_due_ = false;
  ++interruptions_planned_;
  transition(State::MAINTENANCE);
  event("planned_stop");
  timer_ = queue_->after(timing_.planned_downtime, [this] { resume(); });
}

void TrainingJob::resume() {
  if (!undetected_.empty()) {
    transition(State::DETECTION);
    return;
  }
  if (hooks_.recover()) {
    start_restart();
  } else {
    transition(State::WAITING);
    event("waiting");
  }
}

void TrainingJob::on_failure(std::uint64_t id, int mode) {
  undetected_.insert(id);
  ++failures_by_mode_[static_cast<std::size_t>(mode)];
  switch (state_) {
  case State::RUN:
  case State::CHECKPOINT:
  case State::RESTART: {
    transition(State::DETECTION);
    add(JobTime::REWORK, pending_work());
    pending_productive_ = pending_degraded_ = pending_checkpoint_ = 0;
    remaining_ = timing_.interval;
    ++interruptions_;
    ++interruptions_by_mode_[static_cast<std::size_t>(mode)];
    event("interruption", hooks_.cause_name(mode));
    break;
  }
  case State::WAITING: transition(State::DETECTION); break;
  case State::DETECTION:
  case State::MAINTENANCE:
  case State::IDLE:
  case State::DONE: break;
  }
}

void TrainingJob::on_failure_detected(std::uint64_t id) {
  if (undetected_.erase(id) && undetected_.empty() && state_ == State::DETECTION) resume();
}

void TrainingJob::on_capacity_changed() {
  if (state_ == State::WAITING && hooks_.recover()) start_restart();
}

void TrainingJob::set_slowdown(double slowdown) {
  if (!(slowdown >= 1.0)) throw std::logic_error("TrainingJob::set_slowdown: factor must be >= 1");
  if (slowdown == slowdown_) return;
  if (state_ != State::RUN) {
    slowdown_ = slowdown;
    return;
  }
  close_current();
  queue_->cancel(timer_);
  slowdown_ = slowdown;
  const auto wall = static_cast<sim::Tick>(std::ceil(static_cast<double>(remaining_) * slowdown_));
  timer_ = queue_->after(wall, [this] { start_checkpoint(); });
}

void TrainingJob::finish() {
  transition(State::DONE);
  add(JobTime::PRODUCTIVE, pending_productive_);
  add(JobTime::DEGRADED, pending_degraded_);
  add(JobTime::CHECKPOINT, pending_checkpoint_);
  pending_productive_ = pending_degraded_ = pending_checkpoint_ = 0;
  end_ = queue_->now();
}

} // namespace dcsim::workload
