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

void TrainingJob::event(std::string_view kind, std::string detail, sim::Tick at) {
  if (!log_->enabled()) return;
  log_->add({at < 0 ? queue_->now() : at, std::string(kind), spec_->name, "job", spec_->name, std::move(detail)});
}

sim::Tick TrainingJob::wall_of(sim::Tick progress) const {
  if (slowdown_ == 1.0) return progress;
  return static_cast<sim::Tick>(std::ceil(static_cast<double>(progress) * slowdown_));
}

void TrainingJob::run_phase(sim::Tick wall, sim::Tick& left) {
  // Progress rounds down, so a partial phase (wall < ⌈left·s⌉) never completes the phase early.
  sim::Tick progress = wall;
  if (slowdown_ != 1.0)
    progress = std::min(left, static_cast<sim::Tick>(std::floor(static_cast<double>(wall) / slowdown_)));
  pending_productive_ += progress;
  pending_degraded_ += wall - progress;
  left -= progress;
}

void TrainingJob::commit_checkpoint(sim::Tick at) {
  add(JobTime::PRODUCTIVE, pending_productive_);
  add(JobTime::DEGRADED, pending_degraded_);
  add(JobTime::CHECKPOINT, pending_checkpoint_);
  pending_productive_ = pending_degraded_ = pending_checkpoint_ = 0;
  ++checkpoints_;
  event("checkpoint", {}, at);
}

void TrainingJob::close_cycle(sim::Tick now) {
  // Phase arithmetic from the cycle's origin (see the header): the first write starts once the
  // remaining compute is done; after each write, a full interval of compute then another write.
  sim::Tick t = origin_;
  const sim::Tick write = timing_.write;
  bool first = true;
  for (;;) {
    if (remaining_ > 0) { // a run phase
      const sim::Tick need = wall_of(remaining_);
      if (now - t < need) {
        run_phase(now - t, remaining_);
        break;
      }
      run_phase(need, remaining_);
      remaining_ = 0;
      t += need;
    }
    // a write phase (possibly begun before the origin: pending_checkpoint_ of it is done)
    const sim::Tick left = write - pending_checkpoint_;
    if (now - t < left) {
      pending_checkpoint_ += now - t;
      break;
    }
    pending_checkpoint_ += left;
    t += left;
    commit_checkpoint(t);
    remaining_ = timing_.interval;
    if (first) {
      first = false;
      // Every further cycle is identical: skip the whole ones arithmetically.
      const sim::Tick period = wall_of(timing_.interval) + write;
      const sim::Tick cycles = (now - t) / period;
      if (cycles > 0) {
        const sim::Tick run_wall = wall_of(timing_.interval);
        const sim::Tick productive = timing_.interval; // a full phase of ⌈τ·s⌉ makes τ of progress
        for (sim::Tick k = 1; k <= cycles; ++k) {
          if (log_->enabled()) event("checkpoint", {}, t + k * period);
        }
        add(JobTime::PRODUCTIVE, cycles * productive);
        add(JobTime::DEGRADED, cycles * (run_wall - productive));
        add(JobTime::CHECKPOINT, cycles * write);
        checkpoints_ += static_cast<std::uint64_t>(cycles);
        t += cycles * period;
      }
    }
  }
  origin_ = now;
}

void TrainingJob::close_current() {
  const sim::Tick now = queue_->now();
  const sim::Tick dt = now - since_;
  switch (state_) {
  case State::CYCLE: close_cycle(now); break;
  case State::FINAL_WRITE: pending_checkpoint_ += dt; break;
  case State::STALL: pending_degraded_ += dt; break;
  case State::RESTART: add(JobTime::RESTART, dt); break;
  case State::DETECTION: add(JobTime::DETECTION, dt); break;
  case State::WAITING: add(JobTime::WAITING, dt); break;
  case State::MAINTENANCE: add(JobTime::MAINTENANCE, dt); break;
  case State::IDLE:
  case State::DONE: break;
  }
  since_ = now;
}

void TrainingJob::transition(State next) {
  close_current();
  queue_->cancel(timer_);
  const bool was_training = training();
  state_ = next;
  if (hooks_.training_changed && was_training != training()) hooks_.training_changed(training());
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
  timer_ = queue_->after(timing_.restart, [this] { begin_cycle(); });
}

void TrainingJob::begin_cycle() {
  if (stop_due()) { // after a restart nothing is pending: the planned stop can be taken at once
    begin_maintenance();
    return;
  }
  const bool restarted = state_ == State::RESTART;
  transition(State::CYCLE);
  origin_ = queue_->now();
  if (restarted) event("running");
}

void TrainingJob::planned_tick() {
  queue_->after(timing_.planned_every, [this] { planned_tick(); });
  planned_due_ = true;
  if (state_ == State::RESTART || state_ == State::WAITING) { // stopped, nothing to save: do it now
    begin_maintenance();
    return;
  }
  if (state_ == State::CYCLE) take_planned_stop(); // otherwise after detection (resume), the write, or the stall
}

void TrainingJob::take_planned_stop() {
  close_current();
  if (pending_work() == 0) {
    begin_maintenance(); // exactly at a checkpoint
    return;
  }
  // Write a checkpoint now (or finish the one in progress), then stop.
  transition(State::FINAL_WRITE);
  timer_ = queue_->after(timing_.write - pending_checkpoint_, [this] {
    close_current();
    commit_checkpoint(queue_->now());
    remaining_ = timing_.interval;
    begin_maintenance();
  });
}

void TrainingJob::begin_maintenance() {
  const bool periodic = planned_due_;
  planned_due_ = false;
  ++interruptions_planned_;
  transition(State::MAINTENANCE);
  event("planned_stop");
  // The periodic stop lasts planned_downtime; a hold lasts until released.
  if (periodic || holds_ == 0) timer_ = queue_->after(timing_.planned_downtime, [this] { resume(); });
  if (hooks_.stopped) hooks_.stopped();
}

void TrainingJob::resume() {
  if (!undetected_.empty()) {
    transition(State::DETECTION);
    return;
  }
  if (stop_due()) { // stopped at its last checkpoint anyway: do the planned work before restarting
    begin_maintenance();
    return;
  }
  if (holds_ > 0) return; // held: stays in maintenance until released
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
  case State::CYCLE:
  case State::FINAL_WRITE:
  case State::STALL:
  case State::RESTART: {
    transition(State::DETECTION);
    add(JobTime::REWORK, pending_work());
    pending_productive_ = pending_degraded_ = pending_checkpoint_ = 0;
    remaining_ = timing_.interval;
    ++interruptions_;
    ++interruptions_by_mode_[static_cast<std::size_t>(mode)];
    if (log_->enabled()) event("interruption", hooks_.cause_name(mode));
    break;
  }
  case State::WAITING: transition(State::DETECTION); break;
  case State::DETECTION:
  case State::MAINTENANCE:
  case State::IDLE:
  case State::DONE: break;
  }
}

void TrainingJob::hold() {
  ++holds_;
  switch (state_) {
  case State::MAINTENANCE:
    if (hooks_.stopped) hooks_.stopped();
    return;
  case State::RESTART:
  case State::WAITING: begin_maintenance(); return; // stopped, nothing to save
  case State::CYCLE: take_planned_stop(); return;
  case State::FINAL_WRITE: // stops when the write completes
  case State::STALL:       // at the end of the stall
  case State::DETECTION:   // once every failure is detected
  case State::IDLE:        // at its start
  case State::DONE: return;
  }
}

void TrainingJob::release() {
  if (holds_ == 0) throw std::logic_error("TrainingJob::release without a hold");
  if (--holds_ > 0) return;
  if (state_ == State::MAINTENANCE && !queue_->pending(timer_)) resume();
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
  if (state_ == State::CYCLE) close_current(); // progress so far at the old pace
  slowdown_ = slowdown;
}

void TrainingJob::stall(sim::Tick duration) {
  if (duration <= 0) return;
  const sim::Tick until = queue_->now() + duration;
  if (state_ == State::STALL) {
    if (until <= stall_until_) return;
    queue_->cancel(timer_);
  } else if (state_ == State::CYCLE) {
    transition(State::STALL);
  } else {
    return; // not running: nothing to stall
  }
  stall_until_ = until;
  timer_ = queue_->at(until, [this] {
    transition(State::CYCLE);
    origin_ = queue_->now();
    if (stop_due()) take_planned_stop();
  });
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
